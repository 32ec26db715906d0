/**
 * Leveled compaction picking (RocksDB's LevelCompactionPicker, LevelDB's PickCompaction).
 *
 * Scores, with the files already being compacted left out:
 * ```
 *   L0:  files / level0FileNumCompactionTrigger
 *   Ln:  bytes / (maxBytesForLevelBase * maxBytesForLevelMultiplier^(n-1))     n = 1..5
 * ```
 * (L6 is the last level and has no score.) The level with the highest score >= 1 is
 * compacted into the next one; if nothing can be picked there (its candidates are busy),
 * the next best level is tried.
 *
 * Inputs:
 * - L0: the oldest L0 file, then every L0 file overlapping what is picked so far, until no
 *   more join (so a newer L0 file never goes down while an older overlapping one stays).
 *   Only one L0 compaction runs at a time.
 * - Ln: round-robin over the level by a compact cursor (LevelDB's compact_pointer): the
 *   first file whose largest key is after the cursor, wrapping around; the cursor moves to
 *   the largest key picked.
 * - Either way, files of the level that share a user key with a picked one join it ("clean
 *   cut": one user key's versions never span the boundary between picked and left files),
 *   then the files of the output level that overlap the inputs, also expanded to a clean cut.
 *   A file that ends in a range-tombstone sentinel (see key-range.ts) does not share its last
 *   user key with the next file.
 *
 * A pick is refused when one of its files is being compacted, or when its output range
 * overlaps the range of a running compaction writing to the same level.
 *
 * Trivial move: one input file, nothing overlapping in the output level, no more than
 * `maxGrandparentOverlapBytes` (10 x targetFileSizeBase) in the level below that, and the
 * same codec for both levels (output-compression.ts) — the file changes level through a
 * version edit without being rewritten.
 *
 * Example (trigger 4, base 256 MiB, x10): L0 has 5 files -> score 1.25; L1 holds 300 MiB ->
 * 1.17; L2 holds 2 GiB -> 0.8. L0 is picked: its oldest file plus the L0 files overlapping it,
 * plus the L1 files overlapping all of those.
 */
import {
  assertInvariant,
  type Comparator,
  formatInternalKey,
  type InternalKeyComparator,
  invariants,
} from "@shale/base";
import type { CompressionName } from "@shale/sstable";
import {
  endsBefore,
  fileRange,
  filesTouch,
  findFile,
  type KeyRange,
  rangeOfFiles,
  rangesOverlap,
} from "../version/key-range.js";
import { type FileMetaData, NUM_LEVELS } from "../version/version-edit.js";
import type { Version } from "../version/version-set.js";
import { Compaction, CompactionReason } from "./compaction.js";
import { compactionCompression, type LevelCompressionOptions } from "./output-compression.js";

export interface PickerOptions extends Partial<LevelCompressionOptions> {
  level0FileNumCompactionTrigger: number;
  maxBytesForLevelBase: number;
  maxBytesForLevelMultiplier: number;
  targetFileSizeBase: number;
}

/** What the picker needs to know of a compaction that is running. */
export interface RunningCompaction {
  readonly level: number;
  readonly outputLevel: number;
  readonly range: KeyRange;
}

export type ManualPick = Compaction | "empty" | "busy";

export class CompactionPicker {
  private readonly icmp: InternalKeyComparator;
  private readonly ucmp: Comparator;
  private readonly options: PickerOptions;
  /** The codec options, when the picker was given them (tests may leave them out). */
  private readonly levelCompression: LevelCompressionOptions | undefined;
  /** Per level: the largest internal key of the last compaction picked there. */
  private readonly cursor: (Uint8Array | undefined)[] = new Array(NUM_LEVELS).fill(undefined);

  constructor(icmp: InternalKeyComparator, options: PickerOptions) {
    this.icmp = icmp;
    this.ucmp = icmp.user;
    this.options = options;
    this.levelCompression =
      options.compression === undefined
        ? undefined
        : {
            compression: options.compression,
            compressionPerLevel: options.compressionPerLevel ?? [],
            bottommostCompression: options.bottommostCompression,
          };
  }

  /** The codec options of compactions' outputs (undefined: the table options' own). */
  get levelCodecs(): LevelCompressionOptions | undefined {
    return this.levelCompression;
  }

  /** Byte target of level >= 1. */
  maxBytesForLevel(level: number): number {
    return (
      this.options.maxBytesForLevelBase * this.options.maxBytesForLevelMultiplier ** (level - 1)
    );
  }

  get level0Trigger(): number {
    return this.options.level0FileNumCompactionTrigger;
  }

  get maxGrandparentOverlapBytes(): number {
    return 10 * this.options.targetFileSizeBase;
  }

  /** The cursor of `level` (for tests). */
  compactCursor(level: number): Uint8Array | undefined {
    return this.cursor[level];
  }

