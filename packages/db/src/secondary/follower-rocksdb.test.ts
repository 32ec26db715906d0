/**
 * Read-only and secondary opens of RocksDB-written databases (testdata/rocksdb/): each sees
 * the fixture's expected contents (tables and WALs, range deletions, merges, every column
 * family of a database with three) and leaves the directory exactly as it was.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  copyFixture,
  expectedEntries,
  shaleReverseScan,
  shaleScan,
  tempDir,
} from "../interop/interop.test-support.js";

const tmp = tempDir("follower");
afterAll(() => tmp.remove());

const FIXTURES: [name: string, mergeOperator?: "uint64add"][] = [
  ["fillrandom"],
  ["put-delete"],
  ["delete-range"],
  ["merge-uint64add", "uint64add"],
  ["column-families"],
];

const snapshot = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n !== "secondaries")
    .sort()
    .map((n) => [n, readFileSync(join(dir, n)).toString("hex")]);

describe("read-only and secondary opens of RocksDB directories", () => {
  it.each(FIXTURES)("%s", async (fixture, mergeOperator) => {
    const dir = copyFixture(fixture, tmp.path);
    const before = snapshot(dir);
    const options = mergeOperator !== undefined ? { mergeOperator } : {};
    const expected = expectedEntries(fixture);
    const ro = await DB.open(dir, { ...options, readOnly: true });
    expect(shaleScan(ro)).toEqual(expected);
    expect(shaleReverseScan(ro)).toEqual([...expected].reverse());
    await ro.close();
    const secondary = await DB.openAsSecondary(dir, undefined, options);
    expect(shaleScan(secondary)).toEqual(expected);
    secondary.tryCatchUpWithPrimary();
    expect(shaleScan(secondary)).toEqual(expected);
    await secondary.close();
    expect(snapshot(dir)).toEqual(before);
  });

  it("column-families: every family reads as RocksDB wrote it (cf2's batch from the WAL)", async () => {
    const dir = copyFixture("column-families", tmp.path);
    const before = snapshot(dir);
    const families = ["default", "cf1", "cf2"];
    const expected = (cf: string) =>
      expectedEntries(
        "column-families",
        cf === "default" ? "expected.jsonl" : `expected-${cf}.jsonl`,
      );
    const ro = await DB.open(dir, { readOnly: true });
    const secondary = await DB.openAsSecondary(dir);
    secondary.tryCatchUpWithPrimary();
    for (const db of [ro, secondary]) {
      expect(db.listColumnFamilies()).toEqual(families);
      for (const cf of families) {
        const h = db.columnFamily(cf);
        expect(shaleScan(h), `${db.role} ${cf}`).toEqual(expected(cf));
        expect(shaleReverseScan(h), `${db.role} ${cf}`).toEqual([...expected(cf)].reverse());
      }
      expect(Buffer.from(db.columnFamily("cf2").get("cf2-wal1")!).toString()).toBe("in-the-wal");
    }
    await ro.close();
    await secondary.close();
    expect(snapshot(dir)).toEqual(before);
  });
});
