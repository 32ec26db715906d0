/**
 * The database, as a facade: it checks arguments and state, and drives the parts.
 *
 * - The trees: one `ColumnFamilyData` per column family (column-family/column-family-data.ts):
 *   its memtables, flushes, compactions and write stalls, and the scheduler callbacks.
 * - Writes: column-family/write-loop.ts (sequence numbers -> the shared WAL -> the family's
 *   memtable; a full memtable is switched by its family). The data methods (`put`, `get`,
 *   `iterator`, `flush`, ...) are column-family/family-methods.ts, which DB extends for
 *   `default`.
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
  type FileLock,
  type FileSystem,
  InternalKeyComparator,
  invariants,
  NodeFileSystem,
  ShaleError,
  type Statistics,
} from "@shale/base";
import type { LRUCache } from "@shale/block-cache";
import { MemTable } from "@shale/memtable";
import { type Block, TableCache } from "@shale/sstable";
import { type BackgroundExecutor, InlineExecutor } from "./background/executor.js";
import { FileRemover } from "./background/file-remover.js";
import { builtinComparator } from "./background/protocol.js";
import { WorkerExecutor } from "./background/worker-executor.js";
import { BlobFileCache } from "./blob/blob-source.js";
import {
  ColumnFamilyData,
  type ColumnFamilyHost,
  emptyMemTables,
  type RecoveredMemTables,
} from "./column-family/column-family-data.js";
import { DbStatus } from "./column-family/db-status.js";
import { ColumnFamilyMethods } from "./column-family/family-methods.js";
import { ColumnFamilyHandle } from "./column-family/handle.js";
import { WriteLoop } from "./column-family/write-loop.js";
import { type TableIdentity, tableWriteOptions } from "./compaction/build-table.js";
import {
  ITERATOR_OPTIONS,
  type IteratorOptions,
  SNAPSHOT_OPTIONS,
  type SnapshotOptions,
  type WriteOptions,
} from "./core/call-options.js";
import { blobFileName, lockFileName, tableFileName } from "./core/filenames.js";
import {
  type ColumnFamilyOptions,
  type DbOptions,
  OPEN_OPTIONS,
  type ResolvedOptions,
  resolveColumnFamilyOptions,
  resolveOptions,
} from "./core/options.js";
import { readNewestOptions } from "./core/options-file.js";
import { pauseEnd, pauseStart, tracingPauses } from "./core/pause-trace.js";
import { type Snapshot, SnapshotList } from "./core/snapshot.js";
import {
  RUN_TRANSACTION_OPTIONS,
  type RunTransactionOptions,
  TRANSACTION_OPTIONS,
  type TransactionOptions,
} from "./core/transaction-options.js";
import { loadCodecs } from "./core/wal-codecs.js";
import type { DBIterator } from "./iterator/index.js";
import { checkFollowerFamilies, followerState } from "./open/follower-state.js";
import { familyComparator, type RecoveredState, recover, writeOptions } from "./open/recovery.js";
import { refuseInterruptedRestore } from "./ops/backup/restore-marker.js";
import { type CheckpointInfo, type CheckpointOptions, createCheckpoint } from "./ops/checkpoint.js";
import { type DeletedFiles, deleteFilesInRange } from "./ops/delete-files-in-range.js";
import { FileDeletionHold } from "./ops/file-deletions.js";
import type { OpsFamily, OpsHost } from "./ops/host.js";
import { type LiveFiles, liveFiles } from "./ops/live-files.js";
import {
  type VerifyChecksumsOptions,
  type VerifyReport,
  verifyChecksums,
} from "./ops/verify-checksums.js";
import { reportUnclosedIterators } from "./read/iterator-sources.js";
import {
  type CatchUpResult,
  type DbRole,
  Follower,
  type FollowerHost,
} from "./secondary/follower.js";
import { SecondaryPins } from "./secondary/primary-pins.js";
import { resolveSecondaryOptions, type SecondaryOptions } from "./secondary/secondary-options.js";
import { type ConflictFamily, checkConflicts } from "./txn/conflict-check.js";
import { LockManager } from "./txn/lock-manager.js";
import {
  OptimisticTransaction,
  PessimisticTransaction,
  type Transaction,
  type TransactionHost,
} from "./txn/transaction.js";
import { listColumnFamilies } from "./version/list-families.js";
import type { FamilyVersions, Version, VersionSet } from "./version/version-set.js";
import { retireMemtables } from "./write/chunk-pool.js";
import type { BatchFamily, WriteBatch } from "./write/write-batch.js";
import { WriteBatchWithIndex } from "./write/write-batch-with-index.js";
import { ActiveWal } from "./write/write-path.js";

export type { PinnedVersion } from "./column-family/family-methods.js";
export type { ImmutableMemTable } from "./write/immutable-memtable.js";

export class DB extends ColumnFamilyMethods {
  readonly dir: string;
  private readonly fs: FileSystem;
  private readonly icmp: InternalKeyComparator;
  private readonly stats: Statistics | undefined;
  private readonly versions: VersionSet;
  private lock: FileLock | undefined;
  /** The current WAL, shared by every column family (see ActiveWal). */
  private readonly wal: ActiveWal;
  private readonly blockCache: LRUCache<Block>;
  private readonly tableCache: TableCache;
  /** The blob files of every family (RocksDB's blob files, blob/blob-source.ts). */
  private readonly blobs: BlobFileCache;
  private readonly executor: BackgroundExecutor;
  /** The column families by id; `default` (0) is also `this.cf`. */
  private readonly families: Map<number, ColumnFamilyData>;
  private readonly handles = new Map<ColumnFamilyData, ColumnFamilyHandle>();
  private readonly options: ResolvedOptions;
  private readonly identity: TableIdentity;
  private readonly familyHost: ColumnFamilyHost;
  /** Deletes obsolete tables and WALs. */
  private readonly remover: FileRemover;
  /** Int32Array(1) shared with compaction jobs: set on close so they stop early. */
  private readonly shutdown: SharedArrayBuffer;
  /** Operations (issue 18): file deletions held by checkpoints and backups (ops/file-deletions.ts). */
  private readonly deletionHold = new FileDeletionHold((paths) => {
    // After close the next open removes what is obsolete.
    if (!this.status.closed) this.removeFiles(paths);
  });
  private opsHostCache: OpsHost | undefined;
  /** Read-only and secondary instances: what follows the primary (secondary/follower.ts). */
  private readonly follower: Follower | undefined;
  /** Obsolete files kept while a secondary reads them (secondary/primary-pins.ts). */
  private readonly secondaryPins: SecondaryPins;
  /** A TransactionDB's key locks (txn/lock-manager.ts); undefined otherwise. */
  private readonly txnLocks: LockManager | undefined;
  private txnHostCache: TransactionHost | undefined;
  /** What the conflict check reads of family `id` (undefined: not open). */
  private readonly conflictFamily = (id: number): ConflictFamily | undefined => {
    const cf = this.families.get(id);
    if (cf === undefined || cf.dropped) return undefined;
    return {
      mem: cf.mem,
      imm: cf.flushes.imm,
      comparator: cf.icmp.user,
      memCreatedSeq: cf.memCreatedSeq,
    };
  };
  /** A finished transaction's batch, kept for the next transaction. */
  private spareTxnBatch: WriteBatchWithIndex | undefined;

  private constructor(
    dir: string,
    options: ResolvedOptions,
    state: RecoveredState,
    lock: FileLock,
  ) {
    const fs = options.fs;
    const statistics = options.statistics;
    const versions = state.versions;
    const wal = new ActiveWal(state.wal, state.logNumber, statistics, state.memLogNumber);
    const status = new DbStatus(wal);
    status.writeRefusal = state.writeRefusal;
    const tableCache = newTableCache(dir, options, state.icmp);
    const blobs = new BlobFileCache({ fs, dir });
    const workers =
      fs instanceof NodeFileSystem &&
      builtinComparator(state.icmp.name) !== undefined &&
      state.follower === undefined;
    const executor = workers
      ? new WorkerExecutor(options.maxBackgroundJobs, fs, options.compactionCpuPriority)
      : new InlineExecutor(fs);
    const snapshots = new SnapshotList();
    const shutdown = new SharedArrayBuffer(4);
    const takeFinished = () => this?.takeFinished();
    let families: Map<number, ColumnFamilyData> | undefined;
    const host: ColumnFamilyHost = {
      dir,
      fs,
      executor,
      statistics,
      snapshots,
      versions,
      tableCache,
      blobs,
      shutdown,
      wal,
      status,
      follower: state.follower !== undefined,
      removeFiles: (paths) => this?.removeFiles(paths),
      // A WAL is deleted only once every family with data in it has flushed.
      minLogToKeep: () => {
        let min = wal.number;
        for (const f of families!.values()) if (f.oldestLogNeeded < min) min = f.oldestLogNeeded;
        return min;
      },
    };
    const own = state.families.get(0)?.options ?? options;
    const cf = new ColumnFamilyData(
      host,
      versions.defaultFamily,
      own,
      tableWriteOptions(own, state.identity, versions.defaultFamily),
      state,
    );
    families = new Map([[0, cf]]);
    const finished = executor.finished;
    const writes = new WriteLoop(
      {
        wal,
        versions,
        statistics,
        status,
        finished,
        takeFinished,
        familyOf: (h) => this.familyOf(h),
      },
      cf,
      versions.lastSequence,
    );
    super(
      {
        status,
        writes,
        snapshots,
        versions,
        tableCache,
        statistics,
        finished,
        backgroundPoll: { finished, take: takeFinished },
        takeFinished,
        blockCache: options.blockCache,
        recoveryDrops: state.drops,
      },
      cf,
    );
    this.families = families;
    this.options = options;
    this.identity = state.identity;
    this.familyHost = host;
    this.dir = dir;
    this.fs = fs;
    this.icmp = state.icmp;
    this.stats = statistics;
    this.versions = versions;
    this.lock = lock;
    this.wal = wal;
    this.follower = state.follower;
    this.secondaryPins = new SecondaryPins(fs, dir, (paths) => this.removeFiles(paths));
    this.blockCache = options.blockCache;
    this.tableCache = tableCache;
    this.blobs = blobs;
    this.executor = executor;
    this.shutdown = shutdown;
    this.remover = new FileRemover(executor);
    this.txnLocks = options.transactionDB !== undefined ? new LockManager() : undefined;
    writes.locks = this.txnLocks;
    for (const [id, f] of state.families) {
      if (id === 0) continue;
      const own = f.versions.icmp.name === state.icmp.name ? tableCache : undefined;
      this.addFamily(f.versions, f.options, f, own);
    }
    status.onFailure = (failure) => {
      for (const family of this.families.values()) family.flushes.rejectWaiters(() => failure);
    };
    this.versions.onObsoleteFiles = (numbers, blobNumbers) => {
      this.removeTables(numbers);
      if (blobNumbers.length > 0) {
        for (const n of blobNumbers) blobs.evict(n);
        this.removeFiles(blobNumbers.map((n) => blobFileName(this.dir, n)));
      }
    };
    // The memtables a WAL replay left (avoidFlushDuringRecovery) go to the background flush.
    for (const family of this.families.values()) family.start();
  }

  /**
   * Deletes tables no version refers to any more (and forgets their cached blocks). The
   * unlinking happens off the main thread with worker threads.
   */
  private removeTables(numbers: number[]): void {
    for (const f of this.families.values())
      if (f.tableCache !== this.tableCache) for (const n of numbers) f.tableCache.evict(n);
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
    if (this.status.backgroundError !== undefined || this.wal.error !== undefined) return;
    if (this.deletionHold.defer(paths)) return;
    this.remover.remove(this.secondaryPins.keep(paths));
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
    if (this.status.closed) return;
    for (const family of this.families.values()) if (family.reader.inGet) return;
    const t0 = tracingPauses ? pauseStart() : 0;
    this.executor.takeFinished();
    if (tracingPauses) pauseEnd(t0, "take finished jobs");
  }

  /** Opens (creating if allowed) the database in `dir`. See DbOptions for the options. */
  static async open(dir: string, options?: DbOptions): Promise<DB> {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("dir must be a non-empty string");
    const resolved = resolveOptions(options);
    await loadCodecs();
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
  // put, delete, merge, deleteRange, flush: column-family/family-methods.ts.

  /**
   * Applies a batch (a WriteBatch, or a WriteBatchWithIndex's batch) atomically: all of it
   * or none of it survives a crash.
   */
  write(batch: WriteBatch | WriteBatchWithIndex, options?: WriteOptions): void {
    this.writes.write(
      batch instanceof WriteBatchWithIndex ? batch.getWriteBatch() : batch,
      options,
    );
  }

  // ---------------------------------------------------------------- column families

  /** The names of the column families, in RocksDB's id order ("default" first). */
  listColumnFamilies(): string[] {
    this.status.checkOpen();
    return [...this.families.values()].sort((a, b) => a.id - b.id).map((f) => f.name);
  }

  /** The column families of the database in `dir`, without opening it (id order). */
  static listColumnFamilies(dir: string, options?: { fs?: FileSystem }): string[] {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("dir must be a non-empty string");
    return listColumnFamilies(options?.fs ?? resolveOptions({}).fs, dir);
  }

  /**
   * The handle of column family `name`: the database's data methods on that family (see
   * column-family/handle.ts). InvalidArgument naming it when the database has no such family.
   */
  columnFamily(name: string): ColumnFamilyHandle {
    if (typeof name !== "string") throw new TypeError("column family name must be a string");
    this.status.checkOpen();
    for (const f of this.families.values()) if (f.name === name) return this.handleOf(f);
    throw ShaleError.invalidArgument(`unknown column family: "${name}"`);
  }

  /**
   * Creates column family `name` with `options` (the database's where not given): one synced
   * MANIFEST edit, and a new OPTIONS file with its sections. InvalidArgument if it exists.
   */
  async createColumnFamily(
    name: string,
    options?: ColumnFamilyOptions,
  ): Promise<ColumnFamilyHandle> {
    if (typeof name !== "string" || name.length === 0)
      throw new TypeError("column family name must be a non-empty string");
    this.checkWritable();
    if (this.versions.familyByName(name) !== undefined)
      throw ShaleError.invalidArgument(`column family already exists: "${name}"`);
    if (options !== undefined) OPEN_OPTIONS.check({ columnFamilies: { [name]: options } });
    const own = resolveColumnFamilyOptions(this.options, name, options);
    const icmp = new InternalKeyComparator(own.comparator);
    const versions = this.versions.addFamily(name, icmp, this.wal.number);
    const mem = new MemTable({ comparator: icmp.user });
    const cache = icmp.name === this.icmp.name ? this.tableCache : undefined;
    const cf = this.addFamily(
      versions,
      own,
      { mem, imm: [], memLogNumber: this.wal.number },
      cache,
    );
    this.rewriteOptions();
    cf.start();
    return this.handleOf(cf);
  }

  /**
   * Drops column family `name` (not `default`): its running flush or compactions finish,
   * one synced MANIFEST edit drops it, and its tables are deleted once no iterator reads
   * them. Its handles throw InvalidArgument ("column family dropped") from then on.
   */
  async dropColumnFamily(name: string): Promise<void> {
    if (typeof name !== "string") throw new TypeError("column family name must be a string");
    this.status.checkWritable();
    if (name === "default")
      throw ShaleError.invalidArgument('the "default" column family cannot be dropped');
    const cf = [...this.families.values()].find((f) => f.name === name);
    if (cf === undefined) throw ShaleError.invalidArgument(`unknown column family: "${name}"`);
    cf.dropped = true; // no new writes, flushes or compactions
    while (cf.flushes.numRunning > 0 || cf.compactions.numRunning > 0)
      await new Promise((resolve) => setTimeout(resolve, 2));
    this.versions.dropFamily(cf.versions);
    this.families.delete(cf.id);
    retireMemtables(cf.chunkPool, cf.mem, cf.flushes.imm);
    this.rewriteOptions();
  }

  /**
   * Iterators over several column families at one sequence number (`readOptions.snapshot`,
   * or now): a consistent view across families. Close each.
   */
  iterators(handles: readonly ColumnFamilyHandle[], readOptions?: IteratorOptions): DBIterator[] {
    if (!Array.isArray(handles)) throw new TypeError("iterators takes an array of handles");
    this.status.checkOpen();
    if (readOptions !== undefined) ITERATOR_OPTIONS.check(readOptions);
    const ro = readOptions ?? {};
    const seq = ro.snapshot !== undefined ? this.snapshots.check(ro.snapshot) : this.writes.lastSeq;
    for (const h of handles) this.familyOf(h);
    return handles.map((h) => h.iteratorAt(ro, seq));
  }

  protected batchFamily(): undefined {
    return undefined;
  }

  /** The tree a handle names; InvalidArgument for another database's handle or a dropped family. */
  private familyOf(handle: BatchFamily): ColumnFamilyData {
    const cf = handle instanceof ColumnFamilyHandle ? handle.familyFor(this.core) : undefined;
    if (cf === undefined)
      throw ShaleError.invalidArgument("the column family handle belongs to another database");
    if (cf.dropped) throw cf.droppedError();
    return cf;
  }

  private handleOf(cf: ColumnFamilyData): ColumnFamilyHandle {
    let h = this.handles.get(cf);
    if (h === undefined) {
      h = new ColumnFamilyHandle(this.core, cf);
      this.handles.set(cf, h);
    }
    return h;
  }

  /** Adds a family's tree (at open, or created); `tableCache`: shared, else its own. */
  private addFamily(
    versions: FamilyVersions,
    options: ResolvedOptions,
    recovered: RecoveredMemTables,
    tableCache?: TableCache,
  ): ColumnFamilyData {
    const cache = tableCache ?? newTableCache(this.dir, options, versions.icmp);
    const table = tableWriteOptions(options, this.identity, versions);
    const cf = new ColumnFamilyData(this.familyHost, versions, options, table, recovered, cache);
    this.families.set(cf.id, cf);
    return cf;
  }

  /** A new OPTIONS file with every family's sections. */
  private rewriteOptions(): void {
    const previous = readNewestOptions(this.fs, this.dir)?.sections ?? [];
    const families = new Map(
      [...this.families].map(([id, f]) => [id, { options: f.options, versions: f.versions }]),
    );
    writeOptions(this.fs, this.dir, this.versions, this.options, previous, Infinity, families);
  }

  // ---------------------------------------------------------------- reads
  // get, getView, has, getMany, iterator: column-family/family-methods.ts.

  /** A snapshot of the current state; pass it as `readOptions.snapshot`, then `release()` it. */
  snapshot(options?: SnapshotOptions): Snapshot {
    if (options !== undefined) SNAPSHOT_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    this.status.checkOpen();
    return this.snapshots.create(this.writes.lastSeq);
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
      lastSequence: () => this.writes.lastSeq,
      snapshot: () => this.snapshot(),
      checkFamily: (handle) => {
        if (!(handle instanceof ColumnFamilyHandle))
          throw new TypeError("the column family must be a handle from db.columnFamily()");
        this.familyOf(handle);
        return handle;
      },
      checkConflicts: (keys, result) => {
        this.status.checkOpen();
        return checkConflicts(keys, this.conflictFamily, this.writes.lastSeq, result);
      },
      commitBatch: (batch, options) => this.writes.write(batch, options, false),
      commitOne: (kind, key, value, options) =>
        this.writes.writeOne(this.cf, kind, key, value, options, false),
      takeBatch: () => {
        const spare = this.spareTxnBatch;
        if (spare !== undefined) {
          this.spareTxnBatch = undefined;
          return spare;
        }
        const cf = this.cf;
        return new WriteBatchWithIndex({
          comparator: cf.icmp.user,
          ...(cf.mergeOperator !== undefined ? { mergeOperator: cf.mergeOperator } : {}),
        });
      },
      returnBatch: (batch) => {
        this.spareTxnBatch = batch;
      },
    };
    this.txnHostCache = host;
    return host;
  }

  /** The sequence number of the last write. */
  get latestSequence(): number {
    return this.writes.lastSeq;
  }

  /**
   * Resolves once the immutable memtables are flushed and no compaction is running or due
   * (RocksDB's WaitForCompact): for benchmarks, tests, and a quiet point before a backup
   * or a measurement. Rejects with the background error if a job failed.
   */
  async waitForCompactions(): Promise<void> {
    this.status.checkOpen();
    for (const family of this.families.values()) await family.waitForCompactions();
    await this.remover.whenIdle();
    if (this.status.backgroundError !== undefined) throw this.status.backgroundError;
  }

  /** @internal for tests and debugging: the current version (do not keep it without ref()). */
  debugVersion(): Version {
    return this.cf.current;
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
    if (this.status.closed) return;
    this.status.closed = true;
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
      for (const f of this.families.values()) retireMemtables(f.chunkPool, f.mem, f.flushes.imm);
    } catch (e) {
      closeError ??= e;
    }
    attempt(() => this.wal.syncUnlessFailed());
    attempt(() => this.wal.close());
    attempt(() => this.versions.close());
    for (const f of this.families.values())
      if (f.tableCache !== this.tableCache) attempt(() => f.tableCache.close());
    attempt(() => this.tableCache.close());
    attempt(() => this.blobs.close());
    attempt(() => this.follower?.close());
    this.secondaryPins.close();
    const lock = this.lock;
    this.lock = undefined;
    attempt(() => lock?.release());
    for (const f of this.families.values())
      f.flushes.rejectWaiters(() => ShaleError.closed("the database was closed"));
    this.txnLocks?.rejectAll(ShaleError.closed("the database was closed"));
    const failure = this.status.backgroundError ?? this.wal.error ?? closeError;
    if (failure !== undefined) throw failure;
  }

  get isClosed(): boolean {
    return this.status.closed;
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
   * Drops every table of L1 and deeper that lies wholly inside the user keys [start, end]
   * (RocksDB's DeleteFilesInRange), in the family of `columnFamily` (Default: `default`):
   * frees space at once, but is not a consistent delete — see ops/delete-files-in-range.ts
   * before using it.
   */
  deleteFilesInRange(
    start: Uint8Array | string | undefined,
    end: Uint8Array | string | undefined,
    columnFamily?: ColumnFamilyHandle,
  ): DeletedFiles {
    return deleteFilesInRange(this.opsHost(), start, end, columnFamily);
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
      mem: () => this.cf.mem,
      imm: () => this.cf.flushes.imm,
      lastSequence: () => this.writes.lastSeq,
      checkOpen: () => {
        this.status.checkOpen();
      },
      checkWritable: () => this.checkWritable(),
      takeFinished: () => {
        if (Atomics.load(this.finished, 0) !== 0) this.takeFinished();
      },
      pinVersion: () => this.pinCurrentVersion(),
      holdFileDeletions: () => this.deletionHold.hold(),
      flush: () => this.flush(),
      family: (handle) => {
        if (handle !== undefined && !(handle instanceof ColumnFamilyHandle))
          throw new TypeError("the column family must be a handle from db.columnFamily()");
        return this.opsFamily(handle === undefined ? this.cf : this.familyOf(handle));
      },
    };
    this.opsHostCache = host;
    return host;
  }

  /** One family as ops/ sees it. */
  private opsFamily(cf: ColumnFamilyData): OpsFamily {
    return {
      icmp: cf.icmp,
      current: () => cf.current,
      busyFiles: () => cf.compactions.busy,
      applyEdit: (edit) => {
        cf.versions.logAndApply(edit);
        cf.versionChanged();
      },
    };
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
    await loadCodecs();
    return DB.openFollower(primaryDir, resolved, "secondary", secondaryDir, leaseMs);
  }

  /**
   * A secondary instance reads what the primary appended to its MANIFEST and WALs since the
   * last call and installs it (RocksDB's TryCatchUpWithPrimary): afterwards reads see every
   * write the primary had handed to the OS before the call (every synced write). Synchronous.
   * NotSupported on a primary or read-only instance.
   */
  tryCatchUpWithPrimary(): CatchUpResult {
    this.status.checkOpen();
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
        familyComparator: familyComparator(resolved, icmp),
        role,
        walRecoveryMode: resolved.walRecoveryMode,
        leaseMs,
        maxOpenFiles: resolved.maxOpenFiles,
      });
      db = new DB(dir, resolved, followerState(dir, resolved, icmp, follower), lock);
      follower.attach(db.followerHost());
      follower.catchUp();
      checkFollowerFamilies(dir, resolved, db.listColumnFamilies());
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
      familiesChanged: ({ added, dropped }) => {
        for (const v of dropped) this.families.get(v.id)?.retire(this.families);
        for (const v of added) {
          const own = {
            ...resolveColumnFamilyOptions(this.options, v.name),
            comparator: v.icmp.user,
          };
          const cache = v.icmp.name === this.icmp.name ? this.tableCache : undefined;
          this.addFamily(v, own, emptyMemTables(v.icmp), cache).start();
        }
      },
      openTable: (id, icmp, n, size) => {
        const cache = this.families.get(id)?.tableCache;
        (cache ?? (icmp.name === this.icmp.name ? this.tableCache : undefined))?.get(n, size);
      },
      setMemTables: (id, mem, imm) => this.families.get(id)?.followMemTables(mem, imm),
      get lastSequence() {
        return db.writes.lastSeq;
      },
      setLastSequence: (seq) => {
        this.writes.lastSeq = seq;
        this.versions.lastSequence = seq;
      },
    };
  }
}

/** A table cache for tables ordered by `icmp` (families of other comparators get their own). */
function newTableCache(
  dir: string,
  options: ResolvedOptions,
  icmp: InternalKeyComparator,
): TableCache {
  const statistics = options.statistics;
  return new TableCache({
    fs: options.fs,
    path: (n) => tableFileName(dir, n),
    capacity: options.maxOpenFiles,
    comparator: icmp.user,
    blockCache: options.blockCache,
    cacheIndexAndFilterBlocks: options.cacheIndexAndFilterBlocks,
    ...(statistics !== undefined ? { statistics } : {}),
  });
}
