/**
 * Unsigned 64-bit arithmetic on pairs of 32-bit halves, for the 64-bit hashes (xxHash64, XXH3,
 * RocksDB's XXPH3). No BigInt and no allocation: every operation takes its operands as
 * `(lo, hi)` uint32 numbers, returns the low half of the result and leaves the high half in
 * `R[0]` (read it right after the call). Not for use outside the checksum files.
 *
 * The 32x32 -> 64 product is exact: operands split in 16-bit halves keep every partial
 * product below 2^32 (doubles are exact to 2^53).
 */

/**
 * `R[0]`: the high 32 bits of the last result (the low half is the function's return value).
 * A typed array, not a `let`: a module variable holding a number above 2^30 is boxed, so
 * every store to it would allocate.
 */
export const R = new Uint32Array(1);

const TWO32 = 4294967296;

/** xxHash's PRIME64_1..5 as (lo, hi) halves, shared by XXH64 and XXH3 (both versions). */
export const P64_1L = 0x85ebca87;
export const P64_1H = 0x9e3779b1;
export const P64_2L = 0x27d4eb4f;
export const P64_2H = 0xc2b2ae3d;
export const P64_3L = 0x9e3779f9;
export const P64_3H = 0x165667b1;
export const P64_4L = 0xc2b2ae63;
export const P64_4H = 0x85ebca77;
export const P64_5L = 0x165667c5;
export const P64_5H = 0x27d4eb2f;

/** Full product `a * b` of two uint32: returns the low half, `R[0]!` = the high half. */
export function mul32x32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const t = a0 * b0;
  const m1 = a1 * b0;
  const m2 = a0 * b1;
  const mid = (t >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
  R[0] = (a1 * b1 + (m1 >>> 16) + (m2 >>> 16) + (mid >>> 16)) >>> 0;
  return ((mid << 16) | (t & 0xffff)) >>> 0;
}

/** `a * b mod 2^64`. */
export function mul64(aLo: number, aHi: number, bLo: number, bHi: number): number {
  const lo = mul32x32(aLo, bLo);
  R[0] = (R[0]! + Math.imul(aLo, bHi) + Math.imul(aHi, bLo)) >>> 0;
  return lo;
}

/** `a + b mod 2^64`. */
export function add64(aLo: number, aHi: number, bLo: number, bHi: number): number {
  const s = aLo + bLo;
  R[0] = (aHi + bHi + (s > 0xffffffff ? 1 : 0)) >>> 0;
  return s >>> 0;
}

/** `a - b mod 2^64`. */
export function sub64(aLo: number, aHi: number, bLo: number, bHi: number): number {
  const d = aLo - bLo;
  R[0] = (aHi - bHi - (d < 0 ? 1 : 0)) >>> 0;
  return d >>> 0;
}

/** Rotate left by `k` (1 <= k <= 31). */
export function rotl64Small(lo: number, hi: number, k: number): number {
  R[0] = ((hi << k) | (lo >>> (32 - k))) >>> 0;
  return ((lo << k) | (hi >>> (32 - k))) >>> 0;
}

/** Rotate left by `k` (33 <= k <= 63): a rotation by k - 32 of the swapped halves. */
export function rotl64Large(lo: number, hi: number, k: number): number {
  return rotl64Small(hi, lo, k - 32);
}

/** `x ^ (x >>> k)` (1 <= k <= 31). */
export function xorShr64Small(lo: number, hi: number, k: number): number {
  R[0] = (hi ^ (hi >>> k)) >>> 0;
  return (lo ^ ((lo >>> k) | (hi << (32 - k)))) >>> 0;
}

/** `x ^ (x >>> k)` (32 <= k <= 63). */
export function xorShr64Large(lo: number, hi: number, k: number): number {
  R[0] = hi;
  return (lo ^ (hi >>> (k - 32))) >>> 0;
}

/**
 * The 128-bit product of two u64 folded to 64 bits (`low64 ^ high64`), XXH3's
 * `mul128_fold64`: returns the low half, `R[0]!` = the high half.
 */
export function mul128Fold64(aLo: number, aHi: number, bLo: number, bHi: number): number {
  const w0 = mul32x32(aLo, bLo);
  const p0h = R[0]!;
  const p1l = mul32x32(aHi, bLo);
  const p1h = R[0]!;
  const p2l = mul32x32(aLo, bHi);
  const p2h = R[0]!;
  const p3l = mul32x32(aHi, bHi);
  const p3h = R[0]!;
  const s1 = p0h + p1l + p2l;
  const w1 = s1 >>> 0;
  const s2 = p1h + p2h + p3l + (s1 - w1) / TWO32;
  const w2 = s2 >>> 0;
  const w3 = (p3h + (s2 - w2) / TWO32) >>> 0;
  R[0] = (w1 ^ w3) >>> 0;
  return (w0 ^ w2) >>> 0;
}

/** Little-endian uint32 at `data[p]`. */
export function readLE32(data: Uint8Array, p: number): number {
  return (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24)) >>> 0;
}

/** Byte-swap of a uint32. */
export function swap32(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

/** A u64 as a BigInt (tests and tools only; never on a hot path). */
export function toBigInt64(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}
