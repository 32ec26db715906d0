/**
 * The 64-bit key hash of RocksDB's filters: `GetSliceHash64(key)` = `Hash64(key)` =
 * `XXPH3_64bits(key)` (RocksDB 7.8.3 `util/hash.cc`, `util/xxph3.h`): a frozen *preview* of
 * XXH3 (xxHash 0.7.2), seed 0, with one RocksDB change (the empty key hashes to a constant
 * instead of 0). It is not the final XXH3: the two differ for most lengths. This is part of
 * the filter format: a filter answers correctly only when queried with the hash it was built
 * with.
 *
 *   lo = low 32 bits  -> picks the cache line (FastRange32)
 *   hi = high 32 bits -> drives the probes inside the line
 *
 * By key length (secret = XXPH3's 192-byte default `kSecret`, all arithmetic mod 2^64):
 * ```
 *   0        fold(secret64[0] * PRIME64_2)                            (a constant)
 *   1..3     avalanche(((k0 | k[len/2] << 8 | k[len-1] << 16 | len << 24) ^ secret32[0]) * PRIME64_1)
 *   4..8     x = (le32(k, len-4) << 32 | le32(k, 0)) ^ secret64[0]
 *            m = len + (x ^ x >> 51) * PRIME32_1;  avalanche((m ^ m >> 47) * PRIME64_2)
 *   9..16    a = le64(k, 0) ^ secret64[0], b = le64(k, len-8) ^ secret64[8]
 *            avalanche(len + a + b + fold(a * b))
 *   17..128  len * PRIME64_1 + mix16(k, 0, s0) + mix16(k, len-16, s16) [+ pairs from 16 / 32 /
 *            48 bytes in, when len > 32 / 64 / 96], then avalanche
 *   129..240 eight mix16 of the first 128 bytes, avalanche, mix16 of the other 16-byte rounds
 *            (secret from offset 3) and of the last 16 bytes (secret offset 119), avalanche
 *   > 240    eight accumulators over 64-byte stripes, scrambled every 1024 bytes, merged
 *   fold(a * b)  = low64 ^ high64 of the 128-bit product
 *   mix16(k, i, s) = fold((le64(k, i) ^ secret64[s]) * (le64(k, i+8) ^ secret64[s+8]))
 *   avalanche(h) = h ^= h >> 37; h *= PRIME64_3; h ^ h >> 32
 * ```
 * Worked example: the empty key hashes to 0x5342c3010fe1dd04 (lo 0x0fe1dd04, hi
 * 0x5342c301); `hash.test.ts` checks 308 lengths against values librocksdb computed
 * (testdata/hash-vectors.json).
 *
 * JavaScript has no 64-bit integer arithmetic short of BigInt, so every 64-bit value is a
 * pair of unsigned 32-bit halves, and a 32x32 -> 64-bit product is formed exactly in doubles
 * (`mul32`). No allocation: results go through the module-level `resultHi` / `resultLo`.
 */

// XXPH3's kSecret (xxHash 0.7.x default secret), 192 bytes.
const SECRET_BYTES = [
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
];
const SECRET = Uint8Array.from(SECRET_BYTES);
const SECRET_SIZE = 192;

/** Little-endian u32 of the secret at byte `i` (precomputed for every offset used). */
const SECRET32 = new Uint32Array(SECRET_SIZE - 3);
for (let i = 0; i < SECRET32.length; i++) {
  SECRET32[i] =
    (SECRET[i]! | (SECRET[i + 1]! << 8) | (SECRET[i + 2]! << 16) | (SECRET[i + 3]! << 24)) >>> 0;
}

const PRIME32_1 = 0x9e3779b1;
const PRIME32_2 = 0x85ebca77;
const PRIME32_3 = 0xc2b2ae3d;
const PRIME64_1_HI = 0x9e3779b1;
const PRIME64_1_LO = 0x85ebca87;
const PRIME64_2_HI = 0xc2b2ae3d;
const PRIME64_2_LO = 0x27d4eb4f;
const PRIME64_3_HI = 0x165667b1;
const PRIME64_3_LO = 0x9e3779f9;
const PRIME64_4_HI = 0x85ebca77;
const PRIME64_4_LO = 0xc2b2ae63;
const PRIME64_5_HI = 0x27d4eb2f;
const PRIME64_5_LO = 0x165667c5;

