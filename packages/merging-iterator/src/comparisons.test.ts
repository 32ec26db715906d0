/**
 * The seed's claim as a test that counts comparisons (never time): merging children that
 * yield long runs of adjacent keys costs about one comparison per next(), random
 * interleaving about log2(k).
 */
import { ArrayIterator, type CompareFn, compareBytes } from "@shale/base";
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { MergingIterator } from "./merging-iterator.js";

/** Wraps `compare` with a call counter. */
function countingCompare(compare: CompareFn): {
  compare: CompareFn;
  count: () => number;
  reset: () => void;
} {
  let n = 0;
  return {
    compare: (a, b) => {
      n++;
      return compare(a, b);
    },
    count: () => n,
    reset: () => {
      n = 0;
    },
  };
}

function key(i: number): Uint8Array {
  const k = new Uint8Array(8);
  new DataView(k.buffer).setUint32(4, i);
  return k;
}

/** A merging iterator over `k` children; entry i goes to child `childOf(i)`. */
function build(
  n: number,
  k: number,
  childOf: (i: number) => number,
  compare: CompareFn,
): MergingIterator {
  const lists: Uint8Array[][] = [];
  for (let c = 0; c < k; c++) lists.push([]);
  for (let i = 0; i < n; i++) lists[childOf(i)]!.push(key(i));
  return new MergingIterator(
    lists.map((l) => new ArrayIterator(l, l, compareBytes)),
    compare,
  );
}

/** Average comparisons per step of a full scan, forward or backward; checks the order. */
function comparisonsPerStep(
  it: MergingIterator,
  counter: ReturnType<typeof countingCompare>,
  n: number,
  forward: boolean,
): number {
  if (forward) it.seekToFirst();
  else it.seekToLast();
  counter.reset();
  let steps = 0;
  let expected = forward ? 0 : n - 1;
  while (it.valid()) {
    expect(compareBytes(it.key(), key(expected))).toBe(0);
    if (forward) {
      it.next();
      expected++;
    } else {
      it.prev();
      expected--;
    }
    steps++;
  }
  expect(steps).toBe(n);
  return counter.count() / steps;
}

describe("MergingIterator comparison counts", () => {
  it("runs of 100 adjacent keys in each of 8 children: about one comparison per next()", () => {
    const counter = countingCompare(compareBytes);
    const n = 8 * 100 * 10;
    const it = build(n, 8, (i) => Math.floor(i / 100) % 8, counter.compare);
    const forward = comparisonsPerStep(it, counter, n, true);
    expect(forward).toBeLessThanOrEqual(1.1);
    expect(forward).toBeGreaterThan(0.9);
    const backward = comparisonsPerStep(it, counter, n, false);
    expect(backward).toBeLessThanOrEqual(1.1);
    expect(backward).toBeGreaterThan(0.9);
  });

  for (const k of [2, 8, 32]) {
    it(`random interleaving over ${k} children: about log2(k) comparisons per next()`, () => {
      const counter = countingCompare(compareBytes);
      const rnd = new Random(k);
      const n = 20_000;
      const it = build(n, k, () => rnd.uniform(k), counter.compare);
      const perNext = comparisonsPerStep(it, counter, n, true);
      // Exactly one per step for k = 2 until a child runs out, and none after.
      const floor = k === 2 ? 0.99 : 1;
      expect(perNext).toBeGreaterThanOrEqual(floor);
      expect(perNext).toBeLessThanOrEqual(2 * Math.log2(k) + 1);
    });
  }
});
