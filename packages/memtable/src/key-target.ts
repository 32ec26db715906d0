/**
 * The search target of the memtable's B+tree and the comparisons against it: a target is
 * held in fields (`setTarget*`), not passed as arguments — a user key (array, offset,
 * length) and its trailer as three small integers (seq div 2^24, seq mod 2^24, kind) — and
 * compared with entries read in place in the arena (entry.ts). With the bytewise
 * comparator the bytes are compared directly; other comparators get views. Also the
 * searches within one node of the tree (childFor, slotFor), which use node slices.
 */
import { type Comparator, EMPTY_BYTES, TRAILER_SIZE } from "@shale/base";
import type { Arena } from "./arena.js";
import {
  isBytewise,
  keySlice,
  NONE,
  seqHigh,
  seqLow,
  TWO_24,
  W_COUNT,
  W_SKIP,
  W_SLOTS,
} from "./btree-layout.js";
import { resliceInner, resliceLeaf } from "./btree-split.js";
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
  protected found = false;
  /**
   * Set by a bytewise comparison of user keys (compareEntry, compareUserKeyAt): the length
   * of their common prefix.
   */
  protected lcp = 0;

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
  protected comparePrefix(address: number, skip: number): number {
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
  protected targetCommonPrefix(address: number): number {
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

  // ---- searches within one node (layout in btree.ts) -------------------------------------

  /**
   * In the inner node at words[b], the index of the child whose range holds the target:
   * the last i with sep i <= target, 0 if none. `spine`: the node has an infinite fence, so
   * the target may not share the node's prefix; `inserting`: then lower the node's skip
   * (the target is about to be stored below it) rather than route around the prefix.
   */
  protected childFor(words: Int32Array, b: number, spine: boolean, inserting: boolean): number {
    const n = words[b + W_COUNT]!;
    let skip = words[b + W_SKIP]!;
    if (spine && skip > 0 && n > 1) {
      const anchor = words[b + W_SLOTS + 2]!;
      const p = this.comparePrefix(anchor, skip);
      if (p !== 0) {
        if (!inserting) return p > 0 ? 0 : n - 1;
        skip = this.targetCommonPrefix(anchor);
        resliceInner(this, words, b, skip);
      }
    }
    const ts = this.sliceOfTarget(skip);
    let lo = 1;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = b + W_SLOTS + 3 * mid;
      const s = words[at - 2]!;
      let c: number;
      if (s !== ts) c = s < ts ? -1 : 1;
      else c = this.compareEntry(words[at - 1]!);
      if (c <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /**
   * In the leaf at words[b], the first slot whose key is >= target (`orEqual`: > target);
   * `found` tells whether it equals the target (unless orEqual). `spine` and `inserting` as
   * in childFor.
   */
  protected slotFor(
    words: Int32Array,
    b: number,
    spine: boolean,
    inserting: boolean,
    orEqual: boolean,
  ): number {
    const n = words[b + W_COUNT]!;
    let skip = words[b + W_SKIP]!;
    this.found = false;
    if (spine && skip > 0 && n > 0) {
      const anchor = words[b + W_SLOTS + 1]!;
      const p = this.comparePrefix(anchor, skip);
      if (p !== 0) {
        if (!inserting) return p > 0 ? 0 : n;
        skip = this.targetCommonPrefix(anchor);
        resliceLeaf(this, words, b, skip);
      }
    }
    const ts = this.sliceOfTarget(skip);
    // A linear scan of the slices: its loads do not depend on one another, so the leaf's
    // cache lines are fetched together rather than one after another as in a binary search.
    // It finds the run of slices equal to the target's, in which entries decide (by binary
    // search: a run can be long, e.g. versions of one key, or every key when not bytewise).
    const first = b + W_SLOTS;
    const end = first + 2 * n;
    let at = first;
    while (at < end && words[at]! < ts) at += 2;
    let lo = (at - first) >>> 1;
    while (at < end && words[at] === ts) at += 2;
    let hi = (at - first) >>> 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let c = this.compareEntry(words[first + 2 * mid + 1]!);
      if (c === 0) {
        if (orEqual) c = -1;
        else this.found = true;
      }
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Sign of (key in `slot` of the leaf at words[b]) - target, by slice first. */
  protected compareSlot(words: Int32Array, b: number, slot: number, skip: number): number {
    const s = words[b + W_SLOTS + 2 * slot]!;
    const ts = this.sliceOfTarget(skip);
    if (s !== ts) return s < ts ? -1 : 1;
    return this.compareEntry(words[b + W_SLOTS + 2 * slot + 1]!);
  }
}
