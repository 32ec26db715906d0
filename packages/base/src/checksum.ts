/**
 * Checksums: 32-bit xxHash (XXH32, seed 0) through `xxhash-wasm`, and the masked form
 * stored in records and blocks.
 *
 * The wasm module is instantiated once, asynchronously, when this module is first imported
 * (top-level await), so every call below is synchronous and cheap.
 *
 * Masking (as LevelDB/RocksDB do for CRCs): a checksum of data that itself contains
 * embedded checksums is weak, so stored values are rotated and offset:
 * `mask(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8  (mod 2^32)`.
 */
import xxhash from "xxhash-wasm";

const api = await xxhash();
const h32Raw = api.h32Raw;

/** XXH32 (seed 0) of `data[start, end)`. */
export function checksum32(data: Uint8Array, start = 0, end = data.length): number {
  return h32Raw(start === 0 && end === data.length ? data : data.subarray(start, end), 0) >>> 0;
}

const MASK_DELTA = 0xa282ead8;

/** The stored (masked) form of a checksum. */
export function maskChecksum(c: number): number {
  return ((((c >>> 15) | (c << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

/** Inverse of `maskChecksum`. */
export function unmaskChecksum(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/** Masked XXH32 of `data[start, end)`: what records and blocks store. */
export function maskedChecksum32(data: Uint8Array, start = 0, end = data.length): number {
  return maskChecksum(checksum32(data, start, end));
}

/**
 * Resolves once the checksum implementation is ready. With top-level await it always
 * already is; kept so callers that want to be explicit (or a future lazily-loaded
 * implementation) have one place to wait on.
 */
export function checksumReady(): Promise<void> {
  return Promise.resolve();
}
