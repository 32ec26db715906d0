/**
 * MergingIterator: the sorted union of k child iterators (RocksDB
 * `table/merging_iterator.cc`, Pebble `merging_iter.go`).
 *
 * Order. The merged sequence is every entry of every child, sorted by (key, child index):
 * keys by the given compare function, and equal keys from different children with the lower
 * child index first. (The db puts newer sources at lower indices, so newer comes first.)
 * Reverse iteration yields exactly that sequence backwards. Each child must follow the
 * InternalIterator contract: sorted by the same compare, no duplicate keys within a child.
 *
 * Forward, the children sit in a min-heap on (key, index); the top is the current entry.
 *
 * ```
 *   child 0:  a ........ f  g  h          min-heap         next():
 *   child 1:     c  d            k          top = 0 @ f      child 0 steps to g;
 *   child 2:        e               m      /        \      replaceTop(child 0):
 *                                       1 @ k      2 @ m   g < k (the cached smaller child)
 *                                                          -> one comparison, stays on top
 * ```
 *
 * `next()` steps the current child, then `replaceTop` (still valid) or `pop` (exhausted);
 * when it is the heap's only child (the others are exhausted: the end of a scan over
 * levels of unequal reach, a merge of one source) it steps that child and nothing else
 * (the "lone-child step"). Reverse uses a max-heap on (key, index), created on first use.
 *
 * Direction switches re-position every other child around the current entry (K, c), because
 * the other children lie on the far side of it:
 * - `next()` after reverse moves: each child i != c does `seek(K)`, then steps past K if its
 *   key equals K and i < c (those entries precede (K, c)); then the min-heap is rebuilt.
 * - `prev()` after forward moves: each child i != c does `seekForPrev(K)`, then steps back
 *   if its key equals K and i > c; then the max-heap is rebuilt.
 * With unique keys across children (internal keys) this is exactly RocksDB's rule.
 *
 * Each child is wrapped in an {@link IteratorWrapper} that caches its `valid()` and `key()`,
 * so a heap comparison is one call of the compare function and no iterator calls.
 */
import {
  assertInvariant,
  type CompareFn,
  compareTrailers,
  EmptyIterator,
  type InternalIterator,
  invariants,
  TRAILER_SIZE,
} from "@shale/base";
import { BinaryHeap, type LowerPriority } from "./binary-heap.js";
import { IteratorWrapper } from "./iterator-wrapper.js";

/** Options of {@link newMergingIterator}. */
export interface MergingIteratorOptions {
  /**
   * Always build a {@link MergingIterator}, even for zero or one child (instead of an
   * EmptyIterator or the child itself). Default: false.
   */
  alwaysMerge?: boolean;
  /**
   * The children's keys are internal keys (an 8-byte trailer after the user key) whose user
   * keys `compare` orders bytewise first: each child's first 8 user-key bytes are then kept
   * as two integers, and heap comparisons of keys that differ there need no `compare` call
   * (db_bench keys: almost all). Default: false.
   */
  bytewiseInternalKeys?: boolean;
}

/**
 * With `bytewiseInternalKeys`, the heap's compare once the prefix words tied: user keys of
 * at least 8 bytes then share those 8 bytes, so the comparison starts at byte 8 (then the
 * lengths, then the trailers, descending); shorter ones (the words hold zero padding) go to
 * `compare`.
 */
function afterPrefixWords(compare: CompareFn): CompareFn {
  return (a, b) => {
    const an = a.length - TRAILER_SIZE;
    const bn = b.length - TRAILER_SIZE;
    if (an < 8 || bn < 8) return compare(a, b);
    const n = an < bn ? an : bn;
    for (let i = 8; i < n; i++) {
      const d = a[i]! - b[i]!;
      if (d !== 0) return d;
    }
    return an !== bn ? an - bn : compareTrailers(a, b);
  };
}

/**
 * Min-heap order on (key, index): a sits below b when a comes after b. Unequal prefix words
 * (`bytewiseInternalKeys`; both 0 otherwise) decide without calling `compare`.
 */
function forwardOrder(compare: CompareFn): LowerPriority<IteratorWrapper> {
  return (a, b) => {
    if (a.word0 !== b.word0) return a.word0 > b.word0;
    if (a.word1 !== b.word1) return a.word1 > b.word1;
    const c = compare(a.key, b.key);
    return c > 0 || (c === 0 && a.index > b.index);
  };
}

/** Max-heap order on (key, index): a sits below b when a comes before b. */
function reverseOrder(compare: CompareFn): LowerPriority<IteratorWrapper> {
  return (a, b) => {
    if (a.word0 !== b.word0) return a.word0 < b.word0;
    if (a.word1 !== b.word1) return a.word1 < b.word1;
    const c = compare(a.key, b.key);
    return c < 0 || (c === 0 && a.index < b.index);
  };
}

