/**
 * The database, as a facade: it checks arguments and state, and drives the parts, which
 * open/assemble.ts builds from what recovery found.
 *
 * - The trees: one `ColumnFamilyData` per column family (column-family/column-family-data.ts):
 *   its memtables, flushes, compactions and write stalls, and the scheduler callbacks; the
 *   set of them, their handles, creating and dropping: column-family/column-family-set.ts.
 * - Writes: column-family/write-loop.ts (sequence numbers -> the shared WAL -> the family's
 *   memtable; a full memtable is switched by its family). The data methods (`put`, `get`,
 *   `iterator`, `flush`, ...) are column-family/family-methods.ts, which DB extends for
 *   `default`.
 * - Point reads: read/read-path.ts. Iterators: read/iterator-sources.ts and iterator/.
 *   Snapshots: core/snapshot.ts. Open: open/recovery.ts; close: open/close.ts.
 * - Obsolete files (deleted now, later or never): ops/obsolete-files.ts.
 * - Transactions: txn/db-transactions.ts. Operations (checkpoints, backups, live files,
 *   sizes, checksums): ops/, through an OpsHost.
 * - Read-only and secondary instances: secondary/; readers in worker threads: reader/
 *   (`readerHandle`: column-family/reader-handle.ts); repair: repair/repair.ts.
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
  ShaleError,
  type Statistics,
} from "@shale/base";
import type { TableCache } from "@shale/sstable";
import type { BackgroundExecutor } from "./background/executor.js";
import type { ColumnFamilySet } from "./column-family/column-family-set.js";
import { ColumnFamilyMethods } from "./column-family/family-methods.js";
import { ColumnFamilyHandle } from "./column-family/handle.js";
import { type IngestExternalFileArg, ingestRequests } from "./column-family/ingest-files-arg.js";
import { ingestTargetOf } from "./column-family/ingest-target-of.js";
import { opsFamilyOf } from "./column-family/ops-family.js";
import { type ReaderHandle, readerHandleOf } from "./column-family/reader-handle.js";
import {
  ITERATOR_OPTIONS,
  type IteratorOptions,
  SNAPSHOT_OPTIONS,
  type SnapshotOptions,
  type WriteOptions,
} from "./core/call-options.js";
import { lockFileName, tableFileName } from "./core/filenames.js";
import { hasModules, preloadFamilyOptions, preloadModuleOptions } from "./core/module-options.js";
import {
  type ColumnFamilyOptions,
  type DbOptions,
  OPEN_OPTIONS,
  type ResolvedOptions,
  resolveOptions,
} from "./core/options.js";
import { pauseEnd, pauseStart, tracingPauses } from "./core/pause-trace.js";
import type { Snapshot } from "./core/snapshot.js";
import type {
  RunTransactionOptions,
  TransactionDBOptions,
  TransactionOptions,
} from "./core/transaction-options.js";
import { loadCodecs } from "./core/wal-codecs.js";
import type { DBIterator } from "./iterator/index.js";
import { assembleParts } from "./open/assemble.js";
import { type ClosingParts, closeDatabase } from "./open/close.js";
import { type RecoveredState, recover } from "./open/recovery.js";
import { refuseInterruptedRestore } from "./ops/backup/restore-marker.js";
import { type CheckpointInfo, type CheckpointOptions, createCheckpoint } from "./ops/checkpoint.js";
import { type DeletedFiles, deleteFilesInRange } from "./ops/delete-files-in-range.js";
import type { OpsHost } from "./ops/host.js";
import { ingestExternalFiles } from "./ops/ingest/ingest-external-file.js";
import { type LiveFiles, liveFiles } from "./ops/live-files.js";
import type { ObsoleteFiles } from "./ops/obsolete-files.js";
import { getUpdatesSince, type TransactionLogIterator } from "./ops/updates-since.js";
import {
  type VerifyChecksumsOptions,
  type VerifyReport,
  verifyChecksums,
} from "./ops/verify-checksums.js";
import type { CatchUpResult, DbRole, Follower } from "./secondary/follower.js";
import { openFollower } from "./secondary/open-follower.js";
import { resolveSecondaryOptions, type SecondaryOptions } from "./secondary/secondary-options.js";
import { DbTransactions } from "./txn/db-transactions.js";
import { restorePrepared, type Transaction, type TransactionHost } from "./txn/transaction.js";
import type { TransactionDBOf } from "./txn/transaction-db.js";
import { listColumnFamilies } from "./version/list-families.js";
import type { Version, VersionSet } from "./version/version-set.js";
import type { WriteBatch } from "./write/write-batch.js";
import { WriteBatchWithIndex } from "./write/write-batch-with-index.js";

export type { PinnedVersion } from "./column-family/family-methods.js";
export type { ImmutableMemTable } from "./write/immutable-memtable.js";

/** A `DB` opened with `transactionDB`: its plain writes wait for the locks of pessimistic
 * transactions and so return promises (txn/transaction-db.ts). */
