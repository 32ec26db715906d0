/**
 * FlushScheduler: the immutable memtables of a database and their flushes to L0 (RocksDB's
 * MemTableList plus the flush part of its background scheduling).
 *
 * Life of a memtable after the switch (its family seals it and calls `add`):
 * 1. queued: newest first in `imm`, still read by gets and iterators;
 * 2. flushing (one at a time, oldest first): a worker, or inline, builds and syncs an L0
 *    table from it (flush/flush-job.ts);
 * 3. install (main thread): ONE VersionEdit — the table added, and the log number raised to
 *    the oldest WAL still needed (that of the oldest memtable left, else the current WAL) —
 *    through `logAndApply`; then the memtable leaves `imm` (its reference is dropped: once no
 *    iterator holds it either, its chunks are reused, write/chunk-pool.ts) and the WALs below
 *    the new log number are deleted.
 * A failed flush or install is a background error: the database turns read-only, waiters
 * are rejected, and nothing more is flushed.
 *
 * With `atomicFlush` this scheduler starts no flush itself: column-family/atomic-flush.ts takes every
 * family's immutable memtables at once (through `startJob`), writes one atomic group
 * (`editFor` per family) and hands the results back (`installed`, `releaseWals`,
 * `afterInstall`).
 *
 * Recovered memtables: the ones a WAL replay left (`avoidFlushDuringRecovery`) are flushed
 * first, oldest first, like any other; until the last of them is installed
 * `recoveryFlushPending` is true, and the database holds L0 compactions back meanwhile (see
 * column-family-data.ts `deferL0Compaction`).
 *
 * Write stop: with `maxWriteBufferNumber` memtables (mutable + immutable) full, the writer
 * waits synchronously (writes are synchronous), taking finished jobs meanwhile
 * (`executor.drainCompleted`), until a flush makes room (`stallWhileFull`).
 *
 * Threading: the main thread; job results arrive from the event loop, from `drainCompleted`
 * (stalls) or from `takeFinished` at the start of a database operation.
 */
import {
  type Comparator,
  type FileSystem,
  Histogram,
  joinPath,
  type Statistics,
  Ticker,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableWriteOptions } from "../compaction/build-table.js";
import type { CompactionStats } from "../compaction/compaction-stats.js";
import type { FlushReason } from "../core/event-listeners.js";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import { type FileMetaData, VersionEdit } from "../version/version-edit.js";
import type { TreeVersions } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import type { BackgroundExecutor } from "./executor.js";
import type { WriteController } from "./write-controller.js";

/** What flushing needs from its database. */
export interface FlushHost {
  readonly dir: string;
  readonly fs: FileSystem;
  readonly comparator: Comparator;
  readonly versions: TreeVersions;
  readonly executor: BackgroundExecutor;
  readonly tableOptions: TableWriteOptions;
  readonly statistics: Statistics | undefined;
  /** Flushes are counted in the compaction statistics (L0 row). */
  readonly compactionStats: CompactionStats;
  /**
   * The WAL of this family's mutable memtable: its data is in `memtableLogNumber` and later
   * logs (the current log when it is empty). `releaseBelow` closes the switched-away logs
   * below a number. `syncBeforeInstall` makes the switched-away logs durable before a
   * flush's edit when other families may have earlier writes in them (RocksDB's
   * SyncClosedLogs with more than one column family); a failure throws.
   */
  readonly wal: {
    readonly memtableLogNumber: number;
    releaseBelow(logNumber: number): void;
    syncBeforeInstall(): void;
  };
  /**
   * WALs numbered below this hold nothing any column family still needs in memory (the
   * least, over the families, of the oldest log of their unflushed memtables): only those
   * are deleted. A WAL goes only once every family with data in it has flushed.
   */
  minLogToKeep(): number;
  /** True once a background job failed (nothing more is flushed). */
  failed(): boolean;
  /**
   * True once the database is closing: the running flush finishes and is installed, no
   * other starts (the WALs keep the memtables left).
   */
  closing(): boolean;
  /** A flush failed: the database turns read-only (and calls `rejectWaiters`). */
  backgroundFailed(error: Error): void;
  /** The current version changed (write stalls re-decided, compactions scheduled). */
  versionChanged(): void;
  /** Deletes files (off the main thread where possible). */
  removeFiles(paths: string[]): void;
  /** Flushed tables were installed (the block cache may be warmed with them). */
  tablesFlushed(files: readonly FileMetaData[]): void;
  /** The live snapshots' seqs (a flush keeps what they see). */
  snapshotSeqs(): number[];
  /**
   * With `atomicFlush`: the coordinator that flushes every family's immutable memtables
   * together (column-family/atomic-flush.ts); this scheduler then starts no flush of its own.
   */
  readonly atomic?: { maybeSchedule(): void } | undefined;
  /**
   * Bytes of memtables to keep after they are flushed (RocksDB's
   * max_write_buffer_size_to_maintain; 0: none), for transactions' conflict checks.
   */
  readonly maxWriteBufferSizeToMaintain: number;
  /** The mutable memtable's memory (bytes). */
  mutableMemoryUsage(): number;
  /**
   * A flushed memtable was installed and leaves the immutable ones (its write-buffer charge
   * goes, column-family/write-budget.ts). Default: undefined (nothing is told).
   */
  readonly memtableReleased?: ((mem: MemTable) => void) | undefined;
  /**
   * While two-phase commit is in use, the oldest WAL still needed (recorded in the flush's
   * edit as MinLogNumberToKeep, txn/two-phase.ts); undefined otherwise.
   */
  twoPhaseMinLog(): number | undefined;
  /** A flush's table `file` is installed (event listeners). Default: nothing. */
  readonly flushCompleted?: ((file: FileMetaData, reason: FlushReason) => void) | undefined;
}

