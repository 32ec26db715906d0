/**
 * @shale/db/internal — the engine's own structures, for shale's tools (the `shale` CLI,
 * db-bench) and for people writing tools of their own: MANIFEST records (`VersionEdit`,
 * `FileMetaData`) and the WAL's records (a write batch as RocksDB encodes it). Not the
 * database API: these follow the on-disk formats and may change with them in any release.
 */
import type { FileSystem } from "@shale/base";
import type { DB } from "./db.js";
import { getUpdatesSince, type TransactionLogIterator } from "./ops/updates-since.js";
import { BatchMarker, WriteBatch, type WriteBatchHandler } from "./write/write-batch.js";

/** The body of a nested background worker (a browser's): its script calls this once. */
export {
  type BackgroundJobsScope,
  serveBackgroundJobs,
} from "./background/nested-worker-main.js";
/** The Node options for a worker thread of shale's (its parent's, minus a test runner's). */
export type { ImmutableMemTable, PinnedVersion } from "./db.js";
export { type FileMetaData, VersionEdit } from "./version/version-edit.js";
export { BatchMarker, type WriteBatchHandler };

/** The first sequence number of a WAL record (an encoded write batch). */
export function batchSequence(record: Uint8Array): number {
  return WriteBatch.sequence(record);
}

/** The operation count of a WAL record (an encoded write batch). */
export function batchCount(record: Uint8Array): number {
  return WriteBatch.countOf(record);
}

/**
 * Calls `handler.apply` for every operation of a WAL record, in order, with its column
 * family id (every family's operations), and `handler.marker` for its two-phase commit
 * markers (`BatchMarker`; without `marker`, a record holding one is NotSupported).
 * Corruption naming `file` and the offset of the damage for a record that does not decode.
 */
export function iterateBatch(
  record: Uint8Array,
  handler: WriteBatchHandler,
  file?: string,
  fileOffset = 0,
): void {
  WriteBatch.iterate(record, handler, file, fileOffset, true);
}

const noCheck = (): void => {};

/** The FileSystem an open database keeps its files on. */
export function fileSystemOf(db: DB): FileSystem {
  return db.opsHost().fs;
}

/**
 * `getUpdatesSince(sequence)` of the database in `dir` read from outside it: another thread
 * or process that reaches its files through `fs` (a worker publishing the change feed, say).
 * `lastSequence` is the database's last sequence as the caller knows it: a `sequence` past
 * it is NotFound. The batches are read from the WALs as the database appends them (a record
 * being written ends a read; the next one takes it). REQUIRES: the database keeps its WALs
 * for as long as the reader may need them (`walTtlSeconds` / `walSizeLimitMb`).
 */
export function updatesSinceIn(
  dir: string,
  fs: FileSystem,
  sequence: number,
  lastSequence: number,
): TransactionLogIterator {
  return getUpdatesSince(
    { dir, fs, lastSequence: () => lastSequence, checkOpen: noCheck },
    sequence,
  );
}

/**
 * `feed.read()` without the WriteBatch: the next batch's representation (RocksDB's
 * `sequence ‖ count ‖ records`, what `batch.data()` returns), checked as `read()` checks it,
 * or undefined when every batch written so far was returned. A view valid until the next
 * read or close of `feed`: copy it to keep it.
 */
export function readBatchData(feed: TransactionLogIterator): Uint8Array | undefined {
  return feed.readData();
}
