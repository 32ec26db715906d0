/**
 * Checksums and hashes, bit-exact with RocksDB 7.8.3 (all synchronous, no top-level await,
 * no BigInt or allocation on the hot paths):
 *
 * | function                          | what                                   | RocksDB use                  |
 * | --------------------------------- | -------------------------------------- | ---------------------------- |
 * | `crc32c`, `crc32cExtend`          | CRC32C (Castagnoli)                    | `crc32c::Value` / `Extend`   |
 * | `maskChecksum`, `unmaskChecksum`  | `crc32c::Mask` / `Unmask`              | stored CRCs (logs, blocks)   |
 * | `maskedCrc32c`                    | `Mask(Value(data))`                    | log record header checksum   |
 * | `xxh32`                           | XXH32                                  | `kxxHash` block checksum     |
 * | `xxh64Into/Low32/BigInt`          | XXH64 (seed 0)                         | `kxxHash64` block checksum   |
 * | `xxh3Into/Low32/BigInt`           | XXH3-64, final (seed 0)                | `kXXH3` block checksum       |
 * | `sliceHash64Into/BigInt`          | XXPH3 preview (`Hash64`)               | full-filter key hash         |
 * | `blockChecksum(type, ...)`        | `ComputeBuiltinChecksum`               | block trailers               |
 *
 * Masking: a CRC of data that itself holds CRCs is weak, so stored values are rotated right
 * by 15 and offset: `mask(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8  (mod 2^32)`.
 *
 * Implementations, picked per input size from these figures (MB/s by CPU time, median of 5
 * runs of 16 MiB at rotating offsets, each implementation in its own process; Node 20, a
 * shared 2-core x86-64 VM; `node dist/bench/checksum-bench.js`; the wasm figures include
 * copying the input into the module's memory):
 *
 * | input  | CRC32C JS16 | CRC32C wasm16 | JS8  | wasm8 | XXH32 JS | XXH32 wasm |
 * | ------ | ----------- | ------------- | ---- | ----- | -------- | ---------- |
 * | 32 B   | 928         | 552           | 846  | 539   | 909      | 669        |
 * | 100 B  | 1535        | 1314          | 1450 | 1174  | 1666     | 2073       |
 * | 256 B  | 1779        | 2029          | 1824 | 1600  | 2144     | 4223       |
 * | 4 KiB  | 2108        | 2550          | 1930 | 1966  | 2487     | 9158       |
 * | 64 KiB | 2145        | 2676          | 1962 | 2011  | 2529     | 10538      |
 *
 * So CRC32C runs the JS slicing-by-16 loop under 256 bytes (no copy, no call into wasm) and
 * the WebAssembly slicing-by-16 loop from 256 bytes; XXH32 runs in JS under 64 bytes and in
 * wasm from 64 bytes (up to 4 MiB, past 112 KiB in memory grown to hold it; JS beyond). The module (checksum-wasm.wat) is
 * instantiated synchronously on first use; without WebAssembly the JS loops run at every
 * size. JS and wasm are property-tested to agree on random inputs at every offset. The
 * xxhash-wasm package this replaces (its instantiation needed a top-level await) did 451 /
 * 1261 / 7154 / 9025 MB/s for XXH32 at 32 B / 100 B / 4 KiB / 64 KiB in the same setup.
 * There is no faster CRC32C without a CRC instruction (wasm has none): a table written with
 * the kxxHash checksum type verifies ~3.5x faster than one written with kCRC32c.
 *
 * XXH3-64 and XXPH3 are JS on 32-bit halves (no BigInt), except the long-input (> 240
 * bytes, up to 4 MiB) accumulation, which runs in the same wasm module (native 64-bit
 * lanes): XXH3 at 4 KiB 412 -> 7257 MB/s, 64 KiB 419 -> 12572 (JS -> wasm, same setup).
 * XXH64 runs wholly in wasm up to 112 KiB: 4 KiB 231 -> 14016 MB/s, 64 KiB 234 -> 18778. Short keys of Hash64 take a flat generated
 * JS path (checksum-xxh3-short.ts, generated; so do XXH3 inputs up to 240 bytes: 32 B
 * 213 -> 52 ns, 100 B 612 -> 159): 19 / 25 / 44 ns for 8 / 16 / 24 bytes.
 *
 * Reference values (RocksDB util/crc32c_test.cc): crc32c("123456789") = 0xe3069283;
 * 32 zero bytes 0x8a9136aa; 32 0xff bytes 0x62a8ab43; bytes 0..31 0x46dd794e; bytes 31..0
 * 0x113fdb5c. All functions are cross-checked against librocksdb's own symbols on 278 lengths
 * up to 65,539 bytes (testdata/checksum-vectors.json, made by scripts/checksum-vectors.cc).
 */
import { crc32cExtendJs16 } from "./checksum-crc32c-js.js";
import { WASM_LARGE_MAX, type WasmChecksums, wasmChecksums } from "./checksum-wasm.js";
import { xxh3Low32 } from "./checksum-xxh3.js";
import { xxh32 as xxh32Js } from "./checksum-xxh32.js";
import { xxh64Low32 } from "./checksum-xxh64.js";

