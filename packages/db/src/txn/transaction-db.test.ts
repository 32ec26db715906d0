/**
 * A TransactionDB's plain writes (transaction-db.ts): `put`, `delete`, `merge`, `write`,
 * `deleteRange` and `clear`, of the database and of a family handle, wait for the locks of
 * pessimistic transactions, then apply; they time out with TimedOut after
 * `defaultLockTimeoutMs`, take part in deadlock detection, and leave no lock behind. Also:
 * `deleteRange` in a transaction is NotSupported (as in RocksDB).
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import type { TransactionDBOptions } from "../core/transaction-options.js";
import type { TransactionDB } from "../db.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import { WriteBatchWithIndex } from "../write/write-batch-with-index.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));
const tick = () => new Promise((r) => setTimeout(r, 1));

const opened: TransactionDB[] = [];
async function newDB(transactionDB: TransactionDBOptions): Promise<TransactionDB> {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    mergeOperator: "stringappend",
    columnFamilies: { b: {} },
    createMissingColumnFamilies: true,
    transactionDB,
  });
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) if (!db.isClosed) await db.close();
});

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return isShaleError(e) ? e.code : e instanceof TypeError ? "TypeError" : String(e);
  }
  return undefined;
}

/** Settles `p` into "resolved" / the error code, without waiting for it. */
function track(p: Promise<unknown>): { state: string | undefined } {
  const s: { state: string | undefined } = { state: undefined };
  p.then(
    () => {
      s.state = "resolved";
    },
    (e) => {
      s.state = isShaleError(e) ? e.code : String(e);
    },
  );
  return s;
}