  /** Scores of L0..L(NUM_LEVELS-2); files in `busy` are left out. */
  scores(version: Version, busy: ReadonlySet<number>): number[] {
    const out: number[] = [];
    for (let level = 0; level < NUM_LEVELS - 1; level++) {
      const files = version.levels[level]!;
      if (level === 0) {
        let n = 0;
        for (const f of files) if (!busy.has(f.number)) n++;
        out.push(n / this.options.level0FileNumCompactionTrigger);
      } else {
        let bytes = 0;
        for (const f of files) if (!busy.has(f.number)) bytes += f.size;
        out.push(bytes / this.maxBytesForLevel(level));
      }
    }
    return out;
  }

  /** True if some level has a score >= 1. */
  needsCompaction(version: Version, busy: ReadonlySet<number>): boolean {
    return this.scores(version, busy).some((s) => s >= 1);
  }

  /** The next automatic compaction, or undefined when none is due or possible. */
  pick(
    version: Version,
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
  ): Compaction | undefined {
    const scores = this.scores(version, busy);
    const levels = scores
      .map((score, level) => ({ score, level }))
      .filter((s) => s.score >= 1)
      .sort((a, b) => b.score - a.score || a.level - b.level);
    for (const { level, score } of levels) {
      const c =
        level === 0
          ? this.pickL0(version, busy, running, score)
          : this.pickLevel(version, level, busy, running, score);
      if (c !== undefined) return c;
    }
    return undefined;
  }

  private pickL0(
    version: Version,
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
    score: number,
  ): Compaction | undefined {
    const l0 = version.levels[0]!;
    if (l0.length === 0) return undefined;
    for (const f of l0) if (busy.has(f.number)) return undefined; // one L0 compaction at a time
    const oldest = l0[l0.length - 1]!;
    const inputs = this.expandL0(l0, fileRange(oldest));
    return this.withOutputLevel(
      version,
      0,
      inputs,
      busy,
      running,
      CompactionReason.L0FileCount,
      score,
      true,
    );
  }

  /** The L0 files overlapping `range`, transitively (newest first, as in the version). */
  expandL0(l0: readonly FileMetaData[], range: KeyRange): FileMetaData[] {
    let r = range;
    let picked: FileMetaData[] = [];
    for (;;) {
      const next = l0.filter((f) => rangesOverlap(this.ucmp, fileRange(f), r));
      if (next.length === picked.length) return next;
      picked = next;
      r = rangeOfFiles(this.ucmp, picked);
    }
  }

  private pickLevel(
    version: Version,
    level: number,
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
    score: number,
  ): Compaction | undefined {
    const files = version.levels[level]!;
    const n = files.length;
    if (n === 0) return undefined;
    const cursor = this.cursor[level];
    let start = 0;
    if (cursor !== undefined) {
      while (start < n && this.icmp.compare(files[start]!.largest, cursor) <= 0) start++;
      if (start === n) start = 0;
    }
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      if (busy.has(files[i]!.number)) continue;
      const inputs = this.cleanCut(files, i, i);
      if (inputs.some((f) => busy.has(f.number))) continue;
      const c = this.withOutputLevel(
        version,
        level,
        inputs,
        busy,
        running,
        CompactionReason.LevelSize,
        score,
        true,
      );
      if (c !== undefined) {
        this.cursor[level] = inputs[inputs.length - 1]!.largest;
        return c;
      }
    }
    return undefined;
  }

  /** files[i..j] widened so that no neighbour shares a user key with it. */
  private cleanCut(files: readonly FileMetaData[], i: number, j: number): FileMetaData[] {
    while (i > 0 && filesTouch(this.ucmp, files[i - 1]!, files[i]!)) i--;
    while (j + 1 < files.length && filesTouch(this.ucmp, files[j]!, files[j + 1]!)) j++;
    return files.slice(i, j + 1);
  }

  /** The files of sorted `level` overlapping `r`, widened to a clean cut. */
  overlapping(version: Version, level: number, r: KeyRange): FileMetaData[] {
    const files = version.levels[level]!;
    const first = findFile(this.ucmp, files, r.lo);
    let last = first - 1;
    while (last + 1 < files.length && !endsBefore(this.ucmp, r, lowerKey(files[last + 1]!))) last++;
    if (last < first) return [];
    return this.cleanCut(files, first, last);
  }

  private withOutputLevel(
    version: Version,
    level: number,
    inputs: FileMetaData[],
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
    reason: CompactionReason,
    score: number,
    allowTrivialMove: boolean,
  ): Compaction | undefined {
    const outputs = this.overlapping(version, level + 1, rangeOfFiles(this.ucmp, inputs));
    if (outputs.some((f) => busy.has(f.number))) return undefined;
    const codecs = this.levelCompression;
    let outputCompression: CompressionName | undefined;
    if (codecs !== undefined) {
      outputCompression = compactionCompression(codecs, level + 1, version.levels);
      // A move keeps the file's codec: only when the input level would have written the same.
      allowTrivialMove &&=
        compactionCompression(codecs, level, version.levels) === outputCompression;
    }
    const c = new Compaction({
      version,
      level,
      inputs: [inputs, outputs],
      reason,
      score,
      ucmp: this.ucmp,
      allowTrivialMove,
      maxGrandparentOverlapBytes: this.maxGrandparentOverlapBytes,
      outputCompression,
    });
    for (const r of running) {
      if (r.outputLevel === c.outputLevel && rangesOverlap(this.ucmp, r.range, c.range))
        return undefined;
    }
    if (invariants) checkPick(this.ucmp, version, c, busy);
    return c;
  }

  /**
   * A manual compaction of `level` into `level + 1` over `range` (everything when
   * undefined): every file of the level overlapping it. Never a trivial move (a manual
   * compaction rewrites, so tombstones reaching the last level are dropped).
   */
  pickManual(
    version: Version,
    level: number,
    range: KeyRange | undefined,
    busy: ReadonlySet<number>,
    running: readonly RunningCompaction[],
  ): ManualPick {
    const files = version.levels[level]!;
    let inputs: FileMetaData[];
    if (range === undefined) inputs = files.slice();
    else if (level === 0) inputs = this.expandL0(files, range);
    else inputs = this.overlapping(version, level, range);
    if (inputs.length === 0) return "empty";
    if (inputs.some((f) => busy.has(f.number))) return "busy";
    const c = this.withOutputLevel(
      version,
      level,
      inputs,
      busy,
      running,
      CompactionReason.Manual,
      0,
      false,
    );
    return c ?? "busy";
  }
}

