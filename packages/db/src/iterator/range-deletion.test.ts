/**
 * Range deletions in the DB iterator: the aggregator's answers against brute force, the
 * skipping child iterator against the conformance suite, and the point of it all — a scan
 * over a huge deleted range costs a few seeks, not one step per deleted key.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  compareBytes,
  concatBytes,
  InternalKeyComparator,
  MAX_SEQ,
  MemoryFileSystem,
  makeInternalKey,
  type RangeTombstone,
  Statistics,
  Ticker,
  ValueKind,
} from "@shale/base";
import { describeIteratorConformance } from "@shale/base/testing";
import { MemTable } from "@shale/memtable";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import { TableBuilder, TableReader } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newDBIterator, RangeDelAggregator, RangeDelSkippingIterator } from "./index.js";
import { CountingIterator, numbered, str } from "./sources.test-support.js";
import { UserKeyOrder } from "./user-key-order.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const order = new UserKeyOrder(bytewiseComparator);

describe("RangeDelAggregator", () => {
  const key = fc.uint8Array({ minLength: 0, maxLength: 3, max: 4 });
  const tombstone = fc
    .record({ a: key, b: key, seq: fc.integer({ min: 1, max: 30 }) })
    .map(({ a, b, seq }) =>
      compareBytes(a, b) <= 0 ? { start: a, end: b, seq } : { start: b, end: a, seq },
    );

  it("answers maxCoveringSeq and isCoveredAbove like brute force, in any query order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(tombstone, { maxLength: 6 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 32 }),
        fc.array(key, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        (lists, snapshot, threshold, probes, sorted) => {
          const all: RangeTombstone[] = lists.flat();
          const covering = (k: Uint8Array, above: number) =>
            all.filter(
              (t) =>
                t.seq <= snapshot &&
                t.seq > above &&
                compareBytes(t.start, k) <= 0 &&
                compareBytes(k, t.end) < 0,
            );
          const aggregator = new RangeDelAggregator(
            lists.map((l) => new FragmentedRangeTombstoneList(l)),
            order,
            snapshot,
            threshold,
          );
          const queries = sorted ? [...probes].sort(compareBytes) : probes;
          for (const k of queries) {
            const want = Math.max(0, ...covering(k, 0).map((t) => t.seq));
            expect(aggregator.maxCoveringSeq(k)).toBe(want);
            const ikey = makeInternalKey(k, 1, ValueKind.Value);
            expect(aggregator.coveringSeqOf(ikey)).toBe(want);
            const above = covering(k, threshold).length > 0;
            expect(aggregator.isCoveredAbove(ikey)).toBe(above);
            if (above) {
              const { skipStart, skipEnd } = aggregator;
              expect(compareBytes(skipStart, k)).toBeLessThanOrEqual(0);
              expect(compareBytes(k, skipEnd)).toBeLessThan(0);
              // Every probe in [skipStart, skipEnd) is deleted above the threshold too.
              for (const p of probes) {
                if (compareBytes(skipStart, p) <= 0 && compareBytes(p, skipEnd) < 0) {
                  expect(covering(p, threshold).length).toBeGreaterThan(0);
                }
              }
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("is empty without fragments", () => {
    const aggregator = new RangeDelAggregator(
      [new FragmentedRangeTombstoneList([])],
      order,
      MAX_SEQ,
    );
    expect(aggregator.isEmpty).toBe(true);
    expect(aggregator.maxCoveringSeq(new Uint8Array([1]))).toBe(0);
  });
});

/**
 * The suite's entries plus noise entries in gaps between user keys, each gap covered by a
 * tombstone newer than the child's declared max seq: the wrapper must hide exactly the noise.
 */
