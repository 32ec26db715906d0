/**
 * What a LogReader does with damage. The values match RocksDB's `WALRecoveryMode` and may be
 * stored in options files: do not change them.
 *
 * Damage comes in two kinds:
 * - a torn tail: the file ends inside a header, inside a fragment's payload, or after the
 *   FIRST/MIDDLE fragments of a record without its LAST; or everything from a header to the
 *   end of the file is zero bytes. This is what a crash in the middle of a write leaves.
 * - corruption: a checksum mismatch, a length that does not fit its block, an unknown
 *   fragment type (below 128; types from 128 up are skipped silently), a broken
 *   FIRST/MIDDLE/LAST sequence, zero bytes followed by non-zero ones, or a payload running
 *   past the end of file over a valid record (its length field was damaged).
 *
 * | mode                  | torn tail         | corruption                                  |
 * |-----------------------|-------------------|---------------------------------------------|
 * | AbsoluteConsistency   | throws            | throws                                      |
 * | TolerateCorruptedTail | dropped, reported | throws                                      |
 * | PointInTime (default) | dropped, reported | dropped with the rest of the file, reported |
 * |                       |                   | — unless a valid record follows: throws     |
 * | SkipAnyCorrupted      | dropped, reported | skipped, reported; reading goes on at the   |
 * |                       |                   | next valid record                           |
 *
 * "A valid record follows" means: searching forward from the damage, byte by byte to the
 * end of the file, finds a FULL fragment (or a FIRST filling the rest of its block, as the
 * writer writes them) whose checksum verifies. A MIDDLE or LAST fragment does not count: it
 * may be the rest of the damaged record.
 *
 * Errors are `ShaleError` Corruption with `file` (the `fileName` option) and `offset`: the
 * header of the fragment where the damage was found (for a record cut short after its
 * FIRST/MIDDLE fragments, the record's start).
 */
export const WalRecoveryMode = Object.freeze({
  /** Damage anywhere after the last whole record is dropped; anything else throws. */
  TolerateCorruptedTail: 0,
  /** Any damage, even a torn tail, throws Corruption. */
  AbsoluteConsistency: 1,
  /**
   * Stops at the first damage and returns nothing after it, unless a valid record is found
   * after the damage in the same file: then acknowledged data would be lost, and it throws
   * Corruption.
   */
  PointInTime: 2,
  /** Skips damaged fragments and records, reports them, and continues. */
  SkipAnyCorrupted: 3,
} as const);

export type WalRecoveryMode = (typeof WalRecoveryMode)[keyof typeof WalRecoveryMode];

/** What a reporter is told about bytes a LogReader dropped. */
export interface LogCorruptionInfo {
  /** File offset of the first dropped byte (the start of the damaged record). */
  offset: number;
  /** How many bytes were dropped, from `offset`. */
  bytes: number;
  /**
   * Why: "checksum mismatch", "bad record length", "unknown record type", "truncated
   * header", "truncated record", "partial record without end", "missing start of
   * fragmented record", "zeroed tail", "zeroed region", "SetCompressionType not the first
   * record" or "could not decode SetCompressionType record".
   */
  reason: string;
}

export interface LogReaderOptions {
  /** What to do with damage (see WalRecoveryMode). Default: `WalRecoveryMode.PointInTime`. */
  mode?: WalRecoveryMode;
  /** The file's name, for error messages and `ShaleError.file`. Default: none. */
  fileName?: string;
  /**
   * Called for every run of bytes the reader drops instead of throwing (torn tails, and
   * corruption in PointInTime/SkipAnyCorrupted). Adjacent drops are reported once. Not
   * called for damage that throws: the error carries the offset and reason. Default: none.
   */
  reporter?: (info: LogCorruptionInfo) => void;
  /**
   * The number of the log being read (its file name's number): recyclable fragments (types
   * 5-8) must carry its low 32 bits, and the first one that carries another ends the log
   * (it is what a reused file held before). Default: the number of the first recyclable
   * fragment read.
   */
  logNumber?: number;
  /**
   * Verify each fragment's checksum while reading. Without it, damage is only found through
   * bad lengths, types and sequences. Default: true.
   */
  verifyChecksums?: boolean;
  /**
   * Start reading at this file offset instead of 0: the end of a record an earlier reader of
   * the same file returned (its `lastRecordEndOffset`), to go on reading a log that is still
   * being appended to (a secondary instance tailing the primary's WAL and MANIFEST). The file
   * must be positioned at offset 0; the reader skips to the block holding `startOffset`.
   * REQUIRES: a record boundary. Default: 0.
   */
  startOffset?: number;
  /**
   * With `startOffset`: the log's compression, as an earlier reader of the same file saw it
   * in its SetCompressionType record (`compressionType`), since a reader starting past that
   * record cannot see it. Default: 0 (none).
   */
  startCompression?: number;
  /**
   * Decompresses the records of a log that starts with a SetCompressionType record naming
   * a compression (RocksDB's `wal_compression`: zstd). Without one, such a log is refused
   * with NotSupported. `@shale/db` passes its zstd codec. Default: none.
   */
  decompressor?: WalDecompressor;
}

/**
 * Decompresses WAL records: each record's payload (all its fragments' payloads, joined) is
 * one stream of the log's compression type (for zstd, one frame), empty for an empty record.
 */
export interface WalDecompressor {
  /** True if `type` (RocksDB's CompressionType byte, 7 zstd) can be decompressed here. */
  canDecompress(type: number): boolean;
  /** The record `compressed` holds. Throws (any error) if it is malformed. */
  decompress(type: number, compressed: Uint8Array): Uint8Array;
}
