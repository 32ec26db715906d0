/**
 * Property tests against a brute-force model: random tombstones over a small alphabet (many
 * overlaps, shared boundaries, duplicates and empty ranges), random keys and snapshots, under
 * both the bytewise and the reverse bytewise comparator.
 */
import {
  bytewiseComparator,
  type Comparator,
  MAX_SEQ,
  type RangeTombstone,
  reverseBytewiseComparator,
  toHex,
} from "@shale/base";
import { Random } from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FragmentedRangeTombstoneList } from "./index.js";

// ---- the model -------------------------------------------------------------------------

interface ModelFragment {
  start: Uint8Array;
  end: Uint8Array;
  seqs: number[];
}

const descending = (a: number, b: number) => b - a;
const distinctDescending = (seqs: number[]): number[] => [...new Set(seqs)].sort(descending);

function covers(cmp: Comparator, t: RangeTombstone, key: Uint8Array): boolean {
  return cmp.compare(t.start, key) <= 0 && cmp.compare(key, t.end) < 0;
}

/** Canonical fragmentation: cut at every distinct boundary, keep the covered pieces. */
function modelFragments(cmp: Comparator, ts: RangeTombstone[]): ModelFragment[] {
  const live = ts.filter((t) => cmp.compare(t.start, t.end) < 0);
  const keys = live.flatMap((t) => [t.start, t.end]).sort((a, b) => cmp.compare(a, b));
  const bounds = keys.filter((k, i) => i === 0 || cmp.compare(keys[i - 1]!, k) !== 0);
  const out: ModelFragment[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i]!;
    const end = bounds[i + 1]!;
    const inside = live.filter(
      (t) => cmp.compare(t.start, start) <= 0 && cmp.compare(end, t.end) <= 0,
    );
    if (inside.length > 0)
      out.push({ start, end, seqs: distinctDescending(inside.map((t) => t.seq)) });
  }
  return out;
}

function modelMaxCovering(
  cmp: Comparator,
  ts: RangeTombstone[],
  key: Uint8Array,
  snapshot: number,
): number {
  let best = 0;
  for (const t of ts) if (covers(cmp, t, key) && t.seq <= snapshot && t.seq > best) best = t.seq;
  return best;
}

/** The newest seq of each snapshot stripe (a seq's stripe: the first snapshot >= it). */
function modelStripeTops(seqs: number[], snapshots: number[]): number[] {
  const tops = new Map<number, number>();
  for (const s of seqs) {
    let stripe = snapshots.findIndex((snap) => snap >= s);
    if (stripe < 0) stripe = snapshots.length;
    tops.set(stripe, Math.max(tops.get(stripe) ?? -1, s));
  }
  return [...tops.values()].sort(descending);
}

// ---- generators ------------------------------------------------------------------------

const ALPHABET = [0x61, 0x62, 0x63, 0x64];
const arbKey = fc
  .array(fc.constantFrom(...ALPHABET), { maxLength: 3 })
  .map((a) => Uint8Array.from(a));
const arbSeq = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(MAX_SEQ, MAX_SEQ - 1, 2 ** 32, 2 ** 32 + 1) },
);
const arbTombstone = fc.record({ start: arbKey, end: arbKey, seq: arbSeq });
const arbTombstones = fc.array(arbTombstone, { maxLength: 30 });
const arbSnapshot = fc.oneof(arbSeq, fc.constant(MAX_SEQ));
const arbSnapshots = fc
  .array(fc.integer({ min: 0, max: 45 }), { maxLength: 5 })
  .map((s) => s.sort(descending).reverse());

/** Every key of length <= 3 over the alphabet plus one byte below and one above it. */
const PROBES: Uint8Array[] = (() => {
  const bytes = [0x00, ...ALPHABET, 0xff];
  let level: Uint8Array[] = [new Uint8Array(0)];
  const all = [...level];
  for (let len = 1; len <= 3; len++) {
    level = level.flatMap((k) => bytes.map((b) => Uint8Array.from([...k, b])));
    all.push(...level);
  }
  return all;
})();

const show = (f: { start: Uint8Array; end: Uint8Array; seqs: number[] }) =>
  `${toHex(f.start)}-${toHex(f.end)}:{${f.seqs.join(",")}}`;

