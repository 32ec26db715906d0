/**
 * RangeDelAggregator: the range tombstones of every source of a read, asked "is this point
 * entry deleted?" once per user key while an iterator walks keys in order.
 *
 * Each source contributes a `FragmentedRangeTombstoneList` (non-overlapping fragments, each
 * with its stack of seqs). At snapshot S the covering seq of a user key k is
 *
 *     maxCoveringSeq(k) = max over lists of (the newest seq <= S of the fragment holding k)
 *
 * and a point entry of k with a lower seq is deleted.
 *
 * Zones. Walking keys in order, most consecutive keys fall in the same fragment (or the same
 * gap between fragments) of every list, so the answer is cached for a *zone*: the
 * intersection of the fragments / gaps holding the last key looked up, over all lists.
 *
 * ```
 *   list A:      [b ------------ h)@9        [m --- p)@4
 *   list B:   [a ---- d)@3    [f ------------------- q)@7
 *   key "e":  A: in [b, h) seq 9     B: gap [d, f) seq 0
 *             zone = [d, f)  (the intersection), covering seq 9
 *   keys "d".."e" answer from the zone with two comparisons; "f" leaves it: look up again.
 * ```
 *
 * Skipping. Built with a `threshold` (the largest seq a child iterator can return), the zone
 * also tells whether some fragment holding the key has a visible seq above the threshold —
 * then every entry of that child from the key up to that fragment's end is deleted, and the
 * child can seek past it (`skipEnd`) instead of stepping through it; backwards, before
 * `skipStart`.
 *
 * Keys returned (`skipStart`, `skipEnd`) are views into the lists' buffers: valid as long as
 * the lists. Not thread-safe; one aggregator per iterator.
 */
import { MAX_SEQ, TRAILER_SIZE } from "@shale/base";
import type { FragmentedRangeTombstoneList, FragmentIterator } from "@shale/range-tombstones";
import type { UserKeyOrder } from "./user-key-order.js";

export class RangeDelAggregator {
  private readonly fragments: FragmentIterator[];
  private readonly order: UserKeyOrder;
  /** Seqs above this make a key "covered above the threshold" (see skipping). */
  readonly threshold: number;

  // The zone [lo, hi) of the last lookup; undefined bounds are -inf / +inf.
  private zoneValid = false;
  private lo: Uint8Array | undefined = undefined;
  private hi: Uint8Array | undefined = undefined;
  private seq = 0;
  private coveredAbove = false;
  private start: Uint8Array | undefined = undefined;
  private end: Uint8Array | undefined = undefined;

  /**
   * @param lists the tombstone lists of every source (any order); empty ones are ignored.
   * @param snapshotSeq tombstones with a higher seq are invisible.
   * @param threshold see skipping in the file comment. Default: MAX_SEQ (never skips).
   */
  constructor(
    lists: readonly FragmentedRangeTombstoneList[],
    order: UserKeyOrder,
    snapshotSeq: number,
    threshold: number = MAX_SEQ,
  ) {
    this.order = order;
    this.threshold = threshold;
    this.fragments = [];
    for (const list of lists) if (!list.isEmpty) this.fragments.push(list.newIterator(snapshotSeq));
  }

  /** True when no list has a fragment: nothing is ever deleted. */
  get isEmpty(): boolean {
    return this.fragments.length === 0;
  }

  /**
   * The highest seq <= the snapshot of a tombstone covering `userKey`, 0 if none (a point
   * entry of `userKey` with a lower seq is deleted).
   */
  maxCoveringSeq(userKey: Uint8Array): number {
    if (!this.inZone(userKey, userKey.length)) this.locate(userKey);
    return this.seq;
  }

  /** `maxCoveringSeq` of the user key of internal key `ikey` (hot path: no view when cached). */
  coveringSeqOf(ikey: Uint8Array): number {
    const n = ikey.length - TRAILER_SIZE;
    if (!this.inZone(ikey, n)) this.locate(ikey.subarray(0, n));
    return this.seq;
  }

  /**
   * True if the user key of `ikey` lies in a fragment whose visible seq is above the
   * threshold; then `skipEnd` / `skipStart` bound the run of keys deleted for the child.
   */
  isCoveredAbove(ikey: Uint8Array): boolean {
    const n = ikey.length - TRAILER_SIZE;
    if (!this.inZone(ikey, n)) this.locate(ikey.subarray(0, n));
    return this.coveredAbove;
  }

  /** After `isCoveredAbove` returned true: the furthest end of the fragments concerned. */
  get skipEnd(): Uint8Array {
    return this.end!;
  }

  /** After `isCoveredAbove` returned true: the earliest start of the fragments concerned. */
  get skipStart(): Uint8Array {
    return this.start!;
  }

  private inZone(key: Uint8Array, length: number): boolean {
    if (!this.zoneValid) return false;
    const order = this.order;
    const lo = this.lo;
    if (lo !== undefined && order.comparePrefixes(key, length, lo, lo.length) < 0) return false;
    const hi = this.hi;
    return hi === undefined || order.comparePrefixes(key, length, hi, hi.length) < 0;
  }

  /** Computes the zone holding `userKey` (O(lists · log fragments)). */
  private locate(userKey: Uint8Array): void {
    const order = this.order;
    const threshold = this.threshold;
    let lo: Uint8Array | undefined;
    let hi: Uint8Array | undefined;
    let seq = 0;
    let coveredAbove = false;
    let start: Uint8Array | undefined;
    let end: Uint8Array | undefined;
    for (const f of this.fragments) {
      f.seek(userKey); // the first visible fragment whose end > userKey
      if (f.valid() && order.compare(f.start(), userKey) <= 0) {
        const s = f.start();
        const e = f.end();
        const q = f.seq();
        if (lo === undefined || order.compare(s, lo) > 0) lo = s;
        if (hi === undefined || order.compare(e, hi) < 0) hi = e;
        if (q > seq) seq = q;
        if (q > threshold) {
          coveredAbove = true;
          if (end === undefined || order.compare(e, end) > 0) end = e;
          if (start === undefined || order.compare(s, start) < 0) start = s;
        }
      } else {
        // A gap: from the end of the previous visible fragment to the start of the next.
        if (f.valid()) {
          const s = f.start();
          if (hi === undefined || order.compare(s, hi) < 0) hi = s;
          f.prev();
        } else {
          f.seekToLast();
        }
        if (f.valid()) {
          const e = f.end();
          if (lo === undefined || order.compare(e, lo) > 0) lo = e;
        }
      }
    }
    this.lo = lo;
    this.hi = hi;
    this.seq = seq;
    this.coveredAbove = coveredAbove;
    this.start = start;
    this.end = end;
    this.zoneValid = true;
  }
}

/** The highest seq <= `snapshotSeq` of any tombstone in `lists` (0 if none). O(fragments). */
export function maxVisibleTombstoneSeq(
  lists: readonly FragmentedRangeTombstoneList[],
  snapshotSeq: number,
): number {
  let best = 0;
  for (const list of lists) {
    if (list.isEmpty) continue;
    const f = list.newIterator(snapshotSeq);
    for (f.seekToFirst(); f.valid(); f.next()) if (f.seq() > best) best = f.seq();
  }
  return best;
}
