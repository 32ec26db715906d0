/**
 * The database, as a facade: it checks arguments and state, and drives the parts.
 *
 * - Writes (here and write-path.ts): sequence numbers -> WAL (`ActiveWal`) -> memtable
 *   (`MemTableInserter`); a full memtable is switched here: the WAL rolls to a new log, the
 *   memtable is sealed and handed to the flush scheduler.
 * - Flushes and the memtable write stop: flush-scheduler.ts. L0 write stalls:
 *   compaction/write-controller.ts. Compactions: compaction/scheduler.ts.
 * - Point reads: read-path.ts. Iterators: iterator-sources.ts and iterator/. Snapshots:
 *   snapshot.ts. Properties: properties.ts. Open: recovery.ts.
 * - Read-only and secondary instances (a DB whose writes are refused, following another
 *   process's files): secondary/follower.ts; repair: repair/repair.ts.
 *
 * Threading: everything here runs on the caller's thread and is synchronous except `open`
 * and `close` (and the waits `flush`, `compactRange`, `waitForCompactions`). A write is one
 * WAL record (the whole batch) appended and handed to the OS (`sync: true` also fsyncs it)
 * before the memtable is updated and the call returns. Finished background jobs are
 * installed at the start of each operation (`takeFinished`), without the event loop.
 *
 * Failures (README "Failures and durability"): after a failed write or sync of any file
 * (WAL, table, MANIFEST, CURRENT, directory) the database refuses further writes, flushes
 * and compactions, with the error that caused it (background/background-error.ts); reads
 * keep working. From then on it deletes no file (the outcome of a failed MANIFEST write is
 * unknown: either version may be the one on disk), and `close()` releases every handle and
 * the LOCK, rejecting once with that error. Reopening recovers every acknowledged write.
 */
import {
  bytewiseComparator,
  type FileLock,
  type FileSystem,
  Histogram,
  InternalKeyComparator,
  invariants,
  NodeFileSystem,
  ShaleError,
  type Statistics,
  Ticker,
  toBytes,
  ValueKind,
} from "@shale/base";
import type { LRUCache } from "@shale/block-cache";
import { type ChunkPool, MemTable } from "@shale/memtable";
import { type Block, TableCache } from "@shale/sstable";
import { backgroundError } from "./background/background-error.js";
import { CompactionScheduler } from "./background/compaction-scheduler.js";
import { type BackgroundExecutor, InlineExecutor } from "./background/executor.js";
import { FileRemover } from "./background/file-remover.js";
import { FlushScheduler } from "./background/flush-scheduler.js";
import { builtinComparator } from "./background/protocol.js";
import { WorkerExecutor } from "./background/worker-executor.js";
import { StallCondition, type StallHost, WriteController } from "./background/write-controller.js";
import { type TableWriteOptions, tableWriteOptions } from "./compaction/build-table.js";
import {
  CLEAR_OPTIONS,
  type ClearOptions,
  COMPACT_RANGE_OPTIONS,
  type CompactRangeOptions,
  FLUSH_OPTIONS,
  type FlushOptions,
  ITERATOR_OPTIONS,
  type IteratorOptions,
  READ_OPTIONS,
  type ReadOptions,
  SNAPSHOT_OPTIONS,
  type SnapshotOptions,
  WRITE_OPTIONS,
  type WriteOptions,
} from "./core/call-options.js";
import { lockFileName, tableFileName } from "./core/filenames.js";
import type { MergeOperator } from "./core/merge-operator.js";
import { type DbOptions, type ResolvedOptions, resolveOptions } from "./core/options.js";
import { ownedCopy } from "./core/owned-bytes.js";
import { pauseEnd, pauseStart, tracingPauses } from "./core/pause-trace.js";
import { resolveLimit, resolveRange } from "./core/range-options.js";
import { type Snapshot, SnapshotList } from "./core/snapshot.js";
import {
  RUN_TRANSACTION_OPTIONS,
  type RunTransactionOptions,
  TRANSACTION_OPTIONS,
  type TransactionOptions,
} from "./core/transaction-options.js";
import { viewGuard } from "./core/view-guard.js";
import type { BackgroundPoll, DBIterator } from "./iterator/index.js";
import { followerState } from "./open/follower-state.js";
import {
  type RecoveredState,
  type RecoveryDrop,
  recover,
  recoveryProperty,
} from "./open/recovery.js";
import {
  type ApproximateSizeOptions,
  approximateSizes,
  type SizeRange,
} from "./ops/approximate-sizes.js";
import { refuseInterruptedRestore } from "./ops/backup/restore-marker.js";
import { type CheckpointInfo, type CheckpointOptions, createCheckpoint } from "./ops/checkpoint.js";
import { clearRange } from "./ops/clear.js";
import { type DeletedFiles, deleteFilesInRange } from "./ops/delete-files-in-range.js";
import { FileDeletionHold } from "./ops/file-deletions.js";
import type { OpsHost } from "./ops/host.js";
import { type LiveFiles, liveFiles } from "./ops/live-files.js";
import { formatProperty } from "./ops/properties.js";
import {
  type VerifyChecksumsOptions,
  type VerifyReport,
  verifyChecksums,
} from "./ops/verify-checksums.js";
import {
  type IteratorSettings,
  openDBIterator,
  reportUnclosedIterators,
} from "./read/iterator-sources.js";
import { PointReader } from "./read/read-path.js";
import {
  type CatchUpResult,
  type DbRole,
  Follower,
  type FollowerHost,
} from "./secondary/follower.js";
import { SecondaryPins } from "./secondary/primary-pins.js";
import { resolveSecondaryOptions, type SecondaryOptions } from "./secondary/secondary-options.js";
import { checkConflicts } from "./txn/conflict-check.js";
import { LockManager } from "./txn/lock-manager.js";
import {
  OptimisticTransaction,
  PessimisticTransaction,
  type Transaction,
  type TransactionHost,
} from "./txn/transaction.js";
import { type KeyRange, rangeOfFiles } from "./version/key-range.js";
import type { Version, VersionSet } from "./version/version-set.js";
import { memtableChunkPool, retireMemtables } from "./write/chunk-pool.js";
import { BATCH_HEADER_SIZE, WriteBatch } from "./write/write-batch.js";
import {
  type BatchReadSupport,
  keyString,
  WriteBatchWithIndex,
} from "./write/write-batch-with-index.js";
import { ActiveWal, checkRangeOrder, MemTableInserter } from "./write/write-path.js";

export type { ImmutableMemTable } from "./write/immutable-memtable.js";

const EMPTY = new Uint8Array(0);

