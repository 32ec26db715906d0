/**
 * Two-phase commit (two-phase.ts): names, `prepare()`, commit and rollback of a prepared
 * transaction, the WAL records in RocksDB's format, recovery of prepared transactions after
 * a reopen (their keys locked again; commit or roll back), a prepare's WAL kept while
 * needed, several column families, and a WAL of prepared transactions opened without
 * `transactionDB` (NotSupported).
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { markerRecord, prepareRecord } from "../write/two-phase-records.js";
import { WriteBatch } from "../write/write-batch.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

const opened: DB[] = [];
async function openDB(fs: MemoryFileSystem, txn = true, families = true): Promise<DB> {
  // An empty family keeps its log number back (it never flushes): the retention tests run
  // without one, so only the two-phase rules keep the prepare's WAL.
  const db = await DB.open("/db", {
    fs,
    ...(families ? { columnFamilies: { b: {} }, createMissingColumnFamilies: true } : {}),
    ...(txn ? { transactionDB: { lockTimeoutMs: 20, defaultLockTimeoutMs: 20 } } : {}),
  });
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) if (!db.isClosed) await db.close();
});

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isShaleError(e) ? e.code : e instanceof TypeError ? "TypeError" : String(e);
  }
  return undefined;
}

const logs = (fs: MemoryFileSystem) =>
  fs
    .list("/db")
    .filter((n) => n.endsWith(".log"))
    .sort();

describe("two-phase commit", () => {
  it("writes RocksDB's prepare, commit and rollback records", () => {
    const batch = new WriteBatch().put("k", "v");
    expect(hex(prepareRecord(batch, "t1", 5))).toBe(
      "0500000000000000" + "01000000" + "09" + "01016b0176" + "0a027431",
    );
    expect(hex(markerRecord(0x0b, "t1", 7))).toBe("0700000000000000" + "00000000" + "0b027431");
    expect(hex(markerRecord(0x0c, "t1", 7))).toBe("0700000000000000" + "00000000" + "0c027431");
  });

  it("checks names and refuses prepare without one, twice, or optimistic", async () => {
    const db = await openDB(new MemoryFileSystem());
    const t = db.beginTransaction();
    expect(code(() => t.prepare())).toBe("InvalidArgument");
    expect(code(() => t.setName(5 as unknown as string))).toBe("TypeError");
    expect(code(() => t.setName(""))).toBe("InvalidArgument");
    expect(code(() => t.setName("x".repeat(513)))).toBe("InvalidArgument");
    t.setName("a");
    expect(t.name).toBe("a");
    expect(code(() => t.setName("b"))).toBe("InvalidArgument");
    const u = db.beginTransaction();
    expect(code(() => u.setName("a"))).toBe("InvalidArgument"); // taken
    expect(db.getTransactionByName("a")).toBe(t);
    t.rollback();
    u.setName("a"); // free again
    u.rollback();
    expect(code(() => t.prepare({ disableWAL: true }))).toBe("InvalidArgument");
    const plain = await DB.open("/o", { fs: new MemoryFileSystem() });
    const o = plain.beginTransaction();
    o.setName("o");
    expect(code(() => o.prepare())).toBe("InvalidArgument");
    o.rollback();
    await plain.close();
  });

  it("applies a prepared transaction only at commit; no write after prepare", async () => {
    const db = await openDB(new MemoryFileSystem());
    const t = db.beginTransaction();
    t.setName("t");
    await t.put("k", "v");
    t.prepare();
    expect(t.isPrepared).toBe(true);
    expect(db.get("k")).toBeUndefined();
    expect(db.getPreparedTransactions()).toEqual([t]);
    await expect(Promise.resolve().then(() => t.put("x", "1"))).rejects.toThrow(/prepared/);
    t.commit();
    expect(str(db.get("k"))).toBe("v");
    expect(db.getPreparedTransactions()).toEqual([]);
    expect(db.getTransactionByName("t")).toBeUndefined();
  });

  it("recovers a prepared transaction after a reopen: locked, then committed", async () => {
    const fs = new MemoryFileSystem();
    let db = await openDB(fs);
    const b = db.columnFamily("b");
    const t = db.beginTransaction();
    t.setName("xfer");
    await t.put("a", "1");
    await t.put("a", "2", b);
    (await t.merge) === undefined; // (no-op: keeps the linter quiet about awaits)
    t.prepare();
    await db.close();

    db = await openDB(fs);
    const [r] = db.getPreparedTransactions();
    expect(r?.name).toBe("xfer");
    expect(r?.isPrepared).toBe(true);
    expect(db.getTransactionByName("xfer")).toBe(r);
    expect(db.get("a")).toBeUndefined();
    // its keys are locked again: a plain write waits (and here times out)
    await expect(
      (db as unknown as { put(k: string, v: string): Promise<void> }).put("a", "x"),
    ).rejects.toThrow(/locked|timed out/);
    const other = db.beginTransaction();
    await expect(Promise.resolve(other.put("a", "y", db.columnFamily("b")))).rejects.toThrow(
      /timed out/,
    );
    other.rollback();
    r!.commit();
    expect(str(db.get("a"))).toBe("1");
    expect(str(db.columnFamily("b").get("a"))).toBe("2");
    await db.close();

    db = await openDB(fs); // commit replayed from the WAL: prepare record + commit record
    expect(db.getPreparedTransactions()).toEqual([]);
    expect(str(db.get("a"))).toBe("1");
    expect(str(db.columnFamily("b").get("a"))).toBe("2");
  });

  it("a prepared transaction rolled back after a reopen stays gone", async () => {
    const fs = new MemoryFileSystem();
    let db = await openDB(fs);
    const t = db.beginTransaction();
    t.setName("r");
    await t.put("k", "v");
    t.prepare();
    await db.close();
    db = await openDB(fs);
    const [r] = db.getPreparedTransactions();
    r!.rollback();
    expect(db.get("k")).toBeUndefined();
    await db.put("k", "plain"); // the lock is free
    await db.close();
    db = await openDB(fs);
    expect(db.getPreparedTransactions()).toEqual([]);
    expect(str(db.get("k"))).toBe("plain");
  });

  it("keeps a prepare's WAL while needed: prepared across flushes, committed before a reopen", async () => {
    const fs = new MemoryFileSystem();
    let db = await openDB(fs, true, false);
    const t = db.beginTransaction();
    t.setName("long");
    await t.put("p", "prepared");
    t.prepare();
    const prepareLog = logs(fs)[logs(fs).length - 1]!;
    for (let round = 0; round < 3; round++) {
      await db.put(`k${round}`, "x");
      await db.flush(); // the family's log number moves past the prepare's WAL
    }
    expect(logs(fs)).toContain(prepareLog);
    await db.close();
    db = await openDB(fs, true, false);
    const [r] = db.getPreparedTransactions();
    expect(r?.name).toBe("long");
    r!.commit(); // its prepare record is in this open's WAL now
    await db.close();
    db = await openDB(fs, true, false);
    expect(str(db.get("p"))).toBe("prepared");
    expect(str(db.get("k2"))).toBe("x");
    await db.flush();
    await db.close();
    db = await openDB(fs, true, false);
    expect(str(db.get("p"))).toBe("prepared");
    expect(db.getPreparedTransactions()).toEqual([]);
  });

  it("a commit whose prepare is in an older WAL replays after a reopen", async () => {
    const fs = new MemoryFileSystem();
    let db = await openDB(fs, true, false);
    const t = db.beginTransaction();
    t.setName("split");
    await t.put("s", "1");
    t.prepare(); // WAL n
    await db.put("before", "x");
    await db.flush(); // new WAL n+1; the family's log number is n+1
    t.commit(); // commit record in WAL n+1, its ops in the memtable
    await db.put("after", "y");
    await db.close(); // no flush: the memtable's data is only in the WALs
    db = await openDB(fs, true, false);
    expect(str(db.get("s"))).toBe("1");
    expect(str(db.get("after"))).toBe("y");
    expect(db.getPreparedTransactions()).toEqual([]);
  });

  it("a WAL of prepared transactions needs transactionDB to open (NotSupported)", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDB(fs);
    const t = db.beginTransaction();
    t.setName("p");
    await t.put("k", "v");
    t.prepare();
    await db.close();
    await expect(openDB(fs, false)).rejects.toThrow(/open it with transactionDB/);
  });
});
