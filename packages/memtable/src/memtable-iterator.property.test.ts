/**
 * The memtable iterator against a model (a sorted array of internal keys): random inserts,
 * keys of mixed lengths that share long prefixes (so leaves get a skip and equal slices),
 * several versions per user key, and random mixes of seeks, next and prev with inserts in
 * between. Every position's `key()` and `value()` must be the model's, and after `next()`
 * `userKeyDiffersAt()` must be -1 or the true answer (the first differing byte of the user
 * keys, or their length when equal) — the copy of only the changed bytes must never leave a
 * stale byte behind.
 */
import {
  bytewiseComparator,
  type Comparator,
  InternalKeyComparator,
  makeInternalKey,
  TRAILER_SIZE,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemTable } from "./memtable.js";

/** Reverse bytewise: a comparator the leaves' slices do not order. */
const reverseBytewise: Comparator = {
  name: "test.ReverseBytewise",
  compare: (a, b) => bytewiseComparator.compare(b, a),
  findShortestSeparator: (a) => a,
  findShortSuccessor: (a) => a,
};

/** The true step hint between two internal keys' user keys (see InternalIterator). */
function trueDiff(prev: Uint8Array, cur: Uint8Array): number {
  const a = prev.length - TRAILER_SIZE;
  const b = cur.length - TRAILER_SIZE;
  const n = a < b ? a : b;
  for (let i = 0; i < n; i++) if (prev[i] !== cur[i]) return i;
  return a === b ? a : -1;
}

/**
 * User keys of one run: a prefix shared by most (so leaves get a long skip), then up to 12
 * bytes of a 2- to 4-letter alphabet (long common runs, differences at every depth); some
 * keys without the prefix.
 */
const userKey = fc
  .tuple(fc.boolean(), fc.uint8Array({ maxLength: 12 }), fc.integer({ min: 2, max: 4 }))
  .map(([bare, tail, letters]) => {
    const head = bare ? new Uint8Array(0) : PREFIX;
    const k = new Uint8Array(head.length + tail.length);
    k.set(head);
    k.set(
      tail.map((x) => 0x30 + (x % letters)),
      head.length,
    );
    return k;
  });
const PREFIX = new TextEncoder().encode("key-0000-");

type Op =
  | { op: "insert"; key: Uint8Array }
  | { op: "seek"; key: Uint8Array }
  | { op: "seekForPrev"; key: Uint8Array }
  | { op: "first" }
  | { op: "last" }
  | { op: "next"; times: number }
  | { op: "prev"; times: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: userKey.map((key) => ({ op: "insert" as const, key })) },
  { weight: 1, arbitrary: userKey.map((key) => ({ op: "seek" as const, key })) },
  { weight: 1, arbitrary: userKey.map((key) => ({ op: "seekForPrev" as const, key })) },
  { weight: 1, arbitrary: fc.constant({ op: "first" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "last" as const }) },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 1, max: 40 }).map((times) => ({ op: "next" as const, times })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 1, max: 40 }).map((times) => ({ op: "prev" as const, times })),
  },
);

