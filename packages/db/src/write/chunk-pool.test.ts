import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";

const tmp = mkdtempSync(join(tmpdir(), "shale-chunk-pool-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const key = (round: number, i: number) =>
  `r${String(round).padStart(3, "0")}-${String(i).padStart(5, "0")}`;
const value = (round: number, i: number) => `${round}/${i}/`.padEnd(300, "v");
const num = (db: DB, name: string) => Number(db.getProperty(name));
/** Lets the event loop turn `n` times (an inline flush runs and installs meanwhile). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe("memtable chunk reuse", () => {
  it("flushed memtables' chunks are reused: fresh allocations stay bounded over many flushes", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), writeBufferSize: 64 * 1024 });
    for (let round = 0; round < 24; round++) {
      for (let i = 0; i < 300; i++) db.put(key(round, i), value(round, i));
      await db.flush();
    }
    // Each memtable takes about 3 chunks (1 of entries, 2 of nodes); without reuse that is
    // ~75 new ones. With it: the live memtables' and one memtable's worth in the pool.
    expect(num(db, "shale.memtable-chunks-allocated")).toBeLessThanOrEqual(12);
    expect(num(db, "shale.memtable-chunks-reused")).toBeGreaterThanOrEqual(24 * 2);
    expect(num(db, "shale.memtable-chunk-pool-bytes")).toBeGreaterThan(0);
    for (let round = 0; round < 24; round += 5)
      expect(dec(db.get(key(round, 7)))).toBe(value(round, 7));
    await db.close();
  });

  it("also with flushes in a worker thread (the worker has replied before reuse)", async () => {
    const db = await DB.open(join(tmp, "worker"), { writeBufferSize: 64 * 1024 });
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 300; i++) db.put(key(round, i), value(round, i));
      await db.flush();
    }
    expect(num(db, "shale.memtable-chunks-allocated")).toBeLessThanOrEqual(12);
    expect(num(db, "shale.memtable-chunks-reused")).toBeGreaterThanOrEqual(12 * 2);
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 300; i += 37) expect(dec(db.get(key(round, i)))).toBe(value(round, i));
    }
    await db.close();
  });

  it("an iterator opened before a flush keeps its memtable's bytes while chunks are reused", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 150; i++) db.put(key(0, i), value(0, i));
    const it = db.iterator();
    it.seek(key(0, 40));
    const view = it.value();
    await db.flush(); // the memtable is on disk: only the iterator holds it now
    for (let round = 1; round < 12; round++) {
      for (let i = 0; i < 300; i++) db.put(key(round, i), value(round, i));
      await db.flush();
    }
    expect(num(db, "shale.memtable-chunks-reused")).toBeGreaterThan(10);
    // The view (valid until the iterator moves) and every later entry are intact.
    expect(dec(view)).toBe(value(0, 40));
    let i = 40;
    for (; it.valid() && i < 150; it.next(), i++) {
      expect(dec(it.key())).toBe(key(0, i));
      expect(dec(it.value())).toBe(value(0, i));
    }
    expect(i).toBe(150);
    it.close();
    await db.close();
  });

  it("a getView view passed to the next call survives a flush installed in between", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, writeBufferSize: 1 << 20 });
    // Chunks in the pool from earlier memtables, so the next memtable reuses at once.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) db.put(key(round, i), value(round, i));
      await db.flush();
    }
    for (let i = 0; i < 200; i++) db.put(key(9, i), value(9, i));
    const tables = fs.list("/db").filter((n) => n.endsWith(".sst")).length;
    await db.flush({ wait: false }); // switched: round 9's memtable is queued for its flush
    const v = db.getView(key(9, 123))!; // a view into that memtable
    await turns(20); // the (inline) flush ran and was installed: the memtable was released
    expect(fs.list("/db").filter((n) => n.endsWith(".sst")).length).toBe(tables + 1);
    // The next call takes the view as its argument: its chunk must not be reused (or, in the
    // invariants mode, poisoned) before the value is copied in.
    db.put("copy", v);
    expect(dec(db.get("copy"))).toBe(value(9, 123));
    for (let i = 0; i < 2000; i++) db.put(key(11, i), value(11, i));
    expect(dec(db.get("copy"))).toBe(value(9, 123));
    expect(db.getProperty("shale.num-immutable-mem-table")).toBe("0");
    await db.close();
  });
  // A closed database's chunks becoming spare (ChunkPool.retire) is tested in @shale/memtable's
  // chunk-pool.test.ts: here the GC may collect them (they are weakly held) before they are
  // taken, which is their design, and would make the test flaky.
});
