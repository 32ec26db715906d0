/**
 * A binary heap on an array, tuned for k-way merging (RocksDB `util/heap.h`).
 *
 * Ordering: the heap is built with `lowerPriority(a, b)`, true when `a` must sit BELOW `b`
 * (the same convention as `std::priority_queue`'s less-than: `top()` is the element nothing
 * outranks). A min-heap of numbers passes `(a, b) => a > b`; a max-heap `(a, b) => a < b`.
 * It must be a strict weak order; elements that tie come out in an unspecified order.
 *
 * The array is the usual implicit tree: the children of slot i are 2i+1 and 2i+2.
 *
 * ```
 *             [0]             root = top()
 *           /     \
 *        [1]       [2]        the "root children"; the root-child cache remembers which
 *       /   \     /   \       of the two outranks the other
 *     [3]   [4] [5]   [6]
 * ```
 *
 * What makes it cheaper than pop + push for merging: `replaceTop(v)` puts v at the root and
 * sifts it down. When a merge takes long runs from one input, the new root almost always stays
 * on top, so the sift-down stops after comparing v with the better root child. The heap
 * caches the index of that child (`rootChild`) after every sift-down that left the root in
 * place: the children did not move, so the next `replaceTop` compares v with the cached child
 * straight away, skipping the left-vs-right comparison. Cost of a `replaceTop` where the same
 * element stays on top: ONE comparison (two without the cache), against about 2·log2(n)
 * for pop + push.
 *
 * Cache rules (as RocksDB): a sift-up (`push`) resets it, `clear` resets it, and any
 * sift-down that moves the root element resets it. `pop` moves the last element to the root
 * and sifts it down; it keeps the cache, which is still right because the root's children
 * are untouched unless the removed slot was one of them, and then the cached index is either
 * the only child left or out of range (and ignored).
 */

/** "a has lower priority than b": a must sit below b. See {@link BinaryHeap}. */
export type LowerPriority<T> = (a: T, b: T) => boolean;

/** No cached root child (a small integer, larger than any heap we build). */
const NO_CHILD = 0x3fffffff;

export class BinaryHeap<T> {
  /** Slots [0, count) hold the heap; slots past it are cleared to undefined. */
  private readonly data: (T | undefined)[] = [];
  private count = 0;
  /** Index of the root's higher-priority child, valid while < count; else NO_CHILD. */
  private rootChild = NO_CHILD;
  private readonly lowerPriority: LowerPriority<T>;

  /** @param lowerPriority true when `a` must sit below `b` (see the file comment). */
  constructor(lowerPriority: LowerPriority<T>) {
    if (typeof lowerPriority !== "function") {
      throw new TypeError("BinaryHeap: lowerPriority must be a function");
    }
    this.lowerPriority = lowerPriority;
  }

  /** Number of elements. */
  get size(): number {
    return this.count;
  }

  /** True when the heap holds no element. */
  isEmpty(): boolean {
    return this.count === 0;
  }

  /** The element with the highest priority. REQUIRES: `size > 0`. */
  top(): T {
    if (this.count === 0) throw new RangeError("BinaryHeap.top() on an empty heap");
    return this.data[0] as T;
  }

  /** Adds `value`. O(log n) comparisons at worst, about 2 on average. Resets the cache. */
  push(value: T): void {
    const i = this.count++;
    this.data[i] = value;
    this.upheap(i);
  }

  /** Removes the top element. REQUIRES: `size > 0`. */
  pop(): void {
    const n = this.count;
    if (n === 0) throw new RangeError("BinaryHeap.pop() on an empty heap");
    const last = n - 1;
    this.data[0] = this.data[last];
    this.data[last] = undefined;
    this.count = last;
    if (last > 0) this.downheap(0);
    else this.rootChild = NO_CHILD;
  }

  /**
   * Replaces the top element with `value` (which may be the same object, re-ranked) and
   * restores the heap. One comparison when `value` stays on top and the cache is warm.
   * REQUIRES: `size > 0`.
   */
  replaceTop(value: T): void {
    if (this.count === 0) throw new RangeError("BinaryHeap.replaceTop() on an empty heap");
    this.data[0] = value;
    this.downheap(0);
  }

  /** Removes every element (dropping references) and resets the cache. */
  clear(): void {
    const data = this.data;
    for (let i = 0; i < this.count; i++) data[i] = undefined;
    this.count = 0;
    this.rootChild = NO_CHILD;
  }

  private upheap(index: number): void {
    const data = this.data;
    const v = data[index] as T;
    while (index > 0) {
      const parent = (index - 1) >>> 1;
      const p = data[parent] as T;
      if (!this.lowerPriority(p, v)) break;
      data[index] = p;
      index = parent;
    }
    data[index] = v;
    this.rootChild = NO_CHILD;
  }

  private downheap(index: number): void {
    const data = this.data;
    const n = this.count;
    const v = data[index] as T;
    let picked = NO_CHILD;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      picked = left;
      if (index === 0 && this.rootChild < n) {
        picked = this.rootChild;
      } else if (left + 1 < n && this.lowerPriority(data[left] as T, data[left + 1] as T)) {
        picked = left + 1;
      }
      const child = data[picked] as T;
      if (!this.lowerPriority(v, child)) break;
      data[index] = child;
      index = picked;
    }
    // If v stayed at the root, its children did not move: remember which one outranks the
    // other. (picked is NO_CHILD when the root has no child.) Otherwise the tree changed.
    this.rootChild = index === 0 ? picked : NO_CHILD;
    data[index] = v;
  }
}