const TWO32 = 4294967296;
const INV_TWO32 = 1 / TWO32;

// Results of the 64-bit helpers (as int32 so that they stay small integers in V8).
let resultHi = 0;
let resultLo = 0;

/**
 * High 32 bits of the 64-bit product of u32 `a` and `b`, exactly: the double product is
 * off by at most 2^10 (53-bit mantissa), subtracting the exact low word (`Math.imul`) costs
 * at most another 2^10, so (product - low) / 2^32 is within 2^-21 of the integer high word
 * and rounding gives it. Three float operations, no integer division or modulo.
 * REQUIRES: a, b unsigned 32-bit.
 */
function mulHigh32(a: number, b: number): number {
  return ((a * b - (Math.imul(a, b) >>> 0)) * INV_TWO32 + 0.5) >>> 0;
}

/** (aHi:aLo) * (bHi:bLo) mod 2^64 -> resultHi:resultLo. */
function mul64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  resultLo = Math.imul(aLo, bLo);
  resultHi = (mulHigh32(aLo >>> 0, bLo >>> 0) + Math.imul(aLo, bHi) + Math.imul(aHi, bLo)) | 0;
}

/**
 * XXPH3_mul128_fold64: the 128-bit product of (aHi:aLo) and (bHi:bLo), its low and high
 * 64-bit halves XORed -> resultHi:resultLo. Inputs are u32 halves.
 */
function mulFold64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  aHi >>>= 0;
  aLo >>>= 0;
  bHi >>>= 0;
  bLo >>>= 0;
  // Four 32x32 partial products, each split into 32-bit halves.
  const llLo = Math.imul(aLo, bLo) >>> 0;
  const llHi = mulHigh32(aLo, bLo);
  const hlLo = Math.imul(aHi, bLo) >>> 0;
  const hlHi = mulHigh32(aHi, bLo);
  const lhLo = Math.imul(aLo, bHi) >>> 0;
  const lhHi = mulHigh32(aLo, bHi);
  const hhLo = Math.imul(aHi, bHi) >>> 0;
  const hhHi = mulHigh32(aHi, bHi);
  // cross = (ll >> 32) + (hl & 0xffffffff) + lh; upper = (hl >> 32) + (cross >> 32) + hh.
  const crossSum = llHi + hlLo + lhLo; // < 3 * 2^32: exact
  const crossLo = crossSum >>> 0;
  const crossHi = lhHi + Math.floor(crossSum * INV_TWO32);
  const upperSum = hhLo + hlHi + crossHi;
  const upperLo = upperSum >>> 0;
  const upperHi = hhHi + Math.floor(upperSum * INV_TWO32);
  // lower = cross << 32 | (ll & 0xffffffff)
  resultHi = crossLo ^ upperHi;
  resultLo = llLo ^ upperLo;
}

/** XXPH3_avalanche of (hi:lo) -> resultHi:resultLo. */
function avalanche(hi: number, lo: number): void {
  lo ^= hi >>> 5; // h ^= h >> 37
  mul64(hi, lo, PRIME64_3_HI, PRIME64_3_LO);
  resultLo ^= resultHi; // h ^= h >> 32
}

/** (hi:lo) + (addHi:addLo) mod 2^64 -> resultHi:resultLo. */
function add64(hi: number, lo: number, addHi: number, addLo: number): void {
  const sum = (lo >>> 0) + (addLo >>> 0);
  resultLo = sum | 0;
  resultHi = (hi + addHi + (sum >= TWO32 ? 1 : 0)) | 0;
}

function readLE32(key: Uint8Array, i: number): number {
  return (key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16) | (key[i + 3]! << 24)) >>> 0;
}

