/**
 * @shale/db — the shale engine. Most users want the `shale` package, which re-exports this
 * with defaults; use @shale/db directly to assemble an engine with your own parts.
 */

export { cappedPrefix, fixedPrefix, type PrefixExtractor } from "@shale/sstable";
export { ColumnFamilyHandle } from "./column-family/handle.js";
export type { IngestExternalFileArg } from "./column-family/ingest-files-arg.js";
export type { ReaderHandle } from "./column-family/reader-handle.js";
export type {
  ClearOptions,
  CompactRangeOptions,
  RangeOptions,
  SnapshotOptions,
} from "./core/call-options.js";
export type {
  CompactionFilterContext,
  CompactionFilterDecision,
  CompactionFilterFunction,
  CompactionFilterOption,
} from "./core/compaction-filter.js";
export type {
  CompactionStyle,
  FifoCompactionOptions,
  UniversalCompactionOptions,
} from "./core/compaction-style-options.js";
export type {
  BackgroundErrorInfo,
  BackgroundErrorReason,
  CompactionJobInfo,
  CompactionJobStats,
  EventListener,
  FlushJobInfo,
  FlushReason,
  TableFileDeletionInfo,
  WriteStallCondition,
  WriteStallInfo,
} from "./core/event-listeners.js";
export {
  decodeUint64,
  encodeUint64,
  type MergeOperator,
  maxOperator,
  resolveMergeOperator,
  stringAppendOperator,
  uint64AddOperator,
} from "./core/merge-operator.js";
export type {
  ColumnFamilyOptions,
  CpuPriority,
  DbOptions,
  FlushOptions,
  IteratorOptions,
  PrepopulateBlockCache,
  ReadOptions,
  WriteOptions,
} from "./core/options.js";
export {
  type IoPriority,
  RateLimiter,
  type RateLimiterCounters,
  type RateLimiterOptions,
} from "./core/rate-limiter.js";
export { Snapshot } from "./core/snapshot.js";
export type {
  RunTransactionOptions,
  TransactionDBOptions,
  TransactionOptions,
} from "./core/transaction-options.js";
export type { Clock } from "./core/ttl.js";
export type { ModuleExportOption } from "./core/user-module.js";
export {
  WriteBufferManager,
  type WriteBufferManagerOptions,
} from "./core/write-buffer-manager.js";
export { DB, type TransactionDB } from "./db.js";
export { DBIterator } from "./iterator/index.js";
export type { ApproximateSizeOptions, SizeRange } from "./ops/approximate-sizes.js";
export {
  BackupEngine,
  type BackupEngineOptions,
  type BackupInfo,
  type CreateBackupOptions,
} from "./ops/backup/engine.js";
export { RESTORE_MARKER } from "./ops/backup/restore-marker.js";
export type { CheckpointInfo, CheckpointOptions } from "./ops/checkpoint.js";
export type { DeletedFiles } from "./ops/delete-files-in-range.js";
export type { IngestExternalFileOptions } from "./ops/ingest/ingest-options.js";
export type { LiveFiles, LiveTable, LiveWal } from "./ops/live-files.js";
export {
  type BatchWithSequence,
  TransactionLogIterator,
} from "./ops/updates-since.js";
export type {
  VerifiedFile,
  VerifyChecksumsOptions,
  VerifyProblem,
  VerifyReport,
} from "./ops/verify-checksums.js";
export {
  openReader,
  Reader,
  type ReaderIteratorOptions,
  type ReaderOptions,
  type ReaderReadOptions,
  ReaderSnapshot,
} from "./reader/index.js";
export {
  type DroppedFile,
  type MovedFile,
  type RepairedLog,
  type RepairedTable,
  type RepairOptions,
  type RepairReport,
  repair,
} from "./repair/repair.js";
export type { CatchUpResult, DbRole } from "./secondary/follower.js";
export type { SecondaryOptions } from "./secondary/secondary-options.js";
export {
  OptimisticTransaction,
  PessimisticTransaction,
  Transaction,
  type TransactionFamily,
} from "./txn/transaction.js";
export type {
  LockingWriteMethods,
  TransactionColumnFamilyHandle,
  TransactionDBMethods,
} from "./txn/transaction-db.js";
export { BaseDeltaIterator } from "./write/base-delta-iterator.js";
export type { BatchOperation } from "./write/batch-operations.js";
export { ARCHIVE_DIR } from "./write/wal-archive.js";
export { FamilyId, WriteBatch } from "./write/write-batch.js";
export {
  WriteBatchWithIndex,
  type WriteBatchWithIndexOptions,
} from "./write/write-batch-with-index.js";
