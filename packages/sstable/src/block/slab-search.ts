/**
 * SlabSearch: a point lookup's walk through one data block held as a range of a larger
 * array — `data[start, start + length)`, a block in a `SharedBlockCache` slab — with no
 * `Block` object and no view made per block. One long-lived SlabSearch per table reader:
 * `seek` binary-searches the restart array and scans the run to the first entry at or after
 * the target (in place, as `BlockIterator` does, for bytewise internal keys: run-scan.ts);
 * `next` steps on. The current key is assembled in `keyBuf` (prefix compression);
 * the value stays in `data` at `valueOffset` (absolute), `valueLength` bytes.
 *
 * The bytes may be rewritten by another thread while they are read (the slot retired and
 * reused): the caller validates the slot's generation after it is done. So no decode here
 * trusts a byte: every length is bounded by the block's entries, and a malformed entry ends
 * the walk with `corrupt` set (the caller then tells a recycled slot from a corrupt block by
 * the generation). The block format is drawn in block-builder.ts.
 */
import { compareInternalBytewise, TRAILER_SIZE } from "@shale/base";
import { BLOCK_FOOTER_HASH_INDEX_BIT, MAX_BLOCK_SIZE_WITH_HASH_INDEX } from "./block.js";
import type { KeyOrder } from "./key-order.js";
import {
  copyFoundKey,
  MAX_TOUCHED_RESTARTS,
  MAX_TOUCHED_RUN,
  SCAN_RUN_END,
  scanRun,
  touchLines,
} from "./run-scan.js";

export class SlabSearch {
  /** The array the block is in (set by `seek`). */
  data: Uint8Array = new Uint8Array(0);
  /** The current key (internal key), `keyLength` bytes. */
  keyBuf = new Uint8Array(64);
  keyLength = 0;
  /** Absolute offset of the current value in `data`. */
  valueOffset = 0;
  valueLength = 0;
  /** Sink of the prefetching loads, so they are not optimized away. */
  touched = 0;
  /** True after a malformed entry or restart array (the walk ended there). */
  corrupt = false;
  private entriesEnd = 0;
  /** The shared-prefix length of the entry `decodeHeader` read last. */
  private shared = 0;
  private next_ = 0;
  private isValid = false;
  private readonly order: KeyOrder;

  constructor(order: KeyOrder) {
    this.order = order;
  }

  valid(): boolean {
    return this.isValid;
  }

