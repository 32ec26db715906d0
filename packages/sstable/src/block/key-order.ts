/**
 * KeyOrder: compares a key stored at an offset inside a block (or a key buffer) with a
 * target key, without creating views on the common bytewise path.
 *
 * Blocks hold internal keys (data, index and range-deletion blocks: user key ‖ 8-byte
 * trailer, ordered by user key ascending then trailer descending) or plain byte strings
 * (the metaindex: bytewise). One monomorphic class covers both so block iterators have a
 * single call site shape.
 */
import {
  bytewiseComparator,
  type Comparator,
  fixed32At,
  NodeBuffer,
  TRAILER_SIZE,
} from "@shale/base";

/** Byte-wise comparison of `a[aOff, aOff + aLen)` with `b[0, bLen)`. */
export function compareRegion(
  a: Uint8Array,
  aOff: number,
  aLen: number,
  b: Uint8Array,
  bLen: number,
): number {
  const n = aLen < bLen ? aLen : bLen;
  if (n > 64 && NodeBuffer !== undefined) {
    const r = NodeBuffer.compare(a.subarray(aOff, aOff + n), b.subarray(0, n));
    return r !== 0 ? r : aLen - bLen;
  }
  for (let i = 0; i < n; i++) {
    const d = a[aOff + i]! - b[i]!;
    if (d !== 0) return d;
  }
  return aLen - bLen;
}

/** The in-place internal-key order with bytewise user keys (@shale/base fast-decode.ts). */
export { compareInternalBytewise } from "@shale/base";

export class KeyOrder {
  /** The user-key comparator. */
  readonly user: Comparator;
  /** Keys carry an 8-byte trailer (internal keys). */
  readonly internal: boolean;
  /**
   * Internal keys with the bytewise user comparator: `compareInternalBytewise` applies and
   * keys can be compared byte by byte in place (`index-search.ts`, `run-scan.ts`).
   */
  readonly bytewiseInternal: boolean;
  private readonly bytewise: boolean;

  constructor(user: Comparator, internal: boolean) {
    this.user = user;
    this.internal = internal;
    this.bytewise = user === bytewiseComparator || !internal;
    this.bytewiseInternal = internal && user === bytewiseComparator;
  }

  /**
   * Compares the key `a[aOff, aOff + aLen)` with the whole of `b`. For internal keys both
   * must have a trailer.
   */
  compareAt(a: Uint8Array, aOff: number, aLen: number, b: Uint8Array): number {
    if (!this.internal) return compareRegion(a, aOff, aLen, b, b.length);
    const au = aLen - TRAILER_SIZE;
    const bu = b.length - TRAILER_SIZE;
    const r = this.bytewise
      ? compareRegion(a, aOff, au, b, bu)
      : this.user.compare(a.subarray(aOff, aOff + au), b.subarray(0, bu));
    if (r !== 0) return r;
    // Trailers descending: the larger (hi, lo) sorts first.
    const at = aOff + au;
    const ahi = fixed32At(a, at + 4);
    const bhi = fixed32At(b, bu + 4);
    if (ahi !== bhi) return bhi - ahi;
    return fixed32At(b, bu) - fixed32At(a, at);
  }

  /**
   * Compares the user-key part of the internal key `a[aOff, aOff + aLen)` with `userKey`.
   * REQUIRES: internal.
   */
  compareUserKeyAt(a: Uint8Array, aOff: number, aLen: number, userKey: Uint8Array): number {
    const au = aLen - TRAILER_SIZE;
    return this.bytewise
      ? compareRegion(a, aOff, au, userKey, userKey.length)
      : this.user.compare(a.subarray(aOff, aOff + au), userKey);
  }

  /**
   * Compares the user-key parts of two internal keys `a[0, aLen)` and `b[0, bLen)` (lengths
   * include the trailers). REQUIRES: internal.
   */
  compareUserKeys(a: Uint8Array, aLen: number, b: Uint8Array, bLen: number): number {
    const au = aLen - TRAILER_SIZE;
    const bu = bLen - TRAILER_SIZE;
    return this.bytewise
      ? compareRegion(a, 0, au, b, bu)
      : this.user.compare(a.subarray(0, au), b.subarray(0, bu));
  }

  /** Compares two whole keys. */
  compare(a: Uint8Array, b: Uint8Array): number {
    return this.compareAt(a, 0, a.length, b);
  }
}
