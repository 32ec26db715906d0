/**
 * A child of the merging iterator with its `valid()` and `key()` cached (RocksDB's
 * `IteratorWrapper`), so heap comparisons read two fields instead of making two calls into
 * whatever iterator class the child is. Internal to the package.
 */
import { EMPTY_BYTES, type InternalIterator } from "@shale/base";

export class IteratorWrapper {
  readonly iter: InternalIterator;
  /** Position among the merging iterator's children; breaks ties between equal keys. */
  readonly index: number;
  /** Cached `iter.valid()`. */
  valid = false;
  /** Cached `iter.key()` while `valid`; the empty array otherwise. A view owned by `iter`. */
  key: Uint8Array = EMPTY_BYTES;

  constructor(iter: InternalIterator, index: number) {
    this.iter = iter;
    this.index = index;
  }

  /** Re-reads `valid()` and `key()` after the child moved. */
  update(): void {
    const iter = this.iter;
    if (iter.valid()) {
      this.valid = true;
      this.key = iter.key();
    } else {
      this.valid = false;
      this.key = EMPTY_BYTES;
    }
  }

  seekToFirst(): void {
    this.iter.seekToFirst();
    this.update();
  }

  seekToLast(): void {
    this.iter.seekToLast();
    this.update();
  }

  seek(target: Uint8Array): void {
    this.iter.seek(target);
    this.update();
  }

  seekForPrev(target: Uint8Array): void {
    this.iter.seekForPrev(target);
    this.update();
  }

  /** REQUIRES: `valid`. */
  next(): void {
    this.iter.next();
    this.update();
  }

  /** REQUIRES: `valid`. */
  prev(): void {
    this.iter.prev();
    this.update();
  }
}
