/**
 * RangeDelSkippingIterator: wraps one source's point iterator so that it never stops on an
 * entry that a range tombstone visibly deletes for certain — it seeks over the whole deleted
 * run instead of stepping through it (RocksDB's range-tombstone-aware merging iterator and
 * Pebble's mergingIter do the same per level).
 *
 * The rule needs no assumption about which source holds a tombstone. The source declares
 * `maxSeq`, an upper bound on the seq of every entry it can return that the snapshot sees
 * (a table's largest seq, a memtable's largest seq when the iterator is created). A
 * tombstone `[start, end)@T` with `maxSeq < T <= snapshot` then deletes every entry of this
 * source with a user key in `[start, end)`:
 *
 * ```
 *   memtable:  rangedel [c, x)@900            newer source, tombstone T = 900
 *   table (maxSeq 500):  a  b  c  d  e ... w  x  y      entries all older than 900
 *   next() from b lands on c: covered above 500 -> seek(x#MAX) -> x   (not c, d, ..., w)
 *   prev() from x lands on w: covered above 500 -> seekForPrev(c#MAX) -> b
 * ```
 *
 * Entries the source may hold above the snapshot (a memtable still being written) are
 * skipped too when they fall in such a run; the snapshot cannot see them anyway. Entries
 * deleted by tombstones not above `maxSeq` are left to the DB iterator's per-key check.
 *
 * The wrapped iterator is the source's entries minus the skipped ones, so it follows the
 * InternalIterator contract (sorted, seek/seekForPrev consistent) and can sit under a
 * MergingIterator. Owns the child: `close()` closes it.
 */
import {
  type InternalIterator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  pooledBytes,
  putTrailer,
  TRAILER_SIZE,
} from "@shale/base";
import type { RangeDelAggregator } from "./range-del-aggregator.js";

export class RangeDelSkippingIterator implements InternalIterator {
  private readonly child: InternalIterator;
  private readonly rangeDel: RangeDelAggregator;
  private seekBuf = pooledBytes(64);
  /** Seeks made to jump over deleted runs (for tests and statistics). */
  skips = 0;

  /** `rangeDel` must be built with `threshold` = the child's maxSeq. */
  constructor(child: InternalIterator, rangeDel: RangeDelAggregator) {
    this.child = child;
    this.rangeDel = rangeDel;
  }

  valid(): boolean {
    return this.child.valid();
  }

  seekToFirst(): void {
    this.child.seekToFirst();
    this.skipForward();
  }

  seekToLast(): void {
    this.child.seekToLast();
    this.skipBackward();
  }

  seek(target: Uint8Array): void {
    this.child.seek(target);
    this.skipForward();
  }

  seekForPrev(target: Uint8Array): void {
    this.child.seekForPrev(target);
    this.skipBackward();
  }

  next(): void {
    this.child.next();
    this.skipForward();
  }

  prev(): void {
    this.child.prev();
    this.skipBackward();
  }

  key(): Uint8Array {
    return this.child.key();
  }

  value(): Uint8Array {
    return this.child.value();
  }

  isValuePinned(): boolean {
    return this.child.isValuePinned?.() === true;
  }

  close(): void {
    this.child.close();
  }

  /** While on a deleted run: seek to the first entry at or after its end. */
  private skipForward(): void {
    const child = this.child;
    const rangeDel = this.rangeDel;
    while (child.valid() && rangeDel.isCoveredAbove(child.key())) {
      this.skips++;
      child.seek(this.firstKeyOf(rangeDel.skipEnd));
    }
  }

  /** While on a deleted run: seek to the last entry before its start. */
  private skipBackward(): void {
    const child = this.child;
    const rangeDel = this.rangeDel;
    while (child.valid() && rangeDel.isCoveredAbove(child.key())) {
      this.skips++;
      child.seekForPrev(this.firstKeyOf(rangeDel.skipStart));
    }
  }

  /** The smallest internal key of `userKey`: (userKey, MAX_SEQ, KIND_FOR_SEEK). */
  private firstKeyOf(userKey: Uint8Array): Uint8Array {
    const n = userKey.length + TRAILER_SIZE;
    if (this.seekBuf.length < n)
      this.seekBuf = new Uint8Array(Math.max(n, this.seekBuf.length * 2));
    const buf = this.seekBuf;
    buf.set(userKey, 0);
    putTrailer(buf, userKey.length, MAX_SEQ, KIND_FOR_SEEK);
    return buf.subarray(0, n);
  }
}
