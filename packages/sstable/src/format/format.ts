/**
 * Wire constants and the small fixed structures of RocksDB's block-based table format:
 * block handles, block trailers and their context checksums. The footer is in `footer.ts`;
 * the whole file layout is drawn in `table-builder.ts` and in `docs/formats/sstable.md`.
 *
 * BlockHandle (where a block lives; at most 16 bytes since offsets and sizes are < 2^53):
 * ```
 * +------------------+----------------+
 * | varint64 offset  | varint64 size  |    size excludes the 5-byte block trailer
 * +------------------+----------------+
 * ```
 *
 * Block trailer (5 bytes after every block on disk; `blockChecksum` of `@shale/base`):
 * ```
 * +---------------------+-----------------------------------------------------------+
 * | u8 compressionType  | fixed32 LE checksum of (block bytes ‖ compressionType),   |
 * |                     | by the footer's checksum type (CRC32C: masked),           |
 * |                     | plus the context modifier (format version >= 6), mod 2^32 |
 * +---------------------+-----------------------------------------------------------+
 * ```
 *
 * Context checksums (format version >= 6, RocksDB's `ChecksumModifierForContext`): the footer
 * holds a random non-zero `baseContextChecksum` chosen per file, and every checksum stored in
 * the file — each block trailer's and the footer's own — is the plain checksum plus
 *
 *     modifier(base, offset) = base ^ (lo32(offset) + hi32(offset))      (all mod 2^32)
 *
 * where `offset` is where the block (or the footer) starts. A block copied to another offset
 * or into another file, still intact, then fails its checksum like random damage would; in
 * format versions 2-5 (base 0, modifier 0) it passes. The modifier is an integer xor and add,
 * no allocation: the read path of every block pays nothing more. Worked example (RocksDB
 * 10.5.1's testdata/rocksdb-tables/fv6-xxh3.sst, footer.test.ts): base 0x743c519a, the
 * metaindex at offset 4397: modifier 0x743c519a ^ 4397 = 0x743c40b7; the plain XXH3 checksum
 * of its bytes and type byte is 0xda6b460e, so the trailer stores 0xda6b460e + 0x743c40b7 =
 * 0x4ea786c5 (carry dropped), bytes `c5 86 a7 4e`.
 */
import {
  ChecksumType,
  ErrorCode,
  putVarint64,
  ShaleError,
  varint64Before,
  varintEnd,
} from "@shale/base";

/** NotSupported naming the file and offset (like Corruption does). */
export function notSupportedAt(
  message: string,
  file: string | undefined,
  offset: number,
): ShaleError {
  const options: { file?: string; offset: number } = { offset };
  if (file !== undefined) options.file = file;
  return new ShaleError(ErrorCode.NotSupported, message, options);
}

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

/**
 * Checksum type byte of the footer (RocksDB's `ChecksumType`, from `@shale/base`): how every
 * block trailer's checksum is computed (`blockChecksum` in `@shale/base`):
 * - NoChecksum 0: not checked;
 * - CRC32c 1: masked CRC32C over the block bytes and the type byte;
 * - xxHash 2: XXH32 (seed 0, unmasked) over the block bytes and the type byte (this
 *   build's default: `DEFAULT_CHECKSUM_TYPE`, the fastest in JS);
 * - xxHash64 3: the low 32 bits of XXH64 (seed 0) over the block bytes and the type byte;
 * - XXH3 4: the low 32 bits of XXH3-64 over the block bytes, xor (type byte * 0x6b9083d9);
 *   RocksDB 7.8.3's default.
 * Part of the file format; do not change.
 */
export { ChecksumType };

/** True for a known checksum type byte. */
export function isChecksumType(type: number): type is ChecksumType {
  return Number.isInteger(type) && type >= ChecksumType.NoChecksum && type <= ChecksumType.XXH3;
}

/** Sizes and magic numbers. Part of the file format; do not change. */
export const TableFormat = {
  /** u8 compression type + fixed32 checksum. */
  BLOCK_TRAILER_SIZE: 5,
  /** Two varint64s (offset, size), at most 10 bytes each. */
  MAX_BLOCK_HANDLE_SIZE: 20,
  /** Bytes reserved for the two handles in the footer (zero padded). */
  FOOTER_HANDLES_SIZE: 40,
  /**
   * Every footer from format version 1: checksumType(1) + handles(40) or, from version 6,
   * the extended part (40) + formatVersion(4) + magic(8) (footer.ts).
   */
  FOOTER_SIZE: 53,
  /** Format version 0 (LevelDB's footer): handles(40) + magic(8). */
  LEGACY_FOOTER_SIZE: 48,
  /** Offset of the formatVersion field inside the footer. */
  FOOTER_VERSION_OFFSET: 41,
  /** Offset of the magic number inside the footer (its last 8 bytes). */
  FOOTER_MAGIC_OFFSET: 45,
  /** kBlockBasedTableMagicNumber 0x88e241b785f4cff7: low and high 32-bit words. */
  MAGIC_LO: 0x85f4cff7,
  MAGIC_HI: 0x88e241b7,
  /** kLegacyBlockBasedTableMagicNumber 0xdb4775248b80fb57 (format version 0). */
  LEGACY_MAGIC_LO: 0x8b80fb57,
  LEGACY_MAGIC_HI: 0xdb477524,
} as const;

