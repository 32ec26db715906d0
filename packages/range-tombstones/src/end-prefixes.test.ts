/**
 * The numeric search over fragment ends (end-prefixes.ts) against a linear scan with
 * `compareBytes`: boundaries sharing a long prefix, suffixes shorter and longer than the 8
 * bytes the numbers hold, bytes 0x00 and 0xff (padding ties), probes that lack the shared
 * prefix or stop inside it.
 */
import {
  bytewiseComparator,
  type Comparator,
  compareBytes,
  MAX_SEQ,
  type RangeTombstone,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildEndPrefixes, firstEndAfterBytewise } from "./end-prefixes.js";
import { FragmentedRangeTombstoneList } from "./index.js";

const arbBytes = (maxLength: number) =>
  fc
    .array(fc.constantFrom(0x00, 0x01, 0x61, 0x62, 0xfe, 0xff), { maxLength })
    .map((a) => Uint8Array.from(a));

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
};

/** Sorted distinct keys: `shared` followed by up to 12 bytes; at least two. */
const arbBoundaries = fc
  .tuple(arbBytes(12), fc.array(arbBytes(12), { minLength: 2, maxLength: 40 }))
  .map(([shared, tails]) => {
    const keys = tails.map((t) => concat(shared, t)).sort(compareBytes);
    return { shared, keys: keys.filter((k, i) => i === 0 || compareBytes(keys[i - 1]!, k) !== 0) };
  })
  .filter((b) => b.keys.length >= 2);

function linearFirstEndAfter(ends: readonly Uint8Array[], key: Uint8Array): number {
  let f = 0;
  while (f < ends.length && compareBytes(ends[f]!, key) <= 0) f++;
  return f;
}

function startsWith(key: Uint8Array, prefix: Uint8Array): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

describe("firstEndAfterBytewise", () => {
  it("finds the first end after the key, as a scan does, or -1 off the shared prefix", () => {
    fc.assert(
      fc.property(
        arbBoundaries,
        fc.array(fc.tuple(fc.nat(), arbBytes(16), fc.nat(3)), { maxLength: 30 }),
        ({ shared, keys }, probes) => {
          // Fragments between consecutive boundaries: starts = keys[0..n-1), ends = keys[1..n).
          const starts = keys.slice(0, -1);
          const ends = keys.slice(1);
          const p = buildEndPrefixes(starts, ends)!;
          expect(p.skip).toBeGreaterThanOrEqual(shared.length);
          for (const [pick, tail, how] of probes) {
            // A boundary itself, a boundary with bytes added, the shared prefix with a random
            // tail, or a random key (mostly off the prefix).
            const base = keys[pick % keys.length]!;
            const key =
              how === 0
                ? base
                : how === 1
                  ? concat(base, tail)
                  : how === 2
                    ? concat(keys[0]!.subarray(0, p.skip), tail)
                    : tail;
            const got = firstEndAfterBytewise(ends, p, key);
            if (startsWith(key, p.common)) expect(got).toBe(linearFirstEndAfter(ends, key));
            else expect(got).toBe(-1);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("has nothing to build for no fragments", () => {
    expect(buildEndPrefixes([], [])).toBeUndefined();
  });
});

describe("maxCoveringSeq with the numeric search", () => {
  /** The bytewise order, but not `bytewiseComparator` itself: the list searches generically. */
  const generic: Comparator = {
    ...bytewiseComparator,
    name: "test.GenericBytewise",
    compare: (a, b) => compareBytes(a, b),
  };

  it("answers as the same list searched with the comparator, at every snapshot", () => {
    fc.assert(
      fc.property(
        arbBoundaries,
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 30 })), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.array(fc.tuple(fc.nat(), arbBytes(16), fc.boolean()), { maxLength: 30 }),
        ({ keys }, picks, probes) => {
          const ts: RangeTombstone[] = picks.map(([a, b, seq]) => ({
            start: keys[a % keys.length]!,
            end: keys[b % keys.length]!,
            seq,
          }));
          const fast = new FragmentedRangeTombstoneList(ts, bytewiseComparator);
          const slow = new FragmentedRangeTombstoneList(ts, generic);
          const compacted = fast.forCompaction([10, 20]);
          const compactedSlow = slow.forCompaction([10, 20]);
          for (const [pick, tail, extend] of probes) {
            const base = keys[pick % keys.length]!;
            const key = extend ? concat(base, tail) : base;
            for (const snap of [0, 5, 10, 15, 20, 25, MAX_SEQ]) {
              expect(fast.maxCoveringSeq(key, snap)).toBe(slow.maxCoveringSeq(key, snap));
              expect(compacted.maxCoveringSeq(key, snap)).toBe(
                compactedSlow.maxCoveringSeq(key, snap),
              );
            }
            expect(fast.maxCoveringSeq(tail)).toBe(slow.maxCoveringSeq(tail));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