/** XXPH3_mix16B at key byte `i`, secret byte `s` -> resultHi:resultLo. */
function mix16(key: Uint8Array, i: number, s: number): void {
  mulFold64(
    readLE32(key, i + 4) ^ SECRET32[s + 4]!,
    readLE32(key, i) ^ SECRET32[s]!,
    readLE32(key, i + 12) ^ SECRET32[s + 12]!,
    readLE32(key, i + 8) ^ SECRET32[s + 8]!,
  );
}

const SECRET_0 = SECRET32[0]!;
const SECRET_4 = SECRET32[4]!;
const SECRET_8 = SECRET32[8]!;
const SECRET_12 = SECRET32[12]!;

// The hash of the empty key: fold(secret64[0] * PRIME64_2) (RocksDB's change to the preview).
mulFold64(SECRET32[4]!, SECRET32[0]!, PRIME64_2_HI, PRIME64_2_LO);
const EMPTY_HI = resultHi >>> 0;
const EMPTY_LO = resultLo >>> 0;

function hash1to3(key: Uint8Array, len: number): void {
  const combined = (key[0]! | (key[len >>> 1]! << 8) | (key[len - 1]! << 16) | (len << 24)) >>> 0;
  mul64(0, (combined ^ SECRET32[0]!) >>> 0, PRIME64_1_HI, PRIME64_1_LO);
  avalanche(resultHi, resultLo);
}

function hash4to8(key: Uint8Array, len: number): void {
  const xHi = (readLE32(key, len - 4) ^ SECRET32[4]!) >>> 0;
  const xLo = (readLE32(key, 0) ^ SECRET32[0]!) >>> 0;
  // (x ^ x >> 51) * PRIME32_1, then + len
  const yLo = (xLo ^ (xHi >>> 19)) >>> 0;
  mul64(xHi, yLo, 0, PRIME32_1);
  add64(resultHi, resultLo, 0, len);
  // (m ^ m >> 47) * PRIME64_2
  const mHi = resultHi >>> 0;
  const mLo = (resultLo ^ (mHi >>> 15)) >>> 0;
  mul64(mHi, mLo, PRIME64_2_HI, PRIME64_2_LO);
  avalanche(resultHi, resultLo);
}

/**
 * The 9..16-byte path (16-byte keys are the common case), written out with locals only:
 * `mulFold64` and `avalanche` inlined, the result stored straight to `out`.
 */
function hash9to16(key: Uint8Array, len: number, out: Uint32Array, outIndex: number): void {
  const aHi = (readLE32(key, 4) ^ SECRET_4) >>> 0;
  const aLo = (readLE32(key, 0) ^ SECRET_0) >>> 0;
  const bHi = (readLE32(key, len - 4) ^ SECRET_12) >>> 0;
  const bLo = (readLE32(key, len - 8) ^ SECRET_8) >>> 0;
  // fold(a * b): the four partial products.
  const llLo = Math.imul(aLo, bLo) >>> 0;
  const llHi = ((aLo * bLo - llLo) * INV_TWO32 + 0.5) >>> 0;
  const hlLo = Math.imul(aHi, bLo) >>> 0;
  const hlHi = ((aHi * bLo - hlLo) * INV_TWO32 + 0.5) >>> 0;
  const lhLo = Math.imul(aLo, bHi) >>> 0;
  const lhHi = ((aLo * bHi - lhLo) * INV_TWO32 + 0.5) >>> 0;
  const hhLo = Math.imul(aHi, bHi) >>> 0;
  const hhHi = ((aHi * bHi - hhLo) * INV_TWO32 + 0.5) >>> 0;
  const crossSum = llHi + hlLo + lhLo;
  const crossLo = crossSum >>> 0;
  const crossHi = lhHi + Math.floor(crossSum * INV_TWO32);
  const upperSum = hhLo + hlHi + crossHi;
  const foldHi = (crossLo ^ (hhHi + Math.floor(upperSum * INV_TWO32))) >>> 0;
  const foldLo = (llLo ^ upperSum) >>> 0;
  // h = len + a + b + fold (mod 2^64; each sum of u32 halves is exact in a double).
  const loSum = len + aLo + bLo + foldLo;
  let lo = loSum >>> 0;
  const hi = (aHi + bHi + foldHi + Math.floor(loSum * INV_TWO32)) >>> 0;
  // avalanche: h ^= h >> 37; h *= PRIME64_3; h ^= h >> 32.
  lo = (lo ^ (hi >>> 5)) >>> 0;
  const rLo = Math.imul(lo, PRIME64_3_LO);
  const rHi =
    (((lo * PRIME64_3_LO - (rLo >>> 0)) * INV_TWO32 + 0.5) >>> 0) +
    Math.imul(lo, PRIME64_3_HI) +
    Math.imul(hi, PRIME64_3_LO);
  out[outIndex] = rLo ^ rHi;
  out[outIndex + 1] = rHi;
}

