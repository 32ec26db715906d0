/**
 * shale — an embedded, durable, sorted key-value store for Node.js, Deno and Bun (and, on an
 * in-memory FileSystem, browsers).
 *
 * ```ts
 * import { open, WriteBatch } from "shale";
 * const db = await open("./data");
 * db.put("hello", "world");
 * db.get("hello"); // a Uint8Array copy of "world" (db.getView: zero-copy, read-only)
 * await db.close();
 * ```
 *
 * This package is thin: `open()` with defaults, and re-exports of what a user meets — the
 * database, its iterator, batches and snapshots, every option type, merge operators, the
 * block cache, errors, comparators, file systems and statistics. Test-only parts (the
 * fault-injecting file system) are in `shale/testing`; the background worker, for
 * bundlers, is `shale/worker`.
 */
import { DB, type DbOptions, type TransactionDB, type TransactionDBOptions } from "@shale/db";

/**
 * Opens (creating if missing) the database in `dir`; `{ readOnly: true }` opens it read-only
 * beside a writer in another process (see @shale/db's README, "More than one process");
 * `{ transactionDB: {...} }` opens a TransactionDB, whose plain writes wait for the locks of
 * pessimistic transactions and return promises.
 */
export function open(
  dir: string,
  options: DbOptions & { transactionDB: TransactionDBOptions },
): Promise<TransactionDB>;
export function open(dir: string, options?: DbOptions): Promise<DB>;
export function open(dir: string, options?: DbOptions): Promise<DB | TransactionDB> {
  return DB.open(dir, options);
}

// Errors.
// Comparators.
// File systems (the contract, for your own, and the two shale ships).
// Statistics.
export {
  bytewiseComparator,
  type Comparator,
  ErrorCode,
  type FileLock,
  type FileSystem,
  Histogram,
  type HistogramData,
  isCorruption,
  isShaleError,
  MemoryFileSystem,
  NodeFileSystem,
  type OpenWritableOptions,
  type RandomAccessFile,
  reverseBytewiseComparator,
  type SequentialFile,
  ShaleError,
  type ShaleErrorOptions,
  Statistics,
  type StatisticsOptions,
  type StatsLevel,
  Ticker,
  type WritableFile,
} from "@shale/base";
// The block cache (`blockCache` option: one cache shared by several databases), and the
// cache shared by a database's threads (`sharedBlockCache` option).
export {
  type CacheStats,
  LRUCache,
  type LRUCacheOptions,
  SharedBlockCache,
  type SharedBlockCacheOptions,
  type SharedBlockCacheStats,
} from "@shale/block-cache";
// Event listeners (the `listeners` open option; RocksDB's EventListener); compaction filters
// and TTL (the `compactionFilter`, `ttl` and `clock` open options).
export type {
  BackgroundErrorInfo,
  Clock,
  CompactionFilterContext,
  CompactionFilterDecision,
  CompactionFilterFunction,
  CompactionFilterOption,
  CompactionJobInfo,
  EventListener,
  FlushJobInfo,
  ModuleExportOption,
  TableFileDeletionInfo,
  WriteStallInfo,
} from "@shale/db";
// The database, its iterator, batches and snapshots, and the options of each call.
// Merge operators.
export {
  type ApproximateSizeOptions,
  BackupEngine,
  type BackupEngineOptions,
  type BackupInfo,
  BaseDeltaIterator,
  type BatchOperation,
  type BatchWithSequence,
  type CatchUpResult,
  type CheckpointInfo,
  type CheckpointOptions,
  type ClearOptions,
  ColumnFamilyHandle,
  type ColumnFamilyOptions,
  type CompactionStyle,
  type CreateBackupOptions,
  cappedPrefix,
  DB,
  DBIterator,
  type DbOptions,
  type DbRole,
  type DeletedFiles,
  decodeUint64,
  encodeUint64,
  type FifoCompactionOptions,
  type FlushOptions,
  fixedPrefix,
  type IngestExternalFileArg,
  type IngestExternalFileOptions,
  type IteratorOptions,
  type LiveFiles,
  type LiveTable,
  type LiveWal,
  type LockingWriteMethods,
  type MergeOperator,
  maxOperator,
  OptimisticTransaction,
  openReader,
  PessimisticTransaction,
  type PrefixExtractor,
  type RangeOptions,
  RateLimiter,
  type RateLimiterCounters,
  type RateLimiterOptions,
  RESTORE_MARKER,
  Reader,
  type ReaderHandle,
  type ReaderIteratorOptions,
  type ReaderOptions,
  type ReaderReadOptions,
  ReaderSnapshot,
  type ReadOptions,
  type RepairOptions,
  type RepairReport,
  type RunTransactionOptions,
  repair,
  type SecondaryOptions,
  type SizeRange,
  Snapshot,
  stringAppendOperator,
  Transaction,
  type TransactionColumnFamilyHandle,
  type TransactionDB,
  type TransactionDBOptions,
  type TransactionFamily,
  TransactionLogIterator,
  type TransactionOptions,
  type UniversalCompactionOptions,
  uint64AddOperator,
  type VerifiedFile,
  type VerifyChecksumsOptions,
  type VerifyProblem,
  type VerifyReport,
  WriteBatch,
  WriteBatchWithIndex,
  type WriteBatchWithIndexOptions,
  WriteBufferManager,
  type WriteBufferManagerOptions,
  type WriteOptions,
} from "@shale/db";
export type { Block } from "@shale/sstable";
// External SST files for bulk loading (RocksDB's SstFileWriter).
export {
  type ExternalSstFileInfo,
  externalFileInfo,
  SstFileWriter,
  type SstFileWriterOptions,
} from "@shale/sstable";
// Write-ahead log recovery (`walRecoveryMode` option).
export { WalRecoveryMode } from "@shale/wal";
