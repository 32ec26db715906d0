/**
 * CRC32C (Castagnoli, reflected polynomial 0x82f63b78), pure JS, table-driven: slicing-by-8
 * (8 tables of 256 words; 8 input bytes per step) and slicing-by-16 (16 tables, 16 bytes a
 * step). Both compute RocksDB's `crc32c::Extend(crc, data, n)` exactly (the pre- and
 * post-inversion included), so `crc32cExtend(crc32cExtend(0, a), b)` = crc32c(a ‖ b).
 *
 * The tables (16 KiB) are built once at module load. `CRC32C_TABLES` is shared with the
 * WebAssembly implementation (checksum-wasm.ts), which copies it into its memory.
 */

const POLY = 0x82f63b78;

/** 16 tables x 256 entries: `T[k][b]` = CRC of byte b followed by k zero bytes. */
export const CRC32C_TABLES: Int32Array = (() => {
  const t = new Int32Array(16 * 256);
  for (let b = 0; b < 256; b++) {
    let c = b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[b] = c;
  }
  for (let b = 0; b < 256; b++) {
    let c = t[b]!;
    for (let k = 1; k < 16; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + b] = c;
    }
  }
  return t;
})();

const T = CRC32C_TABLES;

/** Byte at a time (the tail of both slicing loops). */
function tail(crc: number, data: Uint8Array, p: number, end: number): number {
  let c = crc;
  while (p < end) c = T[(c ^ data[p++]!) & 0xff]! ^ (c >>> 8);
  return c;
}

/** RocksDB's `crc32c::Extend(crc, data[start, end))`, slicing-by-8. */
export function crc32cExtendJs8(crc: number, data: Uint8Array, start: number, end: number): number {
  let c = ~crc;
  let p = start;
  const stop = end - 8;
  while (p <= stop) {
    const a = c ^ (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24));
    c =
      T[1792 + (a & 0xff)]! ^
      T[1536 + ((a >>> 8) & 0xff)]! ^
      T[1280 + ((a >>> 16) & 0xff)]! ^
      T[1024 + (a >>> 24)]! ^
      T[768 + data[p + 4]!]! ^
      T[512 + data[p + 5]!]! ^
      T[256 + data[p + 6]!]! ^
      T[data[p + 7]!]!;
    p += 8;
  }
  return ~tail(c, data, p, end) >>> 0;
}

/** RocksDB's `crc32c::Extend(crc, data[start, end))`, slicing-by-16. */
export function crc32cExtendJs16(
  crc: number,
  data: Uint8Array,
  start: number,
  end: number,
): number {
  let c = ~crc;
  let p = start;
  const stop = end - 16;
  while (p <= stop) {
    const a = c ^ (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24));
    c =
      T[3840 + (a & 0xff)]! ^
      T[3584 + ((a >>> 8) & 0xff)]! ^
      T[3328 + ((a >>> 16) & 0xff)]! ^
      T[3072 + (a >>> 24)]! ^
      T[2816 + data[p + 4]!]! ^
      T[2560 + data[p + 5]!]! ^
      T[2304 + data[p + 6]!]! ^
      T[2048 + data[p + 7]!]! ^
      T[1792 + data[p + 8]!]! ^
      T[1536 + data[p + 9]!]! ^
      T[1280 + data[p + 10]!]! ^
      T[1024 + data[p + 11]!]! ^
      T[768 + data[p + 12]!]! ^
      T[512 + data[p + 13]!]! ^
      T[256 + data[p + 14]!]! ^
      T[data[p + 15]!]!;
    p += 16;
  }
  return ~tail(c, data, p, end) >>> 0;
}
