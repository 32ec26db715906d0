/**
 * Wire constants and the small fixed structures of the table format: block handles, block
 * trailers and the footer. The whole file layout is drawn in `table-builder.ts` and in
 * `docs/formats/sstable.md`.
 *
 * BlockHandle (where a block lives; at most 16 bytes since offsets and sizes are < 2^53):
 * ```
 * +------------------+----------------+
 * | varint64 offset  | varint64 size  |    size excludes the 5-byte block trailer
 * +------------------+----------------+
 * ```
 *
 * Block trailer (5 bytes after every block on disk):
 * ```
 * +---------------------+-------------------------------------------------------------+
 * | u8 compressionType  | fixed32 LE masked XXH32 over (block bytes ‖ compressionType) |
 * +---------------------+-------------------------------------------------------------+
 * ```
 * The type byte directly follows the block, so the checksummed region is contiguous:
 * `[blockOffset, blockOffset + size + 1)`.
 *
 * Footer (57 bytes, the last bytes of the file):
 * ```
 * offset  size
 *   0       1   u8 checksumType (1 = masked XXH32)
 *   1      40   metaindex handle ‖ index handle, zero-padded to 40 bytes
 *  41       4   fixed32 LE formatVersion (1)
 *  45       4   fixed32 LE masked XXH32 over footer bytes [0, 45)
 *  49       8   magic: fixed32 LE 0x6c616873 ‖ fixed32 LE 0x54535365 (bytes "shaleSST")
 * ```
 * Unlike RocksDB's 53-byte footer (format versions 1-5) this one carries its own checksum,
 * so a flipped byte anywhere in the footer is detected and reported at the footer offset.
 *
 * Worked example: metaindex at offset 4200 size 60 and index at offset 4265 size 18 encode as
 * handles `e8 20 3c` and `a9 21 12`, so the footer is
 * `01 e8 20 3c a9 21 12 00*34 01 00 00 00 <checksum 4 bytes> 73 68 61 6c 65 53 53 54`.
 */
import { getFixed32, maskedChecksum32, putFixed32, putVarint64, ShaleError } from "@shale/base";

/**
 * Compression type byte of a block trailer: RocksDB's `CompressionType` numbering
 * (include/rocksdb/compression_type.h). Part of the file format; do not change. shale writes
 * None and Snappy and reads those, LZ4, LZ4HC, ZSTD (and ZSTDNotFinal) and Zlib; see
 * compression.ts for each one's framing.
 */
export const CompressionType = {
  None: 0,
  Snappy: 1,
  Zlib: 2,
  BZip2: 3,
  LZ4: 4,
  LZ4HC: 5,
  Xpress: 6,
  ZSTD: 7,
  /** The pre-1.0 name of ZSTD; the same stream since zstd 0.8. */
  ZSTDNotFinal: 0x40,
} as const;
export type CompressionType = (typeof CompressionType)[keyof typeof CompressionType];

/** Checksum type byte of the footer. Part of the file format; do not change. */
export const ChecksumType = {
  /** Masked XXH32 (seed 0), see `@shale/base` checksum. */
  XXH32: 1,
} as const;

/** Sizes and magic numbers. Part of the file format; do not change. */
export const TableFormat = {
  /** u8 compression type + fixed32 masked checksum. */
  BLOCK_TRAILER_SIZE: 5,
  /** Two varint64s (offset, size), at most 10 bytes each. */
  MAX_BLOCK_HANDLE_SIZE: 20,
  /** Bytes reserved for the two handles in the footer (zero padded). */
  FOOTER_HANDLES_SIZE: 40,
  /** checksumType(1) + handles(40) + formatVersion(4) + footerChecksum(4) + magic(8). */
  FOOTER_SIZE: 57,
  /** Offset of the formatVersion field inside the footer. */
  FOOTER_VERSION_OFFSET: 41,
  /** Offset of the footer checksum; it covers footer bytes [0, this). */
  FOOTER_CHECKSUM_OFFSET: 45,
  /** Offset of the magic number inside the footer. */
  FOOTER_MAGIC_OFFSET: 49,
  /** Low word of the magic number: bytes "shal" on disk. */
  MAGIC_LO: 0x6c616873,
  /** High word of the magic number: bytes "eSST" on disk. */
  MAGIC_HI: 0x54535365,
} as const;

/**
 * Format versions, each saying what it adds. Part of the file format; do not change.
 * - 1: block-based table as documented in docs/formats/sstable.md.
 */
export const FormatVersion = {
  V1: 1,
  LATEST: 1,
} as const;

/** Names in the metaindex block. Part of the file format; do not change. */
export const MetaBlockName = {
  /** Prefix of the full-filter entry; the filter policy name follows. */
  FULL_FILTER_PREFIX: "fullfilter.",
  /** The full Bloom filter over user keys (`@shale/bloom`). */
  BLOOM_FILTER: "fullfilter.shale.BloomFilter",
  /** Range tombstones: key = internal key(start, seq, RangeDeletion), value = end user key. */
  RANGE_DEL: "shale.range_del",
  /** msgpack-encoded `TableProperties`. */
  PROPERTIES: "shale.properties",
} as const;

/** Where a block lives in the file. `size` excludes the block trailer. */
export interface BlockHandle {
  offset: number;
  size: number;
}