function hash17to128(key: Uint8Array, len: number): void {
  // acc = len * PRIME64_1
  mul64(0, len, PRIME64_1_HI, PRIME64_1_LO);
  let accHi = resultHi;
  let accLo = resultLo;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) {
        mix16(key, 48, 96);
        add64(accHi, accLo, resultHi, resultLo);
        accHi = resultHi;
        accLo = resultLo;
        mix16(key, len - 64, 112);
        add64(accHi, accLo, resultHi, resultLo);
        accHi = resultHi;
        accLo = resultLo;
      }
      mix16(key, 32, 64);
      add64(accHi, accLo, resultHi, resultLo);
      accHi = resultHi;
      accLo = resultLo;
      mix16(key, len - 48, 80);
      add64(accHi, accLo, resultHi, resultLo);
      accHi = resultHi;
      accLo = resultLo;
    }
    mix16(key, 16, 32);
    add64(accHi, accLo, resultHi, resultLo);
    accHi = resultHi;
    accLo = resultLo;
    mix16(key, len - 32, 48);
    add64(accHi, accLo, resultHi, resultLo);
    accHi = resultHi;
    accLo = resultLo;
  }
  mix16(key, 0, 0);
  add64(accHi, accLo, resultHi, resultLo);
  accHi = resultHi;
  accLo = resultLo;
  mix16(key, len - 16, 16);
  add64(accHi, accLo, resultHi, resultLo);
  avalanche(resultHi, resultLo);
}

function hash129to240(key: Uint8Array, len: number): void {
  mul64(0, len, PRIME64_1_HI, PRIME64_1_LO);
  let accHi = resultHi;
  let accLo = resultLo;
  for (let i = 0; i < 8; i++) {
    mix16(key, 16 * i, 16 * i);
    add64(accHi, accLo, resultHi, resultLo);
    accHi = resultHi;
    accLo = resultLo;
  }
  avalanche(accHi, accLo);
  accHi = resultHi;
  accLo = resultLo;
  const rounds = len >>> 4;
  for (let i = 8; i < rounds; i++) {
    mix16(key, 16 * i, 16 * (i - 8) + 3);
    add64(accHi, accLo, resultHi, resultLo);
    accHi = resultHi;
    accLo = resultLo;
  }
  mix16(key, len - 16, 136 - 17);
  add64(accHi, accLo, resultHi, resultLo);
  avalanche(resultHi, resultLo);
}

// Accumulators of the long-key path, (hi, lo) pairs.
const acc = new Uint32Array(16);
const ACC_INIT = [
  0,
  PRIME32_3,
  PRIME64_1_HI,
  PRIME64_1_LO,
  PRIME64_2_HI,
  PRIME64_2_LO,
  PRIME64_3_HI,
  PRIME64_3_LO,
  PRIME64_4_HI,
  PRIME64_4_LO,
  0,
  PRIME32_2,
  PRIME64_5_HI,
  PRIME64_5_LO,
  0,
  PRIME32_1,
];
const STRIPE = 64;
const STRIPES_PER_BLOCK = (SECRET_SIZE - STRIPE) / 8; // 16
const BLOCK = STRIPE * STRIPES_PER_BLOCK; // 1024

