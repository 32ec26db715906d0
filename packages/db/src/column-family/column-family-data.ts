/**
 * ColumnFamilyData: one LSM tree of a database (RocksDB's ColumnFamilyData, Pebble's per-tree
 * state) — its mutable memtable and immutable ones, its flushes (flush-scheduler.ts), its
 * compactions (compaction-scheduler.ts), its write stalls (write-controller.ts), its point
 * reader, and the options it was opened with. The database composes one per column family
 * around what they share: the WAL and sequence numbers (write-loop.ts), the MANIFEST and file
 * numbers (VersionSet), the table cache, the background executor, snapshots.
 *
 * ```
 *            DB (db.ts) ── WriteLoop: seq -> WAL record -> each family's memtable
 *             │
 *   ┌─────────┴─────────┐
 *   ColumnFamilyData     ColumnFamilyData ...      (one per family)
 *   mem, imm ─flush─> L0 ─compaction─> L1..L6      (its own Version in the VersionSet)
 *   WriteController (its own L0 / memtable stalls)
 * ```
 *
 * The scheduler callbacks (a flush installed, a compaction done, the version changed) are
 * wired here, so db.ts holds none of them.
 *
 * Threading: the database's thread; background results arrive from the event loop or from
 * `takeFinished` at the start of an operation.
 */
import {
  type FileSystem,
  type InternalKeyComparator,
  ShaleError,
  type Statistics,
  toBytes,
} from "@shale/base";
import { type ChunkPool, MemTable } from "@shale/memtable";
import type { BlockCache, TableCache } from "@shale/sstable";
import { CompactionScheduler } from "../background/compaction-scheduler.js";
import type { BackgroundExecutor } from "../background/executor.js";
import { FlushScheduler } from "../background/flush-scheduler.js";
import { StallCondition, type StallHost, WriteController } from "../background/write-controller.js";
import { type BlobFileCache, type BlobResolver, BlobSource } from "../blob/blob-source.js";
import type { TableWriteOptions } from "../compaction/build-table.js";
import type { FlushOptions } from "../core/call-options.js";
import { resolveCompactionStyle } from "../core/compaction-style-options.js";
import type { EventListeners, FlushReason } from "../core/event-listeners.js";
import { newFamilyMemTable, WRITE_BUFFER_INDEX_FROM } from "../core/memtable-bloom-option.js";
import type { MergeOperator } from "../core/merge-operator.js";
import type { ResolvedOptions } from "../core/options.js";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import type { SnapshotList } from "../core/snapshot.js";
import { PointReader } from "../read/read-path.js";
import { captureBudget, discardCapturedBlocks, warmTables } from "../read/table-warming.js";
import { type KeyRange, rangeOfFiles } from "../version/key-range.js";
import type { FamilyVersions, Version, VersionSet } from "../version/version-set.js";
import { memtableChunkPool } from "../write/chunk-pool.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import type { ActiveWal } from "../write/write-path.js";
import type { DbStatus } from "./db-status.js";
import { FamilyEvents } from "./family-events.js";
import { compactionFilterHook, familyMergeOperator } from "./family-filters.js";
import { MemoryCharge } from "./write-budget.js";

/** What a column family shares with the database and the other families. */
export interface ColumnFamilyHost {
  readonly dir: string;
  readonly fs: FileSystem;
  readonly executor: BackgroundExecutor;
  readonly statistics: Statistics | undefined;
  readonly snapshots: SnapshotList;
  readonly versions: VersionSet;
  /** The table cache of the families ordered like `default` (others get their own). */
  readonly tableCache: TableCache;
  /** The blob files of every family (RocksDB's blob files, blob/blob-source.ts). */
  readonly blobs: BlobFileCache;
  /** Int32Array(1) shared with compaction jobs: set on close so they stop early. */
  readonly shutdown: SharedArrayBuffer;
  readonly wal: ActiveWal;
  readonly status: DbStatus;
  /** True for a read-only or secondary instance (it runs no background work). */
  readonly follower: boolean;
  /** The db-wide WAL retention rule (FlushHost.minLogToKeep). */
  minLogToKeep(): number;
  /** The column families open now (`default` included). */
  familyCount(): number;
  /**
   * With `atomicFlush`: switches and flushes every family together (atomic-flush.ts).
   * Default: undefined (each family flushes on its own).
   */
  readonly atomicFlush?: AtomicFlushCoordinator | undefined;
  /** FlushHost.twoPhaseMinLog. */
  twoPhaseMinLog(): number | undefined;
  /** Deletes obsolete files (unless the database failed or holds deletions). */
  removeFiles(paths: string[]): void;
  /** The `listeners` option's dispatcher (undefined: none). */
  readonly listeners?: EventListeners | undefined;
}

