/**
 * RibbonFilterReader: answers "may this key be in the set?" from the bytes of RocksDB's
 * Standard128 Ribbon filter (layout drawn in `ribbon-builder.ts`), exactly as RocksDB's
 * `Standard128RibbonBitsReader` (`InterleavedPrepareQuery` + `InterleavedFilterQuery`):
 *
 * ```
 *   (start, coeffs, expected) = deriveRow(hash, rawSeed(seed), numStarts)   (ribbon-hash.ts)
 *   block = start / 128, bit = start % 128
 *   columns = upperNumColumns - (block < upperStartBlock ? 1 : 0)
 *   segment = block * upperNumColumns - min(block, upperStartBlock)    (first of the block)
 *   for column j < columns:
 *     bit == 0: v = seg[segment + j] & coeffs
 *     else:     v = (seg[segment + j] & coeffs << bit) ^ (seg[segment + columns + j] & coeffs >> (128 - bit))
 *     parity(v) != bit j of expected -> "no"
 *   -> "may match"
 * ```
 *
 * A key that was added always answers "may match" (its equation holds in the solution);
 * another key passes each column with probability 1/2. The reader views the bytes (no
 * copy) through a DataView, so the filter may sit at any byte offset (a view into a block).
 * Queries allocate nothing.
 */
import { ShaleError } from "@shale/base";
import { hashKey64 } from "./hash.js";
import { COEFF_BITS, ribbonExpectedFpRate, ribbonLayout, SEGMENT_BYTES } from "./ribbon-config.js";
import { deriveRow, ribbonRawSeed, row } from "./ribbon-hash.js";
import { parity32 } from "./ribbon-math.js";

/** Scratch for `mayMatch` (single-threaded, shared by every reader). */
const queryHash = new Uint32Array(2);

export class RibbonFilterReader {
  /** The solution bytes viewed (metadata excluded). Must not change while the reader is used. */
  readonly data: Uint8Array;
  /** Blocks of 128 slots (metadata bytes 2..4). */
  readonly numBlocks: number;
  /** Ordinal hash seed (metadata byte 1). */
  readonly seed: number;
  /** Columns (bits of result) of the upper blocks; the lower ones have one fewer. */
  readonly upperNumColumns: number;
  /** First block with `upperNumColumns` columns. */
  readonly upperStartBlock: number;
  private readonly view: DataView;
  private readonly rawSeed: number;
  private readonly numStarts: number;

  /**
   * Views the solution `data` (the filter without its 5 metadata bytes) of a filter with
   * `numBlocks` blocks (>= 2) and ordinal seed `seed`. Use `RibbonFilterReader.open` to read
   * a whole filter (metadata included).
   * @throws ShaleError InvalidArgument for numBlocks < 2 or a seed outside 0..255.
   */
  constructor(data: Uint8Array, numBlocks: number, seed: number) {
    if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
    if (!(Number.isInteger(numBlocks) && numBlocks >= 2 && numBlocks < 2 ** 24)) {
      throw ShaleError.invalidArgument(`Ribbon numBlocks must be in [2, 2^24), got ${numBlocks}`);
    }
    if (!(Number.isInteger(seed) && seed >= 0 && seed <= 255)) {
      throw ShaleError.invalidArgument(`Ribbon seed must be in [0, 255], got ${seed}`);
    }
    this.data = data;
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.numBlocks = numBlocks;
    this.seed = seed;
    this.rawSeed = ribbonRawSeed(seed);
    this.numStarts = numBlocks * COEFF_BITS - COEFF_BITS + 1;
    const layout = ribbonLayout(numBlocks, data.length);
    this.upperNumColumns = layout.upperNumColumns;
    this.upperStartBlock = layout.upperStartBlock;
  }

  /**
   * Reads a whole Ribbon filter: solution bytes, then `fe seed blocks(3 bytes, LE)`.
   * Returns undefined when the metadata is not a Ribbon filter RocksDB would read (marker
   * other than 0xfe, fewer than 2 blocks, or no solution bytes).
   */
  static open(filter: Uint8Array): RibbonFilterReader | undefined {
    if (!(filter instanceof Uint8Array)) throw new TypeError("filter must be a Uint8Array");
    const len = filter.length - 5;
    if (len <= 0 || filter[len] !== 0xfe) return undefined;
    const numBlocks = filter[len + 2]! | (filter[len + 3]! << 8) | (filter[len + 4]! << 16);
    if (numBlocks < 2) return undefined;
    return new RibbonFilterReader(filter.subarray(0, len), numBlocks, filter[len + 1]!);
  }

  /** Ribbon filters are keyed by `hashKey64`: `mayMatchHash` answers. */
  get usesHashKey64(): boolean {
    return true;
  }

  /** The expected false-positive rate of this filter's layout (RocksDB's `ExpectedFpRate`). */
  get expectedFpRate(): number {
    return ribbonExpectedFpRate(this.numBlocks, this.data.length);
  }

  /** False only if `key` was certainly not added. `key` is only read. */
  mayMatch(key: Uint8Array): boolean {
    if (!(key instanceof Uint8Array)) throw new TypeError("key must be a Uint8Array");
    hashKey64(key, queryHash, 0);
    return this.mayMatchHash(queryHash[0]!, queryHash[1]!);
  }

