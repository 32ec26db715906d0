/**
 * The database: the write path (sequence numbers -> WAL -> memtable), point reads across
 * memtables, snapshots, recovery on open, and the lifecycle (LOCK, close).
 *
 * Threading: everything here runs on the caller's thread and is synchronous except `open`
 * and `close`. A write is one WAL record (the whole batch) appended and handed to the OS
 * (`sync: true` also fsyncs it) before the memtable is updated and the call returns.
 *
 * After a failed WAL write the database refuses further writes (the log may end in a
 * partial record): reads keep working, and reopening recovers every acknowledged write.
 */
import {
  bytewiseComparator,
  type FileLock,
  type FileSystem,
  Histogram,
  InternalKeyComparator,
  joinPath,
  LookupResult,
  LookupState,
  NodeFileSystem,
  ShaleError,
  type Statistics,
  Ticker,
  toBytes,
  ValueKind,
} from "@shale/base";
import type { LRUCache } from "@shale/block-cache";
import { MemTable } from "@shale/memtable";
import { type Block, TableCache, TableReader, type TableReadOptions } from "@shale/sstable";
import { LogWriter } from "@shale/wal";
import { type TableWriteOptions, tableWriteOptions } from "./background/build-table.js";
import { type BackgroundExecutor, InlineExecutor, WorkerExecutor } from "./background/executor.js";
import { builtinComparator } from "./background/protocol.js";
import { isSentinelKey, type KeyRange, rangeOfFiles } from "./compaction/key-range.js";
import { CompactionScheduler } from "./compaction/scheduler.js";
import { StallCondition, type StallHost, WriteController } from "./compaction/write-controller.js";
import { lockFileName, logFileName, tableFileName } from "./filenames.js";
import { type DBIterator, type DBIteratorSources, newDBIterator } from "./iterator/index.js";
import { type CollectedSources, collectSources } from "./iterator-sources.js";
import type { MergeOperator } from "./merge-operator.js";
import {
  type DbOptions,
  type IteratorOptions,
  type ReadOptions,
  type ResolvedOptions,
  resolveOptions,
  type WriteOptions,
} from "./options.js";
import { formatProperty } from "./properties.js";
import { type RecoveredState, recover } from "./recovery.js";
import { type Snapshot, SnapshotList } from "./snapshot.js";
import { type FileMetaData, NUM_LEVELS, VersionEdit } from "./version-edit.js";
import type { Version, VersionSet } from "./version-set.js";
import { BATCH_HEADER_SIZE, WriteBatch, type WriteBatchHandler } from "./write-batch.js";

/** A memtable that no longer takes writes, with the WAL that holds its data. */
export interface ImmutableMemTable {
  readonly mem: MemTable;
  readonly logNumber: number;
}

const EMPTY = new Uint8Array(0);

/** A version kept alive (its files on disk) until `release()`; see `DB.pinCurrentVersion`. */
export interface PinnedVersion {
  readonly version: Version;
  /** Drops the reference. Idempotent. */
  release(): void;
}

/** Applies a batch's records to the memtable with consecutive seqs. */
class MemTableInserter implements WriteBatchHandler {
  mem!: MemTable;
  seq = 0;
  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, index: number): void {
    this.mem.add(this.seq + index, kind, key, value);
  }
}