/** What a family asks of the atomic flush (atomic-flush.ts `AtomicFlush`). */
export interface AtomicFlushCoordinator {
  /** Switches every family holding data (one WAL roll) and queues them for one group. */
  switchAll(reason?: FlushReason): void;
  /** `db.flush()` / a handle's flush: every family with data, waited for. */
  flush(options?: FlushOptions): Promise<void>;
  /** Starts the next group if none is running. */
  maybeSchedule(): void;
}

/** The memtables recovery left a family (see open/recovery.ts). */
export interface RecoveredMemTables {
  mem: MemTable;
  imm: ImmutableMemTable[];
  /** The oldest WAL holding data of `mem`. */
  memLogNumber: number;
}

/** Empty memtables for a family that has none yet (created, or seen by a follower). */
export function emptyMemTables(icmp: InternalKeyComparator): RecoveredMemTables {
  const mem = new MemTable({ comparator: icmp.user, hashIndexFrom: WRITE_BUFFER_INDEX_FROM });
  return { mem, imm: [], memLogNumber: 0 };
}

/** RocksDB's INT_MAX, FIFO's L0 stall triggers. */
const INT_MAX = 2147483647;

export class ColumnFamilyData {
  /** RocksDB's column family id (0 = `default`). */
  readonly id: number;
  readonly name: string;
  readonly options: ResolvedOptions;
  readonly icmp: InternalKeyComparator;
  readonly mergeOperator: MergeOperator | undefined;
  readonly tableOptions: TableWriteOptions;
  /** The mutable memtable. */
  mem: MemTable;
  /** Flushed memtables' chunks, for the next memtables (write/chunk-pool.ts). */
  readonly chunkPool: ChunkPool;
  /** The immutable memtables and their flushes. */
  readonly flushes: FlushScheduler;
  readonly compactions: CompactionScheduler;
  readonly writeController: WriteController;
  readonly stallHost: StallHost;
  readonly reader: PointReader;
  /** The event-listener infos of this family (undefined: no `listeners`). */
  private readonly events: FamilyEvents | undefined;
  /** Resolves the family's blob indexes against its current version's blob files. */
  readonly blobs: BlobSource;
  /** Resolves nothing (every blob index is Corruption): for versions without blob files. */
  private readonly noBlobs: BlobSource;
  /** The open tables of this family (shared with every family of the same comparator). */
  readonly tableCache: TableCache;
  /** The family's part of the version set: its current version, its MANIFEST edits. */
  readonly versions: FamilyVersions;
  /**
   * The oldest WAL that may hold data of the mutable memtable: the current log when the
   * memtable was made (writes go to that log or later ones; other families' switches roll
   * the shared WAL without changing it).
   */
  memLogNumber: number;
  /**
   * The database's last sequence when `mem` was made (RocksDB's earliest seq of a
   * memtable): every write of this family after it is in `mem` or the immutable memtables.
   */
  memCreatedSeq: number;
  /** Set by `db.dropColumnFamily`: every later use of the family's handle throws. */
  dropped = false;
  /**
   * What the memtables charge to the `writeBufferManager` (column-family/write-budget.ts);
   * undefined: no manager (or a follower, which charges nothing).
   */
  readonly charge: MemoryCharge | undefined;
  private readonly host: ColumnFamilyHost;

