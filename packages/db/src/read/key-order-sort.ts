/**
 * The order of a batch's keys (`getMany`): the indexes of `keys` sorted by the family's
 * comparator, equal keys by index (a stable sort).
 *
 * For the two built-in orders (`bytewiseComparator`, `reverseBytewiseComparator`) the sort
 * calls no comparator: it is an MSD radix sort on four bytes at a time, each pass a native
 * numeric sort of a Float64Array (V8 sorts a typed array without a comparator in C++):
 *
 * ```
 *   depth: the bytes [0, depth) the keys of the range share (their common prefix, found)
 *   packed[j] = (digit(key[depth]) * 257^3 + ... + digit(key[depth + 3])) * 2^20 + index
 *     digit: bytewise  byte b -> b + 1, past the key's end -> 0    (a shorter key first)
 *            reverse   byte b -> 255 - b, past the end -> 256      (a shorter key last)
 *   packed.sort()                        (257^4 * 2^20 < 2^53: every number exact)
 *   order[j] = packed[j] mod 2^20
 *   each run of equal digits: its keys share [0, depth + 4): the same pass from there, or
 *     done when they all ended (equal keys, already in index order)
 * ```
 * Example, bytewise, keys ["b", "ab", "a", "ab"]: common prefix 0; digits "b" (99,0,0,0),
 * "ab" (98,99,0,0), "a" (98,0,0,0), "ab" (98,99,0,0): order [2, 1, 3, 0]; the run [1, 3]
 * ended inside the four bytes: equal keys, left in index order. Ranges of at most
 * `INSERTION_MAX` keys are sorted by insertion instead, comparing from `depth`.
 *
 * Other comparators sort with `Array.prototype.sort` and the comparator. Batches of more
 * than 2^20 keys too (the index must fit below the digits).
 *
 * Not thread-safe; one sorter per reader. The order returned is scratch of the sorter,
 * valid until its next `sort`.
 */
import { bytewiseComparator, type Comparator, reverseBytewiseComparator } from "@shale/base";

/** Index bits below the digits in a packed number. */
const INDEX_SCALE = 1 << 20;
/** Largest batch the radix sort takes. */
const RADIX_MAX_KEYS = INDEX_SCALE;
/** Runs up to this length are sorted by insertion. */
const INSERTION_MAX = 12;

export class KeyOrderSort {
  /** The sorted order (the first `n` entries after `sort`). */
  order = new Int32Array(64);
  private packed = new Float64Array(64);
  private keys: readonly Uint8Array[] = [];
  /** Bytewise (true) or reverse bytewise (false), for the radix passes. */
  private ascending = true;
  /** The order of a comparator's sort (plain array: `Array.prototype.sort`). */
  private readonly generic: number[] = [];

  /**
   * Sorts the indexes [0, n) of `keys` by `comparator` (equal keys by index) into
   * `this.order[0, n)`; returns that array. REQUIRES: n <= keys.length.
   */
  sort(keys: readonly Uint8Array[], n: number, comparator: Comparator): Int32Array {
    if (this.order.length < n) {
      const size = Math.max(n, this.order.length * 2);
      this.order = new Int32Array(size);
      this.packed = new Float64Array(size);
    }
    const order = this.order;
    for (let i = 0; i < n; i++) order[i] = i;
    const bytewise = comparator === bytewiseComparator;
    if (n < 2) return order;
    if ((bytewise || comparator === reverseBytewiseComparator) && n <= RADIX_MAX_KEYS) {
      this.keys = keys;
      this.ascending = bytewise;
      try {
        this.radix(0, n, 0);
      } finally {
        this.keys = [];
      }
      return order;
    }
    // Keys already in order (RocksDB's sorted_input) skip the sort: one comparison each.
    let inOrder = true;
    for (let i = 1; i < n && inOrder; i++)
      inOrder = comparator.compare(keys[i - 1]!, keys[i]!) <= 0;
    if (inOrder) return order;
    const generic = this.generic;
    generic.length = n;
    for (let i = 0; i < n; i++) generic[i] = i;
    generic.sort((a, b) => comparator.compare(keys[a]!, keys[b]!) || a - b);
    for (let i = 0; i < n; i++) order[i] = generic[i]!;
    generic.length = 0;
    return order;
  }

  /** Sorts `order[lo, hi)`, whose keys share their first `depth` bytes. */
  private radix(lo: number, hi: number, from: number): void {
    const keys = this.keys;
    const order = this.order;
    const depth = commonPrefix(keys, order, lo, hi, from);
    if (hi - lo <= INSERTION_MAX) {
      this.insertion(lo, hi, depth);
      return;
    }
    const packed = this.packed;
    const up = this.ascending;
    let sorted = true;
    let previous = -1;
    for (let j = lo; j < hi; j++) {
      const i = order[j]!;
      const key = keys[i]!;
      const len = key.length;
      let digits = 0;
      for (let d = depth; d < depth + 4; d++) {
        const digit = d < len ? (up ? key[d]! + 1 : 255 - key[d]!) : up ? 0 : 256;
        digits = digits * 257 + digit;
      }
      const v = digits * INDEX_SCALE + i;
      if (v < previous) sorted = false;
      previous = v;
      packed[j] = v;
    }
    if (!sorted) {
      packed.subarray(lo, hi).sort();
      for (let j = lo; j < hi; j++) order[j] = packed[j]! % INDEX_SCALE;
    }
    // Runs of equal digits: sorted further from depth + 4 (unless they all ended there).
    let start = lo;
    let run = Math.floor(packed[lo]! / INDEX_SCALE);
    for (let j = lo + 1; j <= hi; j++) {
      const digits = j < hi ? Math.floor(packed[j]! / INDEX_SCALE) : -1;
      if (digits === run) continue;
      if (j - start > 1 && keys[order[start]!]!.length > depth + 3) this.radix(start, j, depth + 4);
      start = j;
      run = digits;
    }
  }

  /** Sorts `order[lo, hi)` by insertion, comparing from byte `depth` (shared before it). */
  private insertion(lo: number, hi: number, depth: number): void {
    const keys = this.keys;
    const order = this.order;
    const sign = this.ascending ? 1 : -1;
    for (let j = lo + 1; j < hi; j++) {
      const i = order[j]!;
      const key = keys[i]!;
      let k = j - 1;
      while (k >= lo) {
        const other = order[k]!;
        const c = sign * compareFrom(keys[other]!, key, depth);
        if (c < 0 || (c === 0 && other < i)) break;
        order[k + 1] = other;
        k--;
      }
      order[k + 1] = i;
    }
  }
}

/** The length of the prefix the keys of `order[lo, hi)` share, knowing they share `from`. */
function commonPrefix(
  keys: readonly Uint8Array[],
  order: Int32Array,
  lo: number,
  hi: number,
  from: number,
): number {
  const first = keys[order[lo]!]!;
  let c = first.length;
  for (let j = lo + 1; j < hi && c > from; j++) {
    const key = keys[order[j]!]!;
    const limit = key.length < c ? key.length : c;
    let d = from;
    while (d < limit && key[d] === first[d]) d++;
    c = d;
  }
  return c;
}

/** Bytewise `a` against `b` from byte `depth` on (both share [0, depth)). */
function compareFrom(a: Uint8Array, b: Uint8Array, depth: number): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let d = depth; d < n; d++) {
    const x = a[d]!;
    const y = b[d]!;
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}