describe("TransactionDB plain writes", () => {
  it("a plain put of a locked key waits for the commit, then applies over it", async () => {
    const db = await newDB({ defaultLockTimeoutMs: -1 });
    const t = db.beginTransaction();
    await t.put("k", "txn");
    const plain = track(db.put("k", "plain"));
    const del = track(db.delete("k2-free")); // not locked: applied at once
    await tick();
    expect(plain.state).toBeUndefined();
    expect(del.state).toBe("resolved");
    expect(db.get("k")).toBeUndefined(); // neither written yet
    t.commit();
    await tick();
    expect(plain.state).toBe("resolved");
    expect(str(db.get("k"))).toBe("plain"); // the plain write came after the commit
    expect(db.transactionHost().locks!.size).toBe(0);
  });

  it("merge, delete, write(batch) and a family handle's put wait too", async () => {
    const db = await newDB({ defaultLockTimeoutMs: -1 });
    const b = db.columnFamily("b");
    db.put("m", "base");
    const t = db.beginTransaction();
    await t.put("m", "t");
    await t.put("d", "t");
    await t.put("x", "t", b);
    const waits = [
      db.merge("m", "op"),
      db.delete("d"),
      b.put("x", "plain"),
      db.write(new WriteBatch().put("w", "1").put("x", "batch", b)),
      db.write(new WriteBatchWithIndex().put("m", "wbwi")),
    ].map(track);
    await tick();
    expect(waits.map((w) => w.state)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(db.get("w")).toBeUndefined(); // the batch is atomic: none of it yet
    t.commit();
    await tick();
    expect(waits.map((w) => w.state)).toEqual([
      "resolved",
      "resolved",
      "resolved",
      "resolved",
      "resolved",
    ]);
    expect(str(db.get("m"))).toBe("wbwi"); // t's "t", then "t,op", then the batch's put
    expect(db.get("d")).toBeUndefined();
    expect(str(b.get("x"))).toBe("batch");
    expect(str(db.get("w"))).toBe("1");
  });

  it("a waiting write keeps its own copy of the key and value arrays", async () => {
    const db = await newDB({ defaultLockTimeoutMs: -1 });
    const t = db.beginTransaction();
    await t.put("k", "txn");
    const key = new TextEncoder().encode("k");
    const value = new TextEncoder().encode("plain");
    const p = db.put(key, value);
    key[0] = 0x78; // "x"
    value.fill(0x30);
    t.commit();
    await p;
    expect(str(db.get("k"))).toBe("plain");
    expect(db.get("x")).toBeUndefined();
  });

  it("times out with TimedOut after defaultLockTimeoutMs, writing nothing", async () => {
    const db = await newDB({ lockTimeoutMs: -1, defaultLockTimeoutMs: 20 });
    const t = db.beginTransaction();
    await t.put("k", "txn");
    const started = Date.now();
    expect(await codeOf(db.put("k", "plain"))).toBe("TimedOut");
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    // a batch with one locked key: nothing of it is written, its other locks are released
    expect(await codeOf(db.write(new WriteBatch().put("a", "1").put("k", "2")))).toBe("TimedOut");
    expect(db.get("a")).toBeUndefined();
    expect(db.transactionHost().locks!.size).toBe(1);
    t.commit();
    expect(str(db.get("k"))).toBe("txn");
    await db.put("k", "after");
    expect(str(db.get("k"))).toBe("after");
  });

  it("0 fails at once when the key is locked", async () => {
    const db = await newDB({ defaultLockTimeoutMs: 0 });
    const t = db.beginTransaction();
    await t.getForUpdate("k");
    expect(await codeOf(db.put("k", "plain"))).toBe("TimedOut");
    t.rollback();
    await db.put("k", "plain");
    expect(str(db.get("k"))).toBe("plain");
  });

  it("a plain batch waiting for a key is part of deadlock detection", async () => {
    const db = await newDB({
      lockTimeoutMs: 5000,
      defaultLockTimeoutMs: 5000,
      deadlockDetect: true,
    });
    const t = db.beginTransaction();
    await t.put("b", "t");
    // the batch locks "a" (free), then waits for "b" (t's): t waiting for "a" closes a cycle
    const batch = track(db.write(new WriteBatch().put("a", "plain").put("b", "plain")));
    await tick();
    expect(batch.state).toBeUndefined();
    expect(await codeOf(Promise.resolve(t.put("a", "t")))).toBe("Busy");
    t.commit(); // the victim ends with what it has: the batch goes on
    await tick();
    expect(batch.state).toBe("resolved");
    expect(str(db.get("a"))).toBe("plain");
    expect(str(db.get("b"))).toBe("plain");
  });

  it("a plain write closing a cycle fails with Busy when the database detects deadlocks", async () => {
    const db = await newDB({
      lockTimeoutMs: 5000,
      defaultLockTimeoutMs: 5000,
      deadlockDetect: true,
    });
    const t = db.beginTransaction();
    const u = db.beginTransaction();
    await t.put("x", "t");
    await u.put("y", "u");
    const tWaits = Promise.resolve(t.put("y", "t"));
    await tick();
    // u waits for t (through "y"? no: t waits for u's "y"); a plain batch holding "z" and
    // waiting for "x" (t's) while u waits for "z" is a cycle u -> batch -> t -> u
    const batch = track(db.write(new WriteBatch().put("x", "p").put("z", "p")));
    await tick();
    expect(batch.state).toBeUndefined(); // waits for "x"; holds nothing yet ("x" < "z")
    expect(await codeOf(Promise.resolve(u.put("x", "u")))).toBe("Busy");
    u.rollback();
    await tWaits;
    t.commit();
    await tick();
    expect(batch.state).toBe("resolved");
    expect(str(db.get("x"))).toBe("p");
    expect(str(db.get("y"))).toBe("t");
  });

  it("deleteRange and clear wait for the locked keys in their range", async () => {
    const db = await newDB({ defaultLockTimeoutMs: -1 });
    for (const k of ["a", "c", "e", "g"]) await db.put(k, "0");
    const t = db.beginTransaction();
    await t.put("c", "txn");
    await t.put("g", "txn"); // outside [a, f)
    const range = track(db.deleteRange("a", "f"));
    await tick();
    expect(range.state).toBeUndefined();
    expect(str(db.get("a"))).toBe("0");
    t.commit();
    await tick();
    expect(range.state).toBe("resolved");
    expect([db.get("a"), db.get("c"), db.get("e")]).toEqual([undefined, undefined, undefined]);
    expect(str(db.get("g"))).toBe("txn");

    await db.put("h", "0");
    await db.put("i", "0");
    const u = db.beginTransaction();
    await u.put("h", "u"); // inside the range tombstone clear writes: [g, i) + delete i
    const clear = track(db.clear({ gte: "g" }));
    await db.deleteRange("a", "g"); // nothing locked in it: at once
    await tick();
    expect(clear.state).toBeUndefined();
    u.commit();
    await tick();
    expect(clear.state).toBe("resolved");
    expect(db.get("g")).toBeUndefined();
    expect(db.get("h")).toBeUndefined();
  });

  it("writes without locks apply before the call returns; bad input rejects", async () => {
    const db = await newDB({});
    const p = db.put("k", "v");
    expect(str(db.get("k"))).toBe("v");
    await p;
    expect(await codeOf(db.put(5 as unknown as string, "v"))).toBe("TypeError");
    expect(await codeOf(db.write({} as WriteBatch))).toBe("TypeError");
    expect(await codeOf(db.put("k", "v", { bogus: 1 } as object))).toBe("InvalidArgument");
    expect(await codeOf(db.deleteRange("z", "a"))).toBe("InvalidArgument");
  });

  it("a plain write waiting when the database closes fails with Closed", async () => {
    const db = await newDB({ defaultLockTimeoutMs: -1 });
    const t = db.beginTransaction();
    await t.put("k", "t");
    const waiting = codeOf(db.put("k", "plain"));
    await tick();
    await db.close();
    expect(await waiting).toBe("Closed");
  });
});

describe("deleteRange in a transaction", () => {
  it("is NotSupported, as in RocksDB, for both kinds", async () => {
    const db = await newDB({});
    const t = db.beginTransaction();
    expect(() => t.deleteRange("a", "z")).toThrow(/not supported in a transaction/);
    try {
      t.deleteRange("a", "z");
    } catch (e) {
      expect(isShaleError(e) && e.code).toBe("NotSupported");
    }
    t.rollback();
    const plain = await DB.open("/o", { fs: new MemoryFileSystem() });
    const o = plain.beginTransaction();
    expect(() => o.deleteRange("a", "z")).toThrow(/not supported/);
    o.rollback();
    expect(() => o.deleteRange("a", "z")).toThrow(/already rolled back/);
    await plain.close();
  });
});
