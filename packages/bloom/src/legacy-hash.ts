/**
 * RocksDB's legacy 32-bit hash, `Hash(data, n, seed)` of `util/hash.cc` (a MurmurHash1
 * variant), which the legacy Bloom filter (format_version < 5) hashes keys with:
 * `BloomHash(key) = Hash(key, 0xbc9f1d34)`. Read-only support: shale writes FastLocalBloom.
 *
 * ```
 *   m = 0xc6a4a793, h = seed ^ (n * m)                       (all mod 2^32)
 *   per 4-byte little-endian word w:  h = (h + w) * m;  h ^= h >>> 16
 *   tail of 1..3 bytes t0 t1 t2 (SIGN-EXTENDED, as int8):
 *     h += t2 << 16; h += t1 << 8; h += t0;  h *= m;  h ^= h >>> 24
 * ```
 * The sign extension is part of the format (RocksDB kept LevelDB's `char` arithmetic
 * "so the filters stay compatible"): a tail byte 0x80..0xff adds 0xffffff80.. shifted.
 *
 * Worked example: `legacyBloomHash(new Uint8Array(0))` = 0xbc9f1d34 (n = 0: h = seed).
 */

/** The seed of RocksDB's `BloomHash` (legacy Bloom filters). Part of the format. */
export const LEGACY_BLOOM_SEED = 0xbc9f1d34;

const M = 0xc6a4a793;

/**
 * RocksDB's `Hash(key, seed)` as an unsigned 32-bit number, of `key[0, length)` (Default: the
 * whole key; a data block hash index hashes the user key of an internal key in place).
 * `key` is only read.
 */
export function rocksdbHash32(key: Uint8Array, seed: number, length: number = key.length): number {
  const n = length;
  let h = (seed ^ Math.imul(n, M)) | 0;
  const end = n & ~3;
  let i = 0;
  for (; i < end; i += 4) {
    const w = key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16) | (key[i + 3]! << 24);
    h = Math.imul((h + w) | 0, M);
    h ^= h >>> 16;
  }
  const rest = n - i;
  if (rest > 0) {
    // (x << 24) >> 24 sign-extends a byte, as RocksDB's int8_t cast does.
    if (rest === 3) h = (h + (((key[i + 2]! << 24) >> 24) << 16)) | 0;
    if (rest >= 2) h = (h + (((key[i + 1]! << 24) >> 24) << 8)) | 0;
    h = (h + ((key[i]! << 24) >> 24)) | 0;
    h = Math.imul(h, M);
    h ^= h >>> 24;
  }
  return h >>> 0;
}

/** RocksDB's `BloomHash(key)`: the key hash of legacy Bloom filters. */
export function legacyBloomHash(key: Uint8Array): number {
  return rocksdbHash32(key, LEGACY_BLOOM_SEED);
}
