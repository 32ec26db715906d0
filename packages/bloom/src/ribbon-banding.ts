/**
 * Ribbon construction (RocksDB's `util/ribbon_alg.h`: `BandingAdd`, `BandingAddRange`,
 * `StandardBanding::ResetAndFindSeedToSolve`, `InterleavedBackSubst`): on-the-fly Gaussian
 * elimination of one linear equation per key over GF(2), then back-substitution into the
 * interleaved column layout of the filter.
 *
 * Each key gives an equation "the solution rows [start, start + 128), selected by the
 * 128 coefficient bits, XOR to the 32-bit result row". The banding keeps at most one
 * equation per slot, its lowest coefficient bit at that slot:
 *
 * ```
 *   add(start, coeffs, result):            slot i:  coeffs (bit 0 at i)   result
 *     i = start                            ...
 *     loop:                                i        1 0 1 1 0 ...          r_i
 *       slot i empty -> store, done        i+1      (empty)
 *       coeffs ^= coeffs_i, result ^= r_i  ...
 *       coeffs == 0 -> done if result == 0 (redundant), else FAIL (inconsistent)
 *       i += trailing zeros(coeffs); coeffs >>= them
 * ```
 *
 * A failure abandons the seed: the banding is cleared and every key added again with the
 * next ordinal seed (starting at the low 8 bits of the first key's hash, wrapping at 256).
 *
 * Back-substitution walks the slots from the last to the first, solving one bit per
 * column: `state[j] = (state[j] << 1) | (parity(state[j] << 1 & coeffs_i) ^ result_i bit j)`;
 * after each block of 128 slots, `state[j]` is column j's 128 bits for that block (slot
 * start + k is bit k), stored as one 16-byte little-endian segment (layout in
 * ribbon-builder.ts).
 *
 * Not thread-safe (one banding per builder; scratch arrays are module-level).
 */
import { COEFF_BITS, MAX_COLUMNS, type RibbonLayout, SEGMENT_BYTES } from "./ribbon-config.js";
import { deriveRow, ribbonRawSeed, row } from "./ribbon-hash.js";
import { ctz32, parity32 } from "./ribbon-math.js";

/** Hashes to band: 64-bit hashes as (lo, hi) word pairs in `chunks`, then `current[0, currentWords)`. */
export interface HashChunks {
  readonly chunks: readonly Uint32Array[];
  readonly current: Uint32Array;
  readonly currentWords: number;
}

/** Ordinal seeds tried before giving up (RocksDB's mask 255). */
export const NUM_SEEDS = 256;

/** The equations of one filter under construction. */
export class RibbonBanding {
  /** Coefficient rows, 4 words per slot (lowest word first); all zero = empty slot. */
  private readonly coeffs: Uint32Array;
  /** Result rows, one per slot. */
  private readonly results: Uint32Array;
  readonly numSlots: number;
  readonly numStarts: number;
  /** The ordinal seed (0..255) that solved, after `solve` returned true. */
  ordinalSeed = 0;

  /** REQUIRES: numSlots a multiple of 128, at least 256. */
  constructor(numSlots: number) {
    this.numSlots = numSlots;
    this.numStarts = numSlots - COEFF_BITS + 1;
    this.coeffs = new Uint32Array(numSlots * 4);
    this.results = new Uint32Array(numSlots);
  }

  /** Bytes held (RocksDB's `EstimateMemoryUsage`: 16 + 4 per slot). */
  static bytesFor(numSlots: number): number {
    return numSlots * 20;
  }

  /**
   * Tries ordinal seeds from `startingSeed` (0..255) upward, wrapping, until every hash
   * bands; true on success (`ordinalSeed` says which), false after 256 failures.
   */
  solve(hashes: HashChunks, startingSeed: number): boolean {
    let seed = startingSeed & (NUM_SEEDS - 1);
    do {
      if (this.addAll(hashes, ribbonRawSeed(seed))) {
        this.ordinalSeed = seed;
        return true;
      }
      this.coeffs.fill(0);
      this.results.fill(0);
      seed = (seed + 1) & (NUM_SEEDS - 1);
    } while (seed !== (startingSeed & (NUM_SEEDS - 1)));
    return false;
  }