export class DB {
  readonly dir: string;
  private readonly options: ResolvedOptions;
  private readonly fs: FileSystem;
  private readonly icmp: InternalKeyComparator;
  private readonly mergeOperator: MergeOperator | undefined;
  private readonly stats: Statistics | undefined;
  private readonly versions: VersionSet;
  private readonly snapshots = new SnapshotList();
  private lock: FileLock | undefined;
  private mem: MemTable;
  /** Newest first. */
  private imm: ImmutableMemTable[];
  private wal: LogWriter | undefined;
  /** The current WAL. */
  private logNumber: number;
  /** The oldest WAL holding data of the mutable memtable. */
  private memLogNumber: number;
  private lastSeq: number;
  private closed = false;
  /** Set after a failed WAL write: the database is read-only until reopened. */
  private writeError: ShaleError | undefined;
  private readonly lookup = new LookupResult();
  /** The filter hash of the key a get is looking up (`TableReader.hashKey`). */
  private readonly keyHash = new Uint32Array(2);
  private lookupBusy = false;
  private readonly scratch = new WriteBatch();
  private readonly inserter = new MemTableInserter();
  private readonly blockCache: LRUCache<Block>;
  private readonly tableCache: TableCache;
  private readonly executor: BackgroundExecutor;
  private readonly tableOptions: TableWriteOptions;
  /** The immutable memtable being flushed, if any. */
  private flushing: ImmutableMemTable | undefined;
  /** Set when a background job failed: writes stop (reads go on) until reopen. */
  private backgroundError: Error | undefined;
  private flushWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly compactions: CompactionScheduler;
  private readonly writeController: WriteController;
  private readonly stallHost: StallHost;
  private pendingRemovals = 0;
  private removalWaiters: (() => void)[] = [];
  /** Int32Array(1) shared with compaction jobs: set on close so they stop early. */
  private readonly shutdown = new SharedArrayBuffer(4);

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
    this.mem = state.mem;
    this.imm = state.imm;
    this.wal = state.wal;
    this.logNumber = state.logNumber;
    this.memLogNumber = state.memLogNumber;
    this.lastSeq = state.versions.lastSequence;
    this.blockCache = options.blockCache;
    this.tableOptions = tableWriteOptions(options);
    this.tableCache = new TableCache({
      fs: options.fs,
      path: (n) => tableFileName(dir, n),
      capacity: options.maxOpenFiles,
      comparator: this.icmp.user,
      blockCache: options.blockCache,
      ...(options.statistics !== undefined ? { statistics: options.statistics } : {}),
    });
    const workers =
      options.fs instanceof NodeFileSystem && builtinComparator(this.icmp.name) !== undefined;
    this.executor = workers
      ? new WorkerExecutor(options.maxBackgroundJobs, options.fs)
      : new InlineExecutor(options.fs);
    this.writeController = new WriteController(options);
    this.stallHost = {
      executor: this.executor,
      statistics: this.stats,
      scheduleCompactions: () => this.compactions.maybeSchedule(),
      failed: () => this.backgroundError !== undefined,
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
        canRun: () => !this.closed && this.backgroundError === undefined,
        backgroundFailed: (e) => this.failBackground(e),
        versionChanged: () => this.versionChanged(),
        removeTables: (numbers) => this.removeTables(numbers),
      },
      options,
    );
    this.versions.onObsoleteFiles = (numbers) => this.removeTables(numbers);
    this.versionChanged();
  }

  /** Re-decides write stalls and starts the compactions that became due. */
  private versionChanged(): void {
    this.writeController.update(this.versions.current.numFiles(0));
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

  private removeFiles(paths: string[]): void {
    if (paths.length === 0) return;
    this.pendingRemovals++;
    this.executor.removeFiles(paths, () => {
      if (--this.pendingRemovals === 0) for (const w of this.removalWaiters.splice(0)) w();
    });
  }

  /** A background job failed: writes stop (reads go on) until reopen. */
  private failBackground(error: Error): void {
    if (this.backgroundError !== undefined) return;
    this.backgroundError = error;
    for (const w of this.flushWaiters.splice(0)) w.reject(error);
  }

  /** Opens (creating if allowed) the database in `dir`. See DbOptions for the options. */
  static async open(dir: string, options?: DbOptions): Promise<DB> {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("dir must be a non-empty string");
    const resolved = resolveOptions(options);
    const fs = resolved.fs;
    if (resolved.createIfMissing) fs.mkdir(dir);
    else if (!fs.exists(dir))
      throw ShaleError.invalidArgument(`${dir} does not exist (createIfMissing is false)`);
    const lock = fs.lock(lockFileName(dir));
    try {
      const state = recover(dir, resolved, new InternalKeyComparator(resolved.comparator));

      return new DB(dir, resolved, state, lock);
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  // ---------------------------------------------------------------- writes

  /** Stores `key -> value`. Strings are UTF-8 encoded. */
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

  /** Applies a batch atomically: all of it or none of it survives a crash. */
  write(batch: WriteBatch, options?: WriteOptions): void {
    if (!(batch instanceof WriteBatch)) throw new TypeError("write() takes a WriteBatch");
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
      this.checkRangeOrder(batch);
    }
    const seq = this.lastSeq + 1;
    const rep = batch.seal(seq);
    this.appendToWal(rep, count, options);
    const inserter = this.inserter;
    inserter.mem = this.mem;
    inserter.seq = seq;
    WriteBatch.iterate(rep, inserter);
    this.finishWrite(seq + count - 1, rep.length);
  }

  private checkRangeOrder(batch: WriteBatch): void {
    const user = this.icmp.user;
    WriteBatch.iterate(batch.rep.finish(), {
      apply(kind, key, value) {
        if (kind === ValueKind.RangeDeletion && user.compare(key, value) > 0) {
          throw ShaleError.invalidArgument("deleteRange: start is after end");
        }
      },
    });
  }

  private writeOne(
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
    options: WriteOptions | undefined,
  ): void {
    this.checkWritable();
    if (this.writeController.condition !== StallCondition.Normal)
      this.delayWrite(key.length + value.length);
    const seq = this.lastSeq + 1;
    const batch = this.scratch.clear();
    batch.add(kind, key, value);
    const rep = batch.seal(seq);
    this.appendToWal(rep, 1, options);
    this.mem.add(seq, kind, key, value);
    this.finishWrite(seq, rep.length);
  }

  /** Appends the batch to the WAL (unless disabled) and hands it to the OS or the disk. */
  private appendToWal(rep: Uint8Array, count: number, options: WriteOptions | undefined): void {
    let sync = false;
    let disableWAL = false;
    if (options !== undefined) {
      sync = options.sync === true;
      disableWAL = options.disableWAL === true;
      if (sync && disableWAL)
        throw ShaleError.invalidArgument("sync and disableWAL cannot be combined");
    }
    if (disableWAL) return;
    const stats = this.stats;
    const t0 = stats !== undefined && sync ? stats.now() : 0;
    try {
      const wal = this.wal!;
      wal.addRecord(rep);
      if (sync) wal.sync();
      else wal.flush();
    } catch (e) {
      this.writeError = ShaleError.ioError(
        "WAL write failed; the database is read-only until reopened",
        undefined,
        e,
      );
      throw e;
    }
    if (stats !== undefined) {
      stats.tick(Ticker.WalBytes, rep.length);
      if (sync) {
        stats.tick(Ticker.WalSyncs);
        stats.recordTime(Histogram.WalSyncMicros, t0, 1000);
      }
      stats.tick(Ticker.KeysWritten, count);
    }
  }

  private finishWrite(lastSeq: number, bytes: number): void {
    this.lastSeq = lastSeq;
    this.versions.lastSequence = lastSeq;
    if (this.stats !== undefined) this.stats.tick(Ticker.BytesWritten, bytes - BATCH_HEADER_SIZE);
    if (this.mem.approximateMemoryUsage() >= this.options.writeBufferSize) this.switchMemtable();
  }

  /** Seals the memtable and starts a new one with a new WAL. */
  private switchMemtable(): void {
    const number = this.versions.newFileNumber();
    let wal: LogWriter;
    try {
      wal = new LogWriter(this.fs.openWritable(logFileName(this.dir, number)));
      this.fs.syncDir(this.dir);
      // The old log must be durable before any write in the new one can be (a synced write
      // in the new log must never survive a power cut while earlier writes are lost).
      this.wal!.sync();
      this.wal!.close();
    } catch (e) {
      this.writeError = ShaleError.ioError(
        "could not start a new WAL; the database is read-only until reopened",
        undefined,
        e,
      );
      throw this.writeError;
    }
    this.mem.seal();
    this.imm.unshift({ mem: this.mem, logNumber: this.memLogNumber });
    this.mem = new MemTable({ comparator: this.icmp.user });
    this.wal = wal;
    this.logNumber = number;
    this.memLogNumber = number;
    this.maybeScheduleFlush();
    if (this.imm.length + 1 > this.options.maxWriteBufferNumber) this.stallForFlush();
  }

  /** L0 write stalls (see write-controller.ts); throws if a background job failed. */
  private delayWrite(bytes: number): void {
    this.writeController.delay(bytes, this.stallHost);
    if (this.backgroundError !== undefined) this.checkWritable();
  }

  /**
   * Write stop: `maxWriteBufferNumber` memtables are full. Waits (synchronously: writes are
   * synchronous) until a flush completes, as RocksDB stops writes; counted in statistics.
   */
  private stallForFlush(): void {
    const t0 = performance.now();
    this.writeController.counters.memtableStopCount++;
    while (
      this.imm.length + 1 > this.options.maxWriteBufferNumber &&
      this.backgroundError === undefined
    ) {
      if (this.executor.pending === 0) this.maybeScheduleFlush();
      if (this.executor.pending === 0) break;
      this.executor.drainCompleted(100);
    }
    this.writeController.record(t0, "memtableStopMicros", this.stats);
    if (this.backgroundError !== undefined) throw this.backgroundError;
  }

  /** Starts flushing the oldest immutable memtable if none is being flushed. */
  private maybeScheduleFlush(): void {
    if (this.flushing !== undefined || this.imm.length === 0 || this.backgroundError !== undefined)
      return;
    const target = this.imm[this.imm.length - 1]!;
    this.flushing = target;
    const fileNumber = this.versions.newFileNumber();
    const t0 = this.stats !== undefined ? this.stats.now() : 0;
    const started = performance.now();
    this.executor.flush(
      {
        dir: this.dir,
        fileNumber,
        mem: target.mem,
        comparator: this.icmp.user,
        table: this.tableOptions,
      },
      (error, file) => {
        this.flushing = undefined;
        if (error === undefined) {
          try {
            this.installFlush(target, file);
            if (file !== undefined) {
              const micros = Math.round((performance.now() - started) * 1000);
              this.compactions.stats.recordFlush(file.size, micros, target.mem.numEntries);
            }
            if (this.stats !== undefined) {
              this.stats.tick(Ticker.FlushCount);
              this.stats.recordTime(Histogram.FlushMicros, t0, 1000);
            }
          } catch (e) {
            error = e instanceof Error ? e : new Error(String(e));
          }
        }
        if (error !== undefined) {
          this.failBackground(error);
          return;
        }
        if (this.imm.length === 0) for (const w of this.flushWaiters.splice(0)) w.resolve();
        this.maybeScheduleFlush();
        this.versionChanged();
      },
    );
  }

  /** Makes a flushed table visible (MANIFEST first), drops the memtable, deletes old WALs. */
  private installFlush(target: ImmutableMemTable, file: FileMetaData | undefined): void {
    const i = this.imm.indexOf(target);
    const remaining = this.imm.filter((m) => m !== target);
    // WALs older than every memtable still in memory hold nothing that is not in tables.
    const logNumber =
      remaining.length > 0 ? remaining[remaining.length - 1]!.logNumber : this.memLogNumber;
    const edit = new VersionEdit();
    edit.logNumber = logNumber;
    if (file !== undefined) edit.addFile(0, file);
    this.versions.logAndApply(edit);
    if (i >= 0) this.imm.splice(i, 1);
    const obsolete: string[] = [];
    for (const name of this.fs.list(this.dir)) {
      const m = /^(\d+)\.log$/.exec(name);
      if (m !== null && Number(m[1]) < logNumber) obsolete.push(joinPath(this.dir, name));
    }
    this.removeFiles(obsolete);
  }

  /**
   * Flushes the memtable to an L0 table and waits until every immutable memtable is on disk.
   */
  async flush(): Promise<void> {
    this.checkWritable();
    if (this.mem.numEntries > 0 || this.mem.numRangeTombstones > 0) this.switchMemtable();
    if (this.imm.length === 0) return;
    await new Promise<void>((resolve, reject) => {
      this.flushWaiters.push({ resolve, reject });
      this.maybeScheduleFlush();
    });
  }

  private checkWritable(): void {
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (this.writeError !== undefined) throw this.writeError;
    if (this.backgroundError !== undefined) {
      throw ShaleError.ioError(
        `a background job failed; the database is read-only until reopened: ${this.backgroundError.message}`,
        undefined,
        this.backgroundError,
      );
    }
  }

  // ---------------------------------------------------------------- reads

  /**
   * The value of `key`, or undefined. The result is a view into the memtable arena or a
   * cached block (zero copy): treat it as read-only; it stays valid as long as you hold it.
   */
  get(key: Uint8Array | string, options?: ReadOptions): Uint8Array | undefined {
    if (this.closed) throw ShaleError.closed("the database is closed");
    const k = toBytes(key, "key");
    const snapshot =
      options?.snapshot !== undefined ? SnapshotList.check(options.snapshot) : this.lastSeq;
    let r = this.lookup;
    if (this.lookupBusy)
      r = new LookupResult(); // re-entered from a merge operator
    else this.lookupBusy = true;
    try {
      return this.getInto(k, snapshot, r, options);
    } finally {
      r.reset();
      if (r === this.lookup) this.lookupBusy = false;
    }
  }

  /** `get` for many keys; results in the same order. */
  getMany(
    keys: readonly (Uint8Array | string)[],
    options?: ReadOptions,
  ): (Uint8Array | undefined)[] {
    if (!Array.isArray(keys)) throw new TypeError("getMany takes an array of keys");
    const out = new Array<Uint8Array | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = this.get(keys[i]!, options);
    return out;
  }

  /**
   * Probes the tables, newest data first: every L0 file (newest first), then the one file
   * per deeper level whose key range holds the key. Stops at the first Value or deletion,
   * or when a range tombstone covering the key is newer than everything left.
   */
  private getFromTables(
    key: Uint8Array,
    snapshot: number,
    r: LookupResult,
    ro: TableReadOptions | undefined,
  ): void {
    const levels = this.versions.current.levels;
    const l0 = levels[0]!;
    // Hashed once for every table's filter probe.
    const keyHash = this.keyHash;
    TableReader.hashKey(key, keyHash);
    for (let i = 0; i < l0.length; i++) {
      const f = l0[i]!;
      if (r.maxCoveringSeq > f.largestSeq) {
        r.state = LookupState.Deleted; // a newer range tombstone hides everything left
        return;
      }
      if (
        this.icmp.compareUserKeyTo(key, f.smallest) < 0 ||
        this.icmp.compareUserKeyTo(key, f.largest) > 0
      )
        continue;
      this.tableCache.get(f.number, f.size).get(key, snapshot, r, ro, keyHash);
      if (r.done) return;
    }
    for (let level = 1; level < NUM_LEVELS; level++) {
      const files = levels[level]!;
      if (files.length === 0) continue;
      // The first file that does not end before key.
      let lo = 0;
      let hi = files.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const largest = files[mid]!.largest;
        const c = this.icmp.compareUserKeyTo(key, largest);
        // A file ending in a range-tombstone sentinel holds nothing at its last user key.
        if (c > 0 || (c === 0 && isSentinelKey(largest))) lo = mid + 1;
        else hi = mid;
      }
      if (lo === files.length) continue;
      const f = files[lo]!;
      if (this.icmp.compareUserKeyTo(key, f.smallest) < 0) continue;
      if (r.maxCoveringSeq > f.largestSeq) {
        r.state = LookupState.Deleted; // a newer range tombstone hides everything left
        return;
      }
      this.tableCache.get(f.number, f.size).get(key, snapshot, r, ro, keyHash);
      if (r.done) return;
    }
  }

  private getInto(
    key: Uint8Array,
    snapshot: number,
    r: LookupResult,
    readOptions: TableReadOptions | undefined,
  ): Uint8Array | undefined {
    const stats = this.stats;
    this.mem.get(key, snapshot, r);
    if (!r.done) {
      const imm = this.imm;
      for (let i = 0; i < imm.length && !r.done; i++) imm[i]!.mem.get(key, snapshot, r);
    }
    if (stats !== undefined) {
      stats.tick(Ticker.KeysRead);
      stats.tick(r.done ? Ticker.MemtableHit : Ticker.MemtableMiss);
    }
    if (!r.done) this.getFromTables(key, snapshot, r, readOptions);
    switch (r.state) {
      case LookupState.Found:
        return r.operands.length === 0 ? r.value : this.fullMerge(key, r.value, r.operands);
      case LookupState.Deleted:
        return r.operands.length === 0 ? undefined : this.fullMerge(key, undefined, r.operands);
      case LookupState.Merging:
        return this.fullMerge(key, undefined, r.operands);
      default:
        return undefined;
    }
  }

  /** Applies the merge operator; `newestFirst` operands as collected by a lookup. */
  private fullMerge(
    key: Uint8Array,
    base: Uint8Array | undefined,
    newestFirst: readonly Uint8Array[],
  ): Uint8Array {
    const op = this.mergeOperator;
    if (op === undefined) {
      throw ShaleError.invalidArgument("found merge operands but options.mergeOperator is not set");
    }
    const operands = newestFirst.slice().reverse();
    const stats = this.stats;
    const t0 = stats !== undefined ? stats.now() : 0;
    const result = op.fullMerge(key, base, operands);
    if (stats !== undefined) {
      stats.tick(Ticker.MergeOperations);
      stats.recordTime(Histogram.MergeNanos, t0, 1, Ticker.MergeTimeNanos);
    }
    if (result === undefined) {
      if (stats !== undefined) stats.tick(Ticker.MergeFailures);
      throw ShaleError.corruption(`merge operator "${op.name}" failed`);
    }
    if (!(result instanceof Uint8Array))
      throw new TypeError(`merge operator "${op.name}" must return a Uint8Array`);
    return result;
  }

  /**
   * An iterator over the whole database (or `[lowerBound, upperBound)`) as of
   * `readOptions.snapshot` or now. Unpositioned: call a seek first — or use it with
   * `for (const [key, value] of db.iterator())` (`reverse: true` walks backwards). It pins
   * the memtables and table files it reads until `close()` (for-of closes it at the end).
   */
  iterator(readOptions?: IteratorOptions): DBIterator {
    if (this.closed) throw ShaleError.closed("the database is closed");
    const ro = readOptions ?? {};
    if (typeof ro !== "object" || ro === null) throw new TypeError("readOptions must be an object");
    const snapshotSeq = ro.snapshot !== undefined ? SnapshotList.check(ro.snapshot) : this.lastSeq;
    const lowerBound =
      ro.lowerBound !== undefined ? toBytes(ro.lowerBound, "lowerBound") : undefined;
    const upperBound =
      ro.upperBound !== undefined ? toBytes(ro.upperBound, "upperBound") : undefined;
    const pin = this.pinCurrentVersion();
    let sources: CollectedSources;
    try {
      sources = collectSources({
        mem: this.mem,
        imm: this.imm,
        version: pin.version,
        tableCache: this.tableCache,
        icmp: this.icmp,
        readOptions:
          ro.fillCache !== undefined || ro.verifyChecksums !== undefined ? ro : undefined,
      });
    } catch (e) {
      pin.release();
      throw e;
    }
    const options: DBIteratorSources = {
      ...sources,
      comparator: this.icmp.user,
      mergeOperator: this.mergeOperator,
      snapshotSeq,
      reverse: ro.reverse === true,
      onClose: () => pin.release(),
    };
    if (lowerBound !== undefined) options.lowerBound = lowerBound;
    if (upperBound !== undefined) options.upperBound = upperBound;
    if (this.stats !== undefined) options.statistics = this.stats;
    return newDBIterator(options);
  }

  /** A snapshot of the current state; pass it as `readOptions.snapshot`, then `release()` it. */
  snapshot(): Snapshot {
    if (this.closed) throw ShaleError.closed("the database is closed");
    return this.snapshots.create(this.lastSeq);
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
   * `shale.stats` (see properties.ts).
   */
  getProperty(name: string): string | undefined {
    if (typeof name !== "string") throw new TypeError("property name must be a string");
    if (this.closed) throw ShaleError.closed("the database is closed");
    return formatProperty(name, {
      mem: this.mem,
      imm: this.imm,
      version: this.versions.current,
      snapshots: this.snapshots,
      lastSeq: this.lastSeq,
      stats: this.stats,
      blockCache: this.blockCache,
      backgroundError: this.backgroundError,
      compactions: this.compactions,
      stalls: this.writeController,
      runningFlushes: this.flushing !== undefined ? 1 : 0,
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
  async compactRange(start?: Uint8Array | string, end?: Uint8Array | string): Promise<void> {
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
   * @internal for tests and benchmarks (RocksDB's WaitForCompact): resolves once the
   * immutable memtables are flushed and no compaction is running or due.
   */
  async waitForCompactions(): Promise<void> {
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (this.imm.length > 0 && this.backgroundError === undefined) {
      await new Promise<void>((resolve, reject) => {
        this.flushWaiters.push({ resolve, reject });
        this.maybeScheduleFlush();
      });
    }
    await this.compactions.waitForIdle();
    while (this.pendingRemovals > 0) await new Promise<void>((r) => this.removalWaiters.push(r));
    if (this.backgroundError !== undefined) throw this.backgroundError;
  }

  /** @internal for tests and debugging: the current version (do not keep it without ref()). */
  debugVersion(): Version {
    return this.versions.current;
  }

  /** Flushes and syncs the WAL, writes nothing else, and releases the LOCK. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    Atomics.store(new Int32Array(this.shutdown), 0, 1); // running compactions stop early
    try {
      // Running flushes finish (and are installed) before the MANIFEST closes.
      await this.executor.close();
      if (this.writeError === undefined) this.wal?.sync();
    } finally {
      this.wal?.close();
      this.wal = undefined;
      this.versions.close();
      this.tableCache.close();
      this.lock?.release();
      this.lock = undefined;
      for (const w of this.flushWaiters.splice(0))
        w.reject(ShaleError.closed("the database was closed"));
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** @internal for tests: the path of table `n`. */
  tablePath(n: number): string {
    return tableFileName(this.dir, n);
  }
}
