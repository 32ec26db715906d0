/**
 * `dataBlockIndexType` / `dataBlockHashTableUtilRatio` (RocksDB's data_block_index_type and
 * data_block_hash_table_util_ratio): flushes and compactions write the data block hash index
 * with them, per column family; every read path reads the tables; the OPTIONS file records
 * them under RocksDB's names and a reopen without them keeps them; bad values are refused.
 */
import { type Comparator, MemoryFileSystem, reverseBytewiseComparator } from "@shale/base";
import { TableReader, tableIndexEntries } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { recordedDataBlockIndex } from "./data-block-index-option.js";
import { parseOptionsFile, readNewestOptions } from "./options-file.js";

const key = (i: number) => `user-key-${String(i).padStart(6, "0")}`;
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** Per live table of family `family`: how many of its data blocks carry a hash index, of how many. */
function hashedBlocks(
  fs: MemoryFileSystem,
  db: DB,
  family: number,
  comparator?: Comparator,
): [number, number] {
  let hashed = 0;
  let blocks = 0;
  for (const t of db.getLiveFiles().tables) {
    if (t.columnFamily !== family) continue;
    const path = `/db/${t.name}`;
    const bytes = fs.readFile(path);
    const reader = TableReader.open(fs.openRandomAccess(path), {
      fileSize: fs.fileSize(path),
      ...(comparator !== undefined ? { comparator } : {}),
    });
    for (const e of tableIndexEntries(reader)) {
      blocks++;
      // Uncompressed: the footer's high bit is the last byte's (fixed32 LE).
      if ((bytes[e.handle.offset + e.handle.size - 1]! & 0x80) !== 0) hashed++;
    }
    reader.close();
  }
  return [hashed, blocks];
}

async function fillAndRead(db: DB | ReturnType<DB["columnFamily"]>): Promise<void> {
  for (let i = 0; i < 600; i++) db.put(key(i), `value-${i}`);
  for (let i = 0; i < 600; i += 5) db.delete(key(i));
  await db.flush();
  await db.compactRange();
  for (let i = 0; i < 600; i++)
    expect(dec(db.get(key(i)))).toBe(i % 5 === 0 ? undefined : `value-${i}`);
  expect(db.get("user-key-")).toBeUndefined();
  expect(db.get("user-key-999999")).toBeUndefined();
  expect(db.getMany([key(1), key(5), key(599), "zzz"]).map(dec)).toEqual([
    "value-1",
    undefined,
    "value-599",
    undefined,
  ]);
  const it = db.iterator();
  it.seek(key(300));
  expect(dec(it.key())).toBe(key(301));
  it.close();
}

function tableSection(fs: MemoryFileSystem, family: string): Map<string, string> {
  return readNewestOptions(fs, "/db")!.sections.find(
    (s) => s.title === `TableOptions/BlockBasedTable "${family}"`,
  )!.entries;
}