/** A version kept alive (its files on disk) until `release()`; see `DB.pinCurrentVersion`. */
export interface PinnedVersion {
  readonly version: Version;
  /** Drops the reference. Idempotent. */
  release(): void;
}

/** A plain write of a key a transaction holds locked (it cannot wait: writes are synchronous). */
function lockedKeyError(holder: number): ShaleError {
  return ShaleError.timedOut(
    `the key is locked by transaction ${holder} (a plain write does not wait for a lock)`,
  );
}

export class DB {
  readonly dir: string;
  private readonly options: ResolvedOptions;
  private readonly fs: FileSystem;
  private readonly icmp: InternalKeyComparator;
  private readonly mergeOperator: MergeOperator | undefined;
  private readonly stats: Statistics | undefined;
  /** What this open's WAL replay dropped (property `shale.recovery-dropped`). */
  private readonly recoveryDrops: readonly RecoveryDrop[];
  private readonly versions: VersionSet;
  private readonly snapshots = new SnapshotList();
  private lock: FileLock | undefined;
  /** The mutable memtable. */
  private mem: MemTable;
  /** Flushed memtables' chunks, for the next memtables (write/chunk-pool.ts). */
  private readonly chunkPool: ChunkPool;
  /** The current WAL; all of `mem`'s data is in it (see ActiveWal). */
  private readonly wal: ActiveWal;
  private lastSeq: number;
  private closed = false;
  private readonly reader: PointReader;
  /** SHALE_INVARIANTS: the views handed out whose lifetime ends at the next call. */
  private readonly views = viewGuard;
  private readonly scratch = new WriteBatch();
  private readonly inserter = new MemTableInserter();
  private readonly blockCache: LRUCache<Block>;
  private readonly tableCache: TableCache;
  private readonly executor: BackgroundExecutor;
  /**
   * The executor's finished-job cell (background/executor.ts), read with one `Atomics.load`
   * at the start of every operation; see `takeFinished`.
   */
  private readonly finished: Int32Array;
  /** What iterators use to take finished jobs at each seek. */
  private readonly backgroundPoll: BackgroundPoll;
  private readonly tableOptions: TableWriteOptions;
  /** The immutable memtables and their flushes. */
  private readonly flushes: FlushScheduler;
  /**
   * Set when a background job failed: writes stop (reads go on) until reopen; every refused
   * call reports this one error (see background/background-error.ts).
   */
  private backgroundError: ShaleError | undefined;
  private readonly compactions: CompactionScheduler;
  private readonly writeController: WriteController;
  private readonly stallHost: StallHost;
  /** Deletes obsolete tables and WALs. */
  private readonly remover: FileRemover;
  /** Int32Array(1) shared with compaction jobs: set on close so they stop early. */
  private readonly shutdown = new SharedArrayBuffer(4);
  /** Set while the directory holds column families shale leaves alone: writes are refused. */
  private readonly writeRefusal: ShaleError | undefined;
  /** Operations (issue 18): file deletions held by checkpoints and backups (ops/file-deletions.ts). */
  private readonly deletionHold = new FileDeletionHold((paths) => {
    // After close the next open removes what is obsolete.
    if (!this.closed) this.removeFiles(paths);
  });
  private opsHostCache: OpsHost | undefined;
  /** Read-only and secondary instances: what follows the primary (secondary/follower.ts). */
  private readonly follower: Follower | undefined;
  /** Obsolete files kept while a secondary reads them (secondary/primary-pins.ts). */
  private readonly secondaryPins: SecondaryPins;
  /** A TransactionDB's key locks (txn/lock-manager.ts); undefined otherwise. */
  private readonly txnLocks: LockManager | undefined;
  private txnHostCache: TransactionHost | undefined;
  /** A finished transaction's batch, kept for the next transaction. */
  private spareTxnBatch: WriteBatchWithIndex | undefined;
  /** The plain-write lock check's batch handler (allocated once). */
  private readonly lockedKeyCheck = {
    locks: undefined as LockManager | undefined,
    apply(kind: ValueKind, key: Uint8Array): void {
      if (kind === ValueKind.RangeDeletion) return;
      const holder = this.locks!.holder(keyString(key));
      if (holder !== undefined) throw lockedKeyError(holder.id);
    },
  };

  private constructor(
    dir: string,
    options: ResolvedOptions,
    state: RecoveredState,
    lock: FileLock,
  ) {
    this.dir = dir;
    this.options = options;
    this.fs = options.fs;
    this.icmp = state.icmp;
    this.mergeOperator = options.mergeOperator;
    this.stats = options.statistics;
    this.versions = state.versions;
    this.lock = lock;
    this.follower = state.follower;
    this.secondaryPins = new SecondaryPins(options.fs, dir, (paths) => this.removeFiles(paths));
    this.mem = state.mem;
    this.chunkPool = memtableChunkPool(options.writeBufferSize, state.mem, state.imm);
    this.wal = new ActiveWal(state.wal, state.logNumber, this.stats, state.memLogNumber);
    this.recoveryDrops = state.drops;
    this.lastSeq = state.versions.lastSequence;
    this.blockCache = options.blockCache;
    this.tableOptions = tableWriteOptions(options, state.identity);
    this.tableCache = new TableCache({
      fs: options.fs,
      path: (n) => tableFileName(dir, n),
      capacity: options.maxOpenFiles,
      comparator: this.icmp.user,
      blockCache: options.blockCache,
      cacheIndexAndFilterBlocks: options.cacheIndexAndFilterBlocks,
      ...(options.statistics !== undefined ? { statistics: options.statistics } : {}),
    });
    this.reader = new PointReader(
      this.icmp,
      this.versions,
      this.tableCache,
      this.mergeOperator,
      this.stats,
    );
    const workers =
      options.fs instanceof NodeFileSystem &&
      builtinComparator(this.icmp.name) !== undefined &&
      state.follower === undefined;
    this.executor = workers
      ? new WorkerExecutor(options.maxBackgroundJobs, options.fs, options.compactionCpuPriority)
      : new InlineExecutor(options.fs);
    this.finished = this.executor.finished;
    this.backgroundPoll = { finished: this.finished, take: () => this.takeFinished() };
    this.remover = new FileRemover(this.executor);
    this.writeController = new WriteController(options);
    const failed = () => this.backgroundError !== undefined;
    this.stallHost = {
      executor: this.executor,
      statistics: this.stats,
      scheduleCompactions: () => this.compactions.maybeSchedule(),
      failed,
    };
    this.compactions = new CompactionScheduler(
      {
        dir,
        icmp: this.icmp,
        mergeOperator: this.mergeOperator,
        versions: this.versions,
        executor: this.executor,
        tableOptions: this.tableOptions,
        statistics: this.stats,
        shutdown: this.shutdown,
        snapshotSeqs: () => this.snapshots.sequences(),
        canRun: () =>
          !this.closed && this.backgroundError === undefined && this.follower === undefined,
        failure: () => this.backgroundError,
        backgroundFailed: (e) => this.failBackground(e),
        versionChanged: () => this.versionChanged(),
        deferL0Compaction: () => this.deferL0Compaction(),
      },
      options,
    );
    this.flushes = new FlushScheduler(
      {
        dir,
        fs: this.fs,
        comparator: this.icmp.user,
        versions: this.versions,
        executor: this.executor,
        tableOptions: this.tableOptions,
        statistics: this.stats,
        compactionStats: this.compactions.stats,
        wal: this.wal,
        failed,
        closing: () => this.closed,
        backgroundFailed: (e) => this.failBackground(e),
        versionChanged: () => this.versionChanged(),
        removeFiles: (paths) => this.removeFiles(paths),
        snapshotSeqs: () => this.snapshots.sequences(),
      },
      state.imm,
    );
    this.versions.onObsoleteFiles = (numbers) => this.removeTables(numbers);
    this.writeRefusal = state.writeRefusal;
    this.txnLocks = options.transactionDB !== undefined ? new LockManager() : undefined;
    this.lockedKeyCheck.locks = this.txnLocks;
    this.versionChanged();
    // The memtables a WAL replay left (avoidFlushDuringRecovery) go to the background flush.
    this.flushes.maybeSchedule();
  }