  private addAll(hashes: HashChunks, rawSeed: number): boolean {
    const chunks = hashes.chunks;
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!;
      if (!this.addWords(chunk, chunk.length, rawSeed)) return false;
    }
    return this.addWords(hashes.current, hashes.currentWords, rawSeed);
  }

  private addWords(words: Uint32Array, count: number, rawSeed: number): boolean {
    const numStarts = this.numStarts;
    for (let k = 0; k < count; k += 2) {
      deriveRow(words[k]!, words[k + 1]!, rawSeed, numStarts);
      if (!this.add(row[0]!, row[1]!, row[2]!, row[3]!, row[4]!, row[5]!)) return false;
    }
    return true;
  }

  /** RocksDB's `BandingAdd` with the first coefficient always one. */
  private add(i: number, c0: number, c1: number, c2: number, c3: number, rr: number): boolean {
    const coeffs = this.coeffs;
    const results = this.results;
    for (;;) {
      const b = i * 4;
      const s0 = coeffs[b]!;
      const s1 = coeffs[b + 1]!;
      const s2 = coeffs[b + 2]!;
      const s3 = coeffs[b + 3]!;
      if ((s0 | s1 | s2 | s3) === 0) {
        coeffs[b] = c0;
        coeffs[b + 1] = c1;
        coeffs[b + 2] = c2;
        coeffs[b + 3] = c3;
        results[i] = rr;
        return true;
      }
      c0 ^= s0;
      c1 ^= s1;
      c2 ^= s2;
      c3 ^= s3;
      rr ^= results[i]!;
      // Shift right by the trailing zeros (at least 1: both rows had bit 0 set).
      let tz: number;
      if (c0 !== 0) {
        tz = ctz32(c0);
        c0 = (c0 >>> tz) | (c1 << (32 - tz));
        c1 = (c1 >>> tz) | (c2 << (32 - tz));
        c2 = (c2 >>> tz) | (c3 << (32 - tz));
        c3 >>>= tz;
      } else if (c1 !== 0) {
        const t = ctz32(c1);
        tz = 32 + t;
        if (t === 0) {
          c0 = c1;
          c1 = c2;
          c2 = c3;
        } else {
          c0 = (c1 >>> t) | (c2 << (32 - t));
          c1 = (c2 >>> t) | (c3 << (32 - t));
          c2 = c3 >>> t;
        }
        c3 = 0;
      } else if (c2 !== 0) {
        const t = ctz32(c2);
        tz = 64 + t;
        if (t === 0) {
          c0 = c2;
          c1 = c3;
        } else {
          c0 = (c2 >>> t) | (c3 << (32 - t));
          c1 = c3 >>> t;
        }
        c2 = 0;
        c3 = 0;
      } else if (c3 !== 0) {
        const t = ctz32(c3);
        tz = 96 + t;
        c0 = c3 >>> t;
        c1 = 0;
        c2 = 0;
        c3 = 0;
      } else {
        // Inconsistent, or redundant (a duplicate key or a hash collision) when rr is 0.
        return rr === 0;
      }
      i += tz;
    }
  }

  /**
   * Back-substitutes the solved banding into `out` (a little-endian byte view, from byte
   * 0) with `layout`: RocksDB's `InterleavedBackSubst`. `out` must be zero-filled where
   * no segment is written (past `layout.numSegments`).
   */
  backSubstitute(out: DataView, layout: RibbonLayout): void {
    let numColumns = layout.upperNumColumns;
    if (numColumns === 0) return; // no space for data: the filter answers "may match"
    const upperStartBlock = layout.upperStartBlock;
    const state = backSubstState;
    state.fill(0);
    let block = this.numSlots / COEFF_BITS;
    let segment = layout.numSegments;
    while (block > upperStartBlock) {
      block--;
      this.backSubstBlock(state, numColumns, block * COEFF_BITS);
      segment -= numColumns;
      storeSegments(out, state, segment, numColumns);
    }
    // The lower blocks have one column fewer.
    numColumns--;
    while (block > 0) {
      block--;
      this.backSubstBlock(state, numColumns, block * COEFF_BITS);
      segment -= numColumns;
      storeSegments(out, state, segment, numColumns);
    }
  }

  private backSubstBlock(state: Uint32Array, numColumns: number, startSlot: number): void {
    const coeffs = this.coeffs;
    const results = this.results;
    for (let i = startSlot + COEFF_BITS - 1; i >= startSlot; i--) {
      const b = i * 4;
      const c0 = coeffs[b]!;
      const c1 = coeffs[b + 1]!;
      const c2 = coeffs[b + 2]!;
      const c3 = coeffs[b + 3]!;
      const rr = results[i]!;
      for (let j = 0, s = 0; j < numColumns; j++, s += 4) {
        // tmp = state[j] << 1 (128 bits)
        const t3 = (state[s + 3]! << 1) | (state[s + 2]! >>> 31);
        const t2 = (state[s + 2]! << 1) | (state[s + 1]! >>> 31);
        const t1 = (state[s + 1]! << 1) | (state[s]! >>> 31);
        const t0 = state[s]! << 1;
        const bit = parity32((t0 & c0) ^ (t1 & c1) ^ (t2 & c2) ^ (t3 & c3)) ^ ((rr >>> j) & 1);
        state[s] = t0 | bit;
        state[s + 1] = t1;
        state[s + 2] = t2;
        state[s + 3] = t3;
      }
    }
  }
}

/** Column states of the back-substitution: 4 words per column. */
const backSubstState = new Uint32Array(MAX_COLUMNS * 4);

function storeSegments(out: DataView, state: Uint32Array, first: number, count: number): void {
  for (let j = 0; j < count; j++) {
    const at = (first + j) * SEGMENT_BYTES;
    out.setUint32(at, state[4 * j]!, true);
    out.setUint32(at + 4, state[4 * j + 1]!, true);
    out.setUint32(at + 8, state[4 * j + 2]!, true);
    out.setUint32(at + 12, state[4 * j + 3]!, true);
  }
}
