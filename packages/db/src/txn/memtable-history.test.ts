/**
 * Flushed memtables kept for conflict checks (`maxWriteBufferSizeToMaintain`, RocksDB's
 * max_write_buffer_size_to_maintain): an optimistic commit after a flush is decided from
 * them (commit or Busy) instead of TryAgain; without the option it is TryAgain; the kept
 * memtables are trimmed to the size; reads never see them; per column family.
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));

const opened: DB[] = [];
async function newDB(options: DbOptions = {}): Promise<DB> {
  const db = await DB.open("/db", { fs: new MemoryFileSystem(), ...options });
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isShaleError(e) ? e.code : String(e);
  }
  return undefined;
}

const MiB = 1024 * 1024;

describe("maxWriteBufferSizeToMaintain", () => {
  it("a commit after a flush succeeds with the option, is TryAgain without", async () => {
    for (const maintain of [0, 64 * MiB]) {
      const db = await newDB({ maxWriteBufferSizeToMaintain: maintain });
      db.put("a", "1");
      const txn = db.beginTransaction({ snapshot: true });
      txn.put("a", "2");
      db.put("b", "x"); // a write after the snapshot, of another key
      await db.flush();
      if (maintain === 0) {
        expect(code(() => txn.commit())).toBe("TryAgain");
        expect(str(db.get("a"))).toBe("1");
      } else {
        txn.commit();
        expect(str(db.get("a"))).toBe("2");
      }
    }
  });

  it("a conflict in a kept memtable is Busy, not TryAgain", async () => {
    const db = await newDB({ maxWriteBufferSizeToMaintain: 64 * MiB });
    db.put("a", "1");
    const txn = db.beginTransaction({ snapshot: true });
    txn.getForUpdate("a");
    txn.put("b", "t");
    db.put("a", "other"); // conflicts
    await db.flush();
    db.put("c", "later");
    await db.flush(); // two flushes: the conflicting write is in the older kept memtable
    expect(code(() => txn.commit())).toBe("Busy");
    expect(db.get("b")).toBeUndefined();
    // a range deletion in a kept memtable conflicts too
    const t2 = db.beginTransaction({ snapshot: true });
    t2.put("k", "t2");
    db.deleteRange("j", "l");
    await db.flush();
    expect(code(() => t2.commit())).toBe("Busy");
  });

  it("reads do not see kept memtables: a key deleted and compacted away stays deleted", async () => {
    const db = await newDB({ maxWriteBufferSizeToMaintain: 64 * MiB });
    db.put("a", "1");
    await db.flush();
    db.delete("a");
    await db.flush();
    await db.compactRange();
    expect(db.get("a")).toBeUndefined();
    const it = db.iterator();
    it.seekToFirst();
    expect(it.valid()).toBe(false);
    it.close();
  });

  it("kept memtables are trimmed to the size: an old enough tracking is TryAgain again", async () => {
    // 64 KiB memtables, 128 KiB to maintain: a few memtables back at most
    const db = await newDB({
      writeBufferSize: 64 * 1024,
      maxWriteBufferSizeToMaintain: 128 * 1024,
    });
    db.put("a", "1");
    const old = db.beginTransaction({ snapshot: true });
    old.put("a", "old");
    const value = "v".repeat(1000);
    for (let i = 0; i < 2000; i++) db.put(`k${i}`, value); // ~2 MB: many memtables switched
    await db.waitForCompactions();
    const recent = db.beginTransaction({ snapshot: true });
    recent.put("a", "recent");
    db.put("z", "x");
    await db.flush();
    expect(code(() => old.commit())).toBe("TryAgain");
    recent.commit();
    expect(str(db.get("a"))).toBe("recent");
  });

  it("is a column family option, and -1 means maxWriteBufferNumber * writeBufferSize", async () => {
    const db = await newDB({
      columnFamilies: { kept: { maxWriteBufferSizeToMaintain: -1 } },
      createMissingColumnFamilies: true,
    });
    const kept = db.columnFamily("kept");
    for (const family of [undefined, kept]) {
      const store = family ?? db;
      store.put("a", "1");
      const txn = db.beginTransaction({ snapshot: true });
      if (family === undefined) txn.put("a", "2");
      else txn.put("a", "2", family);
      store.put("b", "x");
      await store.flush();
      expect(code(() => txn.commit())).toBe(family === undefined ? "TryAgain" : undefined);
    }
    expect(str(kept.get("a"))).toBe("2");
  });

  it("bad values are rejected", async () => {
    await expect(newDB({ maxWriteBufferSizeToMaintain: -2 })).rejects.toThrow(
      /maxWriteBufferSizeToMaintain/,
    );
    await expect(newDB({ maxWriteBufferSizeToMaintain: "1" as unknown as number })).rejects.toThrow(
      TypeError,
    );
  });
});