  constructor(
    host: ColumnFamilyHost,
    versions: FamilyVersions,
    options: ResolvedOptions,
    tableOptions: TableWriteOptions,
    recovered: RecoveredMemTables,
    tableCache: TableCache = host.tableCache,
  ) {
    this.host = host;
    this.tableCache = tableCache;
    this.versions = versions;
    this.id = versions.id;
    this.name = versions.name;
    const icmp = versions.icmp;
    this.memLogNumber = recovered.memLogNumber;
    this.options = options;
    this.icmp = icmp;
    this.mergeOperator = familyMergeOperator(options);
    this.tableOptions = tableOptions;
    this.mem = recovered.mem;
    const firstSeq = recovered.mem.firstSeq;
    this.memCreatedSeq = firstSeq > 0 ? firstSeq - 1 : host.versions.lastSequence;
    this.chunkPool = memtableChunkPool(options.writeBufferSize, recovered.mem, recovered.imm);
    const manager = options.writeBufferManager;
    if (manager !== undefined && !host.follower) {
      const charge = new MemoryCharge(manager);
      // The memtables the WAL replay filled (oldest first), then the mutable one.
      for (let i = recovered.imm.length - 1; i >= 0; i--) {
        const m = recovered.imm[i]!.mem;
        charge.seal(m, m.approximateMemoryUsage());
      }
      charge.update(recovered.mem.approximateMemoryUsage());
      this.charge = charge;
    } else this.charge = undefined;
    const status = host.status;
    const cf = this;
    this.events =
      host.listeners === undefined
        ? undefined
        : new FamilyEvents(
            {
              id: this.id,
              name: this.name,
              dir: host.dir,
              tableCache,
              stallCondition: () => cf.writeController.condition,
            },
            host.listeners,
          );
    this.blobs = new BlobSource({
      cache: host.blobs,
      columnFamilyId: this.id,
      isLive: (n) => versions.current.blobFiles.has(n),
    });
    this.noBlobs = new BlobSource({
      cache: host.blobs,
      columnFamilyId: this.id,
      isLive: () => false,
    });
    this.reader = new PointReader(
      icmp,
      versions,
      tableCache,
      this.mergeOperator,
      host.statistics,
      this.blobs,
    );
    const compaction = resolveCompactionStyle(options, options.recordedCompaction);
    // FIFO deletes L0 tables instead of compacting them down: no L0 stalls (RocksDB sets both
    // triggers to INT_MAX).
    this.writeController = new WriteController(
      compaction.compactionStyle === "fifo"
        ? { ...options, level0SlowdownWritesTrigger: INT_MAX, level0StopWritesTrigger: INT_MAX }
        : options,
    );
    const failed = () => status.backgroundError !== undefined;
    this.stallHost = {
      executor: host.executor,
      statistics: host.statistics,
      scheduleCompactions: () => this.compactions.maybeSchedule(),
      failed,
    };
    this.compactions = new CompactionScheduler(
      {
        dir: host.dir,
        icmp,
        mergeOperator: this.mergeOperator,
        versions,
        executor: host.executor,
        tableOptionsFor: (inputBytes) =>
          options.prepopulateBlockCache === "flushAndCompaction"
            ? capturing(tableOptions, options.blockCache, inputBytes)
            : tableOptions,
        statistics: host.statistics,
        shutdown: host.shutdown,
        snapshotSeqs: () => host.snapshots.sequences(),
        canRun: () =>
          !status.closed && status.backgroundError === undefined && !host.follower && !this.dropped,
        failure: () => status.backgroundError,
        backgroundFailed: (e) => status.failBackground(e, "Compaction"),
        versionChanged: () => this.versionChanged(),
        tablesCompacted: (files, inputs) => {
          if (options.prepopulateBlockCache === "flushAndCompaction" && !status.closed) {
            // The inputs' blocks leave now, not in later steps: their room is what the
            // outputs warm into (warming never evicts). Their readers stay open: iterators
            // made before the install still read them (they close when the files go).
            for (const n of inputs) tableCache.eraseBlocks(n);
            warmTables(tableCache, files);
          } else discardCapturedBlocks(files);
        },
        deferL0Compaction: () => this.deferL0Compaction(),
        compactionCompleted:
          host.listeners === undefined ? undefined : (c, r) => this.events!.compaction(c, r),
        compactionFilter: compactionFilterHook(options),
      },
      { ...options, compaction },
    );
    this.flushes = new FlushScheduler(
      {
        dir: host.dir,
        fs: host.fs,
        comparator: icmp.user,
        versions,
        executor: host.executor,
        get tableOptions() {
          return options.prepopulateBlockCache !== "disable"
            ? capturing(tableOptions, options.blockCache, 0)
            : tableOptions;
        },
        statistics: host.statistics,
        compactionStats: this.compactions.stats,
        wal: {
          // The mutable memtable's oldest log, or the current one when it holds nothing.
          get memtableLogNumber() {
            const m = cf.mem;
            return m.numEntries > 0 || m.numRangeTombstones > 0 ? cf.memLogNumber : host.wal.number;
          },
          releaseBelow: (n) => host.wal.releaseBelow(n),
          syncBeforeInstall: () => {
            if (host.familyCount() > 1) host.wal.syncSwitchedLogs();
          },
        },
        minLogToKeep: () => host.minLogToKeep(),
        twoPhaseMinLog: () => host.twoPhaseMinLog(),
        maxWriteBufferSizeToMaintain: options.maxWriteBufferSizeToMaintain,
        mutableMemoryUsage: () => cf.mem.approximateMemoryUsage(),
        memtableReleased: this.charge === undefined ? undefined : (m) => this.charge!.release(m),
        failed,
        closing: () => status.closed || this.dropped,
        backgroundFailed: (e) => status.failBackground(e),
        versionChanged: () => this.versionChanged(),
        removeFiles: (paths) => host.removeFiles(paths),
        // Not while closing: the flushes `close` waits for would warm a cache about to go.
        tablesFlushed: (files) => {
          if (options.prepopulateBlockCache !== "disable" && !status.closed)
            warmTables(tableCache, files);
          else discardCapturedBlocks(files);
        },
        snapshotSeqs: () => host.snapshots.sequences(),
        atomic: host.atomicFlush,
        flushCompleted:
          host.listeners === undefined ? undefined : (f, reason) => this.events!.flush(f, reason),
      },
      recovered.imm,
    );
  }

