/**
 * A binary min-heap of tombstone indices ordered by their end keys: the fragmenter's set of
 * active tombstones (RocksDB keeps an ordered set of (end, seq) for the same purpose). With k
 * tombstones active at once, a push or a pop costs O(log k) comparisons — for the usual narrow
 * tombstones far fewer than sorting every end up front.
 *
 * Layout: `heap[0 .. size)`, children of i at 2i+1 and 2i+2; an Int32Array sized for every
 * tombstone, so nothing is allocated while sweeping.
 */
type CompareFn = (a: Uint8Array, b: Uint8Array) => number;

export class EndHeap {
  size = 0;
  private readonly heap: Int32Array;
  private readonly ends: readonly Uint8Array[];
  private readonly compare: CompareFn;

  constructor(ends: readonly Uint8Array[], compare: CompareFn) {
    this.heap = new Int32Array(ends.length);
    this.ends = ends;
    this.compare = compare;
  }

  /** The index of the tombstone with the smallest end. REQUIRES: size > 0. */
  top(): number {
    return this.heap[0]!;
  }

  /** The smallest end. REQUIRES: size > 0. */
  topEnd(): Uint8Array {
    return this.ends[this.heap[0]!]!;
  }

  push(index: number): void {
    const heap = this.heap;
    const ends = this.ends;
    const end = ends[index]!;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (this.compare(ends[p]!, end) <= 0) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = index;
  }

  /** Removes the top. REQUIRES: size > 0. */
  pop(): void {
    const heap = this.heap;
    const ends = this.ends;
    const size = --this.size;
    if (size === 0) return;
    const last = heap[size]!;
    const end = ends[last]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && this.compare(ends[heap[child + 1]!]!, ends[heap[child]!]!) < 0)
        child++;
      if (this.compare(ends[heap[child]!]!, end) >= 0) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
