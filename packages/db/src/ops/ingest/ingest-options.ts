/**
 * The options of `ingestExternalFile`: RocksDB's IngestExternalFileOptions, by its names
 * (camel-cased), each checked (an unknown one is InvalidArgument, a wrong type TypeError).
 */
import { booleanRow, OptionTable } from "../../core/validate.js";

export interface IngestExternalFileOptions {
  /**
   * Hard-link the files into the database instead of copying them, and remove the original
   * names once they are in (RocksDB's move_files). Where the file system cannot link
   * (another device, no hard links) the files are copied, as RocksDB's
   * failed_move_fall_back_to_copy. Default: false.
   */
  moveFiles?: boolean;
  /**
   * A snapshot taken before the ingestion never sees the files' keys: while any snapshot is
   * held, every file gets a global sequence number (RocksDB's snapshot_consistency).
   * Default: true.
   */
  snapshotConsistency?: boolean;
  /**
   * Allow giving the files a global sequence number, needed when they overlap data already
   * in the family (or a snapshot is held); false makes such an ingestion fail with
   * InvalidArgument (RocksDB's allow_global_seqno). Default: true.
   */
  allowGlobalSeqNo?: boolean;
  /**
   * Flush the memtable first when it holds keys in a file's range; false makes such an
   * ingestion fail with InvalidArgument (RocksDB's allow_blocking_flush). Default: true.
   */
  allowBlockingFlush?: boolean;
  /**
   * Put the files under all existing data, at the bottom level with sequence 0 (RocksDB's
   * ingest_behind). RocksDB requires a database opened with allow_ingest_behind, which
   * reserves the bottom level; shale has no such option: true is NotSupported.
   * Default: false.
   */
  ingestBehind?: boolean;
  /**
   * Also write a file's global sequence number into its properties block (RocksDB's
   * write_global_seqno; true in RocksDB before 8.0, false since). No reader needs it since
   * RocksDB 5.16 (they take it from the MANIFEST); older ones do. It is written into the
   * database's copy (a file to be hard-linked, `moveFiles`, is copied instead: shale's file
   * system has no in-place write), never into the caller's file. A file whose property
   * already holds another number (ingested elsewhere before) gets the new one whatever this
   * says. Default: false.
   */
  writeGlobalSeqno?: boolean;
  /**
   * Read every block of each file before ingesting it, checking its checksum, that its keys
   * are in order and that every entry has sequence number 0 (RocksDB's
   * verify_checksums_before_ingest). Without it only the properties, first and last keys
   * and range deletions are read. Default: false.
   */
  verifyChecksumsBeforeIngest?: boolean;
}

export const INGEST_OPTIONS = new OptionTable("ingestOptions", [
  booleanRow("moveFiles"),
  booleanRow("snapshotConsistency"),
  booleanRow("allowGlobalSeqNo"),
  booleanRow("allowBlockingFlush"),
  booleanRow("ingestBehind"),
  booleanRow("writeGlobalSeqno"),
  booleanRow("verifyChecksumsBeforeIngest"),
]);

export type ResolvedIngestOptions = Required<IngestExternalFileOptions>;

/** Checks `options` and fills in the defaults. */
export function resolveIngestOptions(options: unknown): ResolvedIngestOptions {
  if (options !== undefined) INGEST_OPTIONS.check(options);
  const o = (options ?? {}) as IngestExternalFileOptions;
  return {
    moveFiles: o.moveFiles ?? false,
    snapshotConsistency: o.snapshotConsistency ?? true,
    allowGlobalSeqNo: o.allowGlobalSeqNo ?? true,
    allowBlockingFlush: o.allowBlockingFlush ?? true,
    ingestBehind: o.ingestBehind ?? false,
    writeGlobalSeqno: o.writeGlobalSeqno ?? false,
    verifyChecksumsBeforeIngest: o.verifyChecksumsBeforeIngest ?? false,
  };
}