  /**
   * While the memtables the open replayed (`avoidFlushDuringRecovery`) are still being
   * flushed, L0 compactions wait for their tables, unless L0 already has
   * `level0SlowdownWritesTrigger` files. An L0 compaction picked at once would leave those
   * tables behind in L0 (after a fill that ended with 4 L0 files: L0=1 beside L1, a second
   * table in every seek and scan, and a later compaction rewriting L1 again for it); RocksDB,
   * which flushes during recovery by default, compacts them all in one job. The wait is the
   * flushes' time (a fraction of a second per memtable), and it ends early at the slowdown
   * trigger, where writes would start to slow down.
   */
  private deferL0Compaction(): boolean {
    return (
      this.flushes.recoveryFlushPending &&
      this.versions.current.numFiles(0) < this.options.level0SlowdownWritesTrigger
    );
  }

  /** Re-decides write stalls and starts the compactions that became due. */
  private versionChanged(): void {
    this.writeController.update(this.versions.current.numFiles(0));
    this.updateThrottle(false);
    this.compactions.maybeSchedule();
  }

  /**
   * Deletes tables no version refers to any more (and forgets their cached blocks). The
   * unlinking happens off the main thread with worker threads.
   */
  private removeTables(numbers: number[]): void {
    for (const n of numbers) this.tableCache.evict(n);
    this.removeFiles(numbers.map((n) => tableFileName(this.dir, n)));
  }

  /**
   * Deletes obsolete files — unless a write or sync failed: from then on nothing is deleted
   * until the next open decides from what is on disk (RocksDB quarantines the files of a
   * failed MANIFEST write the same way).
   */
  private removeFiles(paths: string[]): void {
    if (this.follower !== undefined) {
      this.follower.versionsReleased(); // a follower deletes nothing
      return;
    }
    if (this.backgroundError !== undefined || this.wal.error !== undefined) return;
    if (this.deletionHold.defer(paths)) return;
    this.remover.remove(this.secondaryPins.keep(paths));
  }

  /** A background job failed: writes stop (reads go on) until reopen. */
  private failBackground(error: Error): void {
    if (this.backgroundError !== undefined) return;
    const failure = backgroundError(error);
    this.backgroundError = failure;
    this.flushes.rejectWaiters(() => failure);
  }

  /**
   * Installs the background jobs that finished since the last look — flushes (MANIFEST
   * edit, new version, memtable dropped, old WALs deleted), compactions — and starts the
   * jobs that became due, exactly as when their results arrive from the event loop (the
   * same callbacks: a failed job or install becomes the background error). Called at the
   * START of operations, when `finished` is set, so a long synchronous loop of reads or
   * writes keeps L0 and the memtables within their triggers without awaiting anything.
   * Never while a get runs (a merge operator calling back in): that get holds the memtable
   * list and the version it is reading. An iterator pins its sources, so its seeks may take.
   */
  private takeFinished(): void {
    if (this.closed || this.reader.inGet) return;
    const t0 = tracingPauses ? pauseStart() : 0;
    this.executor.takeFinished();
    if (tracingPauses) pauseEnd(t0, "take finished jobs");
  }

  /** Opens (creating if allowed) the database in `dir`. See DbOptions for the options. */
  static async open(dir: string, options?: DbOptions): Promise<DB> {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("dir must be a non-empty string");
    const resolved = resolveOptions(options);
    if (resolved.readOnly) return DB.openFollower(dir, resolved, "readOnly", undefined, 0);
    const fs = resolved.fs;
    if (resolved.createIfMissing) fs.mkdir(dir);
    else if (!fs.exists(dir))
      throw ShaleError.invalidArgument(`${dir} does not exist (createIfMissing is false)`);
    const lock = fs.lock(lockFileName(dir));
    try {
      refuseInterruptedRestore(fs, dir);
      const state = recover(dir, resolved, new InternalKeyComparator(resolved.comparator));

      return new DB(dir, resolved, state, lock);
    } catch (e) {
      try {
        lock.release();
      } catch {
        // the open's own error is the one to report
      }
      throw e;
    }
  }

  // ---------------------------------------------------------------- writes

  /**
   * Stores `key -> value`. Strings are UTF-8 encoded; one that is not well-formed UTF-16 (a
   * lone surrogate) is a TypeError, as everywhere a string key, value or bound is taken.
   * `options` are checked as call-options.ts says (unknown: InvalidArgument; wrong type:
   * TypeError).
   */
  put(key: Uint8Array | string, value: Uint8Array | string, options?: WriteOptions): void {
    this.writeOne(ValueKind.Value, toBytes(key, "key"), toBytes(value, "value"), options);
  }

  /** Removes `key` (a missing key is fine). */
  delete(key: Uint8Array | string, options?: WriteOptions): void {
    this.writeOne(ValueKind.Deletion, toBytes(key, "key"), EMPTY, options);
  }

