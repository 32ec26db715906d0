/**
 * A child of the merging iterator with its `valid()` and `key()` cached (RocksDB's
 * `IteratorWrapper`), so heap comparisons read two fields instead of making two calls into
 * whatever iterator class the child is. Internal to the package.
 */
import { EMPTY_BYTES, type InternalIterator, keyWordAt, TRAILER_SIZE } from "@shale/base";

export class IteratorWrapper {
  readonly iter: InternalIterator;
  /** Position among the merging iterator's children; breaks ties between equal keys. */
  readonly index: number;
  /** Cached `iter.valid()`. */
  valid = false;
  /** Cached `iter.key()` while `valid`; the empty array otherwise. A view owned by `iter`. */
  key: Uint8Array = EMPTY_BYTES;
  /**
   * With `prefixWords`: user-key bytes [0, 4) and [4, 8) of `key` as big-endian unsigned
   * integers, zero past the user key's end (@shale/base's `keyWordAt`); always 0 otherwise.
   */
  word0 = 0;
  word1 = 0;
  private readonly prefixWords: boolean;

  constructor(iter: InternalIterator, index: number, prefixWords = false) {
    this.iter = iter;
    this.index = index;
    this.prefixWords = prefixWords;
  }

  /** Re-reads `valid()` and `key()` after the child moved. */
  update(): void {
    const iter = this.iter;
    if (iter.valid()) {
      this.valid = true;
      const key = iter.key();
      this.key = key;
      if (this.prefixWords) {
        const end = key.length - TRAILER_SIZE;
        this.word0 = keyWordAt(key, 0, end);
        this.word1 = keyWordAt(key, 4, end);
      }
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
