/**
 * CompactionScheduler: runs a family's compactions — automatic ones picked whenever the
 * version changes (leveled by score, picker.ts; or the family's compaction style's picker,
 * picker-universal.ts / picker-fifo.ts), and manual ones (`db.compactRange`).
 *
 * Life of a compaction:
 * 1. pick (main thread): the picker chooses inputs among files not being compacted; the
 *    files are marked busy and the version they come from is referenced (`ref()`), so they
 *    stay on disk however the version set moves on meanwhile. The live snapshots are taken
 *    now: entries only they can see are kept.
 * 2. run (a worker, or inline): outputs are written and synced (compaction-job.ts).
 * 3. install (main thread): ONE VersionEdit — inputs deleted, outputs added — through
 *    `logAndApply`, which syncs it to the MANIFEST before the new version becomes current.
 *    Then the picked version is released: once no version in use refers to an input any
 *    more, the VersionSet reports it obsolete and the database deletes it. A crash before
 *    the edit leaves orphan outputs, which the next open removes. A failed MANIFEST write
 *    or sync leaves the outcome unknown: the database turns read-only and deletes neither
 *    the outputs nor the inputs (the next open keeps whichever version the MANIFEST holds).
 * A trivial move is just the edit, done at pick time; so is a FIFO deletion (inputs out,
 * nothing in).
 *
 * Several compactions run at once, up to `max(1, maxBackgroundJobs - 1)`, never sharing a
 * file and never writing overlapping ranges into the same level. A manual compaction pauses
 * automatic picking, waits for running compactions, then compacts level by level down to
 * the deepest non-empty level (L1 at least), each step one job over every file of the level
 * overlapping the range. Under universal compaction it is one job of every table into the
 * last level, whatever the range; under FIFO it is the automatic FIFO pick (RocksDB's
 * FIFOCompactionPicker::CompactRange), so it deletes what the size and ttl rules say.
 */
import {
  Histogram,
  type InternalKeyComparator,
  ShaleError,
  type Statistics,
  Ticker,
} from "@shale/base";
import { pickBottommostManual } from "../compaction/bottommost-manual.js";
import type { TableWriteOptions } from "../compaction/build-table.js";
import { type Compaction, CompactionReason } from "../compaction/compaction.js";
import type {
  CompactionJobResult,
  CompactionJobSpec,
  JobFile,
} from "../compaction/compaction-job.js";
import { CompactionStats, estimatePendingCompactionBytes } from "../compaction/compaction-stats.js";
import { CompactionPicker, type PickerOptions } from "../compaction/picker.js";
import { FifoCompactionPicker } from "../compaction/picker-fifo.js";
import { UniversalCompactionPicker } from "../compaction/picker-universal.js";
import type { FilterSpec } from "../compaction/value-filter.js";
import type { CompactionFilterFunction } from "../core/compaction-filter.js";
import type { ResolvedCompactionStyle } from "../core/compaction-style-options.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import { fileRange, type KeyRange, rangesOverlap } from "../version/key-range.js";
import type { Version } from "../version/version.js";
import { type FileMetaData, NUM_LEVELS } from "../version/version-edit.js";
import type { TreeVersions } from "../version/version-set.js";
import type { BackgroundExecutor } from "./executor.js";

/** A trivial move's job statistics: nothing read, nothing written. */
const MOVED: CompactionJobResult["stats"] = Object.freeze({
  inputEntries: 0,
  outputEntries: 0,
  droppedHidden: 0,
  droppedCovered: 0,
  droppedDeletions: 0,
  mergedOperands: 0,
  filterRemoved: 0,
  filterChanged: 0,
  bytesRead: 0,
  bytesWritten: 0,
  tombstonesIn: 0,
  tombstonesOut: 0,
  micros: 0,
});

