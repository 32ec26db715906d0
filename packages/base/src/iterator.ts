/**
 * The InternalIterator contract, followed by every sorted iterator in shale: data block,
 * table, memtable, merging iterator, and the db's internal iterator.
 *
 * Positioning:
 * - `seekToFirst()` / `seekToLast()`: the first / last entry.
 * - `seek(target)`: the first entry with key >= target.
 * - `seekForPrev(target)`: the last entry with key <= target.
 * - `next()` / `prev()`: REQUIRES `valid()`. Moving off either end makes the iterator invalid.
 *
 * Access: `key()` and `value()` REQUIRE `valid()`. They return views that stay valid until
 * the iterator next moves or is closed; copy them to keep them longer. An iterator whose
 * values are never rewritten (memtable arena entries, table blocks) says so with
 * `isValuePinned()` (RocksDB's IsValuePinned), and a caller that holds a value across moves
 * (the DB iterator going backwards) keeps the view instead of copying it.
 *
 * Step hint: an iterator over internal keys may say, after `next()`, where the user key it
 * moved to first differs from the one it left (`userKeyDiffersAt()`), when it knows that for
 * free — a data block iterator does, from the shared-prefix length of the entry it decodes,
 * and a memtable iterator from the leaf's shared prefix and key slices.
 * The DB iterator's forward step then needs no key comparison and copies only the new bytes.
 *
 * Order: whatever comparator the iterator was built with (internal-key order for engine
 * iterators). Errors (Corruption, IOError) are thrown by the call that meets them.
 *
 * `close()` releases pinned resources (cache handles, versions); after it the iterator must
 * not be used. Closing twice is harmless.
 */
export interface InternalIterator {
  valid(): boolean;
  seekToFirst(): void;
  seekToLast(): void;
  seek(target: Uint8Array): void;
  seekForPrev(target: Uint8Array): void;
  next(): void;
  prev(): void;
  key(): Uint8Array;
  value(): Uint8Array;
  /**
   * Optional. True if the current `value()` view keeps its bytes until the iterator is
   * closed, not only until it moves. Absent or false: copy to keep. REQUIRES: `valid()`.
   */
  isValuePinned?(): boolean;
  /**
   * Optional. After `next()`: the index of the first byte at which the current user key (the
   * key without its 8-byte trailer) differs from the user key of the entry the iterator was
   * on before the move, both being longer than that index; or the user key's length when
   * the two user keys are equal (a newer and an older version of one key); -1 when not known
   * (after any other move, or when the iterator cannot tell cheaply). Never a wrong index:
   * -1 is always a correct answer. REQUIRES: `valid()`; keys are internal keys.
   */
  userKeyDiffersAt?(): number;
  close(): void;
}

/** A comparison function over byte strings. */
export type CompareFn = (a: Uint8Array, b: Uint8Array) => number;

/**
 * An iterator over a sorted in-memory array of entries: the reference implementation of the
 * contract, and a handy adapter for tests and small inputs.
 * REQUIRES: `keys` sorted by `compare` with no duplicates; `values[i]` belongs to `keys[i]`.
 */
export class ArrayIterator implements InternalIterator {
  private index = -1;
  private readonly keys: readonly Uint8Array[];
  private readonly values: readonly Uint8Array[];
  private readonly compare: CompareFn;

  constructor(keys: readonly Uint8Array[], values: readonly Uint8Array[], compare: CompareFn) {
    if (keys.length !== values.length) throw new RangeError("keys and values differ in length");
    this.keys = keys;
    this.values = values;
    this.compare = compare;
  }

  valid(): boolean {
    return this.index >= 0 && this.index < this.keys.length;
  }

  seekToFirst(): void {
    this.index = this.keys.length > 0 ? 0 : -1;
  }

  seekToLast(): void {
    this.index = this.keys.length - 1;
  }

  /** Index of the first key >= target (keys.length if none). */
  private lowerBound(target: Uint8Array): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.keys[mid]!, target) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  seek(target: Uint8Array): void {
    const i = this.lowerBound(target);
    this.index = i < this.keys.length ? i : -1;
  }

  seekForPrev(target: Uint8Array): void {
    const i = this.lowerBound(target);
    if (i < this.keys.length && this.compare(this.keys[i]!, target) === 0) this.index = i;
    else this.index = i - 1;
  }

  next(): void {
    this.index++;
    if (this.index >= this.keys.length) this.index = -1;
  }

  prev(): void {
    this.index--;
  }

  key(): Uint8Array {
    return this.keys[this.index]!;
  }

  value(): Uint8Array {
    return this.values[this.index]!;
  }

  close(): void {
    this.index = -1;
  }
}

/** An iterator with no entries. */
export class EmptyIterator implements InternalIterator {
  valid(): boolean {
    return false;
  }
  seekToFirst(): void {}
  seekToLast(): void {}
  seek(_target: Uint8Array): void {}
  seekForPrev(_target: Uint8Array): void {}
  next(): void {
    throw new RangeError("next() on an invalid iterator");
  }
  prev(): void {
    throw new RangeError("prev() on an invalid iterator");
  }
  key(): Uint8Array {
    throw new RangeError("key() on an invalid iterator");
  }
  value(): Uint8Array {
    throw new RangeError("value() on an invalid iterator");
  }
  close(): void {}
}
