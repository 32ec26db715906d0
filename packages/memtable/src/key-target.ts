/**
 * The search target of the memtable's B+tree and the comparisons against it: a target is
 * held in fields (`setTarget*`), not passed as arguments — a user key (array, offset,
 * length) and its trailer as three small integers (seq div 2^24, seq mod 2^24, kind) — and
 * compared with entries read in place in the arena (entry.ts). With the bytewise
 * comparator the bytes are compared directly; other comparators get views. The tree
 * (btree.ts) holds one and searches its nodes with it (btree-search.ts); it knows nothing of
 * nodes itself.
 */
import { type Comparator, EMPTY_BYTES, TRAILER_SIZE } from "@shale/base";
import type { Arena } from "./arena.js";
import { isBytewise, keySlice, NONE, seqHigh, seqLow, TWO_24 } from "./btree-layout.js";
import { readVarint32, varintEnd } from "./entry.js";

export class KeyTarget {
  readonly arena: Arena;
  readonly user: Comparator;
  readonly bytewise: boolean;
  /** The arena's entry chunks (the same, growing, array) and address geometry. */
  readonly entryChunks: Uint8Array[];
  protected readonly shift: number;
  protected readonly mask: number;
  private tKey: Uint8Array = EMPTY_BYTES;
  private tOff = 0;
  private tLen = 0;
  private tSeqHigh = 0;
  private tSeqLow = 0;
  private tKind = 0;
  /** `tKey[tOff, tOff + tLen)` as a view, for non-bytewise comparators. */
  private tUser: Uint8Array = EMPTY_BYTES;
  /** Set by slotFor (and the tree's sequential shortcut): the key found equals the target. */
  found = false;
  /**
   * Set by a bytewise comparison of user keys (compareEntry, compareUserKeyAt): the length
   * of their common prefix.
   */
  lcp = 0;

  constructor(arena: Arena, user: Comparator) {
    this.arena = arena;
    this.user = user;
    this.bytewise = isBytewise(user);
    this.entryChunks = arena.entryChunks;
    this.shift = arena.shift;
    this.mask = arena.mask;
  }

  // ---- targets --------------------------------------------------------------------------

  /** Target = `userKey` with trailer (seq, kind). */
  setTargetUser(userKey: Uint8Array, seq: number, kind: number): void {
    const high = Math.floor(seq / TWO_24);
    this.setTarget(userKey, 0, userKey.length, high, seq - high * TWO_24, kind);
  }

  /** The target's seq div 2^24 and seq mod 2^24 (as set by the last `setTarget*`). */
  get targetSeqHigh(): number {
    return this.tSeqHigh;
  }
  get targetSeqLow(): number {
    return this.tSeqLow;
  }

  /** Target = the internal key `ikey` (REQUIRES: ikey.length >= 8). */
  setTargetInternal(ikey: Uint8Array): void {
    const t = ikey.length - TRAILER_SIZE;
    this.setTarget(ikey, 0, t, seqHigh(ikey, t), seqLow(ikey, t), ikey[t]!);
  }

  /** Target = the internal key of the entry at `address`. */
  setTargetEntry(address: number): void {
    const chunk = this.entryChunks[address >>> this.shift]!;
    const ikeyLength = readVarint32(chunk, address & this.mask);
    const start = varintEnd;
    const t = start + ikeyLength - TRAILER_SIZE;
    this.setTarget(chunk, start, t - start, seqHigh(chunk, t), seqLow(chunk, t), chunk[t]!);
  }

  private setTarget(
    key: Uint8Array,
    off: number,
    len: number,
    high: number,
    low: number,
    kind: number,
  ): void {
    this.tKey = key;
    this.tOff = off;
    this.tLen = len;
    this.tSeqHigh = high;
    this.tSeqLow = low;
    this.tKind = kind;
    if (!this.bytewise) {
      this.tUser = off === 0 && len === key.length ? key : key.subarray(off, off + len);
    }
  }

  // ---- comparisons ----------------------------------------------------------------------

  /** Sign of (internal key of the entry at `address`) - (target). */
  compareEntry(address: number): number {
    const chunk = this.entryChunks[address >>> this.shift]!;
    let pos = address & this.mask;
    let ikeyLength = chunk[pos]!;
    if (ikeyLength < 0x80) pos++;
    else {
      ikeyLength = readVarint32(chunk, pos);
      pos = varintEnd;
    }
    const userLength = ikeyLength - TRAILER_SIZE;
    const r = this.compareUserKeyAt(chunk, pos, userLength);
    if (r !== 0) return r;
    // Trailers sort descending: a larger seq (then kind) comes first.
    const t = pos + userLength;
    const high = seqHigh(chunk, t);
    if (high !== this.tSeqHigh) return high > this.tSeqHigh ? -1 : 1;
    const low = seqLow(chunk, t);
    if (low !== this.tSeqLow) return low > this.tSeqLow ? -1 : 1;
    const kind = chunk[t]!;
    if (kind !== this.tKind) return kind > this.tKind ? -1 : 1;
    return 0;
  }