const snapshotsOf = (ts: RangeTombstone[]): number[] => [
  0,
  MAX_SEQ,
  ...new Set(ts.flatMap((t) => [t.seq, t.seq + 1, Math.max(0, t.seq - 1)])),
];

// ---- properties ------------------------------------------------------------------------

const RUNS = { numRuns: 250 };

for (const cmp of [bytewiseComparator, reverseBytewiseComparator]) {
  describe(`against the model (${cmp.name})`, () => {
    it("fragments equal the canonical fragmentation", () => {
      fc.assert(
        fc.property(arbTombstones, (ts) => {
          const list = new FragmentedRangeTombstoneList(ts, cmp);
          expect(list.fragments().map(show)).toEqual(modelFragments(cmp, ts).map(show));
          expect(list.numTombstones).toBe(ts.length);
          expect(list.numFragments).toBe(list.fragments().length);
        }),
        RUNS,
      );
    });

    it("fragments are sorted, non-empty, disjoint, cover the union, with exact stacks", () => {
      fc.assert(
        fc.property(arbTombstones, (ts) => {
          const frags = new FragmentedRangeTombstoneList(ts, cmp).fragments();
          for (let i = 0; i < frags.length; i++) {
            expect(cmp.compare(frags[i]!.start, frags[i]!.end)).toBeLessThan(0);
            if (i > 0)
              expect(cmp.compare(frags[i - 1]!.end, frags[i]!.start)).toBeLessThanOrEqual(0);
          }
          // Boundaries only change at input boundaries, all of them probes, so checking every
          // probe checks every key.
          for (const key of PROBES) {
            const covering = distinctDescending(
              ts.filter((t) => covers(cmp, t, key)).map((t) => t.seq),
            );
            const holders = frags.filter(
              (f) => cmp.compare(f.start, key) <= 0 && cmp.compare(key, f.end) < 0,
            );
            expect(holders.length).toBe(covering.length > 0 ? 1 : 0);
            if (holders.length > 0) expect(holders[0]!.seqs).toEqual(covering);
          }
        }),
        RUNS,
      );
    });

    it("maxCoveringSeq equals scanning every tombstone", () => {
      fc.assert(
        fc.property(
          arbTombstones,
          fc.array(fc.tuple(arbKey, arbSnapshot), { maxLength: 20 }),
          (ts, probes) => {
            const list = new FragmentedRangeTombstoneList(ts, cmp);
            for (const [key, snapshot] of probes) {
              expect(list.maxCoveringSeq(key, snapshot)).toBe(
                modelMaxCovering(cmp, ts, key, snapshot),
              );
              // Every snapshot at, just above and just below a tombstone's seq.
              for (const s of snapshotsOf(ts)) {
                expect(list.maxCoveringSeq(key, s)).toBe(modelMaxCovering(cmp, ts, key, s));
              }
            }
            for (const key of PROBES) {
              expect(list.maxCoveringSeq(key)).toBe(modelMaxCovering(cmp, ts, key, MAX_SEQ));
            }
          },
        ),
        RUNS,
      );
    });

    it("the iterator visits exactly the visible fragments; seeks agree with a linear model", () => {
      fc.assert(
        fc.property(arbTombstones, arbSnapshot, fc.integer(), (ts, snapshot, seed) => {
          const list = new FragmentedRangeTombstoneList(ts, cmp);
          const visible = modelFragments(cmp, ts)
            .filter((f) => f.seqs.some((s) => s <= snapshot))
            .map((f) => `${toHex(f.start)}-${toHex(f.end)}@${f.seqs.find((s) => s <= snapshot)}`);
          const it = list.newIterator(snapshot);
          const at = () =>
            it.valid() ? `${toHex(it.start())}-${toHex(it.end())}@${it.seq()}` : ".";
          const forward: string[] = [];
          for (it.seekToFirst(); it.valid(); it.next()) forward.push(at());
          expect(forward).toEqual(visible);
          const backward: string[] = [];
          for (it.seekToLast(); it.valid(); it.prev()) backward.push(at());
          expect(backward).toEqual([...visible].reverse());

          const frags = modelFragments(cmp, ts).filter((f) => f.seqs.some((s) => s <= snapshot));
          const seekIndex = (k: Uint8Array) => {
            const i = frags.findIndex((f) => cmp.compare(f.end, k) > 0);
            return i < 0 ? frags.length : i;
          };
          const seekForPrevIndex = (k: Uint8Array) => {
            let i = -1;
            frags.forEach((f, j) => {
              if (cmp.compare(f.start, k) <= 0) i = j;
            });
            return i;
          };
          const label = (i: number) => (i >= 0 && i < visible.length ? visible[i]! : ".");
          for (const key of PROBES) {
            it.seek(key);
            expect(at()).toBe(label(seekIndex(key)));
            it.seekForPrev(key);
            expect(at()).toBe(label(seekForPrevIndex(key)));
          }
          // A random walk mixing seeks and steps.
          const rnd = new Random(seed);
          it.seekToFirst();
          let pos = 0;
          for (let step = 0; step < 60; step++) {
            const op = rnd.uniform(6);
            const key = PROBES[rnd.uniform(PROBES.length)]!;
            if (op === 0) {
              it.seek(key);
              pos = seekIndex(key);
            } else if (op === 1) {
              it.seekForPrev(key);
              pos = seekForPrevIndex(key);
            } else if (op === 2) {
              it.seekToFirst();
              pos = 0;
            } else if (op === 3) {
              it.seekToLast();
              pos = visible.length - 1;
            } else if (pos >= 0 && pos < visible.length) {
              if (op === 4) {
                it.next();
                pos++;
              } else {
                it.prev();
                pos--;
              }
            }
            expect(at()).toBe(label(pos));
            expect(it.valid()).toBe(pos >= 0 && pos < visible.length);
          }
        }),
        RUNS,
      );
    });

    it("forCompaction keeps exactly the per-stripe maxima and answers every snapshot alike", () => {
      fc.assert(
        fc.property(arbTombstones, arbSnapshots, (ts, snapshots) => {
          const list = new FragmentedRangeTombstoneList(ts, cmp);
          const compacted = list.forCompaction(snapshots);
          const expected = modelFragments(cmp, ts).map((f) => ({
            ...f,
            seqs: modelStripeTops(f.seqs, snapshots),
          }));
          expect(compacted.fragments().map(show)).toEqual(expected.map(show));
          for (const key of PROBES) {
            for (const s of [...snapshots, MAX_SEQ]) {
              expect(compacted.maxCoveringSeq(key, s)).toBe(list.maxCoveringSeq(key, s));
            }
          }
          // Its tombstones fragment back into the same list.
          const again = new FragmentedRangeTombstoneList(compacted.tombstones(), cmp);
          expect(again.toString()).toBe(compacted.toString());
          expect(compacted.numTombstones).toBe(compacted.tombstones().length);
        }),
        RUNS,
      );
    });
  });
}

