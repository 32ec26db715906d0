/**
 * A picked compaction: which files of which levels go in, where the output goes, and what
 * the job needs to know about the levels around it (grandparents for cutting outputs,
 * deeper levels for dropping tombstones).
 *
 * Leveled compactions take files of `level` and `level + 1`. Universal ones
 * (picker-universal.ts) take whole sorted runs: L0 files of `level` plus every file of the
 * levels between (`middleInputs`) and of `outputLevel`, which may be any level at or below
 * the input level (L0 -> L0 included). FIFO's (picker-fifo.ts) are deletions: the inputs
 * leave the version and nothing is written.
 */
import type { Comparator } from "@shale/base";
import type { CompressionName } from "@shale/sstable";
import {
  fileRange,
  type KeyRange,
  overlappingInLevel,
  rangeOfFiles,
} from "../version/key-range.js";
import { type FileMetaData, NUM_LEVELS, VersionEdit } from "../version/version-edit.js";
import type { Version } from "../version/version-set.js";

export const CompactionReason = Object.freeze({
  /** L0 reached `level0FileNumCompactionTrigger` files. */
  L0FileCount: "L0 file count",
  /** A level exceeded its byte target. */
  LevelSize: "level size",
  /** `db.compactRange`. */
  Manual: "manual",
  /** Universal: the runs newer than the oldest exceed maxSizeAmplificationPercent of it. */
  UniversalSizeAmplification: "universal size amplification",
  /** Universal: runs of similar size merged (sizeRatio). */
  UniversalSizeRatio: "universal size ratio",
  /** Universal: too many sorted runs, merged regardless of size. */
  UniversalSortedRunNum: "universal sorted run count",
  /** FIFO: the tables exceed maxTableFilesSize; the oldest are deleted. */
  FifoMaxSize: "fifo max size",
  /** FIFO: tables older than ttl are deleted. */
  FifoTtl: "fifo ttl",
  /** FIFO with allowCompaction: small L0 tables merged into one (L0 -> L0). */
  FifoReduceNumFiles: "fifo reduce file count",
} as const);
export type CompactionReason = (typeof CompactionReason)[keyof typeof CompactionReason];

export class Compaction {
  /** The input level. */
  readonly level: number;
  /**
   * Where outputs go: `level + 1` for leveled compactions; `level` itself for universal
   * into L0 and for a bottommost manual compaction (the inputs rewritten in place).
   */
  readonly outputLevel: number;
  /**
   * Files of `level` (L0: newest first) and of `outputLevel` (sorted; empty when the output
   * level is the input level).
   */
  readonly inputs: readonly [readonly FileMetaData[], readonly FileMetaData[]];
  /** Whole levels strictly between `level` and `outputLevel` (universal), shallowest first. */
  readonly middleInputs: readonly LevelInputs[];
  /** A deletion (FIFO): the inputs are dropped, nothing is read or written. */
  readonly deletion: boolean;
  /**
   * Largest bytes of one output table (leveled: the scheduler's target; universal into L0:
   * unlimited, one table), or undefined for the scheduler's target file size.
   */
  readonly maxOutputFileSize: number | undefined;
  /** Files of `outputLevel + 1` overlapping the inputs (for cutting outputs). */
  readonly grandparents: readonly FileMetaData[];
  /** User-key hull of every input. */
  readonly range: KeyRange;
  readonly reason: CompactionReason;
  /** The score of `level` when picked (0 for manual compactions). */
  readonly score: number;
  /**
   * Set when the inputs move to the output level without rewriting: the single input of a
   * leveled compaction, or the non-overlapping inputs of a universal one (`allowTrivialMove`).
   */
  readonly trivialMove: boolean;
  /**
   * The codec of the output tables (output-compression.ts), or undefined for the database's
   * table options' own.
   */
  readonly outputCompression: CompressionName | undefined;
  /** The version the inputs were picked from; the scheduler holds a reference on it. */
  readonly version: Version;