/** The heap orders of one compare function (with or without the prefix words). */
interface HeapOrders {
  readonly heapCompare: CompareFn;
  readonly forward: LowerPriority<IteratorWrapper>;
  readonly reverse: LowerPriority<IteratorWrapper>;
}

/**
 * Heap orders per compare function: a database builds every iterator with the same one
 * (db-bench's seekrandom opens one per seek), so the closures are made once, not three per
 * merging iterator.
 */
const heapOrders = new WeakMap<CompareFn, HeapOrders>();
const heapOrdersWithPrefixWords = new WeakMap<CompareFn, HeapOrders>();

function heapOrdersOf(compare: CompareFn, prefixWords: boolean): HeapOrders {
  const cache = prefixWords ? heapOrdersWithPrefixWords : heapOrders;
  let orders = cache.get(compare);
  if (orders === undefined) {
    const heapCompare = prefixWords ? afterPrefixWords(compare) : compare;
    orders = {
      heapCompare,
      forward: forwardOrder(heapCompare),
      reverse: reverseOrder(heapCompare),
    };
    cache.set(compare, orders);
  }
  return orders;
}

function invalidIterator(op: string): RangeError {
  return new RangeError(`MergingIterator.${op}() on an invalid iterator`);
}

/**
 * The sorted union of child iterators; see the file comment for order and algorithm.
 * Owns its children: `close()` closes them. Not thread-safe (like every iterator).
 */
export class MergingIterator implements InternalIterator {
  private readonly children: IteratorWrapper[];
  private readonly compare: CompareFn;
  /** What the heaps compare keys with once the prefix words tie (`afterPrefixWords`). */
  private readonly heapCompare: CompareFn;
  /** Built with `bytewiseInternalKeys`: the heaps compare prefix words first. */
  private readonly prefixWords: boolean;
  private readonly minHeap: BinaryHeap<IteratorWrapper>;
  /** Created by the first reverse positioning. */
  private maxHeap: BinaryHeap<IteratorWrapper> | null = null;
  /** The top of the heap of the current direction; null when not valid. */
  private current: IteratorWrapper | null = null;
  /**
   * The child the last move was a `next()` of, or null: while it is still `current`, the
   * merged sequence's previous entry was that child's previous one, so its step hint holds.
   */
  private stepped: IteratorWrapper | null = null;
  private forward = true;
  private closed = false;

  /**
   * @param children iterators sorted by `compare`; index order breaks ties between equal keys
   *   (lower index first). The array is copied; the iterators are owned from now on.
   * @param compare the order of the children's keys (e.g. an InternalKeyComparator's compare).
   */
  constructor(
    children: readonly InternalIterator[],
    compare: CompareFn,
    options: MergingIteratorOptions = {},
  ) {
    if (!Array.isArray(children)) throw new TypeError("MergingIterator: children must be an array");
    if (typeof compare !== "function")
      throw new TypeError("MergingIterator: compare must be a function");
    const prefixWords = options.bytewiseInternalKeys === true;
    this.children = children.map((child, i) => {
      if (typeof child !== "object" || child === null || typeof child.seek !== "function") {
        throw new TypeError(`MergingIterator: child ${i} is not an iterator`);
      }
      return new IteratorWrapper(child, i, prefixWords);
    });
    this.compare = compare;
    this.prefixWords = prefixWords;
    const orders = heapOrdersOf(compare, prefixWords);
    this.heapCompare = orders.heapCompare;
    this.minHeap = new BinaryHeap(orders.forward);
  }

  valid(): boolean {
    return this.current !== null;
  }