export {
  sliceHash64BigInt,
  sliceHash64Into,
  xxh3BigInt,
  xxh3Into,
  xxh3Low32,
} from "./checksum-xxh3.js";
export { xxh64BigInt, xxh64Into, xxh64Low32 } from "./checksum-xxh64.js";

/** From this many bytes on, CRC32C runs in WebAssembly (see the figures above). */
export const CRC32C_WASM_THRESHOLD = 256;

let wasm: WasmChecksums | null | undefined;

/**
 * RocksDB's `crc32c::Extend(crc, data[start, end))`: the CRC32C of the bytes that gave `crc`
 * followed by these. `crc32cExtend(0, d)` = `crc32c(d)`.
 */
export function crc32cExtend(crc: number, data: Uint8Array, start = 0, end = data.length): number {
  if (end - start >= CRC32C_WASM_THRESHOLD) {
    if (wasm === undefined) wasm = wasmChecksums() ?? null;
    if (wasm !== null) return wasm.crc32c16(crc, data, start, end);
  }
  return crc32cExtendJs16(crc, data, start, end);
}

/** From this many bytes on (up to WASM_LARGE_MAX), XXH32 runs in WebAssembly. */
export const XXH32_WASM_THRESHOLD = 64;

/** XXH32 of `data[start, end)` with `seed` (Default: 0): RocksDB's kxxHash block checksum. */
export function xxh32(data: Uint8Array, start = 0, end = data.length, seed = 0): number {
  const n = end - start;
  if (n >= XXH32_WASM_THRESHOLD && n <= WASM_LARGE_MAX) {
    if (wasm === undefined) wasm = wasmChecksums() ?? null;
    if (wasm !== null) return wasm.xxh32(data, start, end, seed);
  }
  return xxh32Js(data, start, end, seed);
}

/** CRC32C of `data[start, end)` (RocksDB's `crc32c::Value`). */
export function crc32c(data: Uint8Array, start = 0, end = data.length): number {
  return crc32cExtend(0, data, start, end);
}

const MASK_DELTA = 0xa282ead8;

/** The stored (masked) form of a CRC, RocksDB's `crc32c::Mask`. */
export function maskChecksum(c: number): number {
  return ((((c >>> 15) | (c << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

/** Inverse of `maskChecksum` (RocksDB's `crc32c::Unmask`). */
export function unmaskChecksum(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/** Masked CRC32C of `data[start, end)`: what RocksDB's log records and kCRC32c blocks store. */
export function maskedCrc32c(data: Uint8Array, start = 0, end = data.length): number {
  return maskChecksum(crc32cExtend(0, data, start, end));
}

/**
 * RocksDB's block checksum types (`ChecksumType`, include/rocksdb/table.h), stored in the
 * footer. Part of the file format; do not change.
 */
export const ChecksumType = {
  NoChecksum: 0,
  CRC32c: 1,
  xxHash: 2,
  xxHash64: 3,
  XXH3: 4,
} as const;
export type ChecksumType = (typeof ChecksumType)[keyof typeof ChecksumType];

/**
 * RocksDB's `ComputeBuiltinChecksum(type, data[start, end))`, where the range is a block's
 * contents followed by its one-byte compression type (the block trailer's checksum):
 * kCRC32c `Mask(crc32c)`; kxxHash XXH32; kxxHash64 the low 32 bits of XXH64; kXXH3 the low
 * 32 bits of XXH3-64 of all but the last byte, XOR `last * 0x6b9083d9` (0 for an empty
 * range); kNoChecksum (or an unknown type) 0.
 */
export function blockChecksum(
  type: number,
  data: Uint8Array,
  start = 0,
  end = data.length,
): number {
  switch (type) {
    case ChecksumType.CRC32c:
      return maskedCrc32c(data, start, end);
    case ChecksumType.xxHash:
      return xxh32(data, start, end);
    case ChecksumType.xxHash64:
      return xxh64Low32(data, start, end);
    case ChecksumType.XXH3:
      if (end === start) return 0;
      return (xxh3Low32(data, start, end - 1) ^ Math.imul(data[end - 1]!, 0x6b9083d9)) >>> 0;
    default:
      return 0;
  }
}

/**
 * XXH32 (seed 0) of `data[start, end)`.
 * @deprecated Use `xxh32` (same function); kept for the table format until it moves to
 * RocksDB's checksum types.
 */
export function checksum32(data: Uint8Array, start = 0, end = data.length): number {
  return xxh32(data, start, end);
}

/**
 * Masked XXH32 of `data[start, end)`.
 * @deprecated shale's pre-RocksDB block checksum; new formats use `maskedCrc32c` or
 * `blockChecksum`.
 */
export function maskedChecksum32(data: Uint8Array, start = 0, end = data.length): number {
  return maskChecksum(xxh32(data, start, end));
}

/**
 * Resolves at once: every checksum is synchronous (the WebAssembly CRC32C is compiled
 * synchronously on first use). Kept for callers written when XXH32 needed an async start.
 */
export function checksumReady(): Promise<void> {
  return Promise.resolve();
}