  constructor(args: {
    version: Version;
    level: number;
    inputs: readonly [readonly FileMetaData[], readonly FileMetaData[]];
    reason: CompactionReason;
    score: number;
    ucmp: Comparator;
    allowTrivialMove: boolean;
    maxGrandparentOverlapBytes: number;
    outputCompression?: CompressionName | undefined;
    /** Default: `level + 1`. `level`: the inputs are rewritten in place (`inputs[1]` empty). */
    outputLevel?: number | undefined;
    middleInputs?: readonly LevelInputs[];
    deletion?: boolean;
    /** Default: the files of `outputLevel + 1` overlapping the inputs. */
    grandparents?: readonly FileMetaData[];
    maxOutputFileSize?: number;
    /**
     * Universal compaction's allow_trivial_move verdict: the inputs, from any number of
     * levels, overlap nowhere (RocksDB's IsInputFilesNonOverlapping). Default: not universal.
     */
    universalTrivialMove?: boolean;
  }) {
    this.outputCompression = args.outputCompression;
    this.version = args.version;
    this.level = args.level;
    this.outputLevel = args.outputLevel ?? args.level + 1;
    this.inputs = args.inputs;
    this.middleInputs = args.middleInputs ?? [];
    this.deletion = args.deletion ?? false;
    this.maxOutputFileSize = args.maxOutputFileSize;
    this.reason = args.reason;
    this.score = args.score;
    this.range = rangeOfFiles(args.ucmp, this.allInputs());
    this.grandparents =
      args.grandparents ??
      (this.outputLevel + 1 < NUM_LEVELS
        ? overlappingInLevel(args.ucmp, args.version.levels[this.outputLevel + 1]!, this.range)
        : []);
    this.trivialMove =
      args.universalTrivialMove !== undefined
        ? args.universalTrivialMove &&
          !this.deletion &&
          this.outputLevel !== 0 &&
          this.outputLevel !== this.level
        : !this.deletion &&
          this.outputLevel > this.level &&
          this.middleInputs.length === 0 &&
          args.allowTrivialMove &&
          args.inputs[0].length === 1 &&
          args.inputs[1].length === 0 &&
          totalBytes(this.grandparents) <= args.maxGrandparentOverlapBytes;
  }

  /** Every input file. */
  allInputs(): FileMetaData[] {
    const out = [...this.inputs[0]];
    for (const m of this.middleInputs) out.push(...m.files);
    out.push(...this.inputs[1]);
    return out;
  }

  /** Bytes of the input level's files (the middle levels' included) or of the output level's. */
  inputBytes(which: 0 | 1): number {
    if (which === 1) return totalBytes(this.inputs[1]);
    let n = totalBytes(this.inputs[0]);
    for (const m of this.middleInputs) n += totalBytes(m.files);
    return n;
  }

  /** Number of input files. */
  get numInputFiles(): number {
    let n = this.inputs[0].length + this.inputs[1].length;
    for (const m of this.middleInputs) n += m.files.length;
    return n;
  }

  /**
   * For each level below the output level, the ranges of its files that overlap the
   * compaction: a key outside all of them has no older data below ("bottommost" for it).
   */
  lowerLevelRanges(ucmp: Comparator): KeyRange[][] {
    const out: KeyRange[][] = [];
    if (this.outputLevel === 0) {
      // Into L0: the L0 files left out may hold older entries (each its own range list).
      const picked = new Set(this.inputs[0]);
      for (const f of this.version.levels[0]!) {
        if (!picked.has(f) && overlappingInLevel(ucmp, [f], this.range).length > 0)
          out.push([fileRange(f)]);
      }
    }
    for (let l = this.outputLevel + 1; l < NUM_LEVELS; l++) {
      out.push(overlappingInLevel(ucmp, this.version.levels[l]!, this.range).map(fileRange));
    }
    return out;
  }

  /** The edit that installs the result: inputs out, outputs (or the moved file) in. */
  edit(outputs: readonly FileMetaData[]): VersionEdit {
    const e = new VersionEdit();
    for (const f of this.inputs[0]) e.deleteFile(this.level, f.number);
    for (const m of this.middleInputs) for (const f of m.files) e.deleteFile(m.level, f.number);
    for (const f of this.inputs[1]) e.deleteFile(this.outputLevel, f.number);
    for (const f of outputs) e.addFile(this.outputLevel, f);
    return e;
  }

  /**
   * The edit of a trivial move: every input not already in the output level is deleted from
   * its level and added, unchanged, to the output level (RocksDB's move in
   * DBImpl::BackgroundCompaction).
   */
  moveEdit(): VersionEdit {
    const e = new VersionEdit();
    const move = (level: number, files: readonly FileMetaData[]) => {
      if (level === this.outputLevel) return;
      for (const f of files) {
        e.deleteFile(level, f.number);
        e.addFile(this.outputLevel, f);
      }
    };
    move(this.level, this.inputs[0]);
    for (const m of this.middleInputs) move(m.level, m.files);
    return e;
  }

  /** `L0 -> L1: 12,13 + 7` for logs and tests (`-` for no file). */
  toString(): string {
    const n = (fs: readonly FileMetaData[]) =>
      fs.length === 0 ? "-" : fs.map((f) => f.number).join(",");
    if (this.deletion) return `L${this.level} deleted: ${n(this.inputs[0])}`;
    const move = this.trivialMove ? " (trivial move)" : "";
    const middle = this.middleInputs.map((m) => ` + L${m.level}:${n(m.files)}`).join("");
    return `L${this.level} -> L${this.outputLevel}: ${n(this.inputs[0])}${middle} + ${n(this.inputs[1])}${move}`;
  }
}

/** One level's input files. */
export interface LevelInputs {
  readonly level: number;
  readonly files: readonly FileMetaData[];
}

export function totalBytes(files: readonly FileMetaData[]): number {
  let n = 0;
  for (const f of files) n += f.size;
  return n;
}
