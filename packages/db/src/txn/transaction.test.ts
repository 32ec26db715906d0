/**
 * Transactions, one behaviour per test: reads of their own writes, conflicts (Busy), lost
 * history (TryAgain), savepoints, bad input, `db.transaction` retries; pessimistic locks
 * with timeouts, deadlock cycles of 2 and 3, fairness, and no lock left after commit,
 * rollback or a thrown function.
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import type { PessimisticTransaction } from "./transaction.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));

const open: DB[] = [];
async function newDB(options: DbOptions = {}): Promise<DB> {
  const db = await DB.open("/db", { fs: new MemoryFileSystem(), ...options });
  open.push(db);
  return db;
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
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
    return isShaleError(e) ? e.code : String(e);
  }
  return undefined;
}

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("optimistic transactions", () => {
  it("read their own writes and commit atomically", async () => {
    const db = await newDB({ mergeOperator: "stringappend" });
    db.put("a", "1");
    const txn = db.beginTransaction();
    expect(txn.pessimistic).toBe(false);
    txn.put("b", "2");
    txn.merge("a", "x");
    txn.delete("c");
    expect(str(txn.get("a") as Uint8Array)).toBe("1,x");
    expect(str(txn.get("b"))).toBe("2");
    expect(db.get("b")).toBeUndefined();
    expect(txn.getMany(["a", "b", "z"]).map(str)).toEqual(["1,x", "2", undefined]);
    const seen: string[] = [];
    for (const [k, v] of txn.iterator()) seen.push(`${str(k)}=${str(v)}`);
    expect(seen).toEqual(["a=1,x", "b=2"]);
    txn.commit();
    expect(str(db.get("a"))).toBe("1,x");
    expect(str(db.get("b"))).toBe("2");
    expect(code(() => txn.put("x", "y"))).toBe("InvalidArgument");
    expect(code(() => txn.commit())).toBe("InvalidArgument");
  });

  it("fail with Busy when a written or getForUpdate key was written after tracking", async () => {
    const db = await newDB();
    db.put("k", "0");
    const t1 = db.beginTransaction();
    expect(str(t1.getForUpdate("k") as Uint8Array)).toBe("0");
    t1.put("k", "1");
    db.put("k", "other");
    const seq = db.latestSequence;
    expect(code(() => t1.commit())).toBe("Busy");
    expect(db.latestSequence).toBe(seq);
    expect(str(db.get("k"))).toBe("other");
    expect(t1.isActive).toBe(false);

    // a key only read with get is not tracked: write skew is possible
    const t2 = db.beginTransaction();
    t2.get("k");
    t2.put("other", "x");
    db.put("k", "again");
    t2.commit();
  });

  it("with a snapshot: read as of begin and conflict on writes since begin", async () => {
    const db = await newDB();
    db.put("a", "1");
    const txn = db.beginTransaction({ snapshot: true });
    db.put("a", "2");
    expect(str(txn.get("a"))).toBe("1");
    expect(db.getProperty("shale.num-snapshots")).toBe("1");
    txn.put("a", "3");
    expect(code(() => txn.commit())).toBe("Busy");
    expect(db.getProperty("shale.num-snapshots")).toBe("0");
    // without a snapshot the same sequence commits: tracked at the put, after the write
    const t2 = db.beginTransaction();
    db.put("a", "4");
    t2.put("a", "5");
    t2.commit();
    expect(str(db.get("a"))).toBe("5");
  });

  it("do not conflict on disjoint keys, and conflict on range deletions", async () => {
    const db = await newDB();
    const t1 = db.beginTransaction({ snapshot: true });
    const t2 = db.beginTransaction({ snapshot: true });
    t1.put("a", "1");
    t2.put("b", "2");
    t1.commit();
    t2.commit();
    const t3 = db.beginTransaction({ snapshot: true });
    t3.getForUpdate("m");
    t3.put("z", "1");
    db.deleteRange("l", "n");
    expect(code(() => t3.commit())).toBe("Busy");
  });

  it("fail with TryAgain when the memtables no longer reach back", async () => {
    const db = await newDB();
    db.put("a", "1");
    const txn = db.beginTransaction({ snapshot: true });
    txn.put("a", "2");
    db.put("b", "x");
    await db.flush();
    expect(code(() => txn.commit())).toBe("TryAgain");
    // nothing written since the snapshot: no history needed
    const t2 = db.beginTransaction({ snapshot: true });
    t2.put("a", "3");
    await db.flush();
    t2.commit();
    expect(str(db.get("a"))).toBe("3");
  });

  it("iterate while writing: the iterator goes on over the transaction's new writes", async () => {
    const db = await newDB();
    for (const k of ["a", "c", "e"]) db.put(k, "0");
    const txn = db.beginTransaction({ snapshot: true });
    const it = txn.iterator();
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) {
      const k = str(it.key())!;
      seen.push(`${k}=${str(it.value())}`);
      txn.put(k, "1");
      if (k === "a") txn.put("b", "new");
      if (k === "c") txn.delete("e");
    }
    it.close();
    expect(seen).toEqual(["a=0", "b=new", "c=0"]);
    const back: string[] = [];
    const rev = txn.iterator();
    for (rev.seekToLast(); rev.valid(); rev.prev())
      back.push(`${str(rev.key())}=${str(rev.value())}`);
    rev.close();
    expect(back).toEqual(["c=1", "b=1", "a=1"]);
    txn.commit();
    expect(db.get("e")).toBeUndefined();
    expect(str(db.get("b"))).toBe("1");
  });

  it("savepoints undo writes and tracking", async () => {
    const db = await newDB();
    const txn = db.beginTransaction();
    txn.put("a", "1");
    txn.setSavePoint();
    txn.put("b", "2");
    txn.getForUpdate("c");
    txn.rollbackToSavePoint();
    expect(txn.get("b")).toBeUndefined();
    expect(code(() => txn.rollbackToSavePoint())).toBe("InvalidArgument");
    db.put("c", "written"); // no longer tracked: no conflict
    txn.commit();
    expect(str(db.get("a"))).toBe("1");
    expect(db.get("b")).toBeUndefined();
  });

  it("reject bad input", async () => {
    const db = await newDB();
    const other = await DB.open("/other", { fs: new MemoryFileSystem() });
    open.push(other);
    expect(code(() => db.beginTransaction({ snapshot: 1 } as never))).toBe("TypeError");
    expect(code(() => db.beginTransaction({ nope: true } as never))).toBe("InvalidArgument");
    expect(code(() => db.beginTransaction({ lockTimeoutMs: 5 }))).toBe("InvalidArgument");
    const txn = db.beginTransaction();
    expect(code(() => txn.put(1 as never, "x"))).toBe("TypeError");
    expect(code(() => txn.merge("a", "x"))).toBe("InvalidArgument"); // no merge operator
    const s = other.snapshot();
    expect(code(() => txn.get("a", { snapshot: s }))).toBe("InvalidArgument");
    s.release();
    txn.rollback();
    expect(code(() => txn.rollback())).toBe("InvalidArgument");
    expect(code(() => txn.get("a"))).toBe("InvalidArgument");
    await expect(db.transaction(5 as never)).rejects.toThrow(TypeError);
    await expect(db.transaction(() => 1, { retries: -1 })).rejects.toThrow(/retries/);
    await expect(
      DB.open("/t", { fs: new MemoryFileSystem(), transactionDB: { lockTimeoutMs: "1" as never } }),
    ).rejects.toThrow(TypeError);
    await expect(
      DB.open("/t", { fs: new MemoryFileSystem(), transactionDB: { nope: 1 } as never }),
    ).rejects.toThrow(/unknown/);
  });
});

describe("db.transaction", () => {
  it("retries conflicts, returns the result, rolls back on a throw", async () => {
    const db = await newDB();
    db.put("n", "0");
    let runs = 0;
    const result = await db.transaction(async (txn) => {
      runs++;
      const n = Number(str(txn.getForUpdate("n") as Uint8Array));
      await tick();
      if (runs === 1) db.put("n", "10"); // a concurrent writer
      txn.put("n", String(n + 1));
      return n + 1;
    });
    expect(runs).toBe(2);
    expect(result).toBe(11);
    expect(str(db.get("n"))).toBe("11");

    await expect(
      db.transaction((txn) => {
        txn.put("x", "1");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(db.get("x")).toBeUndefined();

    let tries = 0;
    const e = await codeOf(
      db.transaction(
        (txn) => {
          tries++;
          txn.getForUpdate("n");
          db.put("n", String(tries));
          txn.put("n", "mine");
        },
        { retries: 2 },
      ),
    );
    expect(e).toBe("Busy");
    expect(tries).toBe(3);
  });

  it("keeps a bank's total over concurrent async transfers", async () => {
    const db = await newDB();
    const accounts = 10;
    for (let i = 0; i < accounts; i++) db.put(`acct${i}`, "100");
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const transfers: Promise<void>[] = [];
    for (let t = 0; t < 300; t++) {
      const from = rand(accounts);
      const to = (from + 1 + rand(accounts - 1)) % accounts;
      const amount = 1 + rand(20);
      transfers.push(
        db.transaction(
          async (txn) => {
            const a = Number(str(txn.getForUpdate(`acct${from}`) as Uint8Array));
            await tick();
            const b = Number(str(txn.getForUpdate(`acct${to}`) as Uint8Array));
            if (a < amount) return;
            txn.put(`acct${from}`, String(a - amount));
            txn.put(`acct${to}`, String(b + amount));
          },
          { retries: 1000, snapshot: true },
        ),
      );
    }
    await Promise.all(transfers);
    let total = 0;
    for (let i = 0; i < accounts; i++) total += Number(str(db.get(`acct${i}`)));
    expect(total).toBe(accounts * 100);
  });
});

describe("pessimistic transactions", () => {
  it("lock keys: a second writer waits, then times out", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: 30 } });
    const t1 = db.beginTransaction() as PessimisticTransaction;
    expect(t1.pessimistic).toBe(true);
    await t1.put("k", "1");
    const t2 = db.beginTransaction();
    const started = Date.now();
    expect(await codeOf(Promise.resolve(t2.put("k", "2")))).toBe("TimedOut");
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    db.put("other", "fine");
    t1.commit();
    expect(t1.numLocks).toBe(0);
    db.put("k", "plain");
    expect(str(db.get("k"))).toBe("plain");
    t2.rollback();
  });

  it("hand the lock to the waiters in order (fairness)", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: -1 } });
    const holder = db.beginTransaction();
    await holder.put("k", "0");
    const order: number[] = [];
    const waiters = [1, 2, 3].map(async (i) => {
      const t = db.beginTransaction();
      await t.put("k", String(i));
      order.push(i);
      await tick();
      t.commit();
    });
    await tick();
    holder.commit();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(str(db.get("k"))).toBe("3");
  });

  it("a waiter that times out leaves the queue: the one behind it still gets the lock", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: -1 } });
    const holder = db.beginTransaction();
    await holder.put("k", "0");
    const impatient = db.beginTransaction({ lockTimeoutMs: 10 });
    const patient = db.beginTransaction();
    const first = codeOf(Promise.resolve(impatient.put("k", "1")));
    const second = Promise.resolve(patient.put("k", "2"));
    expect(await first).toBe("TimedOut");
    holder.commit();
    await second;
    patient.commit();
    impatient.rollback();
    expect(str(db.get("k"))).toBe("2");
    expect(db.transactionHost().locks!.size).toBe(0);
  });

  it("detect deadlock cycles of 2 and 3 with Busy", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: 5000, deadlockDetect: true } });
    const [a, b] = [db.beginTransaction(), db.beginTransaction()];
    await a.put("x", "a");
    await b.put("y", "b");
    const aWaits = Promise.resolve(a.put("y", "a"));
    await tick();
    expect(await codeOf(Promise.resolve(b.put("x", "b")))).toBe("Busy");
    b.rollback(); // the victim gives up its locks: a goes on
    await aWaits;
    a.commit();
    expect(str(db.get("y"))).toBe("a");

    const [p, q, r] = [db.beginTransaction(), db.beginTransaction(), db.beginTransaction()];
    await p.put("1", "p");
    await q.put("2", "q");
    await r.put("3", "r");
    const pWaits = Promise.resolve(p.put("2", "p"));
    const qWaits = Promise.resolve(q.put("3", "q"));
    await tick();
    expect(await codeOf(Promise.resolve(r.put("1", "r")))).toBe("Busy");
    r.rollback();
    await qWaits;
    q.commit();
    await pWaits;
    p.commit();
    expect(str(db.get("3"))).toBe("q");
    expect(str(db.get("2"))).toBe("p");
  });

  it("without detection a deadlock ends by timeout", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: 20 } });
    const [a, b] = [db.beginTransaction(), db.beginTransaction()];
    await a.put("x", "a");
    await b.put("y", "b");
    const r = await Promise.all([
      codeOf(Promise.resolve(a.put("y", "a"))),
      codeOf(Promise.resolve(b.put("x", "b"))),
    ]);
    expect(r).toEqual(["TimedOut", "TimedOut"]);
    a.rollback();
    b.rollback();
  });

  it("leave no lock after commit, rollback or a thrown function", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: 0 } });
    const locks = () => db.transactionHost().locks!.size;
    const t = db.beginTransaction();
    await t.put("a", "1");
    await t.getForUpdate("b");
    expect(locks()).toBe(2);
    t.setSavePoint();
    await t.put("c", "1");
    expect(locks()).toBe(3);
    t.rollbackToSavePoint();
    expect(locks()).toBe(2);
    t.commit();
    expect(locks()).toBe(0);
    const t2 = db.beginTransaction();
    await t2.delete("a");
    t2.rollback();
    expect(locks()).toBe(0);
    await expect(
      db.transaction(async (txn) => {
        await txn.put("z", "1");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(locks()).toBe(0);
    expect(db.get("z")).toBeUndefined();
  });

  it("with a snapshot: a key written after it fails with Busy once locked", async () => {
    const db = await newDB({ transactionDB: {} });
    const t = db.beginTransaction({ snapshot: true });
    db.put("k", "later");
    expect(await codeOf(Promise.resolve(t.getForUpdate("k")))).toBe("Busy");
    await t.put("other", "1");
    t.commit();
  });

  it("fail waits with Closed when the database closes, and refuse a commit while waiting", async () => {
    const db = await DB.open("/c", {
      fs: new MemoryFileSystem(),
      transactionDB: { lockTimeoutMs: -1 },
    });
    const a = db.beginTransaction();
    await a.put("k", "a");
    const b = db.beginTransaction();
    const waiting = codeOf(Promise.resolve(b.put("k", "b")));
    await tick();
    expect(code(() => b.commit())).toBe("InvalidArgument");
    await db.close();
    expect(await waiting).toBe("Closed");
    expect(code(() => a.commit())).toBe("Closed");
  });

  it("db.transaction retries a deadlock victim", async () => {
    const db = await newDB({ transactionDB: { lockTimeoutMs: 5000, deadlockDetect: true } });
    db.put("x", "0");
    db.put("y", "0");
    const bump = (first: string, second: string) =>
      db.transaction(async (txn) => {
        const a = Number(str((await txn.getForUpdate(first)) as Uint8Array));
        await tick();
        const b = Number(str((await txn.getForUpdate(second)) as Uint8Array));
        await txn.put(first, String(a + 1));
        await txn.put(second, String(b + 1));
      });
    await Promise.all([bump("x", "y"), bump("y", "x"), bump("x", "y")]);
    expect(str(db.get("x"))).toBe("3");
    expect(str(db.get("y"))).toBe("3");
  });
});
