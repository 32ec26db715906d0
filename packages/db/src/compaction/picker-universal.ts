/**
 * Universal compaction picking (RocksDB's UniversalCompactionPicker,
 * compaction_picker_universal.cc, as of 7.8.3).
 *
 * Sorted runs, newest first: each L0 table is one, then each non-empty level L1..L6 is one
 * (a run is busy when any of its tables is being compacted). Nothing is picked while there
 * are fewer runs than `level0FileNumCompactionTrigger`; then, the first that picks wins:
 *
 * 1. Size amplification: the runs from the newest one not busy up to (not including) the
 *    oldest, none busy, hold `candidate` bytes; if candidate * 100 >=
 *    maxSizeAmplificationPercent * (oldest run's bytes), every run from there to the oldest
 *    is compacted into one.
 * 2. Size ratio: from each run not busy, newest first, the following runs join while the
 *    candidates' total (stopStyle "totalSize"; "similarSize": the last picked run's size,
 *    both ways) times (100 + sizeRatio)% reaches the next run's size, up to maxMergeWidth;
 *    the first stretch of at least max(2, minMergeWidth) runs is compacted.
 * 3. Sorted-run count: if more than trigger runs are not busy, the same walk with no size
 *    limit, taking (runs - trigger + 1) runs.
 *
 * Output level: the last level (L6) when the oldest run is taken; otherwise one level above
 * the first run left out (L0 when that run is an L0 table — an L0 -> L0 compaction, written
 * as one table). Outputs into L1..L6 are cut at targetFileSizeBase (RocksDB's
 * MaxFileSizeForLevel for universal). A pick whose output range overlaps a running
 * compaction writing to the same level (not L0) is refused. With compressionSizePercent
 * >= 0, a size-ratio pick writes uncompressed tables while the runs older than it already
 * hold that percent of all bytes.
 *
 * With `allowTrivialMove`, an automatic pick (not `compactRange`) whose input tables overlap
 * nowhere — no user key in two of them (RocksDB's IsInputFilesNonOverlapping) — and whose
 * output level is not L0 is a trivial move: the tables are re-filed in the output level,
 * unread and unwritten.
 *
 * Score (RocksDB's L0 score for universal, the others 0): runs not busy / trigger.
 * `db.compactRange` compacts every table of every level into the last level, whatever the
 * range (RocksDB's kCompactAllLevels).
 *
 * Example (trigger 4, ratio 1, amp 200): runs 1 MB, 1 MB, 1 MB, 10 MB. Size amp: 3 MB is
 * 30% of 10 MB, under 200%. Size ratio from the newest: 1 x 1.01 >= 1 joins (2 MB), 2.02 >=
 * 1 joins (3 MB), 3.03 < 10 stops: three runs -> one L0 table (the 10 MB run is an L0 table)
 * or the level above the 10 MB run's level.
 */
import { type InternalKeyComparator, TRAILER_SIZE } from "@shale/base";
import type { CompressionName } from "@shale/sstable";
import type { ResolvedUniversalOptions } from "../core/compaction-style-options.js";
import { rangesOverlap } from "../version/key-range.js";
import { type FileMetaData, NUM_LEVELS } from "../version/version-edit.js";
import type { Version } from "../version/version-set.js";
import { Compaction, CompactionReason, type LevelInputs } from "./compaction.js";
import { compactionCompression, type LevelCompressionOptions } from "./output-compression.js";
import type { ManualPick, RunningCompaction } from "./picker.js";

export interface UniversalPickerOptions extends Partial<LevelCompressionOptions> {
  universal: ResolvedUniversalOptions;
  level0FileNumCompactionTrigger: number;
  targetFileSizeBase: number;
}

/** One sorted run: an L0 table, or a whole level. */
export interface SortedRun {
  readonly level: number;
  /** The table (L0 runs only). */
  readonly file: FileMetaData | undefined;
  readonly size: number;
  readonly busy: boolean;
}

const UINT_MAX = 4294967295;

export class UniversalCompactionPicker {
  private readonly icmp: InternalKeyComparator;
  private readonly options: UniversalPickerOptions;

  constructor(icmp: InternalKeyComparator, options: UniversalPickerOptions) {
    this.icmp = icmp;
    this.options = options;
  }