/** A flush job's answer: the table, or undefined when the memtable left nothing to write. */
export type FlushDone = (error: Error | undefined, file: FileMetaData | undefined) => void;

interface Waiter {
  resolve: () => void;
  reject: (e: Error) => void;
}

const LOG_FILE = /^(\d+)\.log$/;

export class FlushScheduler {
  /** Immutable memtables, newest first. Read it; only this class changes it. */
  readonly imm: ImmutableMemTable[];
  /**
   * Flushed memtables kept for conflict checks (RocksDB's memtable history,
   * `maxWriteBufferSizeToMaintain`), newest first; reads never see them. Only this class
   * changes it.
   */
  readonly history: ImmutableMemTable[] = [];
  private readonly host: FlushHost;
  /** Flush jobs of this family running, or finished and not yet installed. */
  private running = 0;
  private waiters: Waiter[] = [];
  /** The memtables recovery left that are not installed yet. */
  private readonly recovered: Set<ImmutableMemTable>;

  /** `imm`: the immutable memtables left by recovery (newest first); taken over. */
  constructor(host: FlushHost, imm: ImmutableMemTable[]) {
    this.host = host;
    this.imm = imm;
    this.recovered = new Set(imm);
  }

  /**
   * True until every memtable recovery left (the WAL replay of the open) is flushed and
   * installed: their L0 tables are still to come.
   */
  get recoveryFlushPending(): boolean {
    return this.recovered.size > 0;
  }

  /**
   * Flushes running (or waiting for their atomic group's install): 0 or 1; with `atomicFlush`,
   * one per immutable memtable of the running group.
   */
  get numRunning(): number {
    return this.running;
  }

  /** Queues a sealed memtable whose data is in WAL `logNumber` and later ones. */
  add(mem: MemTable, logNumber: number, flushReason: FlushReason = "Others"): void {
    this.imm.unshift({ mem, logNumber, flushReason });
    if (this.history.length > 0) this.trimHistory();
    this.maybeSchedule();
  }

  /**
   * Drops the oldest kept flushed memtables while the memtables without it (mutable,
   * immutable, the rest of the history) still take `maxWriteBufferSizeToMaintain` bytes
   * (RocksDB's MemTableList::TrimHistory).
   */
  private trimHistory(): void {
    const history = this.history;
    const limit = this.host.maxWriteBufferSizeToMaintain;
    let usage = this.host.mutableMemoryUsage();
    for (const m of this.imm) usage += m.mem.approximateMemoryUsage();
    for (let i = 0; i < history.length - 1; i++) usage += history[i]!.mem.approximateMemoryUsage();
    while (history.length > 0 && usage >= limit) {
      history.pop()!.mem.unref();
      if (history.length > 0) usage -= history[history.length - 1]!.mem.approximateMemoryUsage();
    }
  }

  /** Memtable bytes per ms the last flush took (0 before the first): the write throttle's rate. */
  bytesPerMs = 0;

