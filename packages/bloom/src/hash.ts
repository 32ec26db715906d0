/**
 * The 64-bit key hash of @shale/bloom: MurmurHash3_x86_128 (Austin Appleby, public domain),
 * seed 0, of which the first two 32-bit output words are used.
 *
 * Why this hash: RocksDB hashes filter keys with a 64-bit XXH3 preview, which needs 64-bit
 * multiplications; emulating those with 32-bit halves costs ~6 multiplications each.
 * MurmurHash3_x86_128 is a well-studied hash (it passes SMHasher) built only from 32-bit
 * multiplies, rotates and adds, so it maps onto `Math.imul` exactly: four 32-bit lanes
 * consume 16 bytes per round, and the finaliser mixes every lane into every output word.
 * A 16-byte key costs one round plus the finaliser (about 20 multiplications) with no
 * allocation. The output is NOT RocksDB's hash: shale filters are RocksDB's format in
 * layout, but not bit-compatible with filters RocksDB wrote.
 *
 *   h1 = lo = output word 0  -> picks the cache line (FastRange32)
 *   h2 = hi = output word 1  -> drives the probes inside the line
 *
 * Verified against SMHasher's verification value for MurmurHash3_x86_128 (0xB3ECE62A) in
 * `hash.test.ts`.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

/** 4 bytes of `key` from `start`, little-endian (as an int32). */
function readWord(key: Uint8Array, start: number): number {
  return key[start]! | (key[start + 1]! << 8) | (key[start + 2]! << 16) | (key[start + 3]! << 24);
}

/** `n` (1..3) bytes of `key` from `start`, little-endian. */
function readPartialWord(key: Uint8Array, start: number, n: number): number {
  let word = key[start]!;
  if (n > 1) word |= key[start + 1]! << 8;
  if (n > 2) word |= key[start + 2]! << 16;
  return word;
}

/** The MurmurHash3 32-bit finaliser (full avalanche). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * MurmurHash3_x86_128 of `key` with `seed`; writes `words` (2 or 4) little-endian output
 * words as unsigned 32-bit values to `out[outIndex...]`.
 */
function murmur3X86128(
  key: Uint8Array,
  seed: number,
  out: Uint32Array,
  outIndex: number,
  words: number,
): void {
  const len = key.length;
  let h1 = seed | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const blockEnd = len & ~15;
  let i = 0;
  for (; i < blockEnd; i += 16) {
    let k1 = readWord(key, i);
    let k2 = readWord(key, i + 4);
    let k3 = readWord(key, i + 8);
    let k4 = readWord(key, i + 12);

    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;

    k2 = Math.imul(k2, C2);
    k2 = (k2 << 16) | (k2 >>> 16);
    h2 ^= Math.imul(k2, C3);
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (h2 + h3) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;

    k3 = Math.imul(k3, C3);
    k3 = (k3 << 17) | (k3 >>> 15);
    h3 ^= Math.imul(k3, C4);
    h3 = (h3 << 15) | (h3 >>> 17);
    h3 = (h3 + h4) | 0;
    h3 = (Math.imul(h3, 5) + 0x96cd1c35) | 0;

    k4 = Math.imul(k4, C4);
    k4 = (k4 << 18) | (k4 >>> 14);
    h4 ^= Math.imul(k4, C1);
    h4 = (h4 << 13) | (h4 >>> 19);
    h4 = (h4 + h1) | 0;
    h4 = (Math.imul(h4, 5) + 0x32ac3b17) | 0;
  }

  // Tail: 1..15 bytes, gathered little-endian into k1 (bytes 0..3), k2 (4..7), k3 (8..11)
  // and k4 (12..14) and mixed into their lanes, as the reference's fall-through switch does.
  const rest = len - i;
  if (rest > 0) {
    let k1 = rest >= 4 ? readWord(key, i) : readPartialWord(key, i, rest);
    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    if (rest > 4) {
      let k2 = rest >= 8 ? readWord(key, i + 4) : readPartialWord(key, i + 4, rest - 4);
      k2 = Math.imul(k2, C2);
      k2 = (k2 << 16) | (k2 >>> 16);
      h2 ^= Math.imul(k2, C3);
      if (rest > 8) {
        let k3 = rest >= 12 ? readWord(key, i + 8) : readPartialWord(key, i + 8, rest - 8);
        k3 = Math.imul(k3, C3);
        k3 = (k3 << 17) | (k3 >>> 15);
        h3 ^= Math.imul(k3, C4);
        if (rest > 12) {
          let k4 = readPartialWord(key, i + 12, rest - 12);
          k4 = Math.imul(k4, C4);
          k4 = (k4 << 18) | (k4 >>> 14);
          h4 ^= Math.imul(k4, C1);
        }
      }
    }
  }

  h1 ^= len;
  h2 ^= len;
  h3 ^= len;
  h4 ^= len;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix32(h1);
  h2 = fmix32(h2);
  h3 = fmix32(h3);
  h4 = fmix32(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  out[outIndex] = h1;
  out[outIndex + 1] = h2 + h1;
  if (words === 4) {
    out[outIndex + 2] = h3 + h1;
    out[outIndex + 3] = h4 + h1;
  }
}

/**
 * Hashes `key` to 64 bits and writes them as two unsigned 32-bit halves:
 * `out[outIndex] = lo` (low word), `out[outIndex + 1] = hi` (high word).
 *
 * The hash is MurmurHash3_x86_128 with seed 0, truncated to its first 64 bits. It is
 * stable: it is part of the filter format (a filter is only meaningful when queried with
 * the hash it was built with), so it will not change for a given format marker.
 *
 * Hash a key once with this and probe many filters with `BloomFilterReader.mayMatchHash`.
 *
 * REQUIRES: `outIndex + 1 < out.length`. Allocates nothing; `key` is only read.
 */
export function hashKey64(key: Uint8Array, out: Uint32Array, outIndex = 0): void {
  murmur3X86128(key, 0, out, outIndex, 2);
}

/**
 * The full 128-bit MurmurHash3_x86_128 of `key` with `seed`, as four little-endian words
 * written to `out[outIndex...outIndex + 3]`. Exposed for tests (SMHasher verification).
 * @internal
 */
export function murmurHash3X86128(
  key: Uint8Array,
  seed: number,
  out: Uint32Array,
  outIndex = 0,
): void {
  murmur3X86128(key, seed, out, outIndex, 4);
}