/** What the scheduler needs from its database. */
export interface SchedulerHost {
  readonly dir: string;
  readonly icmp: InternalKeyComparator;
  readonly mergeOperator: MergeOperator | undefined;
  readonly versions: TreeVersions;
  readonly executor: BackgroundExecutor;
  /**
   * The table options of a compaction that reads `inputBytes` of tables (the capture budget
   * for warming may count the room its inputs' cached blocks will leave).
   */
  tableOptionsFor(inputBytes: number): TableWriteOptions;
  readonly statistics: Statistics | undefined;
  /** Int32Array(1) set non-zero when the database closes (running jobs stop). */
  readonly shutdown: SharedArrayBuffer;
  /** Live snapshot seqs, ascending. */
  snapshotSeqs(): number[];
  /** False once the database is closing or a background job failed. */
  canRun(): boolean;
  /** The error that made the database read-only, if one did (see db.ts `failBackground`). */
  failure(): Error | undefined;
  /** A compaction failed: the database turns read-only. */
  backgroundFailed(error: Error): void;
  /** A compaction's edit is installed (event listeners). Default: nothing. */
  readonly compactionCompleted?: ((c: Compaction, result: CompactionJobResult) => void) | undefined;
  /** The current version changed (write stalls are re-decided). */
  versionChanged(): void;
  /**
   * A compaction's output tables were installed (the block cache may be warmed with them);
   * `inputs`: the numbers of the tables it replaced, out of the current version now.
   */
  tablesCompacted(files: readonly FileMetaData[], inputs: readonly number[]): void;
  /**
   * True while automatic L0 compactions should wait (the flushes of the memtables the open
   * replayed are still to land in L0; see db.ts). Other levels are picked meanwhile.
   */
  deferL0Compaction(): boolean;
  /**
   * The compaction filter and TTL of a compaction starting at `level` (with the clock read
   * now), and the user's filter function as loaded here. Default: none.
   */
  readonly compactionFilter?:
    | ((level: number) => { spec: FilterSpec; fn: CompactionFilterFunction | undefined })
    | undefined;
}

export interface SchedulerOptions extends PickerOptions {
  maxBackgroundJobs: number;
  disableAutoCompactions: boolean;
  /** Default: leveled. */
  compaction?: ResolvedCompactionStyle;
  /** For FIFO's allowCompaction. Default: 64 MiB. */
  writeBufferSize?: number;
  /** FIFO's clock, seconds since the epoch (tests). Default: the system clock. */
  nowSeconds?: () => number;
}

export class CompactionScheduler {
  /** The leveled picker (its level targets serve the stats whatever the style). */
  readonly picker: CompactionPicker;
  /** The universal or FIFO picker; undefined for leveled compaction. */
  readonly stylePicker: UniversalCompactionPicker | FifoCompactionPicker | undefined;
  readonly stats = new CompactionStats();
  private readonly host: SchedulerHost;
  private readonly options: SchedulerOptions;
  /** Numbers of the files being compacted. */
  readonly busy = new Set<number>();
  private readonly running = new Set<Compaction>();
  private manual = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(host: SchedulerHost, options: SchedulerOptions) {
    this.host = host;
    this.options = options;
    this.picker = new CompactionPicker(host.icmp, options);
    const style = options.compaction;
    this.stylePicker =
      style?.compactionStyle === "universal"
        ? new UniversalCompactionPicker(host.icmp, { ...options, universal: style.universal })
        : style?.compactionStyle === "fifo"
          ? new FifoCompactionPicker(host.icmp, {
              fifo: style.fifo,
              level0FileNumCompactionTrigger: options.level0FileNumCompactionTrigger,
              targetFileSizeBase: options.targetFileSizeBase,
              writeBufferSize: options.writeBufferSize ?? 64 * 1024 * 1024,
              ...(options.nowSeconds === undefined ? {} : { nowSeconds: options.nowSeconds }),
            })
          : undefined;
  }

  /**
   * What the L0 write stalls count (RocksDB's l0_delay_trigger_count): L0 tables, or under
   * universal compaction the sorted runs (L0 tables + non-empty levels).
   */
  stallCount(version: Version): number {
    const n = version.levels[0]!.length;
    if (!(this.stylePicker instanceof UniversalCompactionPicker)) return n;
    let runs = n;
    for (let l = 1; l < NUM_LEVELS; l++) if (version.levels[l]!.length > 0) runs++;
    return runs;
  }

  /**
   * RocksDB's estimated_compaction_needed_bytes (`estimate-pending-compaction-bytes`, and the
   * pending-bytes write stalls): leveled's estimate (compaction-stats.ts); 0 under universal
   * and FIFO, which RocksDB does not estimate (EstimateCompactionBytesNeeded is leveled only).
   */
  pendingCompactionBytes(version: Version): number {
    if (this.stylePicker !== undefined) return 0;
    const picker = this.picker;
    return estimatePendingCompactionBytes(version, picker.level0Trigger, (level) =>
      picker.maxBytesForLevel(level),
    );
  }

