/**
 * Wire constants and the small fixed structures of RocksDB's block-based table format:
 * block handles, block trailers and the footer. The whole file layout is drawn in
 * `table-builder.ts` and in `docs/formats/sstable.md`.
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
 * |                     | by the footer's checksum type (CRC32C: masked)           |
 * +---------------------+-----------------------------------------------------------+
 * ```
 *
 * Footer, format versions 1-5 (53 bytes, the last bytes of the file; RocksDB's
 * `Footer::EncodeTo`):
 * ```
 * offset  size
 *   0       1   u8 checksumType (ChecksumType: 0 none, 1 CRC32c, 2 xxHash, 3 xxHash64, 4 XXH3)
 *   1      40   metaindex handle ‖ index handle, zero-padded to 40 bytes
 *  41       4   fixed32 LE formatVersion (this build writes 5, reads 2-5)
 *  45       8   fixed64 LE magic 0x88e241b785f4cff7 (kBlockBasedTableMagicNumber):
 *               bytes f7 cf f4 85 b7 41 e2 88
 * ```
 * The footer has no checksum of its own (format version 6 added one); the reader checks
 * the magic, the version, the checksum type, the handles and that the padding is zero,
 * and every block a handle points at is checksummed. Format version 0 used LevelDB's
 * 48-byte footer (two padded handles and the legacy magic 0xdb4775248b80fb57): it is
 * recognised and refused as NotSupported, as are versions 1 and 6+.
 *
 * Worked example (the table of docs/formats/sstable.md): metaindex at offset 1173 size 80,
 * index at 269 size 22 encode as handles `95 09 50` and `8d 02 16`, so the footer is
 * `01 95 09 50 8d 02 16 00*34 05 00 00 00 f7 cf f4 85 b7 41 e2 88`.
 */