  /** Adds a merge operand for `key`; needs `options.mergeOperator`. */
  merge(key: Uint8Array | string, operand: Uint8Array | string, options?: WriteOptions): void {
    if (this.mergeOperator === undefined) {
      this.checkWritable();
      throw ShaleError.invalidArgument("merge needs options.mergeOperator");
    }
    this.writeOne(ValueKind.Merge, toBytes(key, "key"), toBytes(operand, "operand"), options);
  }

  /** Removes every key in [start, end). start > end is InvalidArgument; start == end removes nothing. */
  deleteRange(start: Uint8Array | string, end: Uint8Array | string, options?: WriteOptions): void {
    const s = toBytes(start, "start");
    const e = toBytes(end, "end");
    this.checkWritable();
    if (this.icmp.user.compare(s, e) > 0)
      throw ShaleError.invalidArgument("deleteRange: start is after end");
    this.writeOne(ValueKind.RangeDeletion, s, e, options);
  }

  /**
   * Applies a batch (a WriteBatch, or a WriteBatchWithIndex's batch) atomically: all of it
   * or none of it survives a crash.
   */
  write(batch: WriteBatch | WriteBatchWithIndex, options?: WriteOptions): void {
    if (batch instanceof WriteBatchWithIndex) batch = batch.getWriteBatch();
    else if (!(batch instanceof WriteBatch))
      throw new TypeError("write() takes a WriteBatch or a WriteBatchWithIndex");
    if (this.txnLocks !== undefined && this.txnLocks.size > 0 && batch.count > 0)
      WriteBatch.iterate(batch.seal(0), this.lockedKeyCheck);
    this.writeBatch(batch, options);
  }

  /** `write` after the checks of its argument (and, in a TransactionDB, of key locks). */
  private writeBatch(batch: WriteBatch, options: WriteOptions | undefined): void {
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    const t0 = this.stats?.timersEnabled ? this.stats.now() : 0;
    if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
    this.checkWritable();
    const count = batch.count;
    if (count === 0) return;
    if (this.writeController.condition !== StallCondition.Normal) this.delayWrite(batch.byteSize);
    if ((batch.kinds & (1 << ValueKind.Merge)) !== 0 && this.mergeOperator === undefined) {
      throw ShaleError.invalidArgument(
        "the batch has merge operands but options.mergeOperator is not set",
      );
    }
    if (
      (batch.kinds & (1 << ValueKind.RangeDeletion)) !== 0 &&
      this.icmp.user !== bytewiseComparator
    ) {
      checkRangeOrder(batch, this.icmp.user);
    }
    const seq = this.lastSeq + 1;
    const rep = batch.seal(seq);
    this.wal.append(rep, count, options);
    const inserter = this.inserter;
    inserter.mem = this.mem;
    inserter.seq = seq;
    WriteBatch.iterate(rep, inserter);
    this.finishWrite(seq + count - 1, rep.length, t0);
  }

  /** `checkLocks`: false for a transaction's commit (its own locks are held). */
  private writeOne(
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
    options: WriteOptions | undefined,
    checkLocks = true,
  ): void {
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    const t0 = this.stats?.timersEnabled ? this.stats.now() : 0;
    if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
    this.checkWritable();
    if (
      checkLocks &&
      this.txnLocks !== undefined &&
      this.txnLocks.size > 0 &&
      kind !== ValueKind.RangeDeletion
    ) {
      const holder = this.txnLocks.holder(keyString(key));
      if (holder !== undefined) throw lockedKeyError(holder.id);
    }
    if (this.writeController.condition !== StallCondition.Normal)
      this.delayWrite(key.length + value.length);
    const seq = this.lastSeq + 1;
    const batch = this.scratch.clear();
    batch.add(kind, key, value);
    const rep = batch.seal(seq);
    this.wal.append(rep, 1, options);
    const tTrace = tracingPauses ? pauseStart() : 0;
    this.mem.add(seq, kind, key, value);
    if (tracingPauses) pauseEnd(tTrace, "memtable insert");
    this.finishWrite(seq, rep.length, t0);
  }

  /** `t0`: the write's start (`stats.now()`) for WriteMicros. */
  private finishWrite(lastSeq: number, bytes: number, t0: number): void {
    // Released memtables' chunks become reusable only now (write/chunk-pool.ts).
    if (this.chunkPool.hasPending) this.chunkPool.promote();
    this.lastSeq = lastSeq;
    this.versions.lastSequence = lastSeq;
    const stats = this.stats;
    if (stats !== undefined) {
      stats.tick(Ticker.BytesWritten, bytes - BATCH_HEADER_SIZE);
      stats.record(Histogram.BytesPerWrite, bytes - BATCH_HEADER_SIZE);
    }
    const usage = this.mem.approximateMemoryUsage();
    if (usage >= this.options.writeBufferSize) this.switchMemtable();
    else if (this.writeController.throttling) {
      this.writeController.throttle(usage, this.options.writeBufferSize, this.stallHost);
    }
    // The whole write, stalls included (RocksDB's DB_WRITE).
    if (stats !== undefined) stats.recordTime(Histogram.WriteMicros, t0, 1000);
  }

  /**
   * The memtable throttle (write-controller.ts) is on while the mutable memtable is the last
   * one `maxWriteBufferNumber` allows and an older one is still in memory; `restart` begins
   * a new measuring window (a memtable switch).
   */
  private updateThrottle(restart: boolean): void {
    const imm = this.flushes.imm.length;
    const on = imm > 0 && imm + 1 >= this.options.maxWriteBufferNumber;
    const controller = this.writeController;
    if (on === controller.throttling && !restart) return;
    controller.setThrottle(on ? this.flushes.bytesPerMs : 0, this.mem.approximateMemoryUsage());
  }

  /**
   * Seals the memtable and starts a new one with a new WAL; the sealed one is queued for
   * flush. Stops writes while `maxWriteBufferNumber` memtables are full.
   */
  private switchMemtable(): void {
    const t0 = tracingPauses ? pauseStart() : 0;
    const sealedLog = this.wal.memtableLogNumber;
    this.wal.roll(this.fs, this.dir, this.versions.newFileNumber());
    const sealed = this.mem;
    sealed.seal();
    this.mem = new MemTable({ comparator: this.icmp.user, chunkPool: this.chunkPool });
    if (tracingPauses) pauseEnd(t0, "memtable switch (wal roll, seal, new memtable)");
    this.flushes.add(sealed, sealedLog);
    if (this.flushes.imm.length + 1 > this.options.maxWriteBufferNumber) {
      this.flushes.stallWhileFull(this.options.maxWriteBufferNumber, this.writeController);
      if (this.backgroundError !== undefined) throw this.backgroundError;
    }
    this.updateThrottle(true);
  }