/** XXPH3_accumulate_512 (64-bit lanes): one 64-byte stripe at key byte `p`, secret byte `s`. */
function accumulate512(key: Uint8Array, p: number, s: number): void {
  for (let i = 0; i < 8; i++) {
    const dHi = readLE32(key, p + 8 * i + 4);
    const dLo = readLE32(key, p + 8 * i);
    const kHi = (dHi ^ SECRET32[s + 8 * i + 4]!) >>> 0;
    const kLo = (dLo ^ SECRET32[s + 8 * i]!) >>> 0;
    // acc[i] += data; acc[i] += (u64) kLo * kHi
    add64(acc[2 * i]!, acc[2 * i + 1]!, dHi, dLo);
    const hi = resultHi;
    const lo = resultLo;
    add64(hi, lo, mulHigh32(kLo, kHi), Math.imul(kLo, kHi));
    acc[2 * i] = resultHi;
    acc[2 * i + 1] = resultLo;
  }
}

/** XXPH3_scrambleAcc with the secret at byte `s`. */
function scramble(s: number): void {
  for (let i = 0; i < 8; i++) {
    const hi = acc[2 * i]!;
    let lo = acc[2 * i + 1]!;
    lo = (lo ^ (hi >>> 15) ^ SECRET32[s + 8 * i]!) >>> 0; // ^= acc >> 47; ^= key
    mul64(hi ^ SECRET32[s + 8 * i + 4]!, lo, 0, PRIME32_1);
    acc[2 * i] = resultHi;
    acc[2 * i + 1] = resultLo;
  }
}

function hashLong(key: Uint8Array, len: number): void {
  for (let i = 0; i < 16; i++) acc[i] = ACC_INIT[i]!;
  const blocks = Math.floor(len / BLOCK);
  for (let b = 0; b < blocks; b++) {
    for (let n = 0; n < STRIPES_PER_BLOCK; n++) accumulate512(key, b * BLOCK + n * STRIPE, n * 8);
    scramble(SECRET_SIZE - STRIPE);
  }
  const stripes = Math.floor((len - blocks * BLOCK) / STRIPE);
  for (let n = 0; n < stripes; n++) accumulate512(key, blocks * BLOCK + n * STRIPE, n * 8);
  if ((len & (STRIPE - 1)) !== 0) accumulate512(key, len - STRIPE, SECRET_SIZE - STRIPE - 7);
  // mergeAccs(acc, secret + 11, len * PRIME64_1)
  mul64(Math.floor(len / TWO32), len >>> 0, PRIME64_1_HI, PRIME64_1_LO);
  let rHi = resultHi;
  let rLo = resultLo;
  for (let j = 0; j < 4; j++) {
    const s = 11 + 16 * j;
    mulFold64(
      (acc[4 * j]! ^ SECRET32[s + 4]!) >>> 0,
      (acc[4 * j + 1]! ^ SECRET32[s]!) >>> 0,
      (acc[4 * j + 2]! ^ SECRET32[s + 12]!) >>> 0,
      (acc[4 * j + 3]! ^ SECRET32[s + 8]!) >>> 0,
    );
    add64(rHi, rLo, resultHi, resultLo);
    rHi = resultHi;
    rLo = resultLo;
  }
  avalanche(rHi, rLo);
}

/**
 * Hashes `key` with RocksDB's filter hash (`GetSliceHash64`) and writes the 64 bits as two
 * unsigned 32-bit halves: `out[outIndex] = lo` (low word), `out[outIndex + 1] = hi`.
 *
 * Hash a key once with this and probe many filters with `BloomFilterReader.mayMatchHash`.
 *
 * REQUIRES: `outIndex + 1 < out.length`. Allocates nothing; `key` is only read.
 */
export function hashKey64(key: Uint8Array, out: Uint32Array, outIndex = 0): void {
  const len = key.length;
  if (len <= 16) {
    if (len > 8) {
      hash9to16(key, len, out, outIndex);
      return;
    }
    if (len >= 4) hash4to8(key, len);
    else if (len > 0) hash1to3(key, len);
    else {
      out[outIndex] = EMPTY_LO;
      out[outIndex + 1] = EMPTY_HI;
      return;
    }
  } else if (len <= 128) hash17to128(key, len);
  else if (len <= 240) hash129to240(key, len);
  else hashLong(key, len);
  out[outIndex] = resultLo;
  out[outIndex + 1] = resultHi;
}