describeIteratorConformance("RangeDelSkippingIterator over noisy entries", {
  keys: "internal",
  build: (keys, values) => {
    const entries = keys.map((k, i) => ({ k, v: values[i]! }));
    const tombstones: RangeTombstone[] = [];
    const distinct = keys
      .map((k) => k.subarray(0, k.length - 8))
      .filter((u, i, all) => i === 0 || compareBytes(all[i - 1]!, u) !== 0);
    for (let i = 0; i + 1 < distinct.length; i += 2) {
      const lo = concatBytes(distinct[i]!, new Uint8Array([0]));
      const hi = distinct[i + 1]!;
      if (compareBytes(lo, hi) >= 0) continue;
      tombstones.push({ start: lo, end: hi, seq: 3000 });
      entries.push({ k: makeInternalKey(lo, 5, ValueKind.Value), v: new Uint8Array([0xee]) });
    }
    entries.sort((a, b) => icmp.compare(a.k, b.k));
    const child = new ArrayIterator(
      entries.map((e) => e.k),
      entries.map((e) => e.v),
      (a, b) => icmp.compare(a, b),
    );
    const lists = [new FragmentedRangeTombstoneList(tombstones)];
    return new RangeDelSkippingIterator(child, new RangeDelAggregator(lists, order, MAX_SEQ, 2000));
  },
});

describe("skipping a huge deleted range", () => {
  const N = 100_000;

  function setup(withMaxSeqs: boolean, stats?: Statistics) {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable("old.sst");
    const builder = new TableBuilder(file);
    for (let i = 0; i < N; i++) {
      builder.add(makeInternalKey(numbered(i), i + 1, ValueKind.Value), numbered(i));
    }
    builder.finish();
    file.close();
    const reader = TableReader.open(fs.openRandomAccess("old.sst"), {
      fileSize: fs.fileSize("old.sst"),
    });
    const mem = new MemTable();
    mem.add(N + 10, ValueKind.RangeDeletion, numbered(10), numbered(N - 10));
    mem.add(N + 11, ValueKind.Value, numbered(50_000), new TextEncoder().encode("new"));
    mem.add(N + 12, ValueKind.Value, numbered(50_001), new TextEncoder().encode("new"));
    const table = new CountingIterator(reader.newIterator());
    const it = newDBIterator({
      children: [mem.newIterator(), table],
      rangeTombstones: [
        new FragmentedRangeTombstoneList(mem.rangeTombstones()),
        reader.rangeTombstones(),
      ],
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: MAX_SEQ,
      ...(withMaxSeqs ? { childMaxSeqs: [N + 12, N] } : {}),
      ...(stats !== undefined ? { statistics: stats } : {}),
      onClose: () => reader.close(),
    });
    return { it, table };
  }

  const expectedKeys = [
    ...Array.from({ length: 10 }, (_, i) => str(numbered(i))),
    str(numbered(50_000)),
    str(numbered(50_001)),
    ...Array.from({ length: 10 }, (_, i) => str(numbered(N - 10 + i))),
  ];

  it("forward: seeks over the deleted run instead of stepping through it", () => {
    const stats = new Statistics();
    const { it, table } = setup(true, stats);
    const keys: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) keys.push(str(it.key()));
    expect(keys).toEqual(expectedKeys);
    expect(table.nexts).toBeLessThan(50);
    expect(stats.getTicker(Ticker.RangeDelCoveredKeys)).toBe(0);
    it.close();
  });

  it("backward: the mirror, with seekForPrev before the fragment start", () => {
    const { it, table } = setup(true);
    const keys: string[] = [];
    for (it.seekToLast(); it.valid(); it.prev()) keys.push(str(it.key()));
    expect(keys).toEqual([...expectedKeys].reverse());
    expect(table.prevs).toBeLessThan(50);
    it.close();
  });

  it("seeks into the middle of the run land past it at once", () => {
    const { it, table } = setup(true);
    it.seek(numbered(20_000));
    expect(str(it.key())).toBe(str(numbered(50_000)));
    it.seekForPrev(numbered(70_000));
    expect(str(it.key())).toBe(str(numbered(50_001)));
    expect(table.nexts + table.prevs).toBeLessThan(20);
    it.close();
  });

  it("without declared max seqs every deleted entry is visited (same result)", () => {
    const stats = new Statistics();
    const { it, table } = setup(false, stats);
    const keys: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) keys.push(str(it.key()));
    expect(keys).toEqual(expectedKeys);
    expect(table.nexts).toBeGreaterThan(N - 100);
    expect(stats.getTicker(Ticker.RangeDelCoveredKeys)).toBe(N - 22);
    it.close();
  });
});
