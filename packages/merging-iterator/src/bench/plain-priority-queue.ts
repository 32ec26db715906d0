/**
 * The "before" of seed 003: a plain binary priority queue with only push and pop, shaped
 * like libstdc++'s `std::priority_queue` (which RocksDB's merger used before `BinaryHeap`).
 * Benchmark-only; not exported from the package.
 *
 * - push: append, then sift up (about 2 comparisons on average, log2 n at worst).
 * - pop (`__pop_heap` + `__adjust_heap`): take the last element out, then walk a hole from
 *   the root down to a leaf, always moving the better child up (1 comparison per level), and
 *   finally sift the taken element up from that leaf. Never fewer than about log2 n
 *   comparisons, whatever the data.
 * A merge step is therefore pop + push: about log2 n + 2 comparisons even when the same
 * input keeps winning.
 */
import type { LowerPriority } from "../binary-heap.js";

export class PlainPriorityQueue<T> {
  private readonly data: (T | undefined)[] = [];
  private count = 0;
  private readonly lowerPriority: LowerPriority<T>;

  constructor(lowerPriority: LowerPriority<T>) {
    this.lowerPriority = lowerPriority;
  }

  get size(): number {
    return this.count;
  }

  /** REQUIRES: size > 0. */
  top(): T {
    return this.data[0] as T;
  }

  push(value: T): void {
    this.data[this.count] = value;
    this.siftUp(this.count++, 0, value);
  }

  /** REQUIRES: size > 0. */
  pop(): void {
    const data = this.data;
    const n = --this.count;
    const value = data[n] as T;
    data[n] = undefined;
    if (n === 0) return;
    // Walk a hole from the root to a leaf along the better children.
    let hole = 0;
    let child = 2 * hole + 2;
    while (child < n) {
      if (this.lowerPriority(data[child] as T, data[child - 1] as T)) child--;
      data[hole] = data[child];
      hole = child;
      child = 2 * hole + 2;
    }
    if (child === n) {
      data[hole] = data[child - 1];
      hole = child - 1;
    }
    this.siftUp(hole, 0, value);
  }

  private siftUp(hole: number, topIndex: number, value: T): void {
    const data = this.data;
    while (hole > topIndex) {
      const parent = (hole - 1) >>> 1;
      const p = data[parent] as T;
      if (!this.lowerPriority(p, value)) break;
      data[hole] = p;
      hole = parent;
    }
    data[hole] = value;
  }
}