function lowerKey(f: FileMetaData): Uint8Array {
  return fileRange(f).lo;
}

/**
 * Invariants of a pick (checked in invariants mode; AssertionFailed on a violation): inputs
 * are files of their levels, none busy; above L0 each level's inputs are a contiguous run of
 * it, cut cleanly (no neighbour left behind shares a user key); in L0 no file older than a
 * picked one and overlapping the inputs stays behind (newer data would go down first); and
 * every file of the output level overlapping the inputs is in the compaction.
 */
export function checkPick(
  ucmp: Comparator,
  version: Version,
  c: Compaction,
  busy: ReadonlySet<number>,
): void {
  const show = (f: FileMetaData) =>
    `${f.number}[${formatInternalKey(f.smallest)} .. ${formatInternalKey(f.largest)}]`;
  assertInvariant(c.inputs[0].length > 0, `pick ${c.toString()}: no input files`);
  ([0, 1] as const).forEach((which) => {
    const level = which === 0 ? c.level : c.outputLevel;
    const files = version.levels[level]!;
    const picked = c.inputs[which];
    if (picked.length === 0) return;
    for (const f of picked) {
      assertInvariant(!busy.has(f.number), `pick ${c.toString()}: file ${f.number} is busy`);
      assertInvariant(files.includes(f), `pick ${c.toString()}: ${show(f)} is not in L${level}`);
    }
    if (level === 0) {
      const hull = rangeOfFiles(ucmp, picked);
      const newestPicked = files.indexOf(picked[0]!);
      for (let i = newestPicked + 1; i < files.length; i++) {
        const f = files[i]!;
        assertInvariant(
          picked.includes(f) || !rangesOverlap(ucmp, fileRange(f), hull),
          `pick ${c.toString()}: older L0 file ${show(f)} overlaps the inputs but is left out`,
        );
      }
      return;
    }
    const first = files.indexOf(picked[0]!);
    for (let k = 0; k < picked.length; k++) {
      const f = picked[k]!;
      assertInvariant(
        files[first + k] === f,
        `pick ${c.toString()}: L${level} inputs are not a contiguous run of the level (${show(f)})`,
      );
    }
    const before = files[first - 1];
    const after = files[first + picked.length];
    for (const [left, right, other] of [
      [before, picked[0]!, before],
      [picked[picked.length - 1]!, after, after],
    ] as const) {
      if (left !== undefined && right !== undefined && filesTouch(ucmp, left, right)) {
        assertInvariant(
          false,
          `pick ${c.toString()}: L${level} file ${show(other!)} shares a user key with the inputs`,
        );
      }
    }
  });
  const hull = rangeOfFiles(ucmp, c.inputs[0]);
  for (const f of version.levels[c.outputLevel]!) {
    assertInvariant(
      !rangesOverlap(ucmp, fileRange(f), hull) ||
        c.inputs[1].includes(f) ||
        c.inputs[0].includes(f),
      `pick ${c.toString()}: L${c.outputLevel} file ${show(f)} overlaps the inputs but is left out`,
    );
  }
}
