import {
  bytewiseComparator,
  compareBytes,
  InternalKeyComparator,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { Random } from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBytewise, keySlice, LEAF_CAP } from "./btree-layout.js";
import { MemTable } from "./memtable.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

interface Op {
  key: Uint8Array;
  seq: number;
  kind: ValueKind;
}

/**
 * Adds `ops` (duplicates are expected to be rejected) and checks the memtable against a
 * sorted model: full scans both ways, seeks and seekForPrevs at every key and at probes,
 * and the tree invariants.
 */
function checkAgainstModel(ops: Op[], probes: Uint8Array[]): void {
  const mem = new MemTable();
  const model = new Map<string, Uint8Array>();
  for (const op of ops) {
    const ikey = makeInternalKey(op.key, op.seq, op.kind);
    const id = hex(ikey);
    if (model.has(id)) {
      expect(() => mem.add(op.seq, op.kind, op.key, op.key)).toThrow(/duplicate/);
    } else {
      mem.add(op.seq, op.kind, op.key, op.key);
      model.set(id, ikey);
    }
  }
  mem.checkInvariants();
  const sorted = [...model.values()].sort((a, b) => icmp.compare(a, b));
  const it = mem.newIterator();
  const forward: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next()) forward.push(hex(it.key()));
  expect(forward).toEqual(sorted.map(hex));
  const backward: string[] = [];
  for (it.seekToLast(); it.valid(); it.prev()) backward.push(hex(it.key()));
  expect(backward).toEqual(sorted.map(hex).reverse());
  const targets = [
    ...sorted,
    ...probes.flatMap((p) => [makeInternalKey(p, 0, 0), makeInternalKey(p, 2 ** 40, 1)]),
  ];
  for (const target of targets) {
    const ge = firstIndex(sorted, (k) => icmp.compare(k, target) >= 0);
    it.seek(target);
    expect(it.valid() ? hex(it.key()) : "end").toBe(
      ge === sorted.length ? "end" : hex(sorted[ge]!),
    );
    const le = firstIndex(sorted, (k) => icmp.compare(k, target) > 0) - 1;
    it.seekForPrev(target);
    expect(it.valid() ? hex(it.key()) : "end").toBe(le < 0 ? "end" : hex(sorted[le]!));
  }
}

