/**
 * `blockRestartInterval` (RocksDB's block_restart_interval): the tables a flush and a
 * compaction write use it (interval 1 stores every key whole: larger data blocks than 16),
 * every read path reads them, the OPTIONS file records it, and a column family has its own.
 */
import { MemoryFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { readNewestOptions } from "./options-file.js";

const key = (i: number) => `user-key-${String(i).padStart(6, "0")}`;
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** The data bytes of the family's live tables (from their properties). */
function dataBytes(fs: MemoryFileSystem, db: DB, family: number): number {
  let total = 0;
  for (const t of db.getLiveFiles().tables) {
    if (t.columnFamily !== family) continue;
    const path = `/db/${t.name}`;
    const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
    total += reader.properties.dataSize;
    reader.close();
  }
  return total;
}

async function fillAndRead(db: DB | ReturnType<DB["columnFamily"]>): Promise<void> {
  for (let i = 0; i < 600; i++) db.put(key(i), `value-${i}`);
  await db.flush();
  await db.compactRange();
  for (let i = 0; i < 600; i += 7) expect(dec(db.get(key(i)))).toBe(`value-${i}`);
  expect(db.get("user-key-")).toBeUndefined();
  const it = db.iterator();
  it.seek(key(300));
  expect(dec(it.key())).toBe(key(300));
  it.prev();
  expect(dec(it.key())).toBe(key(299));
  it.seekForPrev(`${key(450)}~`);
  expect(dec(it.key())).toBe(key(450));
  it.close();
  expect([...db.iterator({ reverse: true })].length).toBe(600);
}

describe("blockRestartInterval", () => {
  it("interval 1 writes larger data blocks than 16, and both read back", async () => {
    const sizes: number[] = [];
    for (const interval of [1, 16]) {
      const fs = new MemoryFileSystem();
      const db = await DB.open("/db", { fs, compression: "none", blockRestartInterval: interval });
      await fillAndRead(db);
      sizes.push(dataBytes(fs, db, 0));
      await db.close();
      const table = readNewestOptions(fs, "/db")!.sections.find(
        (s) => s.title === 'TableOptions/BlockBasedTable "default"',
      )!.entries;
      expect(table.get("block_restart_interval")).toBe(String(interval));
    }
    // Every key whole ("user-key-000123" and its value) against 1 in 16 whole.
    expect(sizes[0]).toBeGreaterThan(sizes[1]! * 1.3);
  });

  it("a column family has its own interval", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, compression: "none", blockRestartInterval: 16 });
    const cf = await db.createColumnFamily("whole", { blockRestartInterval: 1 });
    await fillAndRead(db);
    await fillAndRead(cf);
    const id = db.getLiveFiles().tables.find((t) => t.columnFamily !== 0)!.columnFamily;
    expect(dataBytes(fs, db, id)).toBeGreaterThan(dataBytes(fs, db, 0) * 1.3);
    await db.close();
    const sections = readNewestOptions(fs, "/db")!.sections;
    const whole = sections.find((s) => s.title === 'TableOptions/BlockBasedTable "whole"');
    expect(whole!.entries.get("block_restart_interval")).toBe("1");
  });

  it("refuses an interval below 1 (InvalidArgument) and a non-number (TypeError)", async () => {
    const fs = new MemoryFileSystem();
    await expect(DB.open("/db", { fs, blockRestartInterval: 0 })).rejects.toMatchObject({
      code: "InvalidArgument",
    });
    await expect(
      DB.open("/db", { fs, blockRestartInterval: "16" as unknown as number }),
    ).rejects.toThrow(TypeError);
  });
});