  seekToFirst(): void {
    this.stepped = null;
    const heap = this.minHeap;
    heap.clear();
    const children = this.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      child.seekToFirst();
      if (child.valid) heap.push(child);
    }
    this.forward = true;
    this.current = heap.size > 0 ? heap.top() : null;
  }

  seekToLast(): void {
    this.stepped = null;
    const heap = this.reverseHeap();
    heap.clear();
    const children = this.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      child.seekToLast();
      if (child.valid) heap.push(child);
    }
    this.forward = false;
    this.current = heap.size > 0 ? heap.top() : null;
  }

  /** Positions at the first entry with key >= target (lowest child index among equals). */
  seek(target: Uint8Array): void {
    this.stepped = null;
    const heap = this.minHeap;
    heap.clear();
    const children = this.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      child.seek(target);
      if (child.valid) heap.push(child);
    }
    this.forward = true;
    this.current = heap.size > 0 ? heap.top() : null;
  }

  /** Positions at the last entry with key <= target (highest child index among equals). */
  seekForPrev(target: Uint8Array): void {
    this.stepped = null;
    const heap = this.reverseHeap();
    heap.clear();
    const children = this.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      child.seekForPrev(target);
      if (child.valid) heap.push(child);
    }
    this.forward = false;
    this.current = heap.size > 0 ? heap.top() : null;
  }

  /** REQUIRES: `valid()`. */
  next(): void {
    const cur = this.current;
    if (cur === null) throw invalidIterator("next");
    if (!this.forward) this.switchToForward(cur);
    const heap = this.minHeap;
    this.stepped = cur;
    cur.next();
    if (heap.size === 1) {
      // Lone child (every other one is exhausted): nothing to rank it against.
      if (!cur.valid) this.exhaust(heap);
      return;
    }
    if (cur.valid) heap.replaceTop(cur);
    else heap.pop();
    this.current = heap.size > 0 ? heap.top() : null;
  }

  /** REQUIRES: `valid()`. */
  prev(): void {
    const cur = this.current;
    if (cur === null) throw invalidIterator("prev");
    if (this.forward) this.switchToBackward(cur);
    this.stepped = null;
    const heap = this.maxHeap!;
    cur.prev();
    if (heap.size === 1) {
      if (!cur.valid) this.exhaust(heap);
      return;
    }
    if (cur.valid) heap.replaceTop(cur);
    else heap.pop();
    this.current = heap.size > 0 ? heap.top() : null;
  }

  /** REQUIRES: `valid()`. A view owned by the current child, valid until it moves. */
  key(): Uint8Array {
    const cur = this.current;
    if (cur === null) throw invalidIterator("key");
    return cur.key;
  }

  /** REQUIRES: `valid()`. A view owned by the current child, valid until it moves. */
  value(): Uint8Array {
    const cur = this.current;
    if (cur === null) throw invalidIterator("value");
    return cur.iter.value();
  }

  /**
   * The step hint (see InternalIterator) of the child the last `next()` moved, while that
   * child is still the current one; -1 otherwise.
   */
  userKeyDiffersAt(): number {
    const cur = this.current;
    if (cur === null || cur !== this.stepped) return -1;
    const iter = cur.iter;
    return iter.userKeyDiffersAt !== undefined ? iter.userKeyDiffersAt() : -1;
  }

  /** REQUIRES: `valid()`. Whether the current child's value is pinned (see InternalIterator). */
  isValuePinned(): boolean {
    const cur = this.current;
    if (cur === null) throw invalidIterator("isValuePinned");
    return cur.iter.isValuePinned?.() === true;
  }

  /** Closes every child (all of them, even if one throws; the first error is rethrown). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.current = null;
    this.stepped = null;
    this.minHeap.clear();
    this.maxHeap?.clear();
    let error: unknown;
    let failed = false;
    for (const child of this.children) {
      try {
        child.iter.close();
      } catch (e) {
        if (!failed) error = e;
        failed = true;
      }
      child.valid = false;
    }
    if (failed) throw error;
  }

  /** The lone child of `heap` ran out: the merged sequence ends. */
  private exhaust(heap: BinaryHeap<IteratorWrapper>): void {
    heap.pop();
    this.current = null;
  }

  private reverseHeap(): BinaryHeap<IteratorWrapper> {
    let heap = this.maxHeap;
    if (heap === null) {
      const orders = heapOrdersOf(this.compare, this.prefixWords);
      heap = this.maxHeap = new BinaryHeap(orders.reverse);
    }
    return heap;
  }

  /** Re-seeks every other child just after (K, c) and rebuilds the min-heap. */
  private switchToForward(cur: IteratorWrapper): void {
    const target = cur.key;
    const heap = this.minHeap;
    heap.clear();
    const children = this.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      if (child !== cur) {
        child.seek(target);
        if (child.valid && i < cur.index && this.compare(child.key, target) === 0) child.next();
      }
      if (child.valid) heap.push(child);
    }
    this.forward = true;
    if (invariants) assertInvariant(heap.top() === cur, "switchToForward: current left the top");
  }

  /** Re-seeks every other child just before (K, c) and rebuilds the max-heap. */
  private switchToBackward(cur: IteratorWrapper): void {
    const target = cur.key;
    const heap = this.reverseHeap();
    heap.clear();
    const children = this.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      if (child !== cur) {
        child.seekForPrev(target);
        if (child.valid && i > cur.index && this.compare(child.key, target) === 0) child.prev();
      }
      if (child.valid) heap.push(child);
    }
    this.forward = false;
    if (invariants) assertInvariant(heap.top() === cur, "switchToBackward: current left the top");
  }
}

/**
 * The sorted union of `children` under `compare`: a {@link MergingIterator}, or for zero
 * children an EmptyIterator and for one child that child itself (unless
 * `options.alwaysMerge`). The result owns the children: closing it closes them.
 */
export function newMergingIterator(
  children: readonly InternalIterator[],
  compare: CompareFn,
  options: MergingIteratorOptions = {},
): InternalIterator {
  if (!Array.isArray(children))
    throw new TypeError("newMergingIterator: children must be an array");
  if (typeof compare !== "function")
    throw new TypeError("newMergingIterator: compare must be a function");
  if (options.alwaysMerge !== true) {
    if (children.length === 0) return new EmptyIterator();
    if (children.length === 1) return children[0]!;
  }
  return new MergingIterator(children, compare, options);
}