/** The first index of sorted `xs` where the monotone `pred` holds (xs.length if none). */
function firstIndex(xs: Uint8Array[], pred: (x: Uint8Array) => boolean): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(xs[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** db_bench's key: n as 8 big-endian bytes, then '0' padding to 16 bytes. */
function dbBenchKey(n: number): Uint8Array {
  const k = new Uint8Array(16).fill(0x30);
  new DataView(k.buffer).setUint32(0, Math.floor(n / 2 ** 32));
  new DataView(k.buffer).setUint32(4, n >>> 0);
  return k;
}

describe("keySlice", () => {
  it("orders like the keys' bytes from `skip` whenever two slices differ", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 8 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.integer({ min: 0, max: 4 }),
        (a, b, skip) => {
          const sa = keySlice(a, 0, a.length, skip);
          const sb = keySlice(b, 0, b.length, skip);
          const c = compareBytes(a.subarray(Math.min(skip, a.length)), b.subarray(skip));
          if (sa !== sb) expect(Math.sign(sa - sb)).toBe(Math.sign(c));
          if (c === 0) expect(sa).toBe(sb);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("reads at an offset and pads with zeros", () => {
    const buf = new Uint8Array([9, 0x80, 1, 2, 3, 4]);
    expect(keySlice(buf, 1, 4, 0)).toBe(keySlice(new Uint8Array([0x80, 1, 2, 3]), 0, 4, 0));
    expect(keySlice(buf, 1, 5, 1)).toBe(keySlice(new Uint8Array([1, 2, 3, 4]), 0, 4, 0));
    expect(keySlice(buf, 1, 0, 0)).toBe(-(2 ** 31));
    expect(keySlice(buf, 1, 2, 3)).toBe(-(2 ** 31));
    expect(keySlice(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0, 4, 0)).toBe(2 ** 31 - 1);
  });

  it("recognises the bytewise comparator by identity or name", () => {
    expect(isBytewise(bytewiseComparator)).toBe(true);
    expect(isBytewise({ ...bytewiseComparator })).toBe(true);
    expect(isBytewise({ ...bytewiseComparator, name: "other" })).toBe(false);
  });
});

describe("BTree", () => {
  it("inserts ascending, descending, zigzag and random keys, each twice (splice duplicates)", () => {
    for (const pattern of ["ascending", "descending", "zigzag", "random"] as const) {
      const mem = new MemTable({ arenaChunkSize: 4096 });
      const n = 3000;
      const seen = new Set<number>();
      const rnd = new Random(pattern.length);
      for (let i = 0; i < n; i++) {
        const k =
          pattern === "ascending"
            ? i
            : pattern === "descending"
              ? n - i
              : pattern === "zigzag"
                ? i % 2 === 0
                  ? i
                  : n * 2 - i
                : rnd.uniform(n);
        const key = new Uint8Array([k >>> 8, k & 0xff, 7]);
        const dup = seen.has(k);
        seen.add(k);
        // Every key twice in a row at the same seq: the second is a duplicate.
        mem.add(dup ? i + n : 1, ValueKind.Value, key, key);
        expect(() => mem.add(dup ? i + n : 1, ValueKind.Value, key, key)).toThrow(/duplicate/);
        mem.add(i + 2 * n, ValueKind.Merge, key, key);
      }
      mem.checkInvariants();
      expect(mem.numEntries).toBe(2 * n);
    }
  });

  it("matches a sorted model for db_bench keys in random, ascending and descending order", () => {
    const n = 10_000;
    const rnd = new Random(5);
    const random: Op[] = [];
    for (let i = 0; i < n; i++)
      random.push({ key: dbBenchKey(rnd.uniform(n)), seq: i + 1, kind: ValueKind.Value });
    const probes = [dbBenchKey(0), dbBenchKey(n), dbBenchKey(2 ** 40), new Uint8Array(0)];
    checkAgainstModel(random, probes);
    const up: Op[] = [];
    for (let i = 0; i < 5000; i++) up.push({ key: dbBenchKey(i * 3), seq: 1, kind: 1 });
    checkAgainstModel(up, probes);
    checkAgainstModel(up.slice().reverse(), probes);
  });

  it("lowers the skip of the outermost nodes when keys leave their common prefix", () => {
    // Thousands of keys sharing a long prefix, then keys below and above it, shorter ones,
    // prefixes of it, and keys with zero bytes where the padding would be.
    const ops: Op[] = [];
    const rnd = new Random(11);
    const prefix = new Uint8Array([5, 5, 5, 5, 5, 5]);
    const withPrefix = (tail: Uint8Array) => new Uint8Array([...prefix, ...tail]);
    let seq = 1;
    for (let i = 0; i < 5000; i++) ops.push({ key: withPrefix(rnd.bytes(3)), seq: seq++, kind: 1 });
    for (let i = 0; i < 3000; i++) {
      const r = rnd.uniform(6);
      const key =
        r === 0
          ? rnd.bytes(rnd.uniform(8))
          : r === 1
            ? prefix.subarray(0, rnd.uniform(7))
            : r === 2
              ? withPrefix(new Uint8Array(rnd.uniform(3)))
              : r === 3
                ? new Uint8Array([5, 5, 5, rnd.uniform(256), ...rnd.bytes(2)])
                : withPrefix(rnd.bytes(rnd.uniform(4)));
      ops.push({ key, seq: seq++, kind: 1 });
    }
    checkAgainstModel(ops, [new Uint8Array(0), prefix, withPrefix(new Uint8Array([0]))]);
  });

  it("lowers the skip of an outermost inner node when a split pushes up a key outside it", () => {
    // The first leaf gets 40 "a" keys and 24 "b\x01" keys; thousands of larger "b" keys
    // build an inner level whose leftmost node's separators all start with "b" (skip >= 1).
    // Keys "b\x00.." then land between the "a" and "b" keys of the first leaf, which splits
    // in half and pushes an "a" key up into that node.
    const rnd = new Random(4);
    const ops: Op[] = [];
    let seq = 1;
    const add = (...bytes: number[]) =>
      ops.push({ key: new Uint8Array(bytes), seq: seq++, kind: 1 });
    for (let i = 0; i < 40; i++) add(0x61, i);
    for (let i = 0; i < 24; i++) add(0x62, 1, 0, i);
    for (let i = 0; i < 6000; i++)
      add(0x62, 2 + rnd.uniform(254), rnd.uniform(256), rnd.uniform(256));
    for (let i = 200; i > 0; i--) add(0x62, 0, i);
    checkAgainstModel(ops, [
      new Uint8Array([0x61]),
      new Uint8Array([0x62]),
      new Uint8Array([0x62, 0]),
    ]);
  });

  it("keeps many versions of one user key across leaves in seq order", () => {
    const ops: Op[] = [];
    const rnd = new Random(2);
    for (let i = 0; i < LEAF_CAP * 20; i++) {
      const key = rnd.oneIn(3) ? new Uint8Array([1, 2, 3]) : rnd.bytes(1 + rnd.uniform(3), 4);
      ops.push({ key, seq: 1 + rnd.uniform(500), kind: rnd.oneIn(2) ? 1 : 2 });
    }
    checkAgainstModel(ops, [new Uint8Array([1, 2, 3]), new Uint8Array([1, 2])]);
  });

  it("matches the model for arbitrary small key sets (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            key: fc.uint8Array({ maxLength: 6, max: 3 }),
            seq: fc.integer({ min: 0, max: 30 }),
            kind: fc.constantFrom(ValueKind.Value, ValueKind.Merge, ValueKind.Deletion),
          }),
          { maxLength: 400 },
        ),
        fc.array(fc.uint8Array({ maxLength: 6, max: 3 }), { maxLength: 5 }),
        (ops, probes) => checkAgainstModel(ops, probes),
      ),
      { numRuns: 60 },
    );
  });

  it("keeps an iterator valid across inserts that split its leaf", () => {
    const mem = new MemTable();
    const key = (i: number) => new Uint8Array([i >>> 8, i & 0xff]);
    for (let i = 0; i < 4000; i += 2) mem.add(1, ValueKind.Value, key(i), key(i));
    const it = mem.newIterator();
    it.seek(makeInternalKey(key(1000), 9, 1));
    const seen: number[] = [];
    for (let step = 0; step < 200 && it.valid(); step++) {
      const k = it.key();
      seen.push((k[0]! << 8) | k[1]!);
      // Fill the gaps ahead of and behind the iterator (odd keys): splits around it.
      for (let j = 0; j < 5; j++) {
        const odd = 2 * ((Math.imul(step * 5 + j, 2654435761) >>> 0) % 2000) + 1;
        try {
          mem.add(1, ValueKind.Value, key(odd), key(odd));
        } catch {
          // duplicate odd key: fine
        }
      }
      it.next();
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
    expect(seen[0]).toBe(1000);
    it.prev();
    expect(it.valid()).toBe(true);
    mem.checkInvariants();
  });
});