  /** The sorted runs of `version`, newest first. */
  sortedRuns(version: Version, busy: ReadonlySet<number>): SortedRun[] {
    const runs: SortedRun[] = [];
    for (const f of version.levels[0]!)
      runs.push({ level: 0, file: f, size: f.size, busy: busy.has(f.number) });
    for (let level = 1; level < NUM_LEVELS; level++) {
      const files = version.levels[level]!;
      if (files.length === 0) continue;
      let size = 0;
      let isBusy = false;
      for (const f of files) {
        size += f.size;
        if (busy.has(f.number)) isBusy = true;
      }
      runs.push({ level, file: undefined, size, busy: isBusy });
    }
    return runs;
  }

  /** L0's score is the whole tree's (runs not busy / trigger); deeper levels 0. */
  scores(version: Version, busy: ReadonlySet<number>): number[] {
    let n = 0;
    for (const r of this.sortedRuns(version, busy)) if (!r.busy) n++;
    const out = new Array<number>(NUM_LEVELS - 1).fill(0);
    out[0] = n / this.options.level0FileNumCompactionTrigger;
    return out;
  }

  needsCompaction(version: Version, busy: ReadonlySet<number>): boolean {
    return this.scores(version, busy)[0]! >= 1;
  }

  pick(
    version: Version,
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
  ): Compaction | undefined {
    const runs = this.sortedRuns(version, busy);
    const trigger = this.options.level0FileNumCompactionTrigger;
    if (runs.length === 0 || runs.length < trigger) return undefined;
    const score = this.scores(version, busy)[0]!;
    const u = this.options.universal;
    const c =
      this.pickSizeAmp(version, runs, running, score) ??
      this.pickSortedRuns(version, runs, running, score, u.sizeRatio, UINT_MAX);
    if (c !== undefined) return c;
    let notBusy = 0;
    for (const r of runs) if (!r.busy) notBusy++;
    if (notBusy > trigger)
      return this.pickSortedRuns(version, runs, running, score, UINT_MAX, notBusy - trigger + 1);
    return undefined;
  }

  private pickSizeAmp(
    version: Version,
    runs: readonly SortedRun[],
    running: readonly RunningCompaction[],
    score: number,
  ): Compaction | undefined {
    const last = runs.length - 1;
    if (runs[last]!.busy) return undefined;
    let start = -1;
    for (let i = 0; i < last; i++) {
      if (!runs[i]!.busy) {
        start = i;
        break;
      }
    }
    if (start < 0) return undefined;
    let candidate = 0;
    for (let i = start; i < last; i++) {
      if (runs[i]!.busy) return undefined;
      candidate += runs[i]!.size;
    }
    const base = runs[last]!.size;
    if (candidate * 100 < this.options.universal.maxSizeAmplificationPercent * base)
      return undefined;
    return this.compaction(
      version,
      runs,
      start,
      last,
      running,
      CompactionReason.UniversalSizeAmplification,
      score,
      true,
    );
  }

  private pickSortedRuns(
    version: Version,
    runs: readonly SortedRun[],
    running: readonly RunningCompaction[],
    score: number,
    ratio: number,
    maxFiles: number,
  ): Compaction | undefined {
    const u = this.options.universal;
    const maxFilesToCompact = Math.min(u.maxMergeWidth, maxFiles);
    const minMergeWidth = Math.max(u.minMergeWidth, 2);
    let start = -1;
    let count = 0;
    for (let loop = 0; loop < runs.length; loop++) {
      count = 0;
      while (loop < runs.length && runs[loop]!.busy) loop++;
      if (loop === runs.length) break;
      count = 1;
      let candidateSize = runs[loop]!.size;
      for (let i = loop + 1; count < maxFilesToCompact && i < runs.length; i++) {
        const next = runs[i]!;
        if (next.busy) break;
        if ((candidateSize * (100 + ratio)) / 100 < next.size) break;
        if (u.stopStyle === "similarSize") {
          if ((next.size * (100 + ratio)) / 100 < candidateSize) break;
          candidateSize = next.size;
        } else {
          candidateSize += next.size;
        }
        count++;
      }
      if (count >= minMergeWidth) {
        start = loop;
        break;
      }
    }
    if (start < 0 || count <= 1) return undefined;
    const firstAfter = start + count;
    let enableCompression = true;
    if (u.compressionSizePercent >= 0) {
      let total = 0;
      for (const r of runs) total += r.size;
      let older = 0;
      for (let i = runs.length - 1; i >= firstAfter; i--) {
        older += runs[i]!.size;
        if (older * 100 >= total * u.compressionSizePercent) {
          enableCompression = false;
          break;
        }
      }
    }
    return this.compaction(
      version,
      runs,
      start,
      firstAfter - 1,
      running,
      maxFiles === UINT_MAX
        ? CompactionReason.UniversalSizeRatio
        : CompactionReason.UniversalSortedRunNum,
      score,
      enableCompression,
    );
  }

