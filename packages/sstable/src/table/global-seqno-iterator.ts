/**
 * GlobalSeqnoIterator: a table's iterator that presents every entry at the table's global
 * sequence number (RocksDB's DataBlockIter with a `global_seqno`).
 *
 * An ingested external file stores each entry at sequence number 0; when the ingesting
 * database had newer data for its keys it gave the file one sequence number, the "global
 * seqno", which stands for each entry's (format/external-file.ts says where it is kept).
 * `key()` returns the stored internal key with its trailer's sequence replaced and its kind
 * kept: the user key and kind bytes are copied into a buffer the iterator reuses.
 *
 * Order is unchanged: an external file holds one entry per user key, so replacing every
 * sequence by the same number keeps the entries sorted. Seeks are by the presented keys:
 * the stored entry of the target's own user key sorts after any target (it is at 0), the
 * presented one before a target of a lower sequence; `seek` steps past it then, and
 * `seekForPrev` comes back to it when it is at or before the target (a merging iterator
 * changing direction relies on both).
 *
 * Ownership: `key()` is a view valid until the next move; `value()` is the table's view.
 * Thread safety: one thread.
 */
import {
  type InternalIterator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  putTrailer,
  TRAILER_SIZE,
} from "@shale/base";
import type { KeyOrder } from "../block/key-order.js";

export class GlobalSeqnoIterator implements InternalIterator {
  private readonly inner: InternalIterator;
  private readonly seq: number;
  private readonly order: KeyOrder;
  private seekBuf = new Uint8Array(64);
  private buf = new Uint8Array(64);
  private view: Uint8Array = this.buf.subarray(0, 0);

  /** `seq`: the global sequence number (> 0); `order`: the table's internal-key order. */
  constructor(inner: InternalIterator, seq: number, order: KeyOrder) {
    this.inner = inner;
    this.seq = seq;
    this.order = order;
  }

  valid(): boolean {
    return this.inner.valid();
  }
  seekToFirst(): void {
    this.inner.seekToFirst();
  }
  seekToLast(): void {
    this.inner.seekToLast();
  }
  /** The first entry whose presented key is >= `target`. */
  seek(target: Uint8Array): void {
    const inner = this.inner;
    inner.seek(target);
    if (!inner.valid()) return;
    const stored = inner.key();
    if (this.order.compareUserKeys(stored, stored.length, target, target.length) !== 0) return;
    if (this.order.compare(this.key(), target) < 0) inner.next();
  }

  /** The last entry whose presented key is <= `target`. */
  seekForPrev(target: Uint8Array): void {
    const inner = this.inner;
    // The stored entry of the target's user key, if any (the first at or after it).
    const u = target.length - TRAILER_SIZE;
    if (this.seekBuf.length < target.length) this.seekBuf = new Uint8Array(target.length * 2);
    const first = this.seekBuf.subarray(0, target.length);
    first.set(target.subarray(0, u), 0);
    putTrailer(first, u, MAX_SEQ, KIND_FOR_SEEK);
    inner.seek(first);
    if (!inner.valid()) {
      inner.seekToLast();
      return;
    }
    const stored = inner.key();
    const sameUser = this.order.compareUserKeys(stored, stored.length, target, target.length) === 0;
    if (sameUser && this.order.compare(this.key(), target) <= 0) return;
    inner.prev();
  }
  next(): void {
    this.inner.next();
  }
  prev(): void {
    this.inner.prev();
  }

  /** REQUIRES: valid(). The stored key with the global sequence number in its trailer. */
  key(): Uint8Array {
    const stored = this.inner.key();
    const n = stored.length;
    if (n > this.buf.length) {
      this.buf = new Uint8Array(Math.max(n, this.buf.length * 2));
      this.view = this.buf.subarray(0, n);
    } else if (this.view.length !== n) {
      this.view = this.buf.subarray(0, n);
    }
    const buf = this.buf;
    const t = n - TRAILER_SIZE;
    buf.set(stored.subarray(0, t), 0);
    putTrailer(buf, t, this.seq, stored[t]!);
    return this.view;
  }

  value(): Uint8Array {
    return this.inner.value();
  }
  isValuePinned(): boolean {
    return this.inner.isValuePinned?.() ?? false;
  }
  /** User keys are the stored ones: the table iterator's answer holds. */
  userKeyDiffersAt(): number {
    return this.inner.userKeyDiffersAt?.() ?? -1;
  }
  close(): void {
    this.inner.close();
  }
}
