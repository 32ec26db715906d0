/**
 * @shale/db/internal — the engine's own structures, for shale's tools (the `shale` CLI,
 * db-bench) and for people writing tools of their own: MANIFEST records (`VersionEdit`,
 * `FileMetaData`) and the WAL's records (a write batch as RocksDB encodes it). Not the
 * database API: these follow the on-disk formats and may change with them in any release.
 */
import { BatchMarker, WriteBatch, type WriteBatchHandler } from "./write/write-batch.js";

/** The body of a nested background worker (a browser's): its script calls this once. */
export {
  type BackgroundJobsScope,
  serveBackgroundJobs,
} from "./background/nested-worker-main.js";
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