  /**
   * Starts flushing the oldest immutable memtable if none is being flushed (with
   * `atomicFlush`: asks the coordinator, which flushes every family's together).
   */
  maybeSchedule(): void {
    const host = this.host;
    if (host.atomic !== undefined) {
      host.atomic.maybeSchedule();
      return;
    }
    if (this.running > 0 || this.imm.length === 0 || host.failed() || host.closing()) return;
    const target = this.imm[this.imm.length - 1]!;
    this.startJob(target, (error, file) => {
      this.running--;
      const tDone = tracingPauses ? pauseStart() : 0;
      if (error === undefined) {
        try {
          this.installAll([target], [file]);
        } catch (e) {
          error = e instanceof Error ? e : new Error(String(e));
        }
      }
      if (error !== undefined) {
        host.backgroundFailed(error);
        return;
      }
      this.afterInstall();
      if (tracingPauses)
        pauseEnd(tDone, "flush done", () => `L0 files ${host.versions.current.numFiles(0)}`);
    });
  }

  /**
   * @internal Starts one flush job of `target` (one of `imm`); `done` is told its table once
   * it is built and synced, still to be installed. Counts as running until the caller says
   * it is over (`running--` for a lone flush, `jobsDone` for an atomic group).
   */
  startJob(target: ImmutableMemTable, done: FlushDone): void {
    const host = this.host;
    this.running++;
    const fileNumber = host.versions.newFileNumber();
    const stats = host.statistics;
    const t0 = stats !== undefined ? stats.now() : 0;
    const started = performance.now();
    const tPost = tracingPauses ? pauseStart() : 0;
    host.executor.flush(
      {
        dir: host.dir,
        fileNumber,
        mem: target.mem,
        comparator: host.comparator,
        table: host.tableOptions,
        snapshots: host.snapshotSeqs(),
      },
      (error, file) => {
        if (error === undefined) {
          const elapsedMs = performance.now() - started;
          this.bytesPerMs = target.mem.approximateMemoryUsage() / Math.max(elapsedMs, 1);
          if (file !== undefined) {
            const micros = Math.round(elapsedMs * 1000);
            host.compactionStats.recordFlush(file.size, micros, target.mem.numEntries);
          }
          if (stats !== undefined) {
            stats.tick(Ticker.FlushCount);
            stats.recordTime(Histogram.FlushMicros, t0, 1000);
          }
        }
        done(error, file);
      },
    );
    if (tracingPauses) pauseEnd(tPost, "flush start");
  }

  /** @internal An atomic group's jobs of this family (`n` of them) are over, installed or not. */
  jobsDone(n: number): void {
    this.running -= n;
  }

  /**
   * @internal The edit that installs the flushed `targets` (oldest first) with their tables
   * `files`: the tables added to L0, and the log number raised to the oldest WAL this family
   * still needs (that of the oldest memtable left, else the mutable memtable's).
   */
  editFor(
    targets: readonly ImmutableMemTable[],
    files: readonly (FileMetaData | undefined)[],
  ): VersionEdit {
    const remaining = this.imm.filter((m) => !targets.includes(m));
    const edit = new VersionEdit();
    edit.logNumber =
      remaining.length > 0
        ? remaining[remaining.length - 1]!.logNumber
        : this.host.wal.memtableLogNumber;
    const keep = this.host.twoPhaseMinLog();
    if (keep !== undefined) edit.minLogNumberToKeep = Math.min(keep, edit.logNumber);
    for (const f of files) if (f !== undefined) edit.addFile(0, f);
    return edit;
  }

  /** Makes flushed tables visible (MANIFEST first), drops the memtables, deletes old WALs. */
  private installAll(
    targets: readonly ImmutableMemTable[],
    files: readonly (FileMetaData | undefined)[],
  ): void {
    const edit = this.editFor(targets, files);
    // A power cut after this edit must not keep the table and lose earlier writes of other
    // families still only in unsynced logs: the recovered state stays a prefix.
    this.host.wal.syncBeforeInstall();
    this.host.versions.logAndApply(edit);
    this.installed(targets);
    this.releaseWals(edit.logNumber!);
    this.tablesInstalled(files);
    this.reportInstalled(targets, files);
  }