  get numRunning(): number {
    return this.running.size;
  }

  /**
   * True when a running compaction writes to `level` over user keys that overlap `range`
   * (RocksDB's RangeOverlapWithCompaction: an ingested file must not go there).
   */
  writesOver(level: number, range: KeyRange): boolean {
    const ucmp = this.host.icmp.user;
    for (const c of this.running) {
      if (c.outputLevel === level && rangesOverlap(ucmp, c.range, range)) return true;
    }
    return false;
  }

  private get maxRunning(): number {
    return Math.max(1, this.options.maxBackgroundJobs - 1);
  }

  /** Scores of L0..L5 as the picker sees them now. */
  scores(): number[] {
    return (this.stylePicker ?? this.picker).scores(this.host.versions.current, this.busy);
  }

  /** True if an automatic compaction is due (RocksDB's `compaction-pending`). */
  get pending(): boolean {
    return (this.stylePicker ?? this.picker).needsCompaction(this.host.versions.current, this.busy);
  }

  /** Starts the automatic compactions that are due and fit. */
  maybeSchedule(): void {
    if (this.options.disableAutoCompactions || this.manual > 0) return;
    const t0 = tracingPauses ? pauseStart() : 0;
    this.scheduleDue();
    if (tracingPauses) pauseEnd(t0, "compaction schedule");
  }

  private scheduleDue(): void {
    while (this.running.size < this.maxRunning && this.host.canRun()) {
      const version = this.host.versions.current;
      // A deferred L0 is left out as if it were being compacted.
      const busy = this.host.deferL0Compaction() ? this.withL0Busy(version) : this.busy;
      const c = (this.stylePicker ?? this.picker).pick(version, busy, [...this.running]);
      if (c === undefined) return;
      if (c.deletion) {
        if (!this.installDeletion(c)) return;
      } else if (c.trivialMove) {
        if (!this.installMove(c)) return;
      } else {
        this.start(c, undefined);
      }
    }
  }

  /** `busy` plus every L0 file of `version`. */
  private withL0Busy(version: Version): Set<number> {
    const busy = new Set(this.busy);
    for (const f of version.levels[0]!) busy.add(f.number);
    return busy;
  }

  /**
   * Installs a trivial move: the inputs re-filed in the output level, unread (leveled: the
   * one input, one level down; universal: every non-overlapping input).
   */
  private installMove(c: Compaction): boolean {
    const files = c.allInputs();
    try {
      this.host.versions.logAndApply(c.moveEdit());
    } catch (e) {
      this.host.backgroundFailed(e instanceof Error ? e : new Error(String(e)));
      return false;
    }
    let bytes = 0;
    for (const f of files) bytes += f.size;
    this.stats.recordMove(c.outputLevel, bytes);
    // The files moved are both input and output; nothing was read or written.
    this.host.compactionCompleted?.(c, { files, stats: MOVED });
    this.host.versionChanged();
    return true;
  }

  /**
   * Installs a FIFO deletion: the inputs leave the version (and are deleted once no version
   * in use holds them); nothing is read or written.
   */
  private installDeletion(c: Compaction): boolean {
    try {
      this.host.versions.logAndApply(c.edit([]));
    } catch (e) {
      this.host.backgroundFailed(e instanceof Error ? e : new Error(String(e)));
      return false;
    }
    this.stats.recordDeletion(c.level, c.inputs[0].length, c.inputBytes(0));
    const st = this.host.statistics;
    if (st !== undefined) {
      st.tick(
        c.reason === CompactionReason.FifoTtl
          ? Ticker.FifoTtlCompactions
          : Ticker.FifoMaxSizeCompactions,
      );
    }
    this.host.compactionCompleted?.(c, { files: [], stats: MOVED });
    this.host.versionChanged();
    return true;
  }

