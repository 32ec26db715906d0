/**
 * repair() on RocksDB-written databases (testdata/rocksdb/) whose MANIFEST and CURRENT were
 * deleted: shale's scan of the repaired directory is the fixture's expected.jsonl (every
 * column family's, for the fixture with three), and — where RocksDB's tools are on the PATH —
 * so is `ldb scan` of it (the rebuilt MANIFEST is RocksDB's).
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
    expect(report.dropped).toEqual([]);
    const families = fixture === "column-families" ? ["default", "cf1", "cf2"] : ["default"];
    const expected = (cf: string) =>
      expectedEntries(fixture, cf === "default" ? "expected.jsonl" : `expected-${cf}.jsonl`);
    const db = await DB.open(dir, { ...options, createIfMissing: false });
    expect(db.listColumnFamilies()).toEqual(families);
    for (const cf of families) expect(shaleScan(db.columnFamily(cf)), cf).toEqual(expected(cf));
    await db.close();
    if (toolsMissing === undefined)
      for (const cf of families) expect(ldbScan(dir, cf), `ldb ${cf}`).toEqual(expected(cf));
  });
});
