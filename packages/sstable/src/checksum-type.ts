/**
 * Block checksums by the footer's checksum type (RocksDB's
 * `ComputeBuiltinChecksumWithLastByte`, format versions 1-5). The checksummed bytes are
 * the block as stored (compressed or not) followed by its trailer's compression-type byte,
 * which the block builder writes directly after the block, so `data[start, start + size]`
 * (both ends included) is contiguous:
 *
 * ```
 * type 0 None      0; the stored value is not checked
 * type 1 CRC32C    mask(crc32c(block ‖ typeByte)),  mask(c) = rotr(c, 15) + 0xa282ead8
 * type 2 xxHash    XXH32(block ‖ typeByte, seed 0)               (unmasked)
 * type 3 xxHash64  low 32 bits of XXH64(block ‖ typeByte, seed 0)
 * type 4 XXH3      low 32 bits of XXH3_64bits(block) ^ (typeByte * 0x6b9083d9 mod 2^32)
 * ```
 * XXH3 leaves the type byte out of the hash and mixes it in afterwards (RocksDB's
 * `ModifyChecksumForLastByte`), so its block hash can be computed before the type is known.
 *
 * Worked example (the 22-byte index block `00 09 6b 65 79 30 30 30 30 30 32 00 be 01 00 00
 * 00 00 01 00 00 00` followed by type byte 00): CRC32C 0x3ed0b4e5 masked stores as the
 * trailer `00 17 c6 c6 79` (from a table RocksDB 7.8.3 wrote; see checksum-type.test.ts).
 */
import { checksum32 } from "@shale/base";
import { ChecksumType, notSupportedAt } from "./format.js";

/** RocksDB's kRandomPrime for XXH3's last-byte mix. Part of the file format; do not change. */
const XXH3_LAST_BYTE_PRIME = 0x6b9083d9;
const MASK_DELTA = 0xa282ead8;

// ---- CRC32C (Castagnoli), reflected, slicing by 4. A stand-in for @shale/base's CRC32C
// (owned by the `log` work), kept behind `crc32c` only so it is replaced in one place.
const CRC_TABLES = (() => {
  const t = new Int32Array(4 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    let c = t[i]!;
    for (let s = 1; s < 4; s++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[s * 256 + i] = c;
    }
  }
  return t;
})();

/** CRC32C of `data[start, end)` (unmasked). */
export function crc32c(data: Uint8Array, start: number, end: number): number {
  const t = CRC_TABLES;
  let c = -1;
  let p = start;
  const end4 = start + ((end - start) & ~3);
  while (p < end4) {
    c ^= data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24);
    c =
      t[768 + (c & 0xff)]! ^
      t[512 + ((c >>> 8) & 0xff)]! ^
      t[256 + ((c >>> 16) & 0xff)]! ^
      t[c >>> 24]!;
    p += 4;
  }
  while (p < end) c = t[(c ^ data[p++]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** RocksDB's CRC mask (as LevelDB's): rotate right by 15, add 0xa282ead8. */
export function maskCrc(c: number): number {
  return ((((c >>> 15) | (c << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

/**
 * The trailer checksum of the block `data[start, start + size)` whose compression-type byte
 * is `data[start + size]`, by checksum type `type`. Throws NotSupported for a type this
 * build cannot compute (`fileName` and `offset` name the block in the message).
 */
export function blockChecksum(
  type: number,
  data: Uint8Array,
  start: number,
  size: number,
  fileName?: string,
  offset?: number,
): number {
  const end = start + size;
  switch (type) {
    case ChecksumType.CRC32C:
      return maskCrc(crc32c(data, start, end + 1));
    case ChecksumType.xxHash:
      return checksum32(data, start, end + 1);
    case ChecksumType.None:
      return 0;
    default:
      throw notSupportedAt(
        `block checksum type ${type} is not supported by this build`,
        fileName,
        offset ?? start,
      );
  }
}

/** Unused until XXH3 lands; keeps the constant documented next to its use. */
export const XXH3_LAST_BYTE_MULTIPLIER = XXH3_LAST_BYTE_PRIME;
