/**
 * IndexSearch: an in-memory search aid for the index block of a table whose user keys are
 * ordered bytewise, built when the index block is loaded. It is derived from the block's
 * bytes and never written: the file format does not change.
 *
 * A seek binary-searches the index block's restart array (one restart per entry); each probe
 * decodes the restart entry's header and compares its key with the target, touching a fresh
 * part of a block that is ~1 MiB for a 1M-entry table (29k entries: 15 probes), and the
 * entry found is decoded for its block handle. Instead, one dense array holds, per entry,
 * 16 bytes: two words of its key and the offset of its data block:
 *
 *   L             = length of the user-key prefix common to every entry
 *                 = the common prefix of the first and the last entry's user key
 *   records[4i]   = user-key bytes [L, L + 4) of entry i, big-endian, zero past its end
 *   records[4i+1] = bytes [L + 4, L + 8), the same way
 *   records[4i+2] = data block offset mod 2^32      records[4i+3] = offset / 2^32
 *
 * Worked example (user keys of the index entries; L = 5, the common "user:"):
 * ```
 *   entry 0  "user:apple"    61 70 70 6c | 65 00 00 00 | offset 0
 *   entry 1  "user:banana"   62 61 6e 61 | 6e 61 00 00 | offset 4113
 *   entry 2  "user:cherry"   63 68 65 72 | 72 79 00 00 | offset 8190
 *   target   "user:b"        62 00 00 00 | 00 00 00 00   -> below entry 1: block at 4113
 * ```
 * A probe compares the target's word pair with entry i's (two integer compares): unequal
 * pairs order the user keys the same way (a zero pad sorts below any real byte only where
 * the shorter key is a prefix of the longer, which sorts it first too); equal pairs fall
 * back to comparing the whole key in place. The target's first L bytes are compared with
 * the common prefix once per seek. A point lookup then reads its data block's offset from
 * the same array: the index entry itself is only decoded on a block-cache miss.
 */
import {
  keyWordAt,
  ShaleError,
  TRAILER_SIZE,
  varint32Before,
  varint64Before,
  varintEnd,
} from "@shale/base";
import { compareInternalBytewise } from "../block/key-order.js";
import { restartAt } from "../block/restart-array.js";
import { wasmIndexLoader, wasmLoadsIndex } from "./index-wasm.js";

/** Index blocks with at least this many entries get an `IndexSearch`. */
export const MIN_ENTRIES_FOR_SEARCH = 16;

/** Bytes charged per object on top of the record array. */
const OVERHEAD = 64;
const TWO_32 = 4294967296;

// Results of `decodeEntry` (single-threaded scratch).
let entryKeyStart = 0;
let entryValueStart = 0;
let entryEnd = 0;

/**
 * Decodes the header of the restart entry at `p` (shared, unshared, value length as varint32)
 * and returns its key length, with the key at `entryKeyStart`, the value at `entryValueStart`
 * and the entry's end at `entryEnd`. Returns -1 for a malformed header, a shared prefix, or
 * an entry that overruns `limit` or whose key is shorter than a trailer.
 */
function decodeEntry(data: Uint8Array, p: number, limit: number): number {
  if (varint32Before(data, p, limit) !== 0) return -1;
  const unshared = varint32Before(data, varintEnd, limit);
  const valueLength = unshared < 0 ? -1 : varint32Before(data, varintEnd, limit);
  if (valueLength < 0) return -1;
  const q = varintEnd;
  if (unshared < TRAILER_SIZE || q + unshared + valueLength > limit) return -1;
  entryKeyStart = q;
  entryValueStart = q + unshared;
  entryEnd = q + unshared + valueLength;
  return unshared;
}

export class IndexSearch {
  /** L: length of the user-key prefix shared by every entry. */
  readonly prefixLength: number;
  /** Number of index entries. */
  readonly count: number;
  /** Per entry: two big-endian key words (user-key bytes [L, L + 8)) and the block offset. */
  readonly records: Uint32Array;
  private readonly data: Uint8Array;
  private readonly restartsOffset: number;
  /** Where entry 0's key starts in the block (its first L bytes are the common prefix). */
  private readonly prefixOffset: number;

  private constructor(
    data: Uint8Array,
    restartsOffset: number,
    count: number,
    prefixLength: number,
    prefixOffset: number,
    records: Uint32Array,
  ) {
    this.data = data;
    this.restartsOffset = restartsOffset;
    this.count = count;
    this.prefixLength = prefixLength;
    this.prefixOffset = prefixOffset;
    this.records = records;
  }

  /** Memory held, in bytes (charged to the block cache with the block). */
  get byteSize(): number {
    return this.records.byteLength + OVERHEAD;
  }

