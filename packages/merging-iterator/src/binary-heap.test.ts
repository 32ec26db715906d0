import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryHeap, type LowerPriority } from "./binary-heap.js";

/** A lowerPriority function that counts its calls. */
function counting<T>(lowerPriority: LowerPriority<T>): {
  fn: LowerPriority<T>;
  calls: () => number;
  reset: () => void;
} {
  let calls = 0;
  return {
    fn: (a, b) => {
      calls++;
      return lowerPriority(a, b);
    },
    calls: () => calls,
    reset: () => {
      calls = 0;
    },
  };
}

const minFirst: LowerPriority<number> = (a, b) => a > b;
const maxFirst: LowerPriority<number> = (a, b) => a < b;

function drain(heap: BinaryHeap<number>): number[] {
  const out: number[] = [];
  while (heap.size > 0) {
    out.push(heap.top());
    heap.pop();
  }
  return out;
}

type HeapOp =
  | { op: "push"; v: number }
  | { op: "pop" }
  | { op: "replaceTop"; v: number }
  | { op: "bumpTop"; by: number }
  | { op: "clear" };

const heapOp: fc.Arbitrary<HeapOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.integer({ min: 0, max: 60 }).map((v) => ({ op: "push" as const, v })),
  },
  { weight: 3, arbitrary: fc.constant({ op: "pop" as const }) },
  {
    weight: 4,
    arbitrary: fc.integer({ min: 0, max: 60 }).map((v) => ({ op: "replaceTop" as const, v })),
  },
  // The merge's common case: the top grows a little and usually stays on top.
  {
    weight: 6,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((by) => ({ op: "bumpTop" as const, by })),
  },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
);

describe("BinaryHeap", () => {
  it("pops a min-heap in ascending order and a max-heap in descending order", () => {
    const values = [5, 3, 9, 1, 7, 3, 8, 0, 2];
    const min = new BinaryHeap(minFirst);
    const max = new BinaryHeap(maxFirst);
    for (const v of values) {
      min.push(v);
      max.push(v);
    }
    expect(min.size).toBe(values.length);
    expect(drain(min)).toEqual([...values].sort((a, b) => a - b));
    expect(drain(max)).toEqual([...values].sort((a, b) => b - a));
    expect(min.isEmpty()).toBe(true);
  });

  it("rejects top/pop/replaceTop on an empty heap and a non-function order", () => {
    const heap = new BinaryHeap(minFirst);
    expect(() => heap.top()).toThrow(RangeError);
    expect(() => heap.pop()).toThrow(RangeError);
    expect(() => heap.replaceTop(1)).toThrow(RangeError);
    expect(() => new BinaryHeap(42 as unknown as LowerPriority<number>)).toThrow(TypeError);
  });

  it("replaceTop where the top stays on top costs one comparison once the cache is warm", () => {
    const c = counting(minFirst);
    const heap = new BinaryHeap(c.fn);
    for (const v of [1, 30, 20]) heap.push(v);
    c.reset();
    heap.replaceTop(2); // cold cache: left vs right, then v vs the smaller child (index 2)
    expect(c.calls()).toBe(2);
    for (let v = 3; v < 10; v++) {
      c.reset();
      heap.replaceTop(v);
      expect(c.calls()).toBe(1);
      expect(heap.top()).toBe(v);
    }
    // push resets the cache: 10 lands at index 1 and now outranks the cached child (20).
    heap.push(10);
    c.reset();
    heap.replaceTop(15);
    expect(c.calls()).toBeGreaterThan(1);
    expect(heap.top()).toBe(10);
    expect(drain(heap)).toEqual([10, 15, 20, 30]);
  });

  it("a sift-down that moves the root resets the cache", () => {
    const c = counting(minFirst);
    const heap = new BinaryHeap(c.fn);
    for (const v of [1, 5, 3, 6, 7, 4, 8]) heap.push(v);
    heap.replaceTop(2); // warm the cache: child 3 at index 2
    heap.replaceTop(100); // 100 sinks: the root children change
    expect(heap.top()).toBe(3);
    c.reset();
    heap.replaceTop(3.5); // the cache must not point at a stale child
    expect(c.calls()).toBe(2);
    expect(drain(heap)).toEqual([3.5, 4, 5, 6, 7, 8, 100]);
  });

  it("pop keeps a cache that is still right, and ignores one that fell off the end", () => {
    const heap = new BinaryHeap(minFirst);
    for (const v of [1, 9, 2]) heap.push(v);
    heap.replaceTop(1.5); // cache -> index 2 (value 2)
    heap.pop(); // last slot (the cached child) moves to the root; cache now out of range
    expect(heap.top()).toBe(2);
    heap.replaceTop(10);
    expect(heap.top()).toBe(9);
    expect(drain(heap)).toEqual([9, 10]);
  });

  for (const [name, order, sorted] of [
    ["min-heap", minFirst, (a: number, b: number) => a - b],
    ["max-heap", maxFirst, (a: number, b: number) => b - a],
  ] as const) {
    it(`matches a sorted-array model under random operations (${name})`, () => {
      fc.assert(
        fc.property(fc.array(heapOp, { maxLength: 300 }), (ops) => {
          const heap = new BinaryHeap(order);
          let model: number[] = [];
          for (const op of ops) {
            switch (op.op) {
              case "push":
                heap.push(op.v);
                model.push(op.v);
                break;
              case "pop":
                if (model.length === 0) continue;
                heap.pop();
                model.shift();
                break;
              case "replaceTop":
                if (model.length === 0) continue;
                heap.replaceTop(op.v);
                model[0] = op.v;
                break;
              case "bumpTop": {
                if (model.length === 0) continue;
                const v = name === "min-heap" ? model[0]! + op.by : model[0]! - op.by;
                heap.replaceTop(v);
                model[0] = v;
                break;
              }
              case "clear":
                heap.clear();
                model = [];
                break;
            }
            model.sort(sorted);
            expect(heap.size).toBe(model.length);
            if (model.length > 0) expect(heap.top()).toBe(model[0]);
          }
          expect(drain(heap)).toEqual(model);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("costs about one comparison per replaceTop when one input keeps winning", () => {
    // 16 "streams"; the top stream advances by 1 each step and keeps winning for 50 steps.
    const c = counting(minFirst);
    const heap = new BinaryHeap(c.fn);
    for (let s = 0; s < 16; s++) heap.push(s * 1000);
    c.reset();
    const steps = 10_000;
    for (let i = 0; i < steps; i++) heap.replaceTop(heap.top() + (i % 50 === 49 ? 1000 : 1));
    expect(c.calls() / steps).toBeLessThan(1.2);
  });
});