  /** Runs `c`; `done` hears the outcome once it is installed (or failed). */
  private start(c: Compaction, done: ((error: Error | undefined) => void) | undefined): void {
    for (const f of c.allInputs()) this.busy.add(f.number);
    c.version.ref();
    this.running.add(c);
    const host = this.host;
    const t0 = host.statistics !== undefined ? host.statistics.now() : 0;
    const finish = (error: Error | undefined) => {
      for (const f of c.allInputs()) this.busy.delete(f.number);
      this.running.delete(c);
      const t0 = tracingPauses ? pauseStart() : 0;
      c.version.unref(); // inputs no version needs are deleted now
      if (tracingPauses) pauseEnd(t0, "compaction inputs released");
      if (error !== undefined && host.canRun()) host.backgroundFailed(error);
      host.versionChanged();
      if (this.running.size === 0) for (const w of this.idleWaiters.splice(0)) w();
      // A manual compaction hears the database's error (the one that made it read-only).
      done?.(error === undefined ? undefined : (host.failure() ?? error));
      this.maybeSchedule();
    };
    let spec: CompactionJobSpec;
    try {
      spec = this.spec(c);
      const filter = host.compactionFilter?.(c.level);
      if (filter !== undefined) spec.filter = filter.spec;
      host.executor.compact(
        {
          spec,
          comparator: host.icmp.user,
          mergeOperator: host.mergeOperator,
          compactionFilter: filter?.fn,
        },
        (error, result) => {
          const tDone = tracingPauses ? pauseStart() : 0;
          if (error === undefined && result !== undefined) error = this.install(c, result, t0);
          finish(error);
          if (tracingPauses) pauseEnd(tDone, "compaction done", () => c.toString());
        },
      );
    } catch (e) {
      finish(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /**
   * One edit for the whole result. If the MANIFEST write or sync fails, the outputs STAY:
   * the edit may have reached the disk, and then the next open takes them as live and the
   * inputs as obsolete (deleting the outputs here lost the range: every read of it failed
   * with ENOENT after the reopen). If it did not, the next open removes them as orphans.
   */
  private install(c: Compaction, result: CompactionJobResult, t0: number): Error | undefined {
    try {
      this.host.versions.logAndApply(c.edit(result.files));
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
    if (result.files.length > 0) this.host.tablesCompacted(result.files, inputNumbers(c));
    const s = result.stats;
    this.stats.recordCompaction({
      outputLevel: c.outputLevel,
      micros: s.micros,
      bytesReadInput: c.inputBytes(0),
      bytesReadOutput: c.inputBytes(1),
      bytesWritten: s.bytesWritten,
      filesIn: c.numInputFiles,
      filesOut: result.files.length,
      keysIn: s.inputEntries,
      keysOut: s.outputEntries,
    });
    this.host.compactionCompleted?.(c, result);
    const st = this.host.statistics;
    if (st !== undefined) {
      st.tick(Ticker.CompactionCount);
      st.tick(Ticker.CompactReadBytes, s.bytesRead);
      st.tick(Ticker.CompactWriteBytes, s.bytesWritten);
      st.recordTime(Histogram.CompactionMicros, t0, 1000);
    }
    return undefined;
  }

  private spec(c: Compaction): CompactionJobSpec {
    const ucmp = this.host.icmp.user;
    const job = (f: FileMetaData): JobFile => ({
      number: f.number,
      size: f.size,
      largestSeq: f.largestSeq,
      smallest: f.smallest,
      largest: f.largest,
    });
    const runs: JobFile[][] =
      c.level === 0 ? c.inputs[0].map((f) => [job(f)]) : [c.inputs[0].map(job)];
    for (const m of c.middleInputs) runs.push(m.files.map(job));
    if (c.inputs[1].length > 0) runs.push(c.inputs[1].map(job));
    const snapshots = [...new Set(this.host.snapshotSeqs())].sort((a, b) => a - b);
    return {
      dir: this.host.dir,
      runs,
      outputLevel: c.outputLevel,
      snapshots,
      lowerLevels: c.lowerLevelRanges(ucmp),
      grandparents: c.grandparents.map((f) => ({ ...fileRange(f), size: f.size })),
      targetFileSize: c.maxOutputFileSize ?? this.options.targetFileSizeBase,
      maxGrandparentOverlapBytes: this.picker.maxGrandparentOverlapBytes,
      table:
        c.outputCompression === undefined
          ? this.host.tableOptionsFor(inputBytes(runs))
          : { ...this.host.tableOptionsFor(inputBytes(runs)), compression: c.outputCompression },
      fileNumbers: this.host.versions.fileNumbers.buffer,
      shutdown: this.host.shutdown,
    };
  }

  /**
   * Resolves once no compaction runs and none is due (or the database stops running jobs).
   */
  async waitForIdle(): Promise<void> {
    for (;;) {
      if (!this.host.canRun()) return;
      this.maybeSchedule();
      if (this.running.size === 0) return;
      await this.waitIdle();
    }
  }

  /** Resolves when no compaction is running. */
  private waitIdle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Throws the database's error if a background job failed, Incomplete if it is closing. */
  private checkCanRun(): void {
    const failure = this.host.failure();
    if (failure !== undefined) throw failure;
    if (!this.host.canRun()) {
      throw ShaleError.incomplete("compactRange stopped: the database is closing");
    }
  }

  /**
   * Manual compaction of the user keys in `range` (everything when undefined) down to the
   * deepest non-empty level. REQUIRES: the memtables were flushed by the caller.
   */
  async compactRange(range: KeyRange | undefined): Promise<void> {
    this.manual++;
    try {
      await this.waitIdle();
      this.checkCanRun();
      if (this.stylePicker !== undefined) {
        await this.compactAllByStyle(this.stylePicker);
        return;
      }
      let deepest = 0;
      const levels = this.host.versions.current.levels;
      for (let l = 0; l < NUM_LEVELS; l++) if (levels[l]!.length > 0) deepest = l;
      const target = Math.max(1, deepest);
      // With a compaction filter, the deepest level is rewritten in place last (see
      // compaction/bottommost-manual.ts).
      const inPlace = this.host.compactionFilter !== undefined && deepest > 0;
      const last = inPlace ? deepest : target - 1;
      for (let level = 0; level <= last; level++) {
        for (;;) {
          this.checkCanRun();
          const current = this.host.versions.current;
          const pick =
            inPlace && level === deepest
              ? pickBottommostManual(
                  current,
                  level,
                  range,
                  this.busy,
                  [...this.running],
                  this.host.icmp.user,
                  this.picker.levelCodecs,
                )
              : this.picker.pickManual(current, level, range, this.busy, [...this.running]);
          if (pick === "empty") break;
          if (pick === "busy") {
            if (this.running.size === 0)
              throw new Error("manual compaction: inputs busy with nothing running");
            await this.waitIdle();
            continue;
          }
          await new Promise<void>((resolve, reject) =>
            this.start(pick, (e) => (e === undefined ? resolve() : reject(e))),
          );
          break;
        }
      }
    } finally {
      this.manual--;
      this.maybeSchedule();
    }
  }

  /**
   * compactRange under universal (every table into the last level, one job) or FIFO (the
   * FIFO pick, repeated while it deletes). REQUIRES: nothing running.
   */
  private async compactAllByStyle(
    picker: UniversalCompactionPicker | FifoCompactionPicker,
  ): Promise<void> {
    for (;;) {
      this.checkCanRun();
      const version = this.host.versions.current;
      if (picker instanceof FifoCompactionPicker) {
        const c = picker.pick(version, this.busy);
        if (c === undefined) return;
        if (c.deletion) {
          if (!this.installDeletion(c)) this.checkCanRun();
          continue;
        }
        await this.run(c);
        return;
      }
      const pick = picker.pickManual(version, this.busy, [...this.running]);
      if (pick === "empty") return;
      if (pick === "busy") {
        if (this.running.size === 0)
          throw new Error("manual compaction: inputs busy with nothing running");
        await this.waitIdle();
        continue;
      }
      await this.run(pick);
      return;
    }
  }

  private run(c: Compaction): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      this.start(c, (e) => (e === undefined ? resolve() : reject(e))),
    );
  }
}

/** Bytes of the tables a compaction job reads. */
function inputBytes(runs: readonly (readonly JobFile[])[]): number {
  let n = 0;
  for (const run of runs) for (const f of run) n += f.size;
  return n;
}

/** The numbers of the tables compaction `c` replaces. */
function inputNumbers(c: Compaction): number[] {
  const numbers = c.inputs[0].map((f) => f.number);
  for (const m of c.middleInputs) for (const f of m.files) numbers.push(f.number);
  for (const f of c.inputs[1]) numbers.push(f.number);
  return numbers;
}