  /** The user key of the entry at `address`, as a view. */
  userKeyOf(address: number): Uint8Array {
    const chunk = this.entryChunks[address >>> this.shift]!;
    const ikeyLength = readVarint32(chunk, address & this.mask);
    return chunk.subarray(varintEnd, varintEnd + ikeyLength - TRAILER_SIZE);
  }

  /** Sign of (the user key of the entry at `address`) - (the target's), by the user comparator. */
  compareUserKeyOf(address: number): number {
    const chunk = this.entryChunks[address >>> this.shift]!;
    let pos = address & this.mask;
    let ikeyLength = chunk[pos]!;
    if (ikeyLength < 0x80) pos++;
    else {
      ikeyLength = readVarint32(chunk, pos);
      pos = varintEnd;
    }
    return this.compareUserKeyAt(chunk, pos, ikeyLength - TRAILER_SIZE);
  }

  /** True when the user key of the entry at `address` is the target's (bytewise). */
  userKeyEquals(address: number): boolean {
    const chunk = this.entryChunks[address >>> this.shift]!;
    let pos = address & this.mask;
    let ikeyLength = chunk[pos]!;
    if (ikeyLength < 0x80) pos++;
    else {
      ikeyLength = readVarint32(chunk, pos);
      pos = varintEnd;
    }
    const len = ikeyLength - TRAILER_SIZE;
    if (len !== this.tLen) return false;
    const key = this.tKey;
    const off = this.tOff - pos;
    const end = pos + len;
    for (let i = pos; i < end; i++) if (chunk[i] !== key[i + off]) return false;
    return true;
  }

  /** Sign of `chunk[pos, pos + len)` - target user key, by the user comparator. */
  compareUserKeyAt(chunk: Uint8Array, pos: number, len: number): number {
    if (!this.bytewise) return this.user.compare(chunk.subarray(pos, pos + len), this.tUser);
    const key = this.tKey;
    const off = this.tOff - pos;
    const tLen = this.tLen;
    const n = len < tLen ? len : tLen;
    const end = pos + n;
    for (let i = pos; i < end; i++) {
      const d = chunk[i]! - key[i + off]!;
      if (d !== 0) {
        this.lcp = i - pos;
        return d;
      }
    }
    this.lcp = n;
    return len - tLen;
  }

  /**
   * Sign of (the first `skip` bytes of the user key at `address`) - (the target's first
   * `skip` bytes); a target shorter than `skip` that matches is smaller (1).
   */
  comparePrefix(address: number, skip: number): number {
    const chunk = this.entryChunks[address >>> this.shift]!;
    const ikeyLength = readVarint32(chunk, address & this.mask);
    const pos = varintEnd;
    const key = this.tKey;
    const off = this.tOff;
    const tLen = this.tLen;
    const userLength = ikeyLength - TRAILER_SIZE;
    let n = skip < tLen ? skip : tLen;
    if (userLength < n) n = userLength;
    for (let i = 0; i < n; i++) {
      const d = chunk[pos + i]! - key[off + i]!;
      if (d !== 0) return d;
    }
    return tLen < skip ? 1 : 0;
  }

  /** Length of the common prefix of the target's user key and the one at `address`. */
  targetCommonPrefix(address: number): number {
    const chunk = this.entryChunks[address >>> this.shift]!;
    const userLength = readVarint32(chunk, address & this.mask) - TRAILER_SIZE;
    const pos = varintEnd;
    const key = this.tKey;
    const off = this.tOff;
    const n = userLength < this.tLen ? userLength : this.tLen;
    let i = 0;
    while (i < n && chunk[pos + i] === key[off + i]) i++;
    return i;
  }

  /** The target's slice at `skip` (0 unless bytewise). */
  sliceOfTarget(skip: number): number {
    return this.bytewise ? keySlice(this.tKey, this.tOff, this.tLen, skip) : 0;
  }

  /** The slice at `skip` of the entry at `address`'s user key (0 unless bytewise). */
  sliceOfEntry(address: number, skip: number): number {
    if (!this.bytewise) return 0;
    const chunk = this.entryChunks[address >>> this.shift]!;
    const ikeyLength = readVarint32(chunk, address & this.mask);
    return keySlice(chunk, varintEnd, ikeyLength - TRAILER_SIZE, skip);
  }

  /** Length of the common prefix of the user keys of two entries (0 unless bytewise). */
  commonPrefix(a: number, b: number): number {
    if (!this.bytewise || a === NONE || b === NONE) return 0;
    const ca = this.entryChunks[a >>> this.shift]!;
    const la = readVarint32(ca, a & this.mask) - TRAILER_SIZE;
    const pa = varintEnd;
    const cb = this.entryChunks[b >>> this.shift]!;
    const lb = readVarint32(cb, b & this.mask) - TRAILER_SIZE;
    const pb = varintEnd;
    const n = la < lb ? la : lb;
    let i = 0;
    while (i < n && ca[pa + i] === cb[pb + i]) i++;
    return i;
  }
}