  /** The family's current version (its files, per level). */
  get current(): Version {
    return this.versions.current;
  }

  /**
   * What resolves the family's blob indexes for a read of `version` (an iterator's pinned
   * version, whose blob files may no longer all be current).
   */
  blobsFor(version: Version): BlobResolver {
    const files = version.blobFiles;
    if (files.size === 0) return this.noBlobs;
    return new BlobSource({
      cache: this.host.blobs,
      columnFamilyId: this.id,
      isLive: (n) => files.has(n),
    });
  }

  /**
   * The oldest WAL this family still needs (its unflushed data is there or later): that of
   * its oldest immutable memtable, else the mutable one's, else none (+Infinity).
   */
  get oldestLogNeeded(): number {
    const imm = this.flushes.imm;
    if (imm.length > 0) return imm[imm.length - 1]!.logNumber;
    const mem = this.mem;
    return mem.numEntries > 0 || mem.numRangeTombstones > 0
      ? this.memLogNumber
      : Number.POSITIVE_INFINITY;
  }

  /**
   * Read-only and secondary instances (secondary/follower.ts): the memtables read from the
   * primary's WALs replace the family's.
   */
  followMemTables(mem: MemTable, imm: ImmutableMemTable[]): void {
    this.mem = mem;
    this.flushes.imm.splice(0, this.flushes.imm.length, ...imm);
  }

  /** InvalidArgument for a use of the family after it was dropped. */
  droppedError(): ShaleError {
    return ShaleError.invalidArgument(`column family dropped: "${this.name}"`);
  }

