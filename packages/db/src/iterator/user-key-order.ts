/**
 * UserKeyOrder: user-key comparisons made directly on the bytes the iterators hand out —
 * whole user keys, internal keys (user key ‖ 8-byte trailer) and reused key buffers holding
 * a user key in their first `n` bytes — without creating views in the common case.
 *
 * With the bytewise comparator every comparison is a tight byte loop over prefixes
 * (`comparePrefixes`), so the DB iterator's hot loop never allocates a view to compare. Any
 * other comparator needs `Uint8Array` arguments, so views are created for it.
 */
import { bytewiseComparator, type Comparator, compareBytes, comparePrefixes } from "@shale/base";

export class UserKeyOrder {
  readonly comparator: Comparator;
  /** True when the order is plain bytewise: compare in place. */
  readonly bytewise: boolean;

  constructor(comparator: Comparator) {
    this.comparator = comparator;
    this.bytewise = comparator === bytewiseComparator;
  }

  /** Compares two whole user keys. */
  compare(a: Uint8Array, b: Uint8Array): number {
    return this.bytewise ? compareBytes(a, b) : this.comparator.compare(a, b);
  }

  /**
   * Compares the user key held in `a[0, aLength)` with the one in `b[0, bLength)`: internal
   * keys (pass `length - 8`), key buffers or whole keys alike.
   * REQUIRES: aLength <= a.length, bLength <= b.length.
   */
  comparePrefixes(a: Uint8Array, aLength: number, b: Uint8Array, bLength: number): number {
    if (this.bytewise) return comparePrefixes(a, aLength, b, bLength);
    return this.comparator.compare(
      aLength === a.length ? a : a.subarray(0, aLength),
      bLength === b.length ? b : b.subarray(0, bLength),
    );
  }
}
