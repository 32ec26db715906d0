/**
 * User-key ranges of table files, for picking compactions and for the read path.
 *
 * A file spans `[userKey(smallest), userKey(largest)]`, inclusive — except when its largest
 * key is a range-tombstone sentinel `end#MAX_SEQ,RANGEDEL` (the builder's bound for a
 * tombstone's exclusive end): then the file holds nothing AT `end` and the range is
 * half-open, `[lo, end)`. Compaction cuts output files so that one file's tombstones end
 * exactly where the next file's first key starts:
 *
 * ```
 *   file 7:  a#9,SET ... f#4,SET + [e, m)#12    ->  smallest a#9,SET  largest m#MAX,RANGEDEL
 *   file 8:  m#3,SET ... q#2,SET                 ->  smallest m#3,SET  largest q#2,SET
 * ```
 *
 * Files 7 and 8 share the user key `m` but do not overlap: 7 is `[a, m)`, 8 is `[m, q]`.
 * Every overlap test below honours that.
 */
import { type Comparator, MAX_SEQ, TRAILER_SIZE, trailerSeq, ValueKind } from "@shale/base";
import type { FileMetaData } from "./version-edit.js";

/** A user-key range `[lo, hi]`, or `[lo, hi)` when `hiExclusive`. Keys are views. */
export interface KeyRange {
  lo: Uint8Array;
  hi: Uint8Array;
  hiExclusive: boolean;
}

/**
 * True if `ikey` is the sentinel largest key of a range tombstone's exclusive end: shale's
 * `end#MAX_SEQ,RANGEDEL` (2^53 - 1) or RocksDB's `end#kMaxSequenceNumber,RANGEDEL` (2^56 - 1,
 * which reads as 2^56 here); no real entry has a sequence number above MAX_SEQ.
 */
export function isSentinelKey(ikey: Uint8Array): boolean {
  const t = ikey.length - TRAILER_SIZE;
  return ikey[t] === ValueKind.RangeDeletion && trailerSeq(ikey, t) >= MAX_SEQ;
}

/** The user-key range of internal keys `[smallest, largest]`. */
export function rangeOfKeys(smallest: Uint8Array, largest: Uint8Array): KeyRange {
  return {
    lo: smallest.subarray(0, smallest.length - TRAILER_SIZE),
    hi: largest.subarray(0, largest.length - TRAILER_SIZE),
    hiExclusive: isSentinelKey(largest),
  };
}

export function fileRange(f: FileMetaData): KeyRange {
  return rangeOfKeys(f.smallest, f.largest);
}

/** True if range `a` ends before user key `key` (nothing of `a` is at or after it). */
export function endsBefore(ucmp: Comparator, a: KeyRange, key: Uint8Array): boolean {
  const c = ucmp.compare(a.hi, key);
  return c < 0 || (c === 0 && a.hiExclusive);
}

export function rangesOverlap(ucmp: Comparator, a: KeyRange, b: KeyRange): boolean {
  return !endsBefore(ucmp, a, b.lo) && !endsBefore(ucmp, b, a.lo);
}

/** The smallest range holding both. */
export function unionRange(ucmp: Comparator, a: KeyRange, b: KeyRange): KeyRange {
  const lo = ucmp.compare(a.lo, b.lo) <= 0 ? a.lo : b.lo;
  const c = ucmp.compare(a.hi, b.hi);
  if (c > 0) return { lo, hi: a.hi, hiExclusive: a.hiExclusive };
  if (c < 0) return { lo, hi: b.hi, hiExclusive: b.hiExclusive };
  return { lo, hi: a.hi, hiExclusive: a.hiExclusive && b.hiExclusive };
}

/** The hull of some files' ranges. REQUIRES: files.length > 0. */
export function rangeOfFiles(ucmp: Comparator, files: readonly FileMetaData[]): KeyRange {
  let r = fileRange(files[0]!);
  for (let i = 1; i < files.length; i++) r = unionRange(ucmp, r, fileRange(files[i]!));
  return r;
}

/** True if two neighbouring files of a sorted level share a user key (`a` before `b`). */
export function filesTouch(ucmp: Comparator, a: FileMetaData, b: FileMetaData): boolean {
  return !endsBefore(ucmp, fileRange(a), userKeyView(b.smallest));
}

function userKeyView(ikey: Uint8Array): Uint8Array {
  return ikey.subarray(0, ikey.length - TRAILER_SIZE);
}

/**
 * Index of the first file of a sorted level (L1+) that does not end before `key`
 * (`files.length` if none).
 */
export function findFile(
  ucmp: Comparator,
  files: readonly FileMetaData[],
  key: Uint8Array,
): number {
  let lo = 0;
  let hi = files.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const f = files[mid]!;
    const c = ucmp.compare(userKeyView(f.largest), key);
    if (c < 0 || (c === 0 && isSentinelKey(f.largest))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The files of a sorted level (L1+) that overlap `r`, in order. */
export function overlappingInLevel(
  ucmp: Comparator,
  files: readonly FileMetaData[],
  r: KeyRange,
): FileMetaData[] {
  const out: FileMetaData[] = [];
  for (let i = findFile(ucmp, files, r.lo); i < files.length; i++) {
    const f = files[i]!;
    const lo = userKeyView(f.smallest);
    if (endsBefore(ucmp, r, lo)) break;
    out.push(f);
  }
  return out;
}
