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
 * sequence by the same number keeps the entries sorted. A seek lands where it would on the
 * stored keys: for the target's own user key that is the entry even when its global seqno
 * is above the target's sequence, one step early; readers skip entries above their snapshot.
 *
 * Ownership: `key()` is a view valid until the next move; `value()` is the table's view.
 * Thread safety: one thread.
 */
import { type InternalIterator, putTrailer, TRAILER_SIZE } from "@shale/base";

export class GlobalSeqnoIterator implements InternalIterator {
  private readonly inner: InternalIterator;
  private readonly seq: number;
  private buf = new Uint8Array(64);
  private view: Uint8Array = this.buf.subarray(0, 0);

  /** `seq`: the global sequence number (> 0), in [1, 2^56). */
  constructor(inner: InternalIterator, seq: number) {
    this.inner = inner;
    this.seq = seq;
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
  seek(target: Uint8Array): void {
    this.inner.seek(target);
  }
  seekForPrev(target: Uint8Array): void {
    this.inner.seekForPrev(target);
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