  /**
   * Positions at the first entry of the block `data[start, start + length)` whose key is at
   * or after `target` (an internal key); invalid past the end, or with `corrupt` set.
   * Returns `valid()`.
   */
  seek(data: Uint8Array, start: number, length: number, target: Uint8Array): boolean {
    this.data = data;
    this.corrupt = false;
    this.isValid = false;
    if (length < 4) return this.fail();
    const end = start + length;
    let numRestarts = readFixed32(data, end - 4);
    let entriesEnd = end - 4;
    if (numRestarts >= BLOCK_FOOTER_HASH_INDEX_BIT && length <= MAX_BLOCK_SIZE_WITH_HASH_INDEX) {
      numRestarts -= BLOCK_FOOTER_HASH_INDEX_BIT;
      entriesEnd = end - 6 - (data[end - 6]! | (data[end - 5]! << 8));
    }
    const restarts = entriesEnd - numRestarts * 4;
    if (numRestarts < 1 || restarts < start) return this.fail();
    this.entriesEnd = restarts;
    if (restarts === start) return false; // no entries
    // The last restart whose key is below the target (restart keys are stored whole). The
    // restart entries are loaded up front, so their cache misses overlap (run-scan.ts).
    const order = this.order;
    const bytewise = order.bytewiseInternal;
    if (numRestarts <= MAX_TOUCHED_RESTARTS) {
      let sum = 0;
      for (let i = 0; i < numRestarts; i++)
        sum += data[start + readFixed32(data, restarts + 4 * i)]!;
      this.touched = sum;
    }
    let lo = 0;
    let hi = numRestarts - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const p = start + readFixed32(data, restarts + mid * 4);
      let keyAt: number;
      let keyLength: number;
      if (p + 3 <= restarts && (data[p]! | data[p + 1]! | data[p + 2]!) < 0x80) {
        if (data[p] !== 0) return this.fail(); // a restart's key is whole (shared 0)
        keyAt = p + 3;
        keyLength = data[p + 1]!;
        if (keyAt + keyLength > restarts) return this.fail();
      } else {
        keyAt = p < restarts ? this.decodeHeader(p) : -1;
        if (keyAt < 0 || this.shared !== 0) return this.fail();
        keyLength = this.keyLength;
      }
      const c = bytewise
        ? compareInternalBytewise(data, keyAt, keyLength, target, target.length)
        : order.compareAt(data, keyAt, keyLength, target);
      if (c < 0) lo = mid;
      else hi = mid - 1;
    }
    const first = start + readFixed32(data, restarts + lo * 4);
    if (first >= restarts) return this.fail();
    this.keyLength = 0;
    this.next_ = first;
    if (order.bytewiseInternal) {
      // In place, comparing only delta bytes (run-scan.ts); SCAN_FALLBACK: the plain scan.
      const runEnd =
        lo + 1 < numRestarts ? start + readFixed32(data, restarts + lo * 4 + 4) : restarts;
      if (runEnd > restarts || runEnd <= first) return this.fail();
      if (runEnd - first <= MAX_TOUCHED_RUN) this.touched += touchLines(data, first + 64, runEnd);
      const found = scanRun(data, first, runEnd, restarts, target);
      if (found >= 0) return this.loadScanned(found, target);
      if (found === SCAN_RUN_END) {
        // Restart lo + 1's key is >= target (the binary search): its entry, or the end.
        this.next_ = runEnd;
        return this.step();
      }
    }
    for (;;) {
      if (!this.step()) return false;
      if (order.compareAt(this.keyBuf, 0, this.keyLength, target) >= 0) return true;
    }
  }

  /** Makes the entry at `p` that `scanRun` found for `target` current (one-byte lengths). */
  private loadScanned(p: number, target: Uint8Array): boolean {
    const data = this.data;
    const unshared = data[p + 1]!;
    const valueLength = data[p + 2]!;
    const total = data[p]! + unshared;
    if (this.keyBuf.length < total)
      this.keyBuf = new Uint8Array(Math.max(total, 2 * this.keyBuf.length));
    this.keyLength = copyFoundKey(data, p, target, this.keyBuf);
    this.shared = data[p]!;
    this.valueOffset = p + 3 + unshared;
    this.valueLength = valueLength;
    this.next_ = this.valueOffset + valueLength;
    this.isValid = true;
    return true;
  }

  /** Steps to the next entry. REQUIRES: valid(). */
  next(): void {
    this.step();
  }

  /** Decodes the entry at `next_` into keyBuf/value; false (invalid) at the end or on damage. */
  private step(): boolean {
    const previous = this.keyLength;
    if (this.next_ >= this.entriesEnd) {
      this.isValid = false;
      return false;
    }
    const keyAt = this.decodeHeader(this.next_);
    const shared = this.shared;
    const total = this.keyLength;
    if (keyAt < 0 || shared > previous || total < TRAILER_SIZE) return this.fail();
    let kb = this.keyBuf;
    if (kb.length < total) {
      const grown = new Uint8Array(Math.max(total, 2 * kb.length));
      grown.set(kb.subarray(0, shared));
      this.keyBuf = kb = grown;
    }
    const data = this.data;
    for (let i = shared, j = keyAt; i < total; i++, j++) kb[i] = data[j]!;
    this.isValid = true;
    return true;
  }

  /**
   * Reads the entry header at `p` (shared, unshared, value length: varint32s): sets
   * `keyLength` to shared + unshared, `valueOffset`/`valueLength` and `next_`; returns the
   * offset of the unshared key bytes, or -1 if the entry does not fit the entries.
   */
  private decodeHeader(p: number): number {
    const data = this.data;
    const end = this.entriesEnd;
    let q = p;
    let shared = 0;
    let unshared = 0;
    let valueLength = 0;
    // The common case: three one-byte varints.
    const a = data[q]!;
    const b = data[q + 1]!;
    const c = data[q + 2]!;
    if ((a | b | c) < 128) {
      shared = a;
      unshared = b;
      valueLength = c;
      q += 3;
    } else {
      let v = 0;
      for (let field = 0; field < 3; field++) {
        let shift = 0;
        v = 0;
        for (;;) {
          if (q >= end || shift > 28) return -1;
          const byte = data[q++]!;
          v |= (byte & 0x7f) << shift;
          if (byte < 128) break;
          shift += 7;
        }
        if (v < 0) return -1;
        if (field === 0) shared = v;
        else if (field === 1) unshared = v;
        else valueLength = v;
      }
    }
    const keyAt = q;
    const valueAt = keyAt + unshared;
    const next = valueAt + valueLength;
    if (next > end) return -1;
    this.shared = shared;
    this.keyLength = shared + unshared;
    this.valueOffset = valueAt;
    this.valueLength = valueLength;
    this.next_ = next;
    return keyAt;
  }

  /** Ends the walk at damage: `corrupt`, invalid. Returns false. */
  private fail(): false {
    this.corrupt = true;
    this.isValid = false;
    return false;
  }
}

/** Little-endian fixed32 at `p` (unsigned). */
function readFixed32(data: Uint8Array, p: number): number {
  return (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24)) >>> 0;
}