  /** Starts work the open left: the memtables a WAL replay kept go to the background flush. */
  start(): void {
    this.versionChanged();
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
  versionChanged(): void {
    const before = this.writeController.condition;
    const current = this.versions.current;
    this.writeController.update(
      this.compactions.stallCount(current),
      this.compactions.pendingCompactionBytes(current),
    );
    if (this.events !== undefined && this.writeController.condition !== before)
      this.events.stallChanged(before, this.writeController.condition);
    this.updateThrottle(false);
    this.compactions.maybeSchedule();
  }

  /**
   * After a write of `bytes` into this family's memtable: switches it when full, else
   * applies the memtable throttle when it is on (write-controller.ts).
   */
  afterWrite(): void {
    const usage = this.mem.approximateMemoryUsage();
    if (this.charge !== undefined) this.charge.update(usage);
    if (usage >= this.options.writeBufferSize) this.switchMemtable();
    else if (this.writeController.throttling) {
      this.writeController.throttle(usage, this.options.writeBufferSize, this.stallHost);
    }
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

  /** Immutable memtables queued for flush or being flushed. */
  get immCount(): number {
    return this.flushes.imm.length;
  }

  /** True when the mutable memtable holds anything (entries or range tombstones). */
  get memHasData(): boolean {
    return this.mem.numEntries > 0 || this.mem.numRangeTombstones > 0;
  }

  /**
   * Seals the memtable and starts a new one with a new WAL; the sealed one is queued for
   * flush. Stops writes while `maxWriteBufferNumber` memtables are full. With `atomicFlush`
   * every family holding data switches with it (atomic-flush.ts).
   */
  switchMemtable(reason: FlushReason = "WriteBufferFull"): void {
    const host = this.host;
    if (host.atomicFlush !== undefined) {
      host.atomicFlush.switchAll();
      return;
    }
    const t0 = tracingPauses ? pauseStart() : 0;
    host.wal.roll(host.fs, host.dir, host.versions.newFileNumber());
    const sealed = this.sealMemtable();
    if (tracingPauses) pauseEnd(t0, "memtable switch (wal roll, seal, new memtable)");
    this.flushes.add(sealed.mem, sealed.logNumber, reason);
    this.afterSwitch();
  }

  /**
   * @internal Seals the mutable memtable, just after the WAL was rolled, and returns it with
   * the oldest WAL of its data (to queue for flush); a new memtable takes the writes, its
   * data starting in the new WAL.
   */
  sealMemtable(): { mem: MemTable; logNumber: number } {
    const host = this.host;
    const logNumber = this.memLogNumber;
    this.memLogNumber = host.wal.number;
    const sealed = this.mem;
    if (this.charge !== undefined) this.charge.seal(sealed, sealed.approximateMemoryUsage());
    sealed.seal();
    this.mem = newFamilyMemTable(this.options, this.chunkPool);
    if (this.charge !== undefined) this.charge.update(this.mem.approximateMemoryUsage());
    this.memCreatedSeq = host.versions.lastSequence;
    return { mem: sealed, logNumber };
  }

  /**
   * @internal After a switch: stops writes while `maxWriteBufferNumber` memtables are full
   * (throws if a background job failed meanwhile), and restarts the throttle's window.
   */
  afterSwitch(): void {
    const host = this.host;
    if (this.flushes.imm.length + 1 > this.options.maxWriteBufferNumber) {
      this.flushes.stallWhileFull(this.options.maxWriteBufferNumber, this.writeController);
      if (host.status.backgroundError !== undefined) throw host.status.backgroundError;
    }
    this.updateThrottle(true);
  }

  /** L0 write stalls (see write-controller.ts); throws if a background job failed. */
  delayWrite(bytes: number): void {
    this.writeController.delay(bytes, this.stallHost);
    if (this.host.status.backgroundError !== undefined) this.host.status.checkWritable();
  }

  /** True while this family's writes must wait (L0 stalls). */
  get stalled(): boolean {
    return this.writeController.condition !== StallCondition.Normal;
  }

  /**
   * Switches the memtable if it holds anything and waits until every immutable memtable is
   * on disk (with `{ wait: false }`: starts the flush and resolves at once). With
   * `atomicFlush`: every family's, together (atomic-flush.ts).
   * REQUIRES: the caller checked that the database is writable.
   */
  async flush(options?: FlushOptions): Promise<void> {
    const atomic = this.host.atomicFlush;
    if (atomic !== undefined) return atomic.flush(options);
    if (this.memHasData) this.switchMemtable("ManualFlush");
    if (this.flushes.imm.length === 0 || options?.wait === false) return;
    await this.flushes.waitForAll();
  }

  /**
   * Manual compaction of the user keys [start, end] (see DB.compactRange). REQUIRES: the
   * caller checked that the database is writable.
   */
  async compactRange(start?: Uint8Array | string, end?: Uint8Array | string): Promise<void> {
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

  /** Resolves once the immutable memtables are flushed and no compaction runs or is due. */
  async waitForCompactions(): Promise<void> {
    if (this.flushes.imm.length > 0 && this.host.status.backgroundError === undefined) {
      await this.flushes.waitForAll();
    }
    await this.compactions.waitForIdle();
  }
}

/**
 * A job's table options when its tables are to warm the block cache: the job keeps their
 * data blocks, up to the room they can have (`captureBudget`: more could not go in, warming
 * never evicts). `inputBytes`: the tables a compaction replaces, whose blocks leave the
 * cache when its outputs are installed.
 */
function capturing(
  table: TableWriteOptions,
  cache: BlockCache,
  inputBytes: number,
): TableWriteOptions {
  const budget = captureBudget(cache, inputBytes);
  return budget > 0 ? { ...table, captureBlocks: budget } : table;
}