import {
  ChecksumType,
  ErrorCode,
  getFixed32,
  putFixed32,
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

/** Sizes and magic numbers. Part of the file format; do not change. */
export const TableFormat = {
  /** u8 compression type + fixed32 checksum. */
  BLOCK_TRAILER_SIZE: 5,
  /** Two varint64s (offset, size), at most 10 bytes each. */
  MAX_BLOCK_HANDLE_SIZE: 20,
  /** Bytes reserved for the two handles in the footer (zero padded). */
  FOOTER_HANDLES_SIZE: 40,
  /** Format versions 1-5: checksumType(1) + handles(40) + formatVersion(4) + magic(8). */
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
 * This build writes 5 and reads 2-5; 6 (footer checksum, index handle in the metaindex)
 * and later are NotSupported.
 */
export const FormatVersion = {
  V2: 2,
  V3: 3,
  V4: 4,
  V5: 5,
  /** Oldest version read. */
  MIN_READ: 2,
  /** Newest version read and the version written. */
  LATEST: 5,
} as const;

/**
 * Names in the metaindex block (RocksDB's). Part of the file format; do not change.
 * Sorted: "fullfilter.rocksdb.BuiltinBloomFilter" < "rocksdb.properties" < "rocksdb.range_del".
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

/** The decoded footer. */
export interface Footer {
  checksumType: ChecksumType;
  metaindexHandle: BlockHandle;
  indexHandle: BlockHandle;
  formatVersion: number;
}

/** Encodes the footer (a fresh `FOOTER_SIZE`-byte array, format versions 1-5). */
export function encodeFooter(footer: Footer): Uint8Array {
  const out = new Uint8Array(TableFormat.FOOTER_SIZE);
  out[0] = footer.checksumType;
  const pos = putBlockHandle(out, 1, footer.metaindexHandle);
  putBlockHandle(out, pos, footer.indexHandle);
  putFixed32(out, TableFormat.FOOTER_VERSION_OFFSET, footer.formatVersion);
  putFixed32(out, TableFormat.FOOTER_MAGIC_OFFSET, TableFormat.MAGIC_LO);
  putFixed32(out, TableFormat.FOOTER_MAGIC_OFFSET + 4, TableFormat.MAGIC_HI);
  return out;
}

/** True for a known checksum type byte. */
export function isChecksumType(type: number): type is ChecksumType {
  return Number.isInteger(type) && type >= ChecksumType.NoChecksum && type <= ChecksumType.XXH3;
}

/**
 * Decodes and checks the last `FOOTER_SIZE` bytes of a table, read from `fileOffset`.
 * Throws Corruption naming the file and the footer offset for a bad magic number, malformed
 * handles, non-zero padding or handles whose last block does not end at the footer; NotSupported (naming them too) for format version 0 (the
 * legacy magic), a format version outside 2-5 or an unknown checksum type.
 */
export function decodeFooter(
  src: Uint8Array,
  file: string | undefined,
  fileOffset: number,
): Footer {
  const fail = (what: string): never => {
    throw ShaleError.corruption(`bad table footer: ${what}`, file, fileOffset);
  };
  const unsupported = (what: string): never => {
    throw notSupportedAt(what, file, fileOffset);
  };
  if (src.length !== TableFormat.FOOTER_SIZE)
    fail(`expected ${TableFormat.FOOTER_SIZE} bytes, got ${src.length}`);
  const m = TableFormat.FOOTER_MAGIC_OFFSET;
  const lo = getFixed32(src, m);
  const hi = getFixed32(src, m + 4);
  if (lo === TableFormat.LEGACY_MAGIC_LO && hi === TableFormat.LEGACY_MAGIC_HI) {
    unsupported("table format_version 0 (legacy block-based footer) is not supported");
  }
  if (lo !== TableFormat.MAGIC_LO || hi !== TableFormat.MAGIC_HI) {
    const magic = hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
    fail(`bad magic number 0x${magic} (not a block-based table)`);
  }
  const formatVersion = getFixed32(src, TableFormat.FOOTER_VERSION_OFFSET);
  if (formatVersion < FormatVersion.MIN_READ || formatVersion > FormatVersion.LATEST) {
    unsupported(
      `table format_version ${formatVersion} is not supported (read: ` +
        `${FormatVersion.MIN_READ}-${FormatVersion.LATEST})`,
    );
  }
  const checksumType = src[0]!;
  if (!isChecksumType(checksumType)) unsupported(`unknown table checksum type ${checksumType}`);
  const cursor = new Int32Array(1);
  const handlesEnd = 1 + TableFormat.FOOTER_HANDLES_SIZE;
  const metaindexHandle: BlockHandle = { offset: 0, size: 0 };
  const indexHandle: BlockHandle = { offset: 0, size: 0 };
  let pos = decodeBlockHandleInto(src, 1, handlesEnd, metaindexHandle, cursor, file, fileOffset);
  pos = decodeBlockHandleInto(src, pos, handlesEnd, indexHandle, cursor, file, fileOffset);
  for (; pos < handlesEnd; pos++) if (src[pos] !== 0) fail("non-zero padding");
  // The metaindex or the index (RocksDB writes the index first, LevelDB the metaindex) is
  // the last block before the footer; neither reaches past it.
  const trailer = TableFormat.BLOCK_TRAILER_SIZE;
  const metaEnd = metaindexHandle.offset + metaindexHandle.size + trailer;
  const indexEnd = indexHandle.offset + indexHandle.size + trailer;
  if (metaEnd > fileOffset || indexEnd > fileOffset || Math.max(metaEnd, indexEnd) !== fileOffset) {
    fail(
      `metaindex [${metaindexHandle.offset}, ${metaEnd}) and index [${indexHandle.offset}, ` +
        `${indexEnd}) do not end at the footer`,
    );
  }
  return {
    checksumType: checksumType as ChecksumType,
    metaindexHandle,
    indexHandle,
    formatVersion,
  };
}
