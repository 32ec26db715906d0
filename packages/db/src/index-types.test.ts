/**
 * The table index options of a database (`indexType`, `partitionFilters`,
 * `metadataBlockSize`): flushes and compactions write the tables they ask for, the tables
 * are read back through gets, bounded scans both ways and a reopen, the OPTIONS file records
 * them as RocksDB does (`index_type`, `partition_filters`, `metadata_block_size`), and a
 * database whose tables mix index types reads them all.
 */
import { bytesToString, MemoryFileSystem } from "@shale/base";
import { IndexType, TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import type { DbOptions } from "./core/options.js";
import { readNewestOptions } from "./core/options-file.js";
import { DB } from "./db.js";

function tableIndexTypes(fs: MemoryFileSystem, dir: string) {
  return fs
    .list(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => {
      const path = `${dir}/${f}`;
      const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
      const p = reader.properties;
      reader.close();
      return [p.indexType, p.indexPartitions] as const;
    });
}

const key = (i: number) => `key${String(i).padStart(6, "0")}`;

async function fill(db: DB, from: number, to: number, tag: string): Promise<void> {
  for (let i = from; i < to; i++) db.put(key(i), `${tag}-${i}-${"v".repeat(i % 30)}`);
  await db.flush();
}

function check(db: DB, model: Map<string, string>): void {
  for (const [k, v] of model) expect(bytesToString(db.get(k)!)).toBe(v);
  expect(db.get("key-absent")).toBeUndefined();
  const keys = [...model.keys()].sort();
  const lo = keys[Math.floor(keys.length / 3)]!;
  const hi = keys[Math.floor((2 * keys.length) / 3)]!;
  const want = keys.filter((k) => k >= lo && k < hi);
  for (const reverse of [false, true]) {
    const got: string[] = [];
    const it = db.iterator({ gte: lo, lt: hi, reverse });
    for (const [k] of it) got.push(bytesToString(k));
    expect(got).toEqual(reverse ? [...want].reverse() : want);
  }
}

describe("table index options", () => {
  const cases: [string, DbOptions, number][] = [
    [
      "twoLevelIndex + partitionFilters",
      { indexType: "twoLevelIndex", partitionFilters: true, metadataBlockSize: 128 },
      IndexType.TwoLevelIndexSearch,
    ],
    [
      "twoLevelIndex",
      { indexType: "twoLevelIndex", metadataBlockSize: 64 },
      IndexType.TwoLevelIndexSearch,
    ],
    [
      "binarySearchWithFirstKey",
      { indexType: "binarySearchWithFirstKey" },
      IndexType.BinarySearchWithFirstKey,
    ],
  ];
  for (const [name, options, type] of cases) {
    it(`${name}: flush, compaction, reads, reopen, OPTIONS`, async () => {
      const fs = new MemoryFileSystem();
      const dir = "/db";
      const model = new Map<string, string>();
      let db = await DB.open(dir, { fs, blockSize: 256, ...options });
      await fill(db, 0, 2000, "a");
      await fill(db, 1000, 3000, "b");
      for (let i = 0; i < 3000; i++)
        model.set(key(i), `${i < 1000 ? "a" : "b"}-${i}-${"v".repeat(i % 30)}`);
      check(db, model);
      await db.compactRange();
      check(db, model);
      await db.close();
      const types = tableIndexTypes(fs, dir);
      expect(types.length).toBeGreaterThan(0);
      for (const [t, partitions] of types) {
        expect(t).toBe(type);
        if (type === IndexType.TwoLevelIndexSearch) expect(partitions).toBeGreaterThan(1);
      }
      const table = readNewestOptions(fs, dir)!.sections.find(
        (s) => s.title === 'TableOptions/BlockBasedTable "default"',
      )!.entries;
      expect(table.get("index_type")).toBe(
        { 2: "kTwoLevelIndexSearch", 3: "kBinarySearchWithFirstKey" }[type],
      );
      expect(table.get("partition_filters")).toBe(String(options.partitionFilters ?? false));
      expect(table.get("metadata_block_size")).toBe(String(options.metadataBlockSize ?? 4096));
      // Reopened with the default index: the old tables read, new ones are one-block.
      db = await DB.open(dir, { fs, blockSize: 256 });
      check(db, model);
      await fill(db, 2500, 2600, "c");
      for (let i = 2500; i < 2600; i++) model.set(key(i), `c-${i}-${"v".repeat(i % 30)}`);
      check(db, model);
      await db.close();
      expect(tableIndexTypes(fs, dir).map(([t]) => t)).toContain(IndexType.BinarySearch);
    });
  }

  it("partitionFilters without twoLevelIndex is InvalidArgument naming both", async () => {
    const fs = new MemoryFileSystem();
    await expect(DB.open("/db", { fs, partitionFilters: true })).rejects.toMatchObject({
      code: "InvalidArgument",
      message: expect.stringMatching(/partitionFilters requires options\.indexType/),
    });
  });
});
