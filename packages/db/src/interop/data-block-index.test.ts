/**
 * The data block hash index between shale and RocksDB 7.8.3's ldb:
 * - a database shale wrote with `dataBlockIndexType: "binaryAndHash"` scans in ldb, every key
 *   as shale wrote it;
 * - ldb, loading that database's OPTIONS file (`--try_load_options`: RocksDB reads
 *   `data_block_index_type=kDataBlockBinaryAndHash`), compacts it: the tables RocksDB writes
 *   carry the hash index in their data blocks, and shale reads every key from them.
 * Skipped, with the reason printed, when the RocksDB tools are not on the PATH.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { TableReader, tableIndexEntries } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  filesEnding,
  ldbScan,
  missingToolsReason,
  mustRun,
  tempDir,
} from "./interop.test-support.js";

const reason = missingToolsReason();
if (reason !== undefined) console.log(`interop/data-block-index.test.ts skipped: ${reason}`);

const fs = new NodeFileSystem();
const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const hex = (s: string) => Buffer.from(s).toString("hex");
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const tmp = tempDir("hash-index");
afterAll(() => tmp.remove());

/** [data blocks with the hash index's footer bit, data blocks] over the tables of `dir` (uncompressed). */
function hashedBlocks(dir: string): [number, number] {
  let hashed = 0;
  let blocks = 0;
  for (const name of filesEnding(dir, ".sst")) {
    const path = join(dir, name);
    const bytes = readFileSync(path);
    const reader = TableReader.open(fs.openRandomAccess(path));
    for (const e of tableIndexEntries(reader)) {
      blocks++;
      if ((bytes[e.handle.offset + e.handle.size - 1]! & 0x80) !== 0) hashed++;
    }
    reader.close();
  }
  return [hashed, blocks];
}

describe.skipIf(reason !== undefined)("data block hash index with RocksDB's ldb", () => {
  it("ldb scans shale's database; RocksDB's compaction writes the index, shale reads it", async () => {
    const dir = join(tmp.path, "db");
    const db = await DB.open(dir, {
      compression: "none",
      blockSize: 1024,
      dataBlockIndexType: "binaryAndHash",
    });
    for (let i = 0; i < 2000; i++) db.put(key(i), `value-${i}`);
    await db.flush();
    await db.close();
    const [mine, myBlocks] = hashedBlocks(dir);
    expect(myBlocks).toBeGreaterThan(5);
    expect(mine).toBe(myBlocks);

    const scanned = ldbScan(dir);
    expect(scanned.length).toBe(2000);
    expect(scanned[7]).toEqual({ key: hex(key(7)), value: hex("value-7") });

    // RocksDB writes: more keys, then a full compaction, with the OPTIONS file's table options.
    mustRun("ldb", [`--db=${dir}`, "--try_load_options", "put", "zzz-rocksdb", "written-by-ldb"]);
    mustRun("ldb", [`--db=${dir}`, "--try_load_options", "compact"]);
    const [theirs, theirBlocks] = hashedBlocks(dir);
    expect(theirBlocks).toBeGreaterThan(5);
    expect(theirs).toBe(theirBlocks);

    const again = await DB.open(dir, { compression: "none" });
    for (let i = 0; i < 2000; i++) expect(dec(again.get(key(i)))).toBe(`value-${i}`);
    expect(dec(again.get("zzz-rocksdb"))).toBe("written-by-ldb");
    expect(again.get("key002000")).toBeUndefined();
    expect(again.getMany([key(3), "absent", key(1999)]).map(dec)).toEqual([
      "value-3",
      undefined,
      "value-1999",
    ]);
    await again.close();
  });
});