  /** L0 write stalls (see write-controller.ts); throws if a background job failed. */
  private delayWrite(bytes: number): void {
    this.writeController.delay(bytes, this.stallHost);
    if (this.backgroundError !== undefined) this.checkWritable();
  }

  /**
   * Flushes the memtable to an L0 table and waits until every immutable memtable is on disk
   * (with `{ wait: false }`: starts the flush and resolves at once).
   */
  async flush(options?: FlushOptions): Promise<void> {
    if (options !== undefined) FLUSH_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
    this.checkWritable();
    if (this.mem.numEntries > 0 || this.mem.numRangeTombstones > 0) this.switchMemtable();
    if (this.flushes.imm.length === 0 || options?.wait === false) return;
    await this.flushes.waitForAll();
  }

  private checkWritable(): void {
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (this.writeRefusal !== undefined) throw this.writeRefusal;
    const walError = this.wal.error;
    if (walError !== undefined) throw walError;
    if (this.backgroundError !== undefined) throw this.backgroundError;
  }

  // ---------------------------------------------------------------- reads

  /**
   * The value of `key`, or undefined: a copy the caller owns — never the memtable arena or a
   * cached block, never backed by a SharedArrayBuffer (owned-bytes.ts: small values are cut
   * from a pooled plain ArrayBuffer, like Node's small Buffers). Write into it freely; keep
   * it as long as you like. For a zero-copy read, see `getView`.
   * `options`: ReadOptions (call-options.ts).
   */
  get(key: Uint8Array | string, options?: ReadOptions): Uint8Array | undefined {
    const v = this.readView(key, options);
    return v === undefined ? undefined : ownedCopy(v);
  }

  /**
   * The value of `key`, or undefined, WITHOUT a copy (seed 002; RocksDB's PinnableSlice,
   * lmdb-js's getBinaryFast): a view into the memtable arena (a SharedArrayBuffer), a cached
   * block, or a merge operator's result.
   *
   * Lifetime: valid until the next call into this database — any method of the database or
   * of one of its iterators. Read it (or copy it) before then; after that its bytes may be
   * another value's, or garbage (a cached block evicted and reused).
   *
   * Read-only: never write into it. It is the store's own memory: a write would change the
   * stored value, and the next flush would make the change durable. With SHALE_INVARIANTS=1
   * (tests) the next call checks that the view was not written into and throws an invariant
   * error if it was (view-guard.ts). Browsers' `TextDecoder` refuses SharedArrayBuffer views:
   * decode a `get` result there.
   */
  getView(key: Uint8Array | string, options?: ReadOptions): Uint8Array | undefined {
    const v = this.readView(key, options);
    return invariants ? this.views.record(v, "db.getView()") : v;
  }

  /** True if `key` has a value (what `get` would return is not undefined); no copy. */
  has(key: Uint8Array | string, options?: ReadOptions): boolean {
    return this.readView(key, options) !== undefined;
  }

  /** The read path of get, getView and has: checks, then the value as a view. */
  private readView(
    key: Uint8Array | string,
    options: ReadOptions | undefined,
  ): Uint8Array | undefined {
    if (invariants && this.views.pending) this.views.verify();
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
    const k = toBytes(key, "key");
    const snapshot = options === undefined ? this.lastSeq : this.readSequence(options);
    return this.reader.get(k, snapshot, this.mem, this.flushes.imm, options);
  }

  /** Validates read options (READ_OPTIONS) and returns the sequence number to read at. */
  private readSequence(options: ReadOptions): number {
    READ_OPTIONS.check(options);
    return options.snapshot !== undefined ? this.snapshots.check(options.snapshot) : this.lastSeq;
  }