  /** Like `mayMatch` for a key whose `hashKey64` is (lo, hi). */
  mayMatchHash(lo: number, hi: number): boolean {
    deriveRow(lo >>> 0, hi >>> 0, this.rawSeed, this.numStarts);
    const start = row[0]!;
    const c0 = row[1]! | 0;
    const c1 = row[2]! | 0;
    const c2 = row[3]! | 0;
    const c3 = row[4]! | 0;
    const expected = row[5]!;
    const block = start >>> 7;
    const upperStartBlock = this.upperStartBlock;
    let numColumns = this.upperNumColumns;
    const segment = block * numColumns - (block < upperStartBlock ? block : upperStartBlock);
    if (block < upperStartBlock) numColumns--;
    const bit = start & 127;
    const view = this.view;
    let at = segment * SEGMENT_BYTES;
    if (bit === 0) {
      for (let j = 0; j < numColumns; j++, at += SEGMENT_BYTES) {
        const v =
          (view.getInt32(at, true) & c0) ^
          (view.getInt32(at + 4, true) & c1) ^
          (view.getInt32(at + 8, true) & c2) ^
          (view.getInt32(at + 12, true) & c3);
        if (parity32(v) !== ((expected >>> j) & 1)) return false;
      }
      return true;
    }
    // coeffs << bit (left part, in this block) and coeffs >> (128 - bit) (right part, next).
    let l0: number;
    let l1: number;
    let l2: number;
    let l3: number;
    let r0: number;
    let r1: number;
    let r2: number;
    let r3: number;
    const w = bit >>> 5;
    const s = bit & 31;
    // Word-shift first, then bit-shift by s (0..31).
    if (w === 0) {
      l0 = c0;
      l1 = c1;
      l2 = c2;
      l3 = c3;
      r0 = 0;
      r1 = 0;
      r2 = 0;
      r3 = 0;
    } else if (w === 1) {
      l0 = 0;
      l1 = c0;
      l2 = c1;
      l3 = c2;
      r0 = c3;
      r1 = 0;
      r2 = 0;
      r3 = 0;
    } else if (w === 2) {
      l0 = 0;
      l1 = 0;
      l2 = c0;
      l3 = c1;
      r0 = c2;
      r1 = c3;
      r2 = 0;
      r3 = 0;
    } else {
      l0 = 0;
      l1 = 0;
      l2 = 0;
      l3 = c0;
      r0 = c1;
      r1 = c2;
      r2 = c3;
      r3 = 0;
    }
    // The combined 256-bit value (r3..r0, l3..l0) = coeffs << bit; shift it left by s.
    if (s !== 0) {
      const t = 32 - s;
      r3 = (r3 << s) | (r2 >>> t);
      r2 = (r2 << s) | (r1 >>> t);
      r1 = (r1 << s) | (r0 >>> t);
      r0 = (r0 << s) | (l3 >>> t);
      l3 = (l3 << s) | (l2 >>> t);
      l2 = (l2 << s) | (l1 >>> t);
      l1 = (l1 << s) | (l0 >>> t);
      l0 <<= s;
    }
    const next = numColumns * SEGMENT_BYTES;
    for (let j = 0; j < numColumns; j++, at += SEGMENT_BYTES) {
      const v =
        (view.getInt32(at, true) & l0) ^
        (view.getInt32(at + 4, true) & l1) ^
        (view.getInt32(at + 8, true) & l2) ^
        (view.getInt32(at + 12, true) & l3) ^
        (view.getInt32(at + next, true) & r0) ^
        (view.getInt32(at + next + 4, true) & r1) ^
        (view.getInt32(at + next + 8, true) & r2) ^
        (view.getInt32(at + next + 12, true) & r3);
      if (parity32(v) !== ((expected >>> j) & 1)) return false;
    }
    return true;
  }

  /**
   * Batched `mayMatch`: `out[i] = 1` if `keys[i]` may match, else 0. Answers exactly as
   * `mayMatch` on each key. REQUIRES: out.length >= keys.length.
   */
  mayMatchMany(keys: readonly Uint8Array[], out: Uint8Array): void {
    if (!(out instanceof Uint8Array)) throw new TypeError("out must be a Uint8Array");
    const n = keys.length;
    if (out.length < n)
      throw ShaleError.invalidArgument(`out has ${out.length} slots for ${n} keys`);
    for (let i = 0; i < n; i++) {
      const key = keys[i];
      if (!(key instanceof Uint8Array)) throw new TypeError("keys must be Uint8Arrays");
      hashKey64(key, queryHash, 0);
      out[i] = this.mayMatchHash(queryHash[0]!, queryHash[1]!) ? 1 : 0;
    }
  }

  /**
   * Batched `mayMatchHash` over `count` (lo, hi) pairs in `hashes[0, 2 * count)`: `out[i]
   * = 1` if hash i may match, else 0. REQUIRES: hashes.length >= 2 * count, out.length >= count.
   */
  mayMatchHashes(hashes: Uint32Array, count: number, out: Uint8Array): void {
    checkHashBatch(hashes, count, out);
    for (let i = 0; i < count; i++) {
      out[i] = this.mayMatchHash(hashes[2 * i]!, hashes[2 * i + 1]!) ? 1 : 0;
    }
  }
}

/**
 * Checks the arguments of a `mayMatchHashes` (both readers'): TypeError for wrong types,
 * InvalidArgument when `hashes` or `out` is too short for `count`.
 */
export function checkHashBatch(hashes: Uint32Array, count: number, out: Uint8Array): void {
  if (!(hashes instanceof Uint32Array)) throw new TypeError("hashes must be a Uint32Array");
  if (!(out instanceof Uint8Array)) throw new TypeError("out must be a Uint8Array");
  if (
    !(Number.isInteger(count) && count >= 0 && count <= out.length && 2 * count <= hashes.length)
  ) {
    throw ShaleError.invalidArgument(
      `count ${count} needs ${2 * count} hash words (have ${hashes.length}) and ${count} out slots (have ${out.length})`,
    );
  }
}
