/**
 * What a Ribbon filter derives from a key's 64-bit hash (RocksDB's `StandardHasher` over
 * `StandardRehasherAdapter`, with Standard128Ribbon's settings: 128-bit coefficient rows,
 * first coefficient always one, 32-bit result rows, no smash, filter, not homogeneous).
 * Part of the format: builder and reader must derive the same rows.
 *
 * ```
 *   h        = GetSliceHash64(key)                       (hashKey64: lo, hi)
 *   rawSeed  = mix(ordinalSeed)                          (32 bits; ordinal 0..255 in metadata)
 *   x        = (h ^ rawSeed) * 0x6193d459236a3a0d        mod 2^64   (the rehash)
 *   start    = floor(x * numStarts / 2^64)               (FastRange64)
 *   a        = x * 0xc28f82822b650bed                    mod 2^64
 *   coeffs   = (a << 64) ^ (a ^ 0xc367844a6e52731d) | 1  (128 bits: low half, high half = a)
 *   result   = low 32 bits of byteswap64(a) = bswap32(high 32 bits of a)
 *
 *   mix(n): t = n * 0xc78219a23eeadd03 mod 2^64; t ^= (t & 0xf0f0f0f0f0f0f0f0) >> 4;
 *           rawSeed = low 32 bits of t
 * ```
 *
 * `deriveRow` writes [start, c0, c1, c2, c3, result] (c0 = lowest word) to `row`.
 */
import { bswap32, fastRange64, mulHi32 } from "./ribbon-math.js";

// 0x6193d459236a3a0d: kRehashFactor.
const REHASH_LO = 0x236a3a0d;
const REHASH_HI = 0x6193d459;
// 0xc28f82822b650bed: kCoeffAndResultFactor.
const COEFF_LO = 0x2b650bed;
const COEFF_HI = 0xc28f8282;
// 0xc367844a6e52731d: kCoeffXor64.
const XOR_LO = 0x6e52731d;
const XOR_HI = 0xc367844a;
// Low 32 bits of kToRawSeedFactor 0xc78219a23eeadd03 (the seed is 32 bits wide).
const TO_RAW_SEED_LO = 0x3eeadd03;

/** The raw seed of ordinal seed `ordinal` (0..255): RocksDB's `SetOrdinalSeed`. */
export function ribbonRawSeed(ordinal: number): number {
  const t = Math.imul(ordinal, TO_RAW_SEED_LO) >>> 0;
  return (t ^ ((t & 0xf0f0f0f0) >>> 4)) >>> 0;
}

/** Output of `deriveRow`: [start, c0, c1, c2, c3, result]. */
export const row = new Uint32Array(6);

/**
 * Derives the start slot, 128-bit coefficient row and 32-bit result row of the key whose
 * hash is (hi:lo), under `rawSeed`, for `numStarts` starts, into `row`.
 */
export function deriveRow(lo: number, hi: number, rawSeed: number, numStarts: number): void {
  const hLo = (lo ^ rawSeed) >>> 0;
  // x = (h ^ rawSeed) * REHASH mod 2^64
  const xLo = Math.imul(hLo, REHASH_LO) >>> 0;
  const xHi =
    (mulHi32(hLo, REHASH_LO) + Math.imul(hLo, REHASH_HI) + Math.imul(hi, REHASH_LO)) >>> 0;
  row[0] = fastRange64(xLo, xHi, numStarts);
  // a = x * COEFF mod 2^64
  const aLo = Math.imul(xLo, COEFF_LO);
  const aHi = mulHi32(xLo, COEFF_LO) + Math.imul(xLo, COEFF_HI) + Math.imul(xHi, COEFF_LO);
  row[1] = (aLo ^ XOR_LO) | 1;
  row[2] = aHi ^ XOR_HI;
  row[3] = aLo;
  row[4] = aHi;
  row[5] = bswap32(aHi >>> 0);
}
