/**
 * A flush of one column family, then a power cut: the flushed table is durable, so every
 * write before the flushed ones — to any family, still only in unsynced WALs — must be
 * too, or the recovered state is not a prefix of the writes (RocksDB syncs the closed WALs
 * before such a flush, SyncClosedLogs, when there is more than one family). With one
 * family nothing is synced early: its unflushed writes may go, as before.
 */
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

async function powerCut(fs: FaultInjectionFileSystem, db: DB): Promise<void> {
  fs.setFilesystemActive(false);
  await db.close().catch(() => undefined);
  fs.dropUnsyncedData();
  fs.clearFaults();
  fs.setFilesystemActive(true);
}

describe("power cut after a column family's flush", () => {
  it("keeps the other families' earlier writes (the recovered state is a prefix)", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const options = { fs, mergeOperator: "stringappend" as const };
    let db = await DB.open("/db", options);
    const cf = await db.createColumnFamily("cf1");
    db.put("a", "1");
    cf.put("b", "2", { sync: true });
    db.put("a", "4"); // unsynced, in the WAL only
    cf.merge("b", "m5"); // after it
    await cf.flush(); // cf1's table holds m5
    await powerCut(fs, db);
    db = await DB.open("/db", options);
    try {
      expect(str(db.columnFamily("cf1").get("b"))).toBe("2,m5");
      // m5 survived in a table, so the write before it must have survived too.
      expect(str(db.get("a"))).toBe("4");
    } finally {
      await db.close();
    }
  });

  it("with one family, unsynced writes after the flush still go in a power cut", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    let db = await DB.open("/db", { fs });
    db.put("a", "1", { sync: true });
    db.put("b", "2");
    await db.flush();
    db.put("c", "3");
    await powerCut(fs, db);
    db = await DB.open("/db", { fs });
    try {
      expect(str(db.get("a"))).toBe("1");
      expect(str(db.get("b"))).toBe("2");
      expect(db.get("c")).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