  /**
   * Builds the search aid of an index block (internal keys with bytewise user keys, values
   * block handles) whose restart array was validated, or returns undefined if some restart
   * run holds more than one entry (an index block written with a restart interval > 1).
   * Throws Corruption naming `file` and `blockOffset` for a malformed entry (a shared prefix
   * at a restart, a bad header, a key shorter than a trailer, an entry overrunning the
   * entries, a bad block offset). A block of `WASM_INDEX_MIN_ENTRIES` entries or more (up to
   * `WASM_INDEX_MAX_BYTES`) is read by index-wasm.ts unless `wasm` is false (tests), with
   * the same result; the loops below are its twin, and what reports damage.
   */
  static build(
    data: Uint8Array,
    restartsOffset: number,
    numRestarts: number,
    file: string | undefined,
    blockOffset: number,
    wasm = true,
  ): IndexSearch | undefined {
    const loader = wasm && wasmLoadsIndex(data.length, numRestarts) ? wasmIndexLoader() : undefined;
    const fast = loader?.records(data, restartsOffset, numRestarts);
    if (fast === "runs") return undefined;
    if (fast !== undefined) {
      const { records, prefixLength, prefixOffset } = fast;
      return new IndexSearch(
        data,
        restartsOffset,
        numRestarts,
        prefixLength,
        prefixOffset,
        records,
      );
    }
    const keyStarts = new Int32Array(numRestarts);
    const userLengths = new Int32Array(numRestarts);
    const records = new Uint32Array(4 * numRestarts);
    for (let i = 0; i < numRestarts; i++) {
      const length = decodeEntry(data, restartAt(data, restartsOffset, i), restartsOffset);
      const offset = length < 0 ? -1 : varint64Before(data, entryValueStart, entryEnd);
      if (offset < 0) {
        throw ShaleError.corruption(`bad block: malformed index entry ${i}`, file, blockOffset);
      }
      const next = i + 1 < numRestarts ? restartAt(data, restartsOffset, i + 1) : restartsOffset;
      if (entryEnd !== next) return undefined;
      keyStarts[i] = entryKeyStart;
      userLengths[i] = length - TRAILER_SIZE;
      const hi = Math.floor(offset / TWO_32);
      records[4 * i + 2] = offset - hi * TWO_32;
      records[4 * i + 3] = hi;
    }
    const first = keyStarts[0]!;
    const last = keyStarts[numRestarts - 1]!;
    const n = Math.min(userLengths[0]!, userLengths[numRestarts - 1]!);
    let prefix = 0;
    while (prefix < n && data[first + prefix] === data[last + prefix]) prefix++;
    for (let i = 0; i < numRestarts; i++) {
      const start = keyStarts[i]! + prefix;
      const end = keyStarts[i]! + userLengths[i]!;
      records[4 * i] = keyWordAt(data, start, end);
      records[4 * i + 1] = keyWordAt(data, start + 4, end);
    }
    return new IndexSearch(data, restartsOffset, numRestarts, prefix, first, records);
  }

  /**
   * The index of the first entry whose key is >= `target`, or `count` if there is none (the
   * entry whose data block may hold `target`). `from` (Default: 0): every entry before it is
   * known to be < target — a batch of ascending targets passes the previous one's answer,
   * and the search gallops forward from there (entries from, from + 1, from + 3, from + 7,
   * ... until one is >= target, then a binary search of the last gap) instead of searching
   * the whole array.
   * REQUIRES: `target` is an internal key (at least TRAILER_SIZE bytes); 0 <= from <= count.
   */
  lowerBound(target: Uint8Array, from = 0): number {
    const data = this.data;
    const n = this.count;
    const tu = target.length - TRAILER_SIZE;
    const prefix = this.prefixLength;
    const po = this.prefixOffset;
    const m = tu < prefix ? tu : prefix;
    for (let i = 0; i < m; i++) {
      const d = data[po + i]! - target[i]!;
      if (d !== 0) return d > 0 ? from : n;
    }
    // A target whose user key is a proper prefix of the common prefix sorts first.
    if (tu < prefix) return from;
    const th = keyWordAt(target, prefix, tu);
    const tl = keyWordAt(target, prefix + 4, tu);
    // Invariant: entries before `low` are < target, entries from `high` on are >= target.
    let low = from;
    let high = n;
    if (from > 0) {
      // Gallop: probe from, from + 1, from + 3, ... while the entries are below the target.
      let step = 1;
      let probe = from;
      while (probe < n && this.below(probe, th, tl, target)) {
        low = probe + 1;
        probe = low + step - 1;
        step *= 2;
      }
      if (probe < n) high = probe;
    }
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.below(mid, th, tl, target)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** True if entry `i`'s key is < target (whose words after the prefix are `th`, `tl`). */
  private below(i: number, th: number, tl: number, target: Uint8Array): boolean {
    const records = this.records;
    const wh = records[4 * i]!;
    if (wh !== th) return wh < th;
    const wl = records[4 * i + 1]!;
    return wl !== tl ? wl < tl : this.compareEntry(i, target) < 0;
  }

  /** The offset of entry `i`'s data block. REQUIRES: 0 <= i < count. */
  blockOffset(i: number): number {
    return this.records[4 * i + 3]! * TWO_32 + this.records[4 * i + 2]!;
  }

  /** Compares entry `i`'s key (whole, in place) with `target`. */
  private compareEntry(i: number, target: Uint8Array): number {
    const data = this.data;
    const length = decodeEntry(data, restartAt(data, this.restartsOffset, i), this.restartsOffset);
    return compareInternalBytewise(data, entryKeyStart, length, target, target.length);
  }
}
