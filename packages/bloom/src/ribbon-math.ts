/**
 * The 64- and 128-bit integer arithmetic of RocksDB's Ribbon filter (`util/math128.h`,
 * `util/fastrange.h`) on pairs and quadruples of unsigned 32-bit words, without BigInt:
 *
 * ```
 *   u64  = (lo, hi)                 value = hi * 2^32 + lo
 *   u128 = (w0, w1, w2, w3)         value = w3 * 2^96 + w2 * 2^64 + w1 * 2^32 + w0
 * ```
 *
 * A product mod 2^64 is `lo = imul(aLo, bLo)`, `hi = mulHi32(aLo, bLo) + imul(aLo, bHi) +
 * imul(aHi, bLo)` (mod 2^32). Every function is exact: the high word of a 32 x 32-bit
 * product is formed from 16-bit halves (each partial product < 2^32, so doubles hold them
 * exactly).
 */

/**
 * The high 32 bits of the 64-bit product of two unsigned 32-bit integers (the low 32 bits
 * are `Math.imul(a, b) >>> 0`). REQUIRES: a, b in [0, 2^32).
 */
export function mulHi32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16)) >>> 0;
}

/**
 * RocksDB's `FastRange64(hash, n)` = floor(hash * n / 2^64) for a 64-bit hash (hi:lo) and
 * n < 2^32: the start slot of a key. Returns a number in [0, n).
 */
export function fastRange64(lo: number, hi: number, n: number): number {
  const carry = mulHi32(lo, n);
  const low = Math.imul(hi, n) >>> 0;
  return mulHi32(hi, n) + (low + carry > 0xffffffff ? 1 : 0);
}

/** Number of trailing zero bits of a non-zero 32-bit word. */
export function ctz32(w: number): number {
  return 31 - Math.clz32(w & -w);
}

/** Parity (XOR of all bits) of a 32-bit word: 0 or 1. */
export function parity32(x: number): number {
  x ^= x >>> 16;
  x ^= x >>> 8;
  x ^= x >>> 4;
  return (0x6996 >>> (x & 0xf)) & 1;
}

/** Byte-swaps a 32-bit word (RocksDB's `EndianSwapValue` on the high half of a u64). */
export function bswap32(x: number): number {
  return ((x >>> 24) | ((x >>> 8) & 0xff00) | ((x & 0xff00) << 8) | (x << 24)) >>> 0;
}