  /** @internal After the edit adding `files` (undefined: nothing written) is installed. */
  tablesInstalled(files: readonly (FileMetaData | undefined)[]): void {
    const written = files.filter((f): f is FileMetaData => f !== undefined);
    if (written.length > 0) this.host.tablesFlushed(written);
  }

  /** @internal Tells the host (event listeners) of each table a flush installed. */
  reportInstalled(
    targets: readonly ImmutableMemTable[],
    files: readonly (FileMetaData | undefined)[],
  ): void {
    const report = this.host.flushCompleted;
    if (report === undefined) return;
    targets.forEach((t, i) => {
      const f = files[i];
      if (f !== undefined) report(f, t.flushReason ?? "Others");
    });
  }

  /**
   * @internal After the MANIFEST edit of `targets` is synced and installed: they leave `imm`
   * (the database's reference goes, unless it is kept for conflict checks until trimmed: once
   * no iterator holds them either, their chunks are reused, write/chunk-pool.ts).
   */
  installed(targets: readonly ImmutableMemTable[]): void {
    for (const target of targets) {
      const i = this.imm.indexOf(target);
      if (i < 0) continue;
      this.imm.splice(i, 1);
      this.recovered.delete(target);
      this.host.memtableReleased?.(target.mem);
      if (this.host.maxWriteBufferSizeToMaintain > 0) {
        this.history.unshift(target);
        this.trimHistory();
      } else target.mem.unref();
    }
  }

  /**
   * @internal Closes and deletes the WALs below `logNumber` that no other column family still
   * needs (`minLogToKeep`).
   */
  releaseWals(logNumber: number): void {
    const host = this.host;
    let t0 = tracingPauses ? pauseStart() : 0;
    const keepFrom = Math.min(logNumber, host.minLogToKeep());
    host.wal.releaseBelow(keepFrom);
    if (tracingPauses) {
      pauseEnd(t0, "wal release");
      t0 = pauseStart();
    }
    const obsolete: string[] = [];
    for (const name of host.fs.list(host.dir)) {
      const m = LOG_FILE.exec(name);
      if (m !== null && Number(m[1]) < keepFrom) obsolete.push(joinPath(host.dir, name));
    }
    // Oldest first (names are zero-padded): cut off midway, the WALs left are the newer
    // ones, never a two-phase prepare without the WAL of its commit (txn/two-phase.ts).
    obsolete.sort();
    host.removeFiles(obsolete);
    if (tracingPauses) pauseEnd(t0, "obsolete wals");
  }

  /**
   * @internal After an install: resolves the waiters once nothing is left to flush, starts
   * the next flush, re-decides stalls and compactions.
   */
  afterInstall(schedule = true): void {
    if (this.imm.length === 0) for (const w of this.waiters.splice(0)) w.resolve();
    if (schedule) this.maybeSchedule();
    this.host.versionChanged();
  }

  /**
   * Resolves once no immutable memtable is left (flushing the oldest now if none is being
   * flushed); rejects if a background job fails or the database closes first. Call it only
   * while `imm` is not empty.
   */
  waitForAll(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.maybeSchedule();
    });
  }

  /**
   * The family was dropped: nothing of it will be flushed any more, so every `waitForAll`
   * promise resolves (a `db.flush()` that waited for it, with atomicFlush too, is done).
   */
  dropped(): void {
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /** Rejects every `waitForAll` promise, each with a `makeError()`. */
  rejectWaiters(makeError: () => Error): void {
    for (const w of this.waiters.splice(0)) w.reject(makeError());
  }

  /**
   * Write stop: while `maxMemTables` memtables (the mutable one included) are full, waits
   * synchronously for flushes, as RocksDB stops writes; counted in `controller`. Returns
   * early if a background job failed (the caller throws it) or nothing can make room.
   */
  stallWhileFull(maxMemTables: number, controller: WriteController): void {
    const host = this.host;
    const executor = host.executor;
    const t0 = performance.now();
    const tTrace = tracingPauses ? pauseStart() : 0;
    controller.counters.memtableStopCount++;
    while (this.imm.length + 1 > maxMemTables && !host.failed()) {
      if (executor.pending === 0) this.maybeSchedule();
      if (executor.pending === 0) break;
      executor.drainCompleted(100);
    }
    controller.record(t0, "memtableStopMicros", host.statistics);
    if (tracingPauses) pauseEnd(tTrace, "memtable stop", () => `imm ${this.imm.length}`);
  }
}
