/**
 * repair() on RocksDB-written databases (testdata/rocksdb/) whose MANIFEST and CURRENT were
 * deleted: shale's scan of the repaired directory is the fixture's expected.jsonl, and —
 * where RocksDB's tools are on the PATH — so is `ldb scan` of it (the rebuilt MANIFEST is
 * RocksDB's).
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  copyFixture,
  expectedEntries,
  ldbScan,
  missingToolsReason,
  shaleScan,
  tempDir,
} from "../interop/interop.test-support.js";
import { repair } from "./repair.js";

const tmp = tempDir("repair");
afterAll(() => tmp.remove());
const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`ldb checks skipped: ${toolsMissing}`);

const FIXTURES: [name: string, mergeOperator?: "uint64add"][] = [
  ["fillrandom"],
  ["put-delete"],
  ["delete-range"],
  ["merge-uint64add", "uint64add"],
  ["column-families"],
];

describe("repair() of RocksDB directories without MANIFEST and CURRENT", () => {
  it.each(FIXTURES)("%s", async (fixture, mergeOperator) => {
    const dir = copyFixture(fixture, tmp.path);
    for (const name of readdirSync(dir))
      if (name === "CURRENT" || name.startsWith("MANIFEST-")) rmSync(join(dir, name));
    const options = mergeOperator !== undefined ? { mergeOperator } : {};
    const report = await repair(dir, options);
    if (fixture === "column-families") {
      // cf1's and cf2's tables are left out (and kept in lost/); default's keys are all there.
      expect(report.dropped).toEqual([
        { file: expect.stringMatching(/\.sst$/), reason: expect.stringMatching(/column family 1/) },
        { file: expect.stringMatching(/\.sst$/), reason: expect.stringMatching(/column family 2/) },
      ]);
    } else {
      expect(report.dropped).toEqual([]);
    }
    const expected = expectedEntries(fixture);
    const db = await DB.open(dir, { ...options, createIfMissing: false });
    expect(shaleScan(db)).toEqual(expected);
    await db.close();
    if (toolsMissing === undefined && fixture !== "column-families")
      expect(ldbScan(dir)).toEqual(expected);
  });
});