describe("larger random inputs (seeded)", () => {
  it("2000 tombstones over 3-byte keys agree with the model", () => {
    const rnd = new Random(42);
    const randomKey = () => rnd.bytes(1 + rnd.uniform(3), 6).map((b) => b + 0x61);
    const ts: RangeTombstone[] = [];
    for (let i = 0; i < 2000; i++)
      ts.push({ start: randomKey(), end: randomKey(), seq: rnd.uniform(500) });
    const list = new FragmentedRangeTombstoneList(ts);
    expect(list.fragments().map(show)).toEqual(modelFragments(bytewiseComparator, ts).map(show));
    for (let i = 0; i < 2000; i++) {
      const key = randomKey();
      const snapshot = rnd.uniform(520);
      expect(list.maxCoveringSeq(key, snapshot)).toBe(
        modelMaxCovering(bytewiseComparator, ts, key, snapshot),
      );
    }
  });

  it("sorted input (as read back from a table) gives the same list as shuffled input", () => {
    const rnd = new Random(7);
    const ts: RangeTombstone[] = [];
    for (let i = 0; i < 500; i++) {
      const a = rnd.bytes(2, 8);
      const b = rnd.bytes(2, 8);
      ts.push({ start: a, end: b, seq: rnd.uniform(100) });
    }
    const sorted = [...ts].sort(
      (x, y) => bytewiseComparator.compare(x.start, y.start) || y.seq - x.seq,
    );
    const a = new FragmentedRangeTombstoneList(sorted).toString();
    expect(a).toBe(new FragmentedRangeTombstoneList(ts).toString());
    expect(a.length).toBeGreaterThan(0);
  });
});
