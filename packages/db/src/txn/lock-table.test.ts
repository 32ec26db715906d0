/**
 * The lock table against a Map: random inserts, lookups and removals of (family, key) pairs
 * with 1, 2 and 4 stripes (every key collides with others) and with the growing default.
 * Two different keys never find the same lock, a removed lock is never found again (even
 * once it is reused for another key), and the table grows and shrinks back.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type KeyLock, keyHash, LockTable } from "./lock-table.js";

const name = (familyId: number, key: Uint8Array) =>
  `${familyId}:${Buffer.from(key).toString("hex")}`;

type Op =
  | { op: "lock"; familyId: number; key: Uint8Array }
  | { op: "release"; familyId: number; key: Uint8Array };

/** Short keys over a small alphabet (many equal, many sharing prefixes), a few long ones. */
const keyArb = fc.oneof(
  { weight: 5, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 3, max: 2 }) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 30, maxLength: 300 }) },
);
const opArb: fc.Arbitrary<Op> = fc.record({
  op: fc.constantFrom("lock" as const, "release" as const),
  familyId: fc.nat(2),
  key: keyArb,
});

function run(table: LockTable, ops: readonly Op[]): void {
  const model = new Map<string, KeyLock>();
  for (const { op, familyId, key } of ops) {
    const n = name(familyId, key);
    const hash = keyHash(familyId, key);
    const found = table.find(familyId, key, hash);
    expect(found).toBe(model.get(n));
    if (op === "lock" && found === undefined) {
      const lock = table.insert(familyId, key, hash);
      expect(lock.familyId).toBe(familyId);
      expect(lock.keyBytes()).toEqual(key);
      expect(lock.idle).toBe(true);
      for (const other of model.values()) expect(other).not.toBe(lock);
      lock.owner = { id: 1, held: [], waitingFor: undefined };
      model.set(n, lock);
    } else if (op === "release" && found !== undefined) {
      found.owner = undefined;
      table.remove(found);
      model.delete(n);
    }
    expect(table.size).toBe(model.size);
  }
  // Every lock is found by its own key, and holds that key's bytes.
  for (const [n, lock] of model) {
    expect(name(lock.familyId, lock.keyBytes())).toBe(n);
    expect(table.find(lock.familyId, lock.keyBytes(), lock.hash)).toBe(lock);
  }
  let seen = 0;
  table.forEach(() => {
    seen++;
  });
  expect(seen).toBe(model.size);
}

describe("LockTable", () => {
  for (const stripes of [1, 2, 4, undefined]) {
    it(`matches a Map of keys with ${stripes ?? "growing"} stripes`, () => {
      fc.assert(
        fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => run(new LockTable(stripes), ops)),
        { numRuns: 150 },
      );
    });
  }

  it("keeps keys of different families apart, and the same bytes of one family together", () => {
    const table = new LockTable(1);
    const key = new Uint8Array([7, 7]);
    const a = table.insert(0, key, keyHash(0, key));
    const b = table.insert(1, key, keyHash(1, key));
    expect(a).not.toBe(b);
    expect(table.find(0, new Uint8Array([7, 7]), keyHash(0, key))).toBe(a);
    expect(table.find(1, key, keyHash(1, key))).toBe(b);
    expect(table.find(0, new Uint8Array([7]), keyHash(0, new Uint8Array([7])))).toBeUndefined();
  });

  it("gives two keys with the same 32-bit hash two locks", () => {
    // A birthday search over 8-byte keys finds a full-hash collision within ~2^17 keys (a
    // search over 4-byte keys would not: the hash is a bijection on them).
    const keyOf = (i: number) =>
      new Uint8Array(new Uint32Array([i, Math.imul(i, 0x9e3779b1)]).buffer);
    const byHash = new Map<number, number>();
    let pair: [Uint8Array, Uint8Array] | undefined;
    for (let i = 0; pair === undefined && i < 1 << 20; i++) {
      const h = keyHash(0, keyOf(i));
      const j = byHash.get(h);
      if (j !== undefined) pair = [keyOf(j), keyOf(i)];
      else byHash.set(h, i);
    }
    if (pair === undefined) throw new Error("no collision among 2^20 keys");
    const [k1, k2] = pair;
    expect(keyHash(0, k1)).toBe(keyHash(0, k2));
    for (const stripes of [1, undefined]) {
      const table = new LockTable(stripes);
      const a = table.insert(0, k1, keyHash(0, k1));
      expect(table.find(0, k2, keyHash(0, k2))).toBeUndefined();
      const b = table.insert(0, k2, keyHash(0, k2));
      expect(b).not.toBe(a);
      expect(table.find(0, k1, keyHash(0, k1))).toBe(a);
      expect(table.find(0, k2, keyHash(0, k2))).toBe(b);
      table.remove(a);
      expect(table.find(0, k1, keyHash(0, k1))).toBeUndefined();
      expect(table.find(0, k2, keyHash(0, k2))).toBe(b);
    }
  });

  it("finds nothing for a key whose lock was released and reused for another key", () => {
    const table = new LockTable(1);
    const k1 = new Uint8Array([1, 2, 3]);
    const k2 = new Uint8Array([9]);
    const first = table.insert(0, k1, keyHash(0, k1));
    table.remove(first);
    const second = table.insert(0, k2, keyHash(0, k2));
    expect(second).toBe(first); // reused from the free list
    expect(table.find(0, k1, keyHash(0, k1))).toBeUndefined();
    expect(second.keyBytes()).toEqual(k2);
  });

  it("grows with the locks it holds and drops back to its first size once empty", () => {
    const table = new LockTable();
    const first = table.stripeCount;
    const locks: KeyLock[] = [];
    for (let i = 0; i < 5000; i++) {
      const key = new Uint8Array(new Uint32Array([i]).buffer);
      locks.push(table.insert(0, key, keyHash(0, key)));
    }
    expect(table.stripeCount).toBeGreaterThanOrEqual(5000 / 2);
    for (let i = 0; i < 5000; i++) {
      const key = new Uint8Array(new Uint32Array([i]).buffer);
      expect(table.find(0, key, keyHash(0, key))).toBe(locks[i]);
    }
    for (const lock of locks) table.remove(lock);
    expect(table.size).toBe(0);
    expect(table.stripeCount).toBe(first);
  });

  it("never resizes a table made with a fixed stripe count", () => {
    const table = new LockTable(2);
    for (let i = 0; i < 100; i++) {
      const key = new Uint8Array([i]);
      table.insert(0, key, keyHash(0, key));
    }
    expect(table.stripeCount).toBe(2);
    expect(table.size).toBe(100);
  });

  it("refuses a stripe count that is not a power of two", () => {
    expect(() => new LockTable(3)).toThrow(RangeError);
    expect(() => new LockTable(0)).toThrow(RangeError);
  });

  it("spreads keys that differ in one byte over the stripes", () => {
    const mask = 63;
    const used = new Set<number>();
    for (let i = 0; i < 256; i++) used.add(keyHash(0, new Uint8Array([0, 0, i, 0])) & mask);
    expect(used.size).toBeGreaterThan(48);
  });
});