  /**
   * Everything into the last level (`db.compactRange`): "empty" when the tree is, "busy"
   * when a table is being compacted or the output would overlap a running compaction's.
   */
  pickManual(
    version: Version,
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
  ): ManualPick {
    const runs = this.sortedRuns(version, busy);
    if (runs.length === 0) return "empty";
    if (runs.some((r) => r.busy)) return "busy";
    return (
      this.compaction(
        version,
        runs,
        0,
        runs.length - 1,
        running,
        CompactionReason.Manual,
        0,
        true,
      ) ?? "busy"
    );
  }

  /**
   * RocksDB's IsInputFilesNonOverlapping: sorted by smallest key, each table starts after the
   * previous one ends (user keys; a shared user key counts as overlap).
   */
  private nonOverlapping(files: readonly FileMetaData[]): boolean {
    const ucmp = this.icmp.user;
    const user = (ikey: Uint8Array) => ikey.subarray(0, ikey.length - TRAILER_SIZE);
    const sorted = [...files].sort((a, b) => this.icmp.compare(a.smallest, b.smallest));
    for (let i = 1; i < sorted.length; i++) {
      if (ucmp.compare(user(sorted[i - 1]!.largest), user(sorted[i]!.smallest)) >= 0) return false;
    }
    return true;
  }

  /** The compaction of runs[start..end] (both included). */
  private compaction(
    version: Version,
    runs: readonly SortedRun[],
    start: number,
    end: number,
    running: readonly RunningCompaction[],
    reason: CompactionReason,
    score: number,
    enableCompression: boolean,
  ): Compaction | undefined {
    const startLevel = runs[start]!.level;
    let outputLevel: number;
    if (end === runs.length - 1) outputLevel = NUM_LEVELS - 1;
    else if (runs[end + 1]!.level === 0) outputLevel = 0;
    else outputLevel = runs[end + 1]!.level - 1;
    const first: FileMetaData[] = [];
    const middle: LevelInputs[] = [];
    let last: readonly FileMetaData[] = [];
    for (let i = start; i <= end; i++) {
      const r = runs[i]!;
      if (r.level === 0) first.push(r.file!);
      else if (r.level === startLevel) first.push(...version.levels[r.level]!);
      else if (r.level === outputLevel) last = version.levels[r.level]!;
      else middle.push({ level: r.level, files: version.levels[r.level]! });
    }
    let outputCompression: CompressionName | undefined;
    if (!enableCompression) outputCompression = "none";
    else if (this.options.compression !== undefined)
      outputCompression = compactionCompression(
        {
          compression: this.options.compression,
          compressionPerLevel: this.options.compressionPerLevel ?? [],
          bottommostCompression: this.options.bottommostCompression,
        },
        outputLevel,
        version.levels,
      );
    const move =
      this.options.universal.allowTrivialMove && reason !== CompactionReason.Manual
        ? {
            universalTrivialMove: this.nonOverlapping([
              ...first,
              ...middle.flatMap((m) => m.files),
              ...last,
            ]),
          }
        : {};
    const c = new Compaction({
      version,
      level: startLevel,
      outputLevel,
      inputs: [first, last],
      middleInputs: middle,
      reason,
      score,
      ucmp: this.icmp.user,
      allowTrivialMove: false,
      maxGrandparentOverlapBytes: 0,
      grandparents: [],
      outputCompression,
      // Into L0: one table (RocksDB: no size limit for L0 outputs of universal compaction).
      ...(outputLevel === 0 ? { maxOutputFileSize: Number.MAX_SAFE_INTEGER } : {}),
      ...move,
    });
    if (outputLevel !== 0) {
      for (const r of running) {
        if (r.outputLevel === outputLevel && rangesOverlap(this.icmp.user, r.range, c.range))
          return undefined;
      }
    }
    return c;
  }
}