/** Appends the encoding of a handle at `pos`; returns the position after it. */
export function putBlockHandle(dst: Uint8Array, pos: number, handle: BlockHandle): number {
  pos = putVarint64(dst, pos, handle.offset);
  return putVarint64(dst, pos, handle.size);
}

/** A fresh encoding of a handle. */
export function encodeBlockHandle(handle: BlockHandle): Uint8Array {
  const buf = new Uint8Array(TableFormat.MAX_BLOCK_HANDLE_SIZE);
  return buf.slice(0, putBlockHandle(buf, 0, handle));
}

/**
 * Decodes a varint64 at `pos` of `src` (limit `end`) without allocating; returns the value
 * and leaves the position after it in `cursor[0]`. Returns -1 for a truncated, overlong or
 * out-of-range varint (the caller reports Corruption with its own context).
 */
export function decodeVarint64At(
  src: Uint8Array,
  pos: number,
  end: number,
  cursor: Int32Array,
): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    if (pos >= end) return -1;
    const b = src[pos++]!;
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      if (result > Number.MAX_SAFE_INTEGER) return -1;
      cursor[0] = pos;
      return result;
    }
    scale *= 128;
  }
  return -1;
}

/**
 * Decodes a handle from `src[pos, end)` into `out`; returns the position after it.
 * Throws Corruption (naming `file` and `fileOffset`) for a malformed handle.
 */
export function decodeBlockHandleInto(
  src: Uint8Array,
  pos: number,
  end: number,
  out: BlockHandle,
  cursor: Int32Array,
  file: string | undefined,
  fileOffset: number,
): number {
  const offset = decodeVarint64At(src, pos, end, cursor);
  const size = offset < 0 ? -1 : decodeVarint64At(src, cursor[0]!, end, cursor);
  if (size < 0) throw ShaleError.corruption("bad block handle", file, fileOffset);
  out.offset = offset;
  out.size = size;
  return cursor[0]!;
}

/** The decoded footer. */
export interface Footer {
  checksumType: number;
  metaindexHandle: BlockHandle;
  indexHandle: BlockHandle;
  formatVersion: number;
}

/** Encodes the footer (a fresh `FOOTER_SIZE`-byte array). */
export function encodeFooter(footer: Footer): Uint8Array {
  const out = new Uint8Array(TableFormat.FOOTER_SIZE);
  out[0] = footer.checksumType;
  let pos = putBlockHandle(out, 1, footer.metaindexHandle);
  putBlockHandle(out, pos, footer.indexHandle);
  pos = putFixed32(out, TableFormat.FOOTER_VERSION_OFFSET, footer.formatVersion);
  putFixed32(out, pos, maskedChecksum32(out, 0, TableFormat.FOOTER_CHECKSUM_OFFSET));
  putFixed32(out, TableFormat.FOOTER_MAGIC_OFFSET, TableFormat.MAGIC_LO);
  putFixed32(out, TableFormat.FOOTER_MAGIC_OFFSET + 4, TableFormat.MAGIC_HI);
  return out;
}

/**
 * Decodes and checks a footer read from `fileOffset`. Throws Corruption naming the file and
 * the footer offset for a bad magic, a checksum mismatch, an unknown checksum type or format
 * version, malformed handles or non-zero padding.
 */
export function decodeFooter(
  src: Uint8Array,
  file: string | undefined,
  fileOffset: number,
): Footer {
  const fail = (what: string): never => {
    throw ShaleError.corruption(`bad table footer: ${what}`, file, fileOffset);
  };
  if (src.length !== TableFormat.FOOTER_SIZE)
    fail(`expected ${TableFormat.FOOTER_SIZE} bytes, got ${src.length}`);
  const m = TableFormat.FOOTER_MAGIC_OFFSET;
  if (
    getFixed32(src, m) !== TableFormat.MAGIC_LO ||
    getFixed32(src, m + 4) !== TableFormat.MAGIC_HI
  ) {
    fail("bad magic number (not a shale table)");
  }
  const stored = getFixed32(src, TableFormat.FOOTER_CHECKSUM_OFFSET);
  if (stored !== maskedChecksum32(src, 0, TableFormat.FOOTER_CHECKSUM_OFFSET))
    fail("checksum mismatch");
  const checksumType = src[0]!;
  if (checksumType !== ChecksumType.XXH32) fail(`unknown checksum type ${checksumType}`);
  const formatVersion = getFixed32(src, TableFormat.FOOTER_VERSION_OFFSET);
  if (formatVersion < FormatVersion.V1 || formatVersion > FormatVersion.LATEST) {
    fail(`unsupported format version ${formatVersion}`);
  }
  const cursor = new Int32Array(1);
  const handlesEnd = 1 + TableFormat.FOOTER_HANDLES_SIZE;
  const metaindexHandle: BlockHandle = { offset: 0, size: 0 };
  const indexHandle: BlockHandle = { offset: 0, size: 0 };
  let pos = decodeBlockHandleInto(src, 1, handlesEnd, metaindexHandle, cursor, file, fileOffset);
  pos = decodeBlockHandleInto(src, pos, handlesEnd, indexHandle, cursor, file, fileOffset);
  for (; pos < handlesEnd; pos++) if (src[pos] !== 0) fail("non-zero padding");
  return { checksumType, metaindexHandle, indexHandle, formatVersion };
}
