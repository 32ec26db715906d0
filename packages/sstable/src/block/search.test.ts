/**
 * The in-place search paths of the read path against the comparator: compareInternalBytewise,
 * IndexSearch (index blocks), scanRun (data-block runs) and BlockIterator.seek /
 * seekForPrev to arbitrary targets.
 */
import {
  bytewiseComparator,
  isCorruption,
  KIND_FOR_SEEK,
  MAX_SEQ,
  makeInternalKey,
  toBytes,
  toHex,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeBlockHandle } from "../format/format.js";
import { IndexSearch } from "../index/index-search.js";
import { icmp } from "../table/table.test-support.js";
import { Block, SLOT_BYTES } from "./block.js";
import { BlockBuilder } from "./block-builder.js";
import { BlockIterator } from "./block-iterator.js";
import { compareInternalBytewise, KeyOrder } from "./key-order.js";
import { copyFoundKey, SCAN_FALLBACK, SCAN_RUN_END, scanRun } from "./run-scan.js";

const order = new KeyOrder(bytewiseComparator, true);
const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);

/** Internal keys over a tiny alphabet (many shared prefixes), optionally behind a prefix. */
const userArb = fc.oneof(
  fc.uint8Array({ maxLength: 12, max: 3 }),
  fc.uint8Array({ maxLength: 6, max: 3 }).map((u) => Uint8Array.from([...toBytes("user:"), ...u])),
  fc.uint8Array({ minLength: 0, maxLength: 20 }),
);
const seqArb = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: MAX_SEQ }));
const kindArb = fc.constantFrom(0, 1, 2, 7, 15);
const ikeyArb = fc
  .tuple(userArb, seqArb, kindArb)
  .map(([u, seq, kind]) => makeInternalKey(u, seq, kind));

function sortedUnique(keys: Uint8Array[]): Uint8Array[] {
  const sorted = [...keys].sort((a, b) => icmp.compare(a, b));
  return sorted.filter((k, i) => i === 0 || icmp.compare(sorted[i - 1]!, k) !== 0);
}

function buildBlock(keys: readonly Uint8Array[], values: readonly Uint8Array[], interval: number) {
  const b = new BlockBuilder(interval);
  for (let i = 0; i < keys.length; i++) b.add(keys[i]!, values[i]!);
  return b.finish().slice();
}

/** Offsets of the entries of a block (decoded independently of the iterator). */
function entryOffsets(data: Uint8Array): number[] {
  const numRestarts = data[data.length - 4]! | (data[data.length - 3]! << 8);
  const limit = data.length - 4 - 4 * numRestarts;
  const out: number[] = [];
  let p = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = data[p++]!;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (p < limit) {
    out.push(p);
    varint();
    const unshared = varint();
    const vlen = varint();
    p += unshared + vlen;
  }
  return out;
}

