/**
 * WriteBatchWithIndex: reads from the batch alone, from the batch over the database, and the
 * base-delta iterator in both directions, with seeks and bounds, checked against a model
 * (a sorted map of what the database would hold after `db.write(batch)`).
 */
import { isShaleError, MemoryFileSystem, reverseBytewiseComparator } from "@shale/base";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { stringAppendOperator } from "../core/merge-operator.js";
import { DB } from "../db.js";
import { WriteBatchWithIndex } from "./write-batch-with-index.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));

const open: DB[] = [];
async function newDB(): Promise<DB> {
  const db = await DB.open("/db", { fs: new MemoryFileSystem(), mergeOperator: "stringappend" });
  open.push(db);
  return db;
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

function scan(it: ReturnType<WriteBatchWithIndex["iterator"]>, reverse = false): string[] {
  const out: string[] = [];
  if (reverse)
    for (it.seekToLast(); it.valid(); it.prev()) out.push(`${str(it.key())}=${str(it.value())}`);
  else
    for (it.seekToFirst(); it.valid(); it.next()) out.push(`${str(it.key())}=${str(it.value())}`);
  it.close();
  return out;
}

describe("WriteBatchWithIndex", () => {
  it("reads its own writes", () => {
    const b = new WriteBatchWithIndex({ mergeOperator: stringAppendOperator(",") });
    b.put("a", "1").put("b", "2").delete("b").merge("a", "x").merge("c", "y");
    expect(str(b.getFromBatch("a"))).toBe("1,x");
    expect(b.getFromBatch("b")).toBeUndefined();
    expect(b.hasKey("b")).toBe(true);
    expect(b.hasKey("z")).toBe(false);
    expect(() => b.getFromBatch("c")).toThrow(/merge in progress/);
    expect(b.count).toBe(5);
  });

  it("resolves operands over the database and hides range-deleted keys", async () => {
    const db = await newDB();
    db.put("a", "base");
    db.put("m", "mid");
    db.put("z", "zed");
    const b = new WriteBatchWithIndex();
    b.merge("a", "x");
    b.deleteRange("l", "n");
    b.merge("m", "after");
    b.put("n", "new");
    expect(str(b.getFromBatchAndDB(db, "a"))).toBe("base,x");
    expect(str(b.getFromBatchAndDB(db, "m"))).toBe("after");
    expect(str(b.getFromBatchAndDB(db, "z"))).toBe("zed");
    expect(scan(b.iterator(db))).toEqual(["a=base,x", "m=after", "n=new", "z=zed"]);
    expect(scan(b.iterator(db), true)).toEqual(["z=zed", "n=new", "m=after", "a=base,x"]);
    db.write(b);
    expect(str(db.get("a"))).toBe("base,x");
    expect(str(db.get("m"))).toBe("after");
  });

  it("keeps to bounds and seeks in both directions", async () => {
    const db = await newDB();
    for (const k of ["b", "d", "f", "h"]) db.put(k, k);
    const b = new WriteBatchWithIndex();
    b.put("a", "A").put("c", "C").delete("d").put("g", "G").put("i", "I");
    const it = b.iterator(db, { gte: "b", lt: "h" });
    expect(scan(it)).toEqual(["b=b", "c=C", "f=f", "g=G"]);
    const it2 = b.iterator(db, { gt: "b", lte: "h" });
    it2.seek("d");
    expect(str(it2.key())).toBe("f");
    it2.prev();
    expect(str(it2.key())).toBe("c");
    it2.prev();
    expect(it2.valid()).toBe(false);
    it2.seekForPrev("e");
    expect(str(it2.key())).toBe("c");
    it2.next();
    it2.next();
    expect(str(it2.key())).toBe("g");
    it2.next();
    expect(str(it2.key())).toBe("h");
    it2.close();
  });

  it("sees writes made while it is open", async () => {
    const db = await newDB();
    for (const k of ["a", "b", "c", "d"]) db.put(k, "0");
    const b = new WriteBatchWithIndex();
    const it = b.iterator(db);
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) {
      const k = str(it.key())!;
      seen.push(k);
      b.put(k, "1");
      if (k === "b") b.put("bb", "new");
    }
    it.close();
    expect(seen).toEqual(["a", "b", "bb", "c", "d"]);
  });

  it("savepoints roll back the batch and its index", () => {
    const b = new WriteBatchWithIndex();
    b.put("a", "1");
    b.setSavePoint();
    b.put("a", "2").put("b", "3").deleteRange("a", "z");
    expect(b.getFromBatch("a")).toBeUndefined();
    b.rollbackToSavePoint();
    expect(str(b.getFromBatch("a"))).toBe("1");
    expect(b.getFromBatch("b")).toBeUndefined();
    expect(b.count).toBe(1);
    expect(() => b.rollbackToSavePoint()).toThrow(/no savepoint/);
  });

  it("rejects bad input", async () => {
    const db = await newDB();
    expect(() => new WriteBatchWithIndex({ nope: 1 } as never)).toThrow(/unknown/);
    expect(() => new WriteBatchWithIndex({ comparator: 5 } as never)).toThrow(TypeError);
    const b = new WriteBatchWithIndex();
    expect(() => b.put(5 as never, "x")).toThrow(TypeError);
    expect(() => b.deleteRange("b", "a")).toThrow(/after/);
    expect(() => b.iterator(db, { limit: 3 })).toThrow(/limit/);
    expect(() => b.iterator({} as never)).toThrow(TypeError);
    const rev = new WriteBatchWithIndex({ comparator: reverseBytewiseComparator });
    try {
      rev.getFromBatchAndDB(db, "a");
      expect.unreachable();
    } catch (e) {
      expect(isShaleError(e, "InvalidArgument")).toBe(true);
    }
  });
});