describe("dataBlockIndexType", () => {
  it('"binaryAndHash" writes a hash index in every data block; reads answer as without', async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      compression: "none",
      blockSize: 512,
      dataBlockIndexType: "binaryAndHash",
      dataBlockHashTableUtilRatio: 0.5,
    });
    await fillAndRead(db);
    const [hashed, blocks] = hashedBlocks(fs, db, 0);
    expect(blocks).toBeGreaterThan(5);
    expect(hashed).toBe(blocks);
    await db.close();
    const table = tableSection(fs, "default");
    expect(table.get("data_block_index_type")).toBe("kDataBlockBinaryAndHash");
    expect(table.get("data_block_hash_table_util_ratio")).toBe("0.500000");
  });

  it('defaults to "binarySearch" (no hash index) and records RocksDB\'s defaults', async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, compression: "none", blockSize: 512 });
    await fillAndRead(db);
    expect(hashedBlocks(fs, db, 0)[0]).toBe(0);
    await db.close();
    const table = tableSection(fs, "default");
    expect(table.get("data_block_index_type")).toBe("kDataBlockBinarySearch");
    expect(table.get("data_block_hash_table_util_ratio")).toBe("0.750000");
  });

  it("a column family has its own, and a reopen without the option keeps the recorded one", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, compression: "none", blockSize: 512 });
    const cf = await db.createColumnFamily("hashed", { dataBlockIndexType: "binaryAndHash" });
    await fillAndRead(db);
    await fillAndRead(cf);
    const id = db.getLiveFiles().tables.find((t) => t.columnFamily !== 0)!.columnFamily;
    const [hashed, blocks] = hashedBlocks(fs, db, id);
    expect(hashed).toBe(blocks);
    expect(hashedBlocks(fs, db, 0)[0]).toBe(0);
    await db.close();
    expect(tableSection(fs, "hashed").get("data_block_index_type")).toBe("kDataBlockBinaryAndHash");
    // Reopened without the option: the family keeps writing the hash index.
    const again = await DB.open("/db", {
      fs,
      compression: "none",
      blockSize: 512,
      columnFamilies: { hashed: {} },
    });
    const family = again.columnFamily("hashed");
    for (let i = 0; i < 600; i++) family.put(key(i), `again-${i}`);
    await family.flush();
    await family.compactRange();
    const [h2, b2] = hashedBlocks(fs, again, id);
    expect(h2).toBe(b2);
    expect(dec(family.get(key(7)))).toBe("again-7");
    await again.close();
    expect(tableSection(fs, "hashed").get("data_block_index_type")).toBe("kDataBlockBinaryAndHash");
    expect(tableSection(fs, "default").get("data_block_index_type")).toBe("kDataBlockBinarySearch");
  });

  it("writes none with a comparator whose keys are not hashed (RocksDB's rule), reverse bytewise aside", async () => {
    const custom = {
      name: "test.CaseInsensitive",
      compare: (a: Uint8Array, b: Uint8Array) =>
        Buffer.compare(Buffer.from(a).map(lower), Buffer.from(b).map(lower)),
      findShortestSeparator: (a: Uint8Array) => a,
      findShortSuccessor: (a: Uint8Array) => a,
    };
    for (const [comparator, expectHash] of [
      [custom, false],
      [reverseBytewiseComparator, true],
    ] as const) {
      const fs = new MemoryFileSystem();
      const db = await DB.open("/db", {
        fs,
        comparator,
        compression: "none",
        blockSize: 512,
        dataBlockIndexType: "binaryAndHash",
      });
      for (let i = 0; i < 300; i++) db.put(key(i), `value-${i}`);
      await db.flush();
      const [hashed, blocks] = hashedBlocks(fs, db, 0, comparator);
      expect(hashed, comparator.name).toBe(expectHash ? blocks : 0);
      for (let i = 0; i < 300; i += 3) expect(dec(db.get(key(i)))).toBe(`value-${i}`);
      await db.close();
    }
  });

  it("refuses bad values: TypeError for a wrong type, InvalidArgument for a bad value", async () => {
    const fs = new MemoryFileSystem();
    const open = (o: Record<string, unknown>) => DB.open("/db", { fs, ...o });
    await expect(open({ dataBlockIndexType: 1 })).rejects.toThrow(TypeError);
    await expect(open({ dataBlockIndexType: "hash" })).rejects.toMatchObject({
      code: "InvalidArgument",
    });
    await expect(open({ dataBlockHashTableUtilRatio: "0.75" })).rejects.toThrow(TypeError);
    for (const ratio of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(open({ dataBlockHashTableUtilRatio: ratio })).rejects.toMatchObject({
        code: "InvalidArgument",
      });
    }
    expect(fs.exists("/db/CURRENT")).toBe(false);
    await expect(
      open({
        createMissingColumnFamilies: true,
        columnFamilies: { c: { dataBlockIndexType: "x" } },
      }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
  });
});

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 32 : c;
}

describe("recordedDataBlockIndex (RocksDB's OPTIONS file)", () => {
  const file = (body: string) =>
    parseOptionsFile(
      `[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n\n[CFOptions "default"]\n  comparator=leveldb.BytewiseComparator\n\n[TableOptions/BlockBasedTable "default"]\n${body}`,
      "OPTIONS-000007",
    );

  it("reads RocksDB's names, and a ratio <= 0 as 0.75", () => {
    expect(
      recordedDataBlockIndex(
        file(
          "  data_block_index_type=kDataBlockBinaryAndHash\n  data_block_hash_table_util_ratio=0.600000\n",
        ),
        "default",
        "OPTIONS-000007",
      ),
    ).toEqual({ dataBlockIndexType: "binaryAndHash", dataBlockHashTableUtilRatio: 0.6 });
    expect(
      recordedDataBlockIndex(
        file(
          "  data_block_index_type=kDataBlockBinarySearch\n  data_block_hash_table_util_ratio=0.000000\n",
        ),
        "default",
        "OPTIONS-000007",
      ),
    ).toEqual({ dataBlockIndexType: "binarySearch", dataBlockHashTableUtilRatio: 0.75 });
    expect(recordedDataBlockIndex(file(""), "default", "OPTIONS-000007")).toEqual({
      dataBlockIndexType: undefined,
      dataBlockHashTableUtilRatio: undefined,
    });
  });

  it("reads an unknown type or a ratio that is not a number as Corruption naming the file", () => {
    for (const body of [
      "  data_block_index_type=kDataBlockHashOnly\n",
      "  data_block_hash_table_util_ratio=lots\n",
    ]) {
      expect(() => recordedDataBlockIndex(file(body), "default", "OPTIONS-000007")).toThrow(
        expect.objectContaining({
          code: "Corruption",
          message: expect.stringMatching(/OPTIONS-000007|data_block/),
        }),
      );
    }
  });
});
