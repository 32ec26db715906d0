/**
 * Transactions and WriteBatchWithIndex across column families: one atomic commit over two
 * families, conflicts and locks per (family, key), lost history per family, reads and
 * iterators of one family's writes, and bad handles.
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import type { ColumnFamilyHandle } from "../column-family/handle.js";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import { WriteBatchWithIndex } from "../write/write-batch-with-index.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));

const open: DB[] = [];
async function newDB(
  options: DbOptions = {},
  fs = new MemoryFileSystem(),
): Promise<{ db: DB; b: ColumnFamilyHandle; fs: MemoryFileSystem }> {
  const db = await DB.open("/db", {
    fs,
    columnFamilies: { b: { mergeOperator: "stringappend" } },
    createMissingColumnFamilies: true,
    ...options,
  });
  open.push(db);
  return { db, b: db.columnFamily("b"), fs };
}
afterEach(async () => {
  for (const db of open.splice(0)) if (!db.isClosed) await db.close();
});

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isShaleError(e) ? e.code : e instanceof TypeError ? "TypeError" : String(e);
  }
  return undefined;
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return isShaleError(e) ? e.code : e instanceof TypeError ? "TypeError" : String(e);
  }
  return undefined;
}

describe("optimistic transactions across column families", () => {
  it("commit the writes of both families atomically, each read in its own family", async () => {
    const { db, b, fs } = await newDB();
    db.put("k", "default-old");
    b.put("k", "b-old");
    const txn = db.beginTransaction();
    txn.put("k", "default-new");
    txn.merge("k", "x", b);
    txn.put("only-b", "1", b);
    txn.delete("gone", b);
    expect(str(txn.get("k"))).toBe("default-new");
    expect(str(txn.get("k", b))).toBe("b-old,x");
    expect(str(txn.get("k", undefined, b))).toBe("b-old,x");
    expect(txn.getMany(["k", "only-b"], b).map(str)).toEqual(["b-old,x", "1"]);
    expect(txn.get("only-b")).toBeUndefined();
    const keys: string[] = [];
    const it = txn.iterator(b);
    for (it.seekToFirst(); it.valid(); it.next()) keys.push(`${str(it.key())}=${str(it.value())}`);
    it.close();
    expect(keys).toEqual(["k=b-old,x", "only-b=1"]);
    // Nothing is visible before the commit.
    expect(str(b.get("k"))).toBe("b-old");
    expect(b.get("only-b")).toBeUndefined();
    txn.commit();
    expect(str(db.get("k"))).toBe("default-new");
    expect(str(b.get("k"))).toBe("b-old,x");
    expect(str(b.get("only-b"))).toBe("1");
    expect(db.get("only-b")).toBeUndefined();
    // One WAL record: both families' writes come back after a reopen.
    await db.close();
    const again = await newDB({}, fs);
    expect(str(again.db.get("k"))).toBe("default-new");
    expect(str(again.b.get("k"))).toBe("b-old,x");
    expect(str(again.b.get("only-b"))).toBe("1");
  });

  it("detect a conflict in the family written, not in another family's same key", async () => {
    const { db, b } = await newDB();
    // Tracked in b; the same key is written in default only: no conflict.
    const t1 = db.beginTransaction();
    t1.getForUpdate("k", b);
    t1.put("k", "t1", b);
    db.put("k", "plain");
    t1.commit();
    expect(str(b.get("k"))).toBe("t1");
    expect(str(db.get("k"))).toBe("plain");

    // Tracked in b and in default; b's key is written by someone else: Busy, nothing written.
    const t2 = db.beginTransaction();
    t2.getForUpdate("k", b);
    t2.put("other", "t2");
    b.put("k", "writer");
    expect(code(() => t2.commit())).toBe("Busy");
    expect(db.get("other")).toBeUndefined();
    expect(str(b.get("k"))).toBe("writer");

    // Tracked in default; default's key is written: Busy; b's write not applied.
    const t3 = db.beginTransaction();
    t3.getForUpdate("k");
    t3.put("k", "t3", b);
    db.put("k", "writer2");
    expect(code(() => t3.commit())).toBe("Busy");
    expect(str(b.get("k"))).toBe("writer");
  });

  it("do not report lost history for a family untouched while others were written", async () => {
    const { db, b } = await newDB();
    const txn = db.beginTransaction();
    txn.getForUpdate("k", b);
    txn.put("k", "v", b);
    for (let i = 0; i < 10; i++) db.put(`d${i}`, "x");
    txn.commit();
    expect(str(b.get("k"))).toBe("v");
  });

  it("report TryAgain when the family's memtables no longer reach back to the tracking", async () => {
    const { db, b } = await newDB();
    const txn = db.beginTransaction();
    txn.getForUpdate("k", b);
    txn.put("x", "1");
    b.put("other", "1");
    await b.flush();
    expect(code(() => txn.commit())).toBe("TryAgain");
    expect(db.get("x")).toBeUndefined();
    // The default family's history is whole: a key tracked there alone commits.
    const t2 = db.beginTransaction();
    t2.getForUpdate("y");
    b.put("other", "2");
    await b.flush();
    t2.put("y", "1");
    t2.commit();
    expect(str(db.get("y"))).toBe("1");
  });

  it("db.transaction retries over two families", async () => {
    const { db, b } = await newDB();
    db.put("n", "0");
    b.put("n", "0");
    let runs = 0;
    await db.transaction((txn) => {
      runs++;
      const a = Number(str(txn.getForUpdate("n") as Uint8Array | undefined));
      const c = Number(str(txn.getForUpdate("n", b) as Uint8Array | undefined));
      if (runs === 1) b.put("n", "10");
      txn.put("n", String(a + 1));
      txn.put("n", String(c + 1), b);
    });
    expect(runs).toBe(2);
    expect(str(db.get("n"))).toBe("1");
    expect(str(b.get("n"))).toBe("11");
  });

  it("refuse handles of another database, of a dropped family, and non-handles", async () => {
    const { db } = await newDB();
    const other = await newDB();
    const c = await db.createColumnFamily("c");
    const txn = db.beginTransaction();
    expect(code(() => txn.put("k", "v", other.b))).toBe("InvalidArgument");
    expect(code(() => txn.get("k", other.b))).toBe("InvalidArgument");
    expect(code(() => txn.put("k", "v", {} as unknown as ColumnFamilyHandle))).toBe("TypeError");
    expect(code(() => txn.merge("k", "v"))).toBe("InvalidArgument"); // default has no operator
    await db.dropColumnFamily("c");
    expect(code(() => txn.put("k", "v", c))).toBe("InvalidArgument");
    expect(code(() => txn.getForUpdate("k", c))).toBe("InvalidArgument");
    txn.rollback();
  });

  it("default family handle is the default family", async () => {
    const { db } = await newDB();
    const def = db.columnFamily("default");
    const txn = db.beginTransaction();
    txn.put("k", "v", def);
    expect(str(txn.get("k"))).toBe("v");
    txn.commit();
    expect(str(db.get("k"))).toBe("v");
  });
});

describe("pessimistic transactions across column families", () => {
  it("lock per (family, key): the same key in two families is two locks", async () => {
    const { db, b } = await newDB({ transactionDB: { lockTimeoutMs: 20 } });
    const t1 = db.beginTransaction();
    const t2 = db.beginTransaction();
    await t1.put("k", "t1");
    await t2.put("k", "t2", b); // no wait: another family's key
    expect(await codeOf(t2.getForUpdate("k") as Promise<unknown>)).toBe("TimedOut");
    b.put("free", "ok");
    t1.commit();
    t2.commit();
    expect(str(db.get("k"))).toBe("t1");
    expect(str(b.get("k"))).toBe("t2");
    db.put("k", "after");
    b.put("k", "after");
  });

  it("commit both families atomically and release every lock", async () => {
    const { db, b } = await newDB({ transactionDB: {} });
    const txn = db.beginTransaction();
    await txn.put("a", "1");
    await txn.merge("a", "x", b);
    expect(str(txn.get("a", b))).toBe("x");
    txn.commit();
    expect(str(db.get("a"))).toBe("1");
    expect(str(b.get("a"))).toBe("x");
    db.put("a", "2");
    b.put("a", "2");
  });
});

describe("WriteBatchWithIndex across column families", () => {
  it("keeps one index per family and writes all of them in one batch", async () => {
    const { db, b } = await newDB();
    b.put("base", "0");
    const wb = new WriteBatchWithIndex();
    wb.put("k", "default");
    wb.put("k", "b", b);
    wb.merge("base", "y", b);
    wb.deleteRange("a", "c", b); // covers "base" in b only
    wb.put("bb", "new", b);
    expect(str(wb.getFromBatch("k"))).toBe("default");
    expect(str(wb.getFromBatch("k", b))).toBe("b");
    expect(wb.hasKey("base", b)).toBe(true);
    expect(wb.hasKey("base")).toBe(false);
    expect(wb.getFromBatchAndDB(b, "base")).toBeUndefined();
    expect(str(wb.getFromBatchAndDB(b, "k"))).toBe("b");
    expect(str(wb.getFromBatchAndDB(db, "k"))).toBe("default");
    const keys: string[] = [];
    const it = wb.iterator(b);
    for (it.seekToFirst(); it.valid(); it.next()) keys.push(`${str(it.key())}=${str(it.value())}`);
    it.close();
    expect(keys).toEqual(["bb=new", "k=b"]);
    db.write(wb);
    expect(str(db.get("k"))).toBe("default");
    expect(str(b.get("k"))).toBe("b");
    expect(b.get("base")).toBeUndefined();
    expect(str(b.get("bb"))).toBe("new");
  });

  it("rolls back to a savepoint across families", async () => {
    const { b } = await newDB();
    const wb = new WriteBatchWithIndex();
    wb.put("k", "1", b);
    wb.setSavePoint();
    wb.put("k", "2", b);
    wb.put("j", "2");
    expect(str(wb.getFromBatch("k", b))).toBe("2");
    wb.rollbackToSavePoint();
    expect(str(wb.getFromBatch("k", b))).toBe("1");
    expect(wb.getFromBatch("j")).toBeUndefined();
  });
});