  /**
   * `get` for many keys, all at one sequence number (one snapshot, even without
   * `options.snapshot`); results in the same order, each a copy the caller owns.
   */
  getMany(
    keys: readonly (Uint8Array | string)[],
    options?: ReadOptions,
  ): (Uint8Array | undefined)[] {
    if (!Array.isArray(keys)) throw new TypeError("getMany takes an array of keys");
    if (invariants && this.views.pending) this.views.verify();
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
    const snapshot = options === undefined ? this.lastSeq : this.readSequence(options);
    const out = new Array<Uint8Array | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = toBytes(keys[i], `keys[${i}]`);
      const v = this.reader.get(k, snapshot, this.mem, this.flushes.imm, options);
      out[i] = v === undefined ? undefined : ownedCopy(v);
    }
    return out;
  }

  /**
   * An iterator over the database as of `readOptions.snapshot` or now, within the range the
   * options give (`gt`/`gte`/`lowerBound`, `lt`/`lte`/`upperBound`: at most one per side;
   * `limit`). Unpositioned: call a seek first — or use it with
   * `for (const [key, value] of db.iterator())`, which yields copies the caller owns
   * (`reverse: true` walks backwards). The cursor's `key()`/`value()` are views valid until
   * the iterator next moves or closes (see DBIterator). It pins the memtables and table
   * files it reads until `close()` (for-of closes it at the end).
   */
  iterator(readOptions?: IteratorOptions): DBIterator {
    if (invariants && this.views.pending) this.views.verify();
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (readOptions !== undefined) ITERATOR_OPTIONS.check(readOptions);
    if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
    const ro = readOptions ?? {};
    const snapshotSeq =
      ro.snapshot !== undefined ? this.snapshots.check(ro.snapshot) : this.lastSeq;
    const range = resolveRange(ro, "readOptions");
    const settings: IteratorSettings = {
      comparator: this.icmp.user,
      mergeOperator: this.mergeOperator,
      snapshotSeq,
      reverse: ro.reverse === true,
      lowerBound: range.lower,
      upperBound: range.upper,
      lowerExclusive: range.lowerExclusive,
      upperInclusive: range.upperInclusive,
      limit: resolveLimit(ro.limit),
      statistics: this.stats,
      background: this.backgroundPoll,
    };
    const pin = this.pinCurrentVersion();
    const sources = {
      mem: this.mem,
      imm: this.flushes.imm,
      version: pin.version,
      tableCache: this.tableCache,
      icmp: this.icmp,
      readOptions: ro.fillCache !== undefined || ro.verifyChecksums !== undefined ? ro : undefined,
    };
    return openDBIterator(sources, pin, settings);
  }

  /**
   * Deletes every key in a range (all keys without one), atomically, in one write: range
   * options as for `iterator` (open ends allowed), `limit`/`reverse` to delete only the first
   * (last) keys, and write options. How an open range becomes a range tombstone: clear.ts.
   */
  clear(options?: ClearOptions): void {
    if (options !== undefined) CLEAR_OPTIONS.check(options);
    this.checkWritable();
    clearRange(this, options);
  }

  /** A snapshot of the current state; pass it as `readOptions.snapshot`, then `release()` it. */
  snapshot(options?: SnapshotOptions): Snapshot {
    if (options !== undefined) SNAPSHOT_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    if (this.closed) throw ShaleError.closed("the database is closed");
    return this.snapshots.create(this.lastSeq);
  }

  // ---------------------------------------------------------------- transactions (txn/)

  /**
   * Begins a transaction (txn/transaction.ts): optimistic (conflicts checked at `commit()`:
   * `Busy`, or `TryAgain` when the memtables cannot tell), or — on a database opened with
   * `transactionDB` — pessimistic (per-key locks; its writes and `getForUpdate` return
   * promises). `options.snapshot`: reads and conflict checks as of now (snapshot isolation).
   */
  beginTransaction(options?: TransactionOptions): Transaction {
    if (options !== undefined) TRANSACTION_OPTIONS.check(options);
    this.checkWritable();
    const host = this.transactionHost();
    const snapshot = options?.snapshot === true;
    if (this.txnLocks === undefined) {
      if (options?.lockTimeoutMs !== undefined || options?.deadlockDetect !== undefined)
        throw ShaleError.invalidArgument(
          "lockTimeoutMs and deadlockDetect are for pessimistic transactions (open with transactionDB)",
        );
      return new OptimisticTransaction(host, snapshot);
    }
    return new PessimisticTransaction(
      host,
      snapshot,
      options?.lockTimeoutMs ?? host.lockTimeoutMs,
      options?.deadlockDetect ?? host.deadlockDetect,
    );
  }

  /**
   * Runs `fn` in a new transaction and commits it; returns what `fn` returned. A commit (or,
   * pessimistic, a lock wait) failing with `Busy` or `TryAgain` runs `fn` again in a new
   * transaction, up to `options.retries` times (Default: 10); then the last error is
   * thrown. If `fn` throws anything else, the transaction is rolled back and the error
   * rethrown. `fn` may commit or roll back itself; then nothing more is done.
   */
  async transaction<T>(
    fn: (txn: Transaction) => T | Promise<T>,
    options?: RunTransactionOptions,
  ): Promise<T> {
    if (typeof fn !== "function") throw new TypeError("transaction() takes a function");
    if (options !== undefined) RUN_TRANSACTION_OPTIONS.check(options);
    const retries = options?.retries ?? 10;
    const begin: TransactionOptions | undefined =
      options?.snapshot === true ? { snapshot: true } : undefined;
    const commitOptions: WriteOptions | undefined =
      options?.sync === true ? { sync: true } : undefined;
    for (let attempt = 0; ; attempt++) {
      const txn = this.beginTransaction(begin);
      try {
        const result = await fn(txn);
        if (txn.isActive) txn.commit(commitOptions);
        return result;
      } catch (e) {
        if (txn.isActive) txn.rollback();
        const retry = ShaleError.isInstance(e) && (e.code === "Busy" || e.code === "TryAgain");
        if (!retry || attempt >= retries) throw e;
      }
    }
  }

  /** @internal what transactions use of the database. */
  transactionHost(): TransactionHost {
    if (this.txnHostCache !== undefined) return this.txnHostCache;
    const txnOptions = this.options.transactionDB;
    const host: TransactionHost = {
      db: this,
      locks: this.txnLocks,
      lockTimeoutMs: txnOptions?.lockTimeoutMs ?? 0,
      deadlockDetect: txnOptions?.deadlockDetect ?? false,
      lastSequence: () => this.lastSeq,
      snapshot: () => this.snapshot(),
      checkConflicts: (keys, result) => {
        if (this.closed) throw ShaleError.closed("the database is closed");
        return checkConflicts(
          keys,
          this.mem,
          this.flushes.imm,
          this.lastSeq,
          this.icmp.user,
          result,
        );
      },
      commitBatch: (batch, options) => this.writeBatch(batch, options),
      commitOne: (kind, key, value, options) => this.writeOne(kind, key, value, options, false),
      takeBatch: () => {
        const spare = this.spareTxnBatch;
        if (spare !== undefined) {
          this.spareTxnBatch = undefined;
          return spare;
        }
        return new WriteBatchWithIndex({
          comparator: this.icmp.user,
          ...(this.mergeOperator !== undefined ? { mergeOperator: this.mergeOperator } : {}),
        });
      },
      returnBatch: (batch) => {
        this.spareTxnBatch = batch;
      },
    };
    this.txnHostCache = host;
    return host;
  }

  /** @internal what a WriteBatchWithIndex needs to read through this database. */
  batchReadSupport(): BatchReadSupport {
    if (this.closed) throw ShaleError.closed("the database is closed");
    return { comparator: this.icmp.user, mergeOperator: this.mergeOperator };
  }

  /** The sequence number of the last write. */
  get latestSequence(): number {
    return this.lastSeq;
  }

  /**
   * A property of the database as a string, or undefined for an unknown name. Names:
   * `shale.num-files-at-level<N>`, `shale.bytes-at-level<N>`, `shale.levelstats`,
   * `shale.num-immutable-mem-table`, `shale.cur-size-active-mem-table`,
   * `shale.size-all-mem-tables`, `shale.num-entries-active-mem-table`, `shale.num-snapshots`,
   * `shale.oldest-snapshot-seq`, `shale.latest-sequence`, `shale.compaction-pending`,
   * `shale.num-running-compactions`, `shale.num-running-flushes`,
   * `shale.estimate-pending-compaction-bytes`, `shale.num-compactions`,
   * `shale.num-trivial-moves`, `shale.compact-read-bytes`, `shale.compact-write-bytes`,
   * `shale.flush-write-bytes`, `shale.write-amplification`, `shale.compaction-stats`,
   * `shale.stall-micros`, `shale.l0-slowdown-micros`, `shale.l0-stop-micros`,
   * `shale.memtable-stop-micros`, `shale.is-write-stopped`, `shale.actual-delayed-write-rate`,
   * `shale.stats`, `shale.recovery-dropped`, `shale.memtable-chunks-allocated`,
   * `shale.memtable-chunks-reused`, `shale.memtable-chunk-pool-bytes` (see properties.ts); `shale.ignored-column-families`
   * (the column families other than `default` shale leaves alone, one `id name` per line) and
   * `shale.best-efforts-recovery` (what a best-efforts open left out; "" when nothing).
   */
  getProperty(name: string): string | undefined {
    if (typeof name !== "string") throw new TypeError("property name must be a string");
    if (invariants && this.views.pending) this.views.verify();
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (name === "shale.ignored-column-families" || name === "shale.best-efforts-recovery")
      return recoveryProperty(name, this.versions);
    return formatProperty(name, {
      mem: this.mem,
      imm: this.flushes.imm,
      version: this.versions.current,
      snapshots: this.snapshots,
      lastSeq: this.lastSeq,
      stats: this.stats,
      blockCache: this.blockCache,
      backgroundError: this.backgroundError,
      compactions: this.compactions,
      stalls: this.writeController,
      runningFlushes: this.flushes.numRunning,
      recoveryDrops: this.recoveryDrops,
      chunkPool: this.chunkPool,
    });
  }

  // ---------------------------------------------------------------- compaction

  /**
   * Manual compaction (RocksDB's CompactRange): flushes the memtable, then compacts every
   * level's files overlapping the user keys [start, end] (inclusive; a missing bound is
   * open) into the next level, down to the deepest non-empty level (L1 at least), waiting
   * for each step. Deleted and overwritten entries that no snapshot needs are dropped on the
   * way, and tombstones at the last level. Automatic compactions pause meanwhile. Works with
   * `disableAutoCompactions`.
   */
  async compactRange(
    start?: Uint8Array | string,
    end?: Uint8Array | string,
    options?: CompactRangeOptions,
  ): Promise<void> {
    if (options !== undefined) COMPACT_RANGE_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    this.checkWritable();
    const lo = start === undefined ? undefined : toBytes(start, "start");
    const hi = end === undefined ? undefined : toBytes(end, "end");
    if (lo !== undefined && hi !== undefined && this.icmp.user.compare(lo, hi) > 0)
      throw ShaleError.invalidArgument("compactRange: start is after end");
    await this.flush();
    let range: KeyRange | undefined;
    if (lo !== undefined || hi !== undefined) {
      // An open bound becomes the smallest / largest key present.
      const files = this.versions.current.levels.flat();
      if (files.length === 0) return;
      const all = rangeOfFiles(this.icmp.user, files);
      range = {
        lo: lo ?? all.lo,
        hi: hi ?? all.hi,
        hiExclusive: hi === undefined ? all.hiExclusive : false,
      };
      if (this.icmp.user.compare(range.lo, range.hi) > 0) return;
    }
    await this.compactions.compactRange(range);
  }

  /**
   * Keeps the current version's files alive until `release()` (for iterators: a compaction
   * may replace the files meanwhile; they are deleted only once released). Cheap: one
   * reference count.
   */
  pinCurrentVersion(): PinnedVersion {
    if (this.closed) throw ShaleError.closed("the database is closed");
    const version = this.versions.current;
    version.ref();
    let held = true;
    return {
      version,
      release: () => {
        if (!held) return;
        held = false;
        version.unref();
      },
    };
  }

  /**
   * Resolves once the immutable memtables are flushed and no compaction is running or due
   * (RocksDB's WaitForCompact): for benchmarks, tests, and a quiet point before a backup
   * or a measurement. Rejects with the background error if a job failed.
   */
  async waitForCompactions(): Promise<void> {
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (this.flushes.imm.length > 0 && this.backgroundError === undefined) {
      await this.flushes.waitForAll();
    }
    await this.compactions.waitForIdle();
    await this.remover.whenIdle();
    if (this.backgroundError !== undefined) throw this.backgroundError;
  }

  /** @internal for tests and debugging: the current version (do not keep it without ref()). */
  debugVersion(): Version {
    return this.versions.current;
  }

  /**
   * Closes the database: running flushes finish (and are installed), running compactions
   * stop, the WAL is synced (unless a write to it failed), then every file handle and the
   * LOCK are released — always, whatever fails on the way, so a reopen in this process
   * works. Idempotent.
   *
   * Resolves if the database never failed. Otherwise it rejects, once, with the error that
   * made it read-only (the background error, or the failed WAL write), or with the first
   * error close itself hit; a later `close()` resolves. Nothing acknowledged is lost either
   * way: a reopen recovers it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    reportUnclosedIterators(this.tableCache, this.dir); // invariants mode only (issue 19)
    Atomics.store(new Int32Array(this.shutdown), 0, 1); // running compactions stop early
    let closeError: unknown;
    const attempt = (step: () => void) => {
      try {
        step();
      } catch (e) {
        closeError ??= e;
      }
    };
    if (invariants && this.views.pending) attempt(() => this.views.verify()); // still closes
    try {
      // Running flushes finish (and are installed) before the MANIFEST closes.
      await this.executor.close();
      retireMemtables(this.chunkPool, this.mem, this.flushes.imm);
    } catch (e) {
      closeError ??= e;
    }
    attempt(() => this.wal.syncUnlessFailed());
    attempt(() => this.wal.close());
    attempt(() => this.versions.close());
    attempt(() => this.tableCache.close());
    attempt(() => this.follower?.close());
    this.secondaryPins.close();
    const lock = this.lock;
    this.lock = undefined;
    attempt(() => lock?.release());
    this.flushes.rejectWaiters(() => ShaleError.closed("the database was closed"));
    this.txnLocks?.rejectAll(ShaleError.closed("the database was closed"));
    const failure = this.backgroundError ?? this.wal.error ?? closeError;
    if (failure !== undefined) throw failure;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  // ---------------------------------------------------------------- operations (issue 18)
  // Checkpoints, live files, approximate sizes, deleting files in a range, verifying
  // checksums: each in its own file under ops/, handed the database's parts as an OpsHost.
  // Backups (ops/backup/) go through `BackupEngine`, which calls `opsHost`.

  /**
   * An openable copy of the database as of this call, in `dir` (which must not exist, or be
   * empty): tables hard-linked where the file system allows, MANIFEST and WALs copied up to
   * their sizes at the moment of the call (RocksDB's Checkpoint). Writes go on meanwhile and
   * are not in the copy. See ops/checkpoint.ts.
   */
  checkpoint(dir: string, options?: CheckpointOptions): Promise<CheckpointInfo> {
    return createCheckpoint(this.opsHost(), dir, options);
  }

  /**
   * The files that make up the database now (RocksDB's GetLiveFiles): tables with level,
   * size and key range; the MANIFEST and its size; CURRENT; OPTIONS; live WALs with sizes.
   */
  getLiveFiles(): LiveFiles {
    return liveFiles(this.opsHost());
  }

  /**
   * Approximate bytes on disk (and, with `includeMemtables`, in memtables) of each user-key
   * range `[start, end)` (RocksDB's GetApproximateSizes). See ops/approximate-sizes.ts.
   */
  getApproximateSizes(ranges: readonly SizeRange[], options?: ApproximateSizeOptions): number[] {
    return approximateSizes(this.opsHost(), ranges, options);
  }

  /**
   * Drops every table of L1 and deeper that lies wholly inside the user keys [start, end]
   * (RocksDB's DeleteFilesInRange): frees space at once, but is not a consistent delete —
   * see ops/delete-files-in-range.ts before using it.
   */
  deleteFilesInRange(
    start: Uint8Array | string | undefined,
    end: Uint8Array | string | undefined,
  ): DeletedFiles {
    return deleteFilesInRange(this.opsHost(), start, end);
  }

  /**
   * Re-reads every block of every live table and every record of the live WALs and the
   * MANIFEST, checking checksums (RocksDB's VerifyChecksum). Throws Corruption (file and
   * offset) at the first damage, or with `{ collect: true }` reports every problem.
   */
  verifyChecksums(options?: VerifyChecksumsOptions): VerifyReport {
    return verifyChecksums(this.opsHost(), options);
  }

  /** @internal What ops/ (and BackupEngine) use of the database. */
  opsHost(): OpsHost {
    if (this.opsHostCache !== undefined) return this.opsHostCache;
    const host: OpsHost = {
      dir: this.dir,
      fs: this.fs,
      icmp: this.icmp,
      versions: this.versions,
      tableCache: this.tableCache,
      statistics: this.stats,
      mem: () => this.mem,
      imm: () => this.flushes.imm,
      lastSequence: () => this.lastSeq,
      checkOpen: () => {
        if (this.closed) throw ShaleError.closed("the database is closed");
      },
      checkWritable: () => this.checkWritable(),
      takeFinished: () => {
        if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
      },
      pinVersion: () => this.pinCurrentVersion(),
      holdFileDeletions: () => this.deletionHold.hold(),
      flush: () => this.flush(),
      busyFiles: () => this.compactions.busy,
      applyEdit: (edit) => {
        this.versions.logAndApply(edit);
        this.versionChanged();
      },
    };
    this.opsHostCache = host;
    return host;
  }

  /** @internal for tests: the path of table `n`. */
  tablePath(n: number): string {
    return tableFileName(this.dir, n);
  }

  // ------------------------------------------ read-only and secondary instances (issue 18)
  // secondary/follower.ts does the work; these delegate.

  /**
   * Opens a secondary instance of the database in `primaryDir` (RocksDB's OpenAsSecondary):
   * it reads the primary's MANIFEST and WALs — beside the primary, in another process — and
   * `tryCatchUpWithPrimary()` brings it up to date. Writes, flushes and compactions throw
   * NotSupported. The primary keeps the files it reads until it catches up or its lease
   * (`options.secondaryLeaseMs`, renewed in the background) ends: the secondary registers
   * in `primaryDir/secondaries/` (docs/formats/secondary-registration.md), so it needs
   * write access there (without it, it works unregistered). `secondaryDir` (RocksDB's
   * secondary path, optional) is created and locked: one secondary per directory.
   */
  static async openAsSecondary(
    primaryDir: string,
    secondaryDir?: string,
    options?: DbOptions & SecondaryOptions,
  ): Promise<DB> {
    if (typeof primaryDir !== "string" || primaryDir.length === 0)
      throw new TypeError("primaryDir must be a non-empty string");
    if (secondaryDir !== undefined && (typeof secondaryDir !== "string" || secondaryDir === ""))
      throw new TypeError("secondaryDir must be a non-empty string when given");
    const { leaseMs, rest } = resolveSecondaryOptions(options);
    const resolved = resolveOptions(rest);
    if (resolved.readOnly)
      throw ShaleError.invalidArgument("options.readOnly does not go with openAsSecondary");
    return DB.openFollower(primaryDir, resolved, "secondary", secondaryDir, leaseMs);
  }

  /**
   * A secondary instance reads what the primary appended to its MANIFEST and WALs since the
   * last call and installs it (RocksDB's TryCatchUpWithPrimary): afterwards reads see every
   * write the primary had handed to the OS before the call (every synced write). Synchronous.
   * NotSupported on a primary or read-only instance.
   */
  tryCatchUpWithPrimary(): CatchUpResult {
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (this.follower?.role !== "secondary")
      throw ShaleError.notSupported(
        "tryCatchUpWithPrimary needs a secondary instance (DB.openAsSecondary)",
      );
    return this.follower.catchUp();
  }

  /** "primary" (opened for writing), "readOnly" or "secondary". */
  get role(): DbRole {
    return this.follower?.role ?? "primary";
  }

  private static async openFollower(
    dir: string,
    resolved: ResolvedOptions,
    role: "readOnly" | "secondary",
    secondaryDir: string | undefined,
    leaseMs: number,
  ): Promise<DB> {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("dir must be a non-empty string");
    if (resolved.bestEffortsRecovery)
      throw ShaleError.notSupported(`bestEffortsRecovery does not go with a ${role} open`);
    const icmp = new InternalKeyComparator(resolved.comparator);
    const fs = resolved.fs;
    let lock: FileLock = { path: dir, release() {} };
    if (secondaryDir !== undefined) {
      fs.mkdir(secondaryDir);
      lock = fs.lock(lockFileName(secondaryDir));
    }
    let db: DB | undefined;
    try {
      const follower = new Follower(fs, dir, icmp, {
        role,
        walRecoveryMode: resolved.walRecoveryMode,
        leaseMs,
        maxOpenFiles: resolved.maxOpenFiles,
      });
      db = new DB(dir, resolved, followerState(dir, resolved, icmp, follower), lock);
      follower.attach(db.followerHost());
      follower.catchUp();
      return db;
    } catch (e) {
      if (db !== undefined) await db.close().catch(() => {});
      else lock.release();
      throw e;
    }
  }

  /** What the follower changes in this db (secondary/follower.ts). */
  private followerHost(): FollowerHost {
    const db = this;
    return {
      versions: this.versions,
      tableCache: this.tableCache,
      setMemTables: (mem, imm) => {
        this.mem = mem;
        this.flushes.imm.splice(0, this.flushes.imm.length, ...imm);
      },
      get lastSequence() {
        return db.lastSeq;
      },
      setLastSequence: (seq) => {
        this.lastSeq = seq;
        this.versions.lastSequence = seq;
      },
    };
  }
}
