/**
 * The cached range-tombstone lookup (range-tombstone-cache.ts) against a brute-force scan:
 * random tombstones, keys and snapshots, adds interleaved with reads (so the cached list is
 * stale, then scanned as a tail, then rebuilt), counts on both sides of LINEAR_MAX, both
 * comparators, and memtables reopened with fromShared.
 */
import {
  bytewiseComparator,
  type Comparator,
  isShaleError,
  LookupResult,
  LookupState,
  MAX_SEQ,
  type RangeTombstone,
  ValueKind,
} from "@shale/base";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemTable } from "./index.js";
import { LINEAR_MAX, RangeTombstoneCache, REBUILD_VISITS } from "./range-tombstone-cache.js";

const reverseComparator: Comparator = {
  ...bytewiseComparator,
  name: "test.ReverseBytewise",
  compare: (a, b) => bytewiseComparator.compare(b, a),
};

function bruteForce(
  ts: readonly RangeTombstone[],
  c: Comparator,
  key: Uint8Array,
  snap: number,
): number {
  let best = 0;
  for (const t of ts) {
    if (t.seq <= snap && c.compare(t.start, key) <= 0 && c.compare(key, t.end) < 0) {
      best = Math.max(best, t.seq);
    }
  }
  return best;
}

const text = (s: string) => new TextEncoder().encode(s);
const keyArb = fc.uint8Array({ minLength: 0, maxLength: 3, max: 5 });
const seqArb = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 60 }) },
  { weight: 1, arbitrary: fc.integer({ min: MAX_SEQ - 2, max: MAX_SEQ }) },
);
const snapArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 62 }) },
  { weight: 1, arbitrary: fc.constant(MAX_SEQ) },
);

type Op =
  | { type: "add"; start: Uint8Array; end: Uint8Array; seq: number; probe: boolean }
  | { type: "read"; key: Uint8Array; snap: number }
  | { type: "burst"; reads: number; snap: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant("add" as const),
      start: keyArb,
      end: keyArb,
      seq: seqArb,
      probe: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ type: fc.constant("read" as const), key: keyArb, snap: snapArb }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("burst" as const),
      reads: fc.integer({ min: 1, max: 400 }),
      snap: snapArb,
    }),
  },
);

/** Every key keyArb can produce that a burst cycles through (lengths 0..2). */
const burstKeys: Uint8Array[] = [new Uint8Array(0)];
for (let a = 0; a <= 5; a++) {
  burstKeys.push(Uint8Array.of(a));
  for (let b = 0; b <= 5; b++) burstKeys.push(Uint8Array.of(a, b));
}

/** Runs `ops` on `mem`, checking every read against the brute force; returns the raw list. */
function runOps(mem: MemTable, c: Comparator, ops: readonly Op[]): RangeTombstone[] {
  const model: RangeTombstone[] = [];
  for (const op of ops) {
    if (op.type === "add") {
      const [start, end] =
        c.compare(op.start, op.end) <= 0 ? [op.start, op.end] : [op.end, op.start];
      try {
        mem.add(op.seq, ValueKind.RangeDeletion, start, end);
        model.push({ start, end, seq: op.seq });
        if (op.probe) {
          // Read inside the new tombstone, right away: the list (if any) is now stale.
          for (const snap of [op.seq, op.seq - 1, MAX_SEQ]) {
            expect(mem.maxCoveringTombstoneSeq(start, snap)).toBe(
              bruteForce(model, c, start, snap),
            );
          }
        }
      } catch (e) {
        if (!isShaleError(e, "InvalidArgument")) throw e; // a duplicate (start, seq)
        expect(model.some((t) => t.seq === op.seq && c.compare(t.start, start) === 0)).toBe(true);
      }
    } else if (op.type === "read") {
      expect(mem.maxCoveringTombstoneSeq(op.key, op.snap)).toBe(
        bruteForce(model, c, op.key, op.snap),
      );
    } else {
      for (let i = 0; i < op.reads; i++) {
        const key = burstKeys[i % burstKeys.length]!;
        expect(mem.maxCoveringTombstoneSeq(key, op.snap)).toBe(bruteForce(model, c, key, op.snap));
      }
    }
  }
  expect(mem.numRangeTombstones).toBe(model.length);
  return model;
}