describe("compareInternalBytewise", () => {
  it("orders like the internal key comparator, at any offset", () => {
    fc.assert(
      fc.property(ikeyArb, ikeyArb, fc.nat({ max: 9 }), (a, b, off) => {
        const buf = new Uint8Array(off + a.length + 3).fill(0xee);
        buf.set(a, off);
        expect(sign(compareInternalBytewise(buf, off, a.length, b, b.length))).toBe(
          sign(icmp.compare(a, b)),
        );
        expect(sign(order.compareAt(buf, off, a.length, b))).toBe(sign(icmp.compare(a, b)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("IndexSearch", () => {
  const indexArb = fc.record({
    keys: fc.array(ikeyArb, { minLength: 1, maxLength: 80 }).map(sortedUnique),
    offsets: fc.array(fc.integer({ min: 0, max: 2 ** 45 }), { minLength: 80, maxLength: 80 }),
    targets: fc.array(ikeyArb, { maxLength: 30 }),
  });

  it("lowerBound is the first entry >= target, blockOffset the entry's handle offset", () => {
    fc.assert(
      fc.property(indexArb, ({ keys, offsets, targets }) => {
        const values = keys.map((_, i) => encodeBlockHandle({ offset: offsets[i]!, size: 100 }));
        const data = buildBlock(keys, values, 1);
        const block = Block.keyValue(data, "t", 0);
        const search = IndexSearch.build(data, block.restartsOffset, block.numRestarts, "t", 0)!;
        expect(search).toBeDefined();
        expect(search.count).toBe(keys.length);
        for (let i = 0; i < keys.length; i++) expect(search.blockOffset(i)).toBe(offsets[i]);
        const seekKeys = [...targets, ...keys];
        for (const k of keys) {
          const u = k.subarray(0, k.length - 8);
          seekKeys.push(makeInternalKey(u, MAX_SEQ, KIND_FOR_SEEK), makeInternalKey(u, 0, 0));
        }
        for (const t of seekKeys) {
          let expected = keys.findIndex((k) => icmp.compare(k, t) >= 0);
          if (expected < 0) expected = keys.length;
          expect(search.lowerBound(t)).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("lowerBound from an earlier answer (ascending targets) gallops to the same entry", () => {
    fc.assert(
      fc.property(indexArb, ({ keys, offsets, targets }) => {
        const values = keys.map((_, i) => encodeBlockHandle({ offset: offsets[i]!, size: 100 }));
        const data = buildBlock(keys, values, 1);
        const block = Block.keyValue(data, "t", 0);
        const search = IndexSearch.build(data, block.restartsOffset, block.numRestarts, "t", 0)!;
        // Ascending targets, repeats included: each search starts at the previous answer.
        const ascending = [...targets, ...keys, ...targets.slice(0, 5)].sort((a, b) =>
          icmp.compare(a, b),
        );
        let previous = 0;
        for (const t of ascending) {
          const from = search.lowerBound(t, previous);
          expect(from, toHex(t)).toBe(search.lowerBound(t));
          // Any start at or below the answer gives it too.
          expect(search.lowerBound(t, from >>> 1)).toBe(from);
          previous = from;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the worked example of index-search.ts", () => {
    const keys = ["user:apple", "user:banana", "user:cherry"].map((u) =>
      makeInternalKey(toBytes(u), 5, 1),
    );
    const offsets = [0, 4113, 8190];
    const data = buildBlock(
      keys,
      offsets.map((offset) => encodeBlockHandle({ offset, size: 4000 })),
      1,
    );
    const block = Block.keyValue(data, "t", 0);
    const search = IndexSearch.build(data, block.restartsOffset, 3, "t", 0)!;
    expect(search.prefixLength).toBe(5);
    expect([...search.records]).toEqual([
      0x6170706c, 0x65000000, 0, 0, 0x62616e61, 0x6e610000, 4113, 0, 0x63686572, 0x72790000, 8190,
      0,
    ]);
    const target = makeInternalKey(toBytes("user:b"), MAX_SEQ, KIND_FOR_SEEK);
    expect(search.lowerBound(target)).toBe(1);
    expect(search.blockOffset(1)).toBe(4113);
  });

  it("is built for index blocks of bytewise tables only, and charged", () => {
    const keys = Array.from({ length: 40 }, (_, i) =>
      makeInternalKey(toBytes(`k${i + 100}`), 1, 1),
    );
    const values = keys.map((_, i) => encodeBlockHandle({ offset: i * 100, size: 90 }));
    const data = buildBlock(keys, values, 1);
    const plain = Block.keyValue(data, "t", 0);
    const indexed = Block.keyValue(data, "t", 0, true);
    expect(plain.search).toBeUndefined();
    expect(indexed.search).toBeDefined();
    // The aid, and a data-block slot per entry (block-source.ts, `cachedDataBlockAt`).
    const slots = SLOT_BYTES * indexed.search!.count;
    expect(indexed.charge).toBe(plain.charge + indexed.search!.byteSize + slots);
    expect(indexed.search!.byteSize).toBeGreaterThanOrEqual(16 * 40);
    // Too few entries: not worth it.
    const small = buildBlock(keys.slice(0, 3), values.slice(0, 3), 1);
    expect(Block.keyValue(small, "t", 0, true).search).toBeUndefined();
    // Restart runs of more than one entry (not an index block as written): none.
    const runs = buildBlock(keys, values, 2);
    const b = Block.keyValue(runs, "t", 0);
    expect(IndexSearch.build(runs, b.restartsOffset, b.numRestarts, "t", 0)).toBeUndefined();
    expect(Block.keyValue(runs, "t", 0, true).search).toBeUndefined();
  });

  it("rejects a malformed index entry with Corruption at the block offset", () => {
    const keys = Array.from({ length: 20 }, (_, i) => makeInternalKey(toBytes(`k${i + 10}`), 1, 1));
    const values = keys.map(() => Uint8Array.of(0xff, 0xff)); // truncated varint64
    const data = buildBlock(keys, values, 1);
    try {
      Block.keyValue(data, "f.sst", 321, true);
      expect.unreachable();
    } catch (e) {
      expect(isCorruption(e)).toBe(true);
      expect((e as { offset?: number }).offset).toBe(321);
    }
  });
});

describe("scanRun", () => {
  const runArb = fc.record({
    keys: fc.array(ikeyArb, { minLength: 1, maxLength: 60 }).map(sortedUnique),
    interval: fc.constantFrom(1, 2, 4, 16),
    targets: fc.array(ikeyArb, { maxLength: 20 }),
    valueLength: fc.constantFrom(0, 5, 100, 200),
  });

  function check(
    keys: Uint8Array[],
    interval: number,
    targets: Uint8Array[],
    valueLength: number,
  ): number {
    const values = keys.map((_, i) => new Uint8Array(valueLength).fill(i & 0xff));
    const data = buildBlock(keys, values, interval);
    const block = Block.keyValue(data, "t", 0);
    const offsets = entryOffsets(data);
    expect(offsets.length).toBe(keys.length);
    const limit = block.restartsOffset;
    let fallbacks = 0;
    const out = new Uint8Array(4096);
    for (let r = 0; r < block.numRestarts; r++) {
      const first = r * interval;
      const last = Math.min(first + interval, keys.length); // entries [first, last)
      const runEnd = r + 1 < block.numRestarts ? block.restartPoint(r + 1) : limit;
      for (const t of [...targets, ...keys]) {
        const found = scanRun(data, block.restartPoint(r), runEnd, limit, t);
        let expected = -1;
        for (let i = first; i < last; i++) {
          if (icmp.compare(keys[i]!, t) >= 0) {
            expected = i;
            break;
          }
        }
        if (found === SCAN_FALLBACK) {
          fallbacks++;
          continue;
        }
        if (expected < 0) {
          expect(found).toBe(SCAN_RUN_END);
        } else {
          expect(found).toBe(offsets[expected]);
          const n = copyFoundKey(data, found, t, out);
          expect(toHex(out.subarray(0, n))).toBe(toHex(keys[expected]!));
        }
      }
    }
    return fallbacks;
  }

  it("finds the first key >= target of the run, or says the run ends below it", () => {
    fc.assert(
      fc.property(runArb, ({ keys, interval, targets, valueLength }) => {
        check(keys, interval, targets, valueLength);
      }),
      { numRuns: 300 },
    );
  });

  it("never falls back for distinct fixed-length user keys (db_bench-like)", () => {
    const fixed = fc
      .tuple(fc.uint8Array({ minLength: 16, maxLength: 16, max: 4 }), seqArb, kindArb)
      .map(([u, seq, kind]) => makeInternalKey(u, seq, kind));
    fc.assert(
      fc.property(
        fc.uniqueArray(fixed, { selector: (k) => toHex(k.subarray(0, 16)), maxLength: 60 }),
        fc.array(fixed, { maxLength: 20 }),
        fc.constantFrom(1, 4, 16),
        (keys, targets, interval) => {
          if (keys.length === 0) return;
          expect(check(sortedUnique(keys), interval, targets, 100)).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("skips older versions of a user key below the target without falling back", () => {
    // Several seqs per user key (a table kept under snapshots, or a flush of a memtable
    // with overwrites): consecutive entries share the whole user key and trailer bytes.
    const user = fc.uint8Array({ minLength: 16, maxLength: 16, max: 4 });
    fc.assert(
      fc.property(
        fc.uniqueArray(user, { selector: toHex, minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2, max: 1e9 })), {
          minLength: 30,
          maxLength: 30,
        }),
        fc.array(user, { maxLength: 20 }),
        fc.constantFrom(4, 16),
        (users, versions, targetUsers, interval) => {
          const keys: Uint8Array[] = [];
          users.forEach((u, i) => {
            const [count, seq] = versions[i]!;
            for (let v = 0; v < count; v++) keys.push(makeInternalKey(u, seq - v, 1));
          });
          const present = new Set(users.map(toHex));
          // Targets whose user key is in no entry: every comparison is decided by a user byte.
          const targets = targetUsers
            .filter((u) => !present.has(toHex(u)))
            .map((u) => makeInternalKey(u, MAX_SEQ, 1));
          expect(check(sortedUnique(keys), interval, targets, 100)).toBe(
            check(sortedUnique(keys), interval, [], 100),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("BlockIterator seeks to arbitrary targets", () => {
  const blockArb = fc.record({
    keys: fc.array(ikeyArb, { minLength: 0, maxLength: 70 }).map(sortedUnique),
    interval: fc.constantFrom(1, 2, 16),
    indexSearch: fc.boolean(),
    targets: fc.array(ikeyArb, { maxLength: 25 }),
  });

  it("seek lands on the first key >= target, seekForPrev on the last key <= target", () => {
    fc.assert(
      fc.property(blockArb, ({ keys, interval, indexSearch, targets }) => {
        const values = keys.map((_, i) => encodeBlockHandle({ offset: i * 1000, size: 999 }));
        const useSearch = indexSearch && interval === 1;
        const block = Block.keyValue(buildBlock(keys, values, interval), "t", 0, useSearch);
        if (useSearch) expect(block.search !== undefined).toBe(keys.length >= 16);
        const it = new BlockIterator(order).init(block, "t", 0);
        for (const t of [...targets, ...keys]) {
          const ge = keys.findIndex((k) => icmp.compare(k, t) >= 0);
          it.seek(t);
          if (ge < 0) expect(it.valid()).toBe(false);
          else expect(toHex(it.key())).toBe(toHex(keys[ge]!));
          if (ge >= 0) {
            expect(toHex(it.value())).toBe(toHex(values[ge]!));
            // The position is a real one: stepping works from it.
            it.next();
            if (ge + 1 < keys.length) expect(toHex(it.key())).toBe(toHex(keys[ge + 1]!));
            else expect(it.valid()).toBe(false);
          }
          let le = -1;
          for (let i = keys.length - 1; i >= 0; i--) {
            if (icmp.compare(keys[i]!, t) <= 0) {
              le = i;
              break;
            }
          }
          it.seekForPrev(t);
          if (le < 0) expect(it.valid()).toBe(false);
          else expect(toHex(it.key())).toBe(toHex(keys[le]!));
        }
      }),
      { numRuns: 300 },
    );
  });
});