export type TransactionDB = TransactionDBOf<DB>;

export class DB extends ColumnFamilyMethods {
  readonly dir: string;
  private readonly fs: FileSystem;
  private readonly icmp: InternalKeyComparator;
  private readonly stats: Statistics | undefined;
  private readonly versions: VersionSet;
  private readonly tableCache: TableCache;
  private readonly executor: BackgroundExecutor;
  /** The column families; `default` (id 0) is also `this.cf`. */
  private readonly families: ColumnFamilySet;
  /** Deletes obsolete tables, blob files and WALs, or keeps them (ops/obsolete-files.ts). */
  private readonly obsolete: ObsoleteFiles;
  /** What `close()` releases (open/close.ts). */
  private readonly closing: ClosingParts;
  private opsHostCache: OpsHost | undefined;
  /** Read-only and secondary instances: what follows the primary (secondary/follower.ts). */
  private readonly follower: Follower | undefined;
  /** Transactions: a TransactionDB's key locks and what transactions call (txn/). */
  private readonly txns: DbTransactions;

  private constructor(
    dir: string,
    options: ResolvedOptions,
    state: RecoveredState,
    lock: FileLock,
  ) {
    const parts = assembleParts(dir, options, state, () => this?.takeFinished());
    const { shared, families, obsolete } = parts;
    super(parts.core, parts.defaultFamily);
    this.families = families;
    this.dir = dir;
    this.fs = shared.fs;
    this.icmp = state.icmp;
    this.stats = shared.statistics;
    this.versions = shared.versions;
    this.follower = state.follower;
    this.tableCache = shared.tableCache;
    this.executor = shared.executor;
    this.obsolete = obsolete;
    this.txns = new DbTransactions(
      {
        db: this,
        families,
        writes: this.writes,
        status: this.status,
        defaultFamily: this.cf,
        preparedLogs: parts.preparedLogs,
        snapshot: () => this.snapshot(),
        checkWritable: () => this.checkWritable(),
      },
      options.transactionDB,
    );
    this.txns.installLockingWrites(this, 0, undefined);
    families.onHandle = (h, cf) => this.txns.installLockingWrites(h, cf.id, h);
    this.closing = {
      ...shared,
      families,
      lock,
      follower: state.follower,
      obsolete,
      keyLocks: this.txns.locks,
    };
    // The memtables a WAL replay left (avoidFlushDuringRecovery) go to the background flush.
    for (const family of families.values()) family.start();
    restorePrepared(parts.preparedLogs, state, shared.versions, () => this.transactionHost());
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

  /**
   * Opens (creating if allowed) the database in `dir`. See DbOptions for the options. With
   * `transactionDB` the database is a TransactionDB: its plain writes wait for the locks of
   * pessimistic transactions and return promises (txn/transaction-db.ts).
   */
  static open(
    dir: string,
    options: DbOptions & { transactionDB: TransactionDBOptions },
  ): Promise<TransactionDB>;
  static open(dir: string, options?: DbOptions): Promise<DB>;
  static async open(dir: string, options?: DbOptions): Promise<DB | TransactionDB> {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("dir must be a non-empty string");
    const resolved = resolveOptions(await preloadModuleOptions(options));
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
    return this.families.names();
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
    return this.families.handleByName(name);
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
    // Imported first only when they name modules: otherwise the family exists on return.
    const cf = hasModules(options) ? await preloadFamilyOptions(options, name) : options;
    if (cf !== undefined) OPEN_OPTIONS.check({ columnFamilies: { [name]: cf } });
    return this.families.create(name, cf);
  }

  /**
   * Drops column family `name` (not `default`): its running flush or compactions finish,
   * one synced MANIFEST edit drops it, and its tables are deleted once no iterator reads
   * them. Its handles throw InvalidArgument ("column family dropped") from then on.
   */
  async dropColumnFamily(name: string): Promise<void> {
    if (typeof name !== "string") throw new TypeError("column family name must be a string");
    this.status.checkWritable();
    await this.families.drop(name);
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
    for (const h of handles) this.families.familyOf(h);
    return handles.map((h) => h.iteratorAt(ro, seq));
  }

  protected batchFamily(): undefined {
    return undefined;
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
    return this.txns.begin(options);
  }

  /**
   * Runs `fn` in a new transaction and commits it; returns what `fn` returned. A commit (or,
   * pessimistic, a lock wait) failing with `Busy` or `TryAgain` runs `fn` again in a new
   * transaction, up to `options.retries` times (Default: 10); then the last error is
   * thrown. If `fn` throws anything else, the transaction is rolled back and the error
   * rethrown. `fn` may commit or roll back itself; then nothing more is done.
   */
  transaction<T>(
    fn: (txn: Transaction) => T | Promise<T>,
    options?: RunTransactionOptions,
  ): Promise<T> {
    return this.txns.run(fn, options);
  }

  /**
   * The prepared transactions (two-phase commit) not decided yet: those prepared since the
   * open, and those recovery found (RocksDB's GetAllPreparedTransactions). Commit or roll
   * back each.
   */
  getPreparedTransactions(): Transaction[] {
    return [...this.transactionHost().names.values()].filter((t) => t.isPrepared);
  }

  /** The transaction named `name` (`setName`) not ended yet, or undefined. */
  getTransactionByName(name: string): Transaction | undefined {
    if (typeof name !== "string") throw new TypeError("the transaction name must be a string");
    return this.transactionHost().names.get(name);
  }

  /** @internal what transactions use of the database. */
  transactionHost(): TransactionHost {
    return this.txns.host();
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
    await this.obsolete.whenIdle();
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
  close(): Promise<void> {
    return closeDatabase(this.closing);
  }

  get isClosed(): boolean {
    return this.status.closed;
  }

  // ---------------------------------------------------------------- operations
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
   * RocksDB's IngestExternalFiles: the files of several column families (each once) in one
   * ingestion, all or none — one MANIFEST atomic group. As `ingestExternalFile` per family
   * (ops/ingest/).
   */
  async ingestExternalFiles(args: readonly IngestExternalFileArg[]): Promise<void> {
    const targetOf = (h: ColumnFamilyHandle | undefined) =>
      ingestTargetOf(this.core, h === undefined ? this.cf : this.families.familyOf(h), () =>
        this.checkWritable(),
      );
    await ingestExternalFiles(ingestRequests(args, targetOf));
  }

  /**
   * Re-reads every block of every live table and every record of the live WALs and the
   * MANIFEST, checking checksums (RocksDB's VerifyChecksum). Throws Corruption (file and
   * offset) at the first damage, or with `{ collect: true }` reports every problem.
   */
  verifyChecksums(options?: VerifyChecksumsOptions): VerifyReport {
    return verifyChecksums(this.opsHost(), options);
  }

  /**
   * The change feed (RocksDB's GetUpdatesSince): every batch written from `sequence` on, in
   * order, each whole (the batch containing `sequence` too), read from the live and archived
   * WALs (keep them with `walTtlSeconds` / `walSizeLimitMb`). NotFound when the WALs no
   * longer hold `sequence` (naming the oldest available). See ops/updates-since.ts.
   */
  getUpdatesSince(sequence: number): TransactionLogIterator {
    return getUpdatesSince(this.opsHost(), sequence);
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
      holdFileDeletions: () => this.obsolete.hold.hold(),
      flush: () => this.flush(),
      family: (handle) => {
        if (handle !== undefined && !(handle instanceof ColumnFamilyHandle))
          throw new TypeError("the column family must be a handle from db.columnFamily()");
        return opsFamilyOf(handle === undefined ? this.cf : this.families.familyOf(handle));
      },
    };
    this.opsHostCache = host;
    return host;
  }

  /** @internal for tests: the path of table `n`. */
  tablePath(n: number): string {
    return tableFileName(this.dir, n);
  }

  // ------------------------------------------------- read-only and secondary instances
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

  /** A handle for `openReader` in a worker thread (reader/open-reader.ts). */
  readerHandle(): ReaderHandle {
    return readerHandleOf(this.role, this.core, this.cf, this.cf.options.sharedBlockCache);
  }

  private static openFollower(
    dir: string,
    resolved: ResolvedOptions,
    role: "readOnly" | "secondary",
    secondaryDir: string | undefined,
    leaseMs: number,
  ): Promise<DB> {
    return openFollower(dir, resolved, role, secondaryDir, leaseMs, (state, lock) => {
      const db = new DB(dir, resolved, state, lock);
      const { versions, tableCache, icmp, families, writes } = db;
      return { db, parts: { versions, tableCache, icmp, families, writes } };
    });
  }
}
