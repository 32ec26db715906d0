/**
 * Constants of the log format (drawn in full at the top of writer.ts and in
 * docs/formats/log.md). Everything here is part of the file format: do not change.
 */

/** Logs are a sequence of blocks of this many bytes; only the last one may be shorter. */
export const BLOCK_SIZE = 32768;

/** fixed32 masked checksum ‖ fixed16 length ‖ u8 type. */
export const HEADER_SIZE = 7;

/** The recyclable header (types 5-8): the legacy header ‖ fixed32 log number (low 32 bits). */
export const RECYCLABLE_HEADER_SIZE = 11;

/** The largest payload one fragment can carry (a whole block minus its header). */
export const MAX_FRAGMENT_LENGTH = BLOCK_SIZE - HEADER_SIZE;

/**
 * Fragment types, stored in the last byte of the header. Part of the file format: do not
 * change these values.
 */
export const RecordType = Object.freeze({
  /** Never written as a header: zero bytes are padding or a zeroed (damaged) region. */
  Zero: 0,
  /** A whole record in one fragment. */
  Full: 1,
  /** The first fragment of a record that continues in the next block(s). */
  First: 2,
  /** A fragment that is neither the first nor the last of its record. */
  Middle: 3,
  /** The last fragment of a record. */
  Last: 4,
  /** Full, First, Middle, Last of a recycled log file: 11-byte header with the log number. */
  RecyclableFull: 5,
  RecyclableFirst: 6,
  RecyclableMiddle: 7,
  RecyclableLast: 8,
  /**
   * RocksDB's `kSetCompressionType`: the first record of a log whose records are compressed
   * (`wal_compression`); its payload is fixed32 the compression type (7 zstd), its header
   * always the 7-byte legacy one. Read (with a decompressor) and written (with a compressor).
   */
  SetCompressionType: 9,
} as const);

export type RecordType = (typeof RecordType)[keyof typeof RecordType];

/**
 * Types at or above this value are reserved for records a reader may ignore: a reader that
 * does not know such a type skips the fragment silently (later RocksDB versions define such
 * types, e.g. 130/131 for predecessor-WAL info; 7.8.3 writes none).
 */
export const FIRST_IGNORABLE_TYPE = 128;