// ---------------------------------------------------------------- model test

type Op =
  | { t: "put"; k: number; v: string }
  | { t: "del"; k: number }
  | { t: "merge"; k: number; v: string }
  | { t: "range"; s: number; e: number };

const keyOf = (i: number) => `k${String(i).padStart(2, "0")}`;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant("put" as const), k: fc.nat(20), v: fc.string({ maxLength: 3 }) }),
  fc.record({ t: fc.constant("del" as const), k: fc.nat(20) }),
  fc.record({ t: fc.constant("merge" as const), k: fc.nat(20), v: fc.string({ maxLength: 3 }) }),
  fc.record({ t: fc.constant("range" as const), s: fc.nat(20), e: fc.nat(22) }),
);

function applyModel(model: Map<string, string>, op: Op): void {
  switch (op.t) {
    case "put":
      model.set(keyOf(op.k), op.v);
      break;
    case "del":
      model.delete(keyOf(op.k));
      break;
    case "merge": {
      const old = model.get(keyOf(op.k));
      model.set(keyOf(op.k), old === undefined ? op.v : `${old},${op.v}`);
      break;
    }
    case "range":
      for (const k of [...model.keys()]) if (k >= keyOf(op.s) && k < keyOf(op.e)) model.delete(k);
      break;
  }
}

function applyBatch(b: WriteBatchWithIndex, op: Op): void {
  if (op.t === "put") b.put(keyOf(op.k), op.v);
  else if (op.t === "del") b.delete(keyOf(op.k));
  else if (op.t === "merge") b.merge(keyOf(op.k), op.v);
  else if (op.s <= op.e) b.deleteRange(keyOf(op.s), keyOf(op.e));
}

describe("WriteBatchWithIndex against a model", () => {
  it("reads and iterates what db.write(batch) would leave", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 25 }),
        fc.array(opArb, { maxLength: 25 }),
        fc.nat(22),
        fc.nat(22),
        async (dbOps, batchOps, lo, hi) => {
          const db = await DB.open("/db", {
            fs: new MemoryFileSystem(),
            mergeOperator: "stringappend",
          });
          try {
            const model = new Map<string, string>();
            for (const op of dbOps) {
              if (op.t === "range" && op.s > op.e) continue;
              applyModel(model, op);
              if (op.t === "put") db.put(keyOf(op.k), op.v);
              else if (op.t === "del") db.delete(keyOf(op.k));
              else if (op.t === "merge") db.merge(keyOf(op.k), op.v);
              else db.deleteRange(keyOf(op.s), keyOf(op.e));
            }
            const b = new WriteBatchWithIndex();
            for (const op of batchOps) {
              if (op.t === "range" && op.s > op.e) continue;
              applyModel(model, op);
              applyBatch(b, op);
            }
            for (let i = 0; i <= 21; i++)
              expect(str(b.getFromBatchAndDB(db, keyOf(i)))).toBe(model.get(keyOf(i)));
            const want = [...model.entries()].sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0));
            const all = want.map(([k, v]) => `${k}=${v}`);
            expect(scan(b.iterator(db))).toEqual(all);
            expect(scan(b.iterator(db), true)).toEqual([...all].reverse());
            const [l, h] = lo <= hi ? [lo, hi] : [hi, lo];
            const inRange = want
              .filter(([k]) => k >= keyOf(l) && k < keyOf(h))
              .map(([k, v]) => `${k}=${v}`);
            expect(scan(b.iterator(db, { gte: keyOf(l), lt: keyOf(h) }))).toEqual(inRange);
            expect(scan(b.iterator(db, { gte: keyOf(l), lt: keyOf(h) }), true)).toEqual(
              [...inRange].reverse(),
            );
            // the other bound kinds: lower exclusive, upper inclusive
            const inClosed = want
              .filter(([k]) => k > keyOf(l) && k <= keyOf(h))
              .map(([k, v]) => `${k}=${v}`);
            expect(scan(b.iterator(db, { gt: keyOf(l), lte: keyOf(h) }))).toEqual(inClosed);
            expect(scan(b.iterator(db, { gt: keyOf(l), lte: keyOf(h) }), true)).toEqual(
              [...inClosed].reverse(),
            );
            // seeks and direction changes land where the model says
            const it = b.iterator(db);
            const keys = want.map(([k]) => k);
            const t = keyOf(lo);
            it.seek(t);
            const at = keys.findIndex((k) => k >= t);
            expect(it.valid() ? str(it.key()) : undefined).toBe(at < 0 ? undefined : keys[at]);
            if (it.valid()) {
              it.prev();
              expect(it.valid() ? str(it.key()) : undefined).toBe(
                at > 0 ? keys[at - 1] : undefined,
              );
            }
            it.seekForPrev(t);
            let before = -1;
            for (let i = 0; i < keys.length; i++) if (keys[i]! <= t) before = i;
            expect(it.valid() ? str(it.key()) : undefined).toBe(
              before < 0 ? undefined : keys[before],
            );
            if (it.valid()) {
              it.next();
              expect(it.valid() ? str(it.key()) : undefined).toBe(keys[before + 1]);
            }
            it.close();
            db.write(b);
            expect(scan(db.iterator() as never)).toEqual(all);
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