/**
 * Format versions of the block-based table (RocksDB's `format_version`), each saying what it
 * adds. Part of the file format; do not change.
 * - 0: LevelDB's 48-byte footer with the legacy magic, CRC32C only. Not supported.
 * - 1: the 53-byte footer with a checksum type and the block-based magic. Not supported
 *   (compressed blocks other than Snappy lack the size prefix of 2).
 * - 2: compressed blocks (LZ4, zlib, bzip2, ...) begin with their varint32 uncompressed size.
 * - 3: index keys may be user keys (property `rocksdb.index.key.is.user.key`).
 * - 4: index values may be delta-encoded (property `rocksdb.index.value.is.delta.encoded`):
 *   index entries omit the value length; a handle after a shared key prefix is stored as a
 *   size delta.
 * - 5: FastLocalBloom full filters (the filter block's own format; `@shale/bloom`).
 * - 6: the footer is checksummed and carries a base context checksum, every stored checksum
 *   adds the context modifier of its offset (above), the footer holds the metaindex size in
 *   place of both handles (the metaindex ends right before the footer) and the index handle
 *   moves into the metaindex as `rocksdb.index` (footer.ts). RocksDB 8.6 reads it.
 * - 7: the property `rocksdb.compression` becomes `<compression manager>;<hex types>;`
 *   (`BuiltinV2;07;` for ZSTD blocks, `;;` with compression off; properties.ts), naming the
 *   compression manager that wrote the file and every compression type its blocks use.
 *   RocksDB 10.4 reads it.
 * This build reads 2-7 and writes 2-7 (5 by default, which every RocksDB since 6.6 reads).
 */
export const FormatVersion = {
  V2: 2,
  V3: 3,
  V4: 4,
  V5: 5,
  V6: 6,
  V7: 7,
  /** Oldest version read and written. */
  MIN_READ: 2,
  /** Newest version read and written. */
  LATEST: 7,
  /** The version written when none is given. */
  DEFAULT: 5,
} as const;

/** True from the version on which checksums carry the context modifier (6). */
export function usesContextChecksum(formatVersion: number): boolean {
  return formatVersion >= FormatVersion.V6;
}

/**
 * The context modifier added to every checksum stored at `offset` of a file whose footer
 * holds `baseContextChecksum` (RocksDB's `ChecksumModifierForContext`): 0 when the base is 0
 * (format versions before 6), else `base ^ (lo32(offset) + hi32(offset))` mod 2^32. Integer
 * operations only (offsets are < 2^53); no allocation.
 */
export function contextChecksumModifier(baseContextChecksum: number, offset: number): number {
  if (baseContextChecksum === 0) return 0;
  const lo = offset >>> 0;
  // (offset - lo) / 2^32 is exact below 2^53; `^` takes its operands mod 2^32.
  return (baseContextChecksum ^ (lo + (offset - lo) / 4294967296)) >>> 0;
}

/**
 * Names in the metaindex block (RocksDB's). Part of the file format; do not change.
 * Sorted: "fullfilter.rocksdb.BuiltinBloomFilter" < "rocksdb.index" < "rocksdb.properties" <
 * "rocksdb.range_del".
 */
export const MetaBlockName = {
  /** Prefix of the full-filter entry; the filter policy's compatibility name follows. */
  FULL_FILTER_PREFIX: "fullfilter.",
  /** The full Bloom filter over user keys (`@shale/bloom`, RocksDB's built-in Bloom filter). */
  FULL_FILTER: "fullfilter.rocksdb.BuiltinBloomFilter",
  /** Partitioned filters (format not read: a table with one is read without its filter). */
  PARTITIONED_FILTER_PREFIX: "partitionedfilter.",
  /**
   * The table's compression dictionary (raw block: a zstd dictionary or raw content),
   * used for its data blocks only; written when `maxDictBytes` > 0.
   */
  COMPRESSION_DICT: "rocksdb.compression_dict",
  /** Range tombstones: key = internal key(start, seq, RangeDeletion), value = end user key. */
  RANGE_DEL: "rocksdb.range_del",
  /** The properties block (properties.ts). */
  PROPERTIES: "rocksdb.properties",
  /** The index block's handle (format version >= 6; before, the footer holds it). */
  INDEX: "rocksdb.index",
} as const;

/**
 * Index types (the property `rocksdb.block.based.table.index.type`, a fixed32; RocksDB's
 * `BlockBasedTableOptions::IndexType`). Part of the file format; do not change.
 */
export const IndexType = {
  /** One index block, binary searched: written and read. */
  BinarySearch: 0,
  /** A binary-search index plus prefix hash meta blocks: read as BinarySearch. */
  HashSearch: 1,
  /** Partitioned index (two levels): NotSupported. */
  TwoLevelIndexSearch: 2,
  /** Index values carry each block's first key: NotSupported. */
  BinarySearchWithFirstKey: 3,
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
 * out-of-range varint (the caller reports Corruption with its own context). The decoder is
 * @shale/base's `varint64Before`.
 */
export function decodeVarint64At(
  src: Uint8Array,
  pos: number,
  end: number,
  cursor: Int32Array,
): number {
  const v = varint64Before(src, pos, end);
  if (v >= 0) cursor[0] = varintEnd;
  return v;
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