describe("MemTable.maxCoveringTombstoneSeq with the cached fragmented list", () => {
  for (const [name, c] of [
    ["bytewise", bytewiseComparator],
    ["reverse", reverseComparator],
  ] as const) {
    it(`matches a linear scan over interleaved adds and reads (${name})`, () => {
      fc.assert(
        fc.property(fc.array(opArb, { minLength: 1, maxLength: 120 }), (ops) => {
          runOps(new MemTable({ comparator: c }), c, ops);
        }),
        { numRuns: 150 },
      );
    });
  }

  it("matches a linear scan on a memtable reopened with fromShared", () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 80 }),
        fc.array(fc.tuple(keyArb, snapArb), { minLength: 1, maxLength: 40 }),
        (ops, reads) => {
          const mem = new MemTable();
          const model = runOps(mem, bytewiseComparator, ops);
          mem.seal();
          const copy = MemTable.fromShared(structuredClone(mem.exportShared()));
          for (const [key, snap] of reads) {
            const expected = bruteForce(model, bytewiseComparator, key, snap);
            expect(copy.maxCoveringTombstoneSeq(key, snap)).toBe(expected);
            expect(mem.maxCoveringTombstoneSeq(key, snap)).toBe(expected);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("folds the covering seq into get results as a linear scan would", () => {
    const pointArb = fc.record({
      key: keyArb,
      seq: fc.integer({ min: 0, max: 60 }),
      deletion: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(pointArb, { maxLength: 40 }),
        fc.array(opArb, { maxLength: 100 }),
        fc.array(fc.tuple(keyArb, snapArb), { minLength: 1, maxLength: 30 }),
        (points, ops, reads) => {
          const mem = new MemTable();
          const added: { key: Uint8Array; seq: number; deletion: boolean }[] = [];
          for (const p of points) {
            // One version per (key, seq), so "the newest" is well defined.
            if (
              added.some((q) => q.seq === p.seq && bytewiseComparator.compare(q.key, p.key) === 0)
            )
              continue;
            mem.add(
              p.seq,
              p.deletion ? ValueKind.Deletion : ValueKind.Value,
              p.key,
              text(`v${p.seq}`),
            );
            added.push(p);
          }
          const tombstones = runOps(mem, bytewiseComparator, ops);
          const result = new LookupResult();
          for (const [key, snap] of reads) {
            result.reset();
            mem.get(key, snap, result);
            const cover = bruteForce(tombstones, bytewiseComparator, key, snap);
            expect(result.maxCoveringSeq).toBe(cover);
            let newest: (typeof added)[number] | undefined;
            for (const p of added) {
              if (p.seq > snap || bytewiseComparator.compare(p.key, key) !== 0) continue;
              if (newest === undefined || p.seq > newest.seq) newest = p;
            }
            if (newest === undefined) {
              expect(result.state).toBe(LookupState.NotFound);
            } else if (newest.deletion || newest.seq < cover) {
              expect(result.state).toBe(LookupState.Deleted);
              expect(result.seq).toBe(newest.seq);
            } else {
              expect(result.state).toBe(LookupState.Found);
              expect(new TextDecoder().decode(result.value)).toBe(`v${newest.seq}`);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("RangeTombstoneCache", () => {
  it("matches a linear scan for any linearMax", () => {
    const tombstoneArb = fc.record({ a: keyArb, b: keyArb, seq: seqArb }).map(({ a, b, seq }) => {
      const [start, end] = bytewiseComparator.compare(a, b) <= 0 ? [a, b] : [b, a];
      return { start, end, seq };
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(tombstoneArb, { maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(keyArb, snapArb), { minLength: 1, maxLength: 10 }),
        fc.constantFrom(0, 1, 2, LINEAR_MAX, 20),
        (batches, reads, linearMax) => {
          const ts: RangeTombstone[] = [];
          const cache = new RangeTombstoneCache(ts, bytewiseComparator, linearMax);
          for (const batch of batches) {
            ts.push(...batch);
            for (const [key, snap] of reads) {
              expect(cache.maxCoveringSeq(key, snap)).toBe(
                bruteForce(ts, bytewiseComparator, key, snap),
              );
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("scans up to LINEAR_MAX tombstones without building a list", () => {
    const ts: RangeTombstone[] = [];
    const cache = new RangeTombstoneCache(ts, bytewiseComparator);
    for (let i = 0; i < LINEAR_MAX; i++) {
      ts.push({ start: Uint8Array.of(i), end: Uint8Array.of(i + 2), seq: i + 1 });
      expect(cache.maxCoveringSeq(Uint8Array.of(i + 1), MAX_SEQ)).toBe(i + 1);
    }
    expect(cache.numBuilt).toBe(0);
    ts.push({ start: Uint8Array.of(0), end: Uint8Array.of(9), seq: 100 });
    expect(cache.maxCoveringSeq(Uint8Array.of(1), 99)).toBe(2);
    expect(cache.numBuilt).toBe(LINEAR_MAX + 1); // built on the first read past the limit
  });

  it("scans tombstones added after the build until that costs about a rebuild", () => {
    const ts: RangeTombstone[] = [];
    const cache = new RangeTombstoneCache(ts, bytewiseComparator);
    for (let i = 0; i < 20; i++) {
      ts.push({ start: Uint8Array.of(2 * i), end: Uint8Array.of(2 * i + 1), seq: i + 1 });
    }
    expect(cache.maxCoveringSeq(Uint8Array.of(4), MAX_SEQ)).toBe(3);
    expect(cache.numBuilt).toBe(20);
    ts.push({ start: Uint8Array.of(4), end: Uint8Array.of(6), seq: 50 });
    // Each read scans the one-tombstone tail; the list is rebuilt on the read at which the
    // tail scans reach REBUILD_VISITS per tombstone.
    for (let read = 1; read < REBUILD_VISITS * 21; read++) {
      if (read % 2 === 0) expect(cache.maxCoveringSeq(Uint8Array.of(4), MAX_SEQ)).toBe(50);
      else expect(cache.maxCoveringSeq(Uint8Array.of(5), 49)).toBe(0);
      expect(cache.numBuilt).toBe(20);
    }
    expect(cache.maxCoveringSeq(Uint8Array.of(5), MAX_SEQ)).toBe(50);
    expect(cache.numBuilt).toBe(21);
  });

  it("keeps one fragmented list until a tombstone is added", () => {
    const mem = new MemTable();
    const empty = mem.fragmentedRangeTombstones();
    expect(empty.isEmpty).toBe(true);
    expect(mem.fragmentedRangeTombstones()).toBe(empty);
    mem.add(5, ValueKind.RangeDeletion, text("a"), text("e"));
    mem.add(9, ValueKind.RangeDeletion, text("c"), text("g"));
    const list = mem.fragmentedRangeTombstones();
    expect(list).not.toBe(empty);
    expect(list.toString()).toBe("a-c:{5} c-e:{9,5} e-g:{9}");
    expect(mem.fragmentedRangeTombstones()).toBe(list);
    mem.add(1, ValueKind.Value, text("b"), text("x")); // points do not invalidate it
    expect(mem.fragmentedRangeTombstones()).toBe(list);
    mem.add(7, ValueKind.RangeDeletion, text("f"), text("h"));
    const next = mem.fragmentedRangeTombstones();
    expect(next.toString()).toBe(
      new FragmentedRangeTombstoneList(mem.rangeTombstones()).toString(),
    );
    expect(list.toString()).toBe("a-c:{5} c-e:{9,5} e-g:{9}"); // the old one is unchanged
  });
});
