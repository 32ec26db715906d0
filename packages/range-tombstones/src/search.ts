/**
 * Binary searches over fragments and stacks, shared by the list and its iterators.
 * Fragments are sorted and non-overlapping, so both their starts and their ends ascend.
 */
import type { FragmentParts } from "./fragment-parts.js";

type CompareFn = (a: Uint8Array, b: Uint8Array) => number;

/** Index of the first fragment whose end > key (numFragments if none). */
export function firstEndAfter(parts: FragmentParts, compare: CompareFn, key: Uint8Array): number {
  const ends = parts.ends;
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(ends[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the last fragment whose start <= key (-1 if none). */
export function lastStartAtOrBefore(
  parts: FragmentParts,
  compare: CompareFn,
  key: Uint8Array,
): number {
  const starts = parts.starts;
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(starts[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * Index in `seqs` of the first seq <= snapshot within [begin, end) — the newest seq a reader
 * at `snapshot` sees — or `end` if every seq is newer. The stack is strictly descending.
 */
export function firstSeqAtOrBelow(
  seqs: Float64Array,
  begin: number,
  end: number,
  snapshot: number,
): number {
  if (seqs[begin]! <= snapshot) return begin; // the common case: the newest seq is visible
  let lo = begin + 1;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqs[mid]! > snapshot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