function check(comparator: Comparator, initial: Uint8Array[], ops: Op[]): void {
  const icmp = new InternalKeyComparator(comparator);
  const mem = new MemTable({ comparator, arenaChunkSize: 4096 });
  const model: Uint8Array[] = [];
  const values = new Map<string, Uint8Array>();
  let seq = 1;
  const insert = (k: Uint8Array) => {
    const s = seq++;
    const v = new TextEncoder().encode(`v${s}`);
    mem.add(s, ValueKind.Value, k, v);
    const ikey = makeInternalKey(k, s, ValueKind.Value);
    let lo = 0;
    let hi = model.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (icmp.compare(model[mid]!, ikey) < 0) lo = mid + 1;
      else hi = mid;
    }
    model.splice(lo, 0, ikey);
    values.set(ikey.join(","), v);
  };
  for (const k of initial) insert(k);
  const lowerBound = (t: Uint8Array, strict: boolean) => {
    let i = 0;
    while (i < model.length && icmp.compare(model[i]!, t) < (strict ? 1 : 0)) i++;
    return i;
  };
  const it = mem.newIterator();
  let pos = -1; // index in the model; -1 / model.length: not valid
  let at: Uint8Array | undefined; // the model key at pos, kept across inserts
  const expectAt = (step: "next" | "other", before: Uint8Array | undefined) => {
    if (pos < 0 || pos >= model.length) {
      expect(it.valid()).toBe(false);
      at = undefined;
      return;
    }
    expect(it.valid()).toBe(true);
    at = model[pos]!;
    if (step === "next" && before !== undefined && comparator === bytewiseComparator) {
      const hint = it.userKeyDiffersAt();
      if (hint !== -1) expect(hint).toBe(trueDiff(before, at));
    }
    expect([...it.key()]).toEqual([...at]);
    expect([...it.value()]).toEqual([...values.get(at.join(","))!]);
  };
  for (const o of ops) {
    switch (o.op) {
      case "insert":
        insert(o.key);
        if (at !== undefined) pos = model.indexOf(at);
        break;
      case "seek": {
        const t = makeInternalKey(o.key, 1 << 20, ValueKind.Value);
        it.seek(t);
        pos = lowerBound(t, false);
        expectAt("other", undefined);
        break;
      }
      case "seekForPrev": {
        const t = makeInternalKey(o.key, 0, ValueKind.Deletion);
        it.seekForPrev(t);
        pos = lowerBound(t, true) - 1;
        expectAt("other", undefined);
        break;
      }
      case "first":
        it.seekToFirst();
        pos = model.length > 0 ? 0 : -1;
        expectAt("other", undefined);
        break;
      case "last":
        it.seekToLast();
        pos = model.length - 1;
        expectAt("other", undefined);
        break;
      case "next":
        for (let i = 0; i < o.times && it.valid(); i++) {
          const before = at;
          it.next();
          pos++;
          expectAt("next", before);
        }
        break;
      case "prev":
        for (let i = 0; i < o.times && it.valid(); i++) {
          it.prev();
          pos--;
          expectAt("other", undefined);
        }
        break;
    }
  }
  it.close();
  mem.unref();
}

describe("memtable iterator against a model", () => {
  it("bytewise: keys, values and step hints through random moves and inserts", () => {
    fc.assert(
      fc.property(
        fc.array(userKey, { minLength: 0, maxLength: 600, size: "max" }),
        fc.array(op, { maxLength: 60, size: "max" }),
        (initial, ops) => check(bytewiseComparator, initial, ops),
      ),
      { numRuns: 150 },
    );
  });

  it("a comparator the slices do not order: keys and values stay right", () => {
    fc.assert(
      fc.property(
        fc.array(userKey, { minLength: 0, maxLength: 300, size: "max" }),
        fc.array(op, { maxLength: 40, size: "max" }),
        (initial, ops) => check(reverseBytewise, initial, ops),
      ),
      { numRuns: 60 },
    );
  });

  it("a scan of same-length keys hands out one key view, and hints on every in-leaf step", () => {
    const mem = new MemTable();
    const enc = new TextEncoder();
    for (let i = 0; i < 2000; i++) {
      const k = enc.encode(String((i * 7919) % 1000).padStart(16, "0"));
      mem.add(i + 1, ValueKind.Value, k, enc.encode("v"));
    }
    const it = mem.newIterator();
    it.seekToFirst();
    const first = it.key();
    let previous = first.slice();
    let hinted = 0;
    let steps = 0;
    for (it.next(); it.valid(); it.next()) {
      const key = it.key();
      expect(key).toBe(first); // the same view: no allocation per entry
      const hint = it.userKeyDiffersAt();
      if (hint !== -1) {
        expect(hint).toBe(trueDiff(previous, key));
        hinted++;
      }
      steps++;
      previous = key.slice();
    }
    expect(steps).toBe(1999);
    // Every step but the ones across leaves is hinted (at least 64 entries per two leaves).
    expect(hinted).toBeGreaterThan(steps * 0.9);
    it.close();
    mem.unref();
  });
});
