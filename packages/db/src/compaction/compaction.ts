/**
 * A picked compaction: which files of which levels go in, where the output goes, and what
 * the job needs to know about the levels around it (grandparents for cutting outputs,
 * deeper levels for dropping tombstones).
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
} as const);
export type CompactionReason = (typeof CompactionReason)[keyof typeof CompactionReason];

export class Compaction {
  /** The input level. */
  readonly level: number;
  /** Where outputs go: `level + 1`, or `level` itself (a bottommost manual compaction). */
  readonly outputLevel: number;
  /** Files of `level` (L0: newest first) and of `outputLevel` (sorted). */
  readonly inputs: readonly [readonly FileMetaData[], readonly FileMetaData[]];
  /** Files of `outputLevel + 1` overlapping the inputs (for cutting outputs). */
  readonly grandparents: readonly FileMetaData[];
  /** User-key hull of every input. */
  readonly range: KeyRange;
  readonly reason: CompactionReason;
  /** The score of `level` when picked (0 for manual compactions). */
  readonly score: number;
  /** Set when the single input moves down without rewriting. */
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
  }) {
    this.outputCompression = args.outputCompression;
    this.version = args.version;
    this.level = args.level;
    this.outputLevel = args.outputLevel ?? args.level + 1;
    this.inputs = args.inputs;
    this.reason = args.reason;
    this.score = args.score;
    const all = [...args.inputs[0], ...args.inputs[1]];
    this.range = rangeOfFiles(args.ucmp, all);
    this.grandparents =
      this.outputLevel + 1 < NUM_LEVELS
        ? overlappingInLevel(args.ucmp, args.version.levels[this.outputLevel + 1]!, this.range)
        : [];
    this.trivialMove =
      args.allowTrivialMove &&
      args.inputs[0].length === 1 &&
      args.inputs[1].length === 0 &&
      totalBytes(this.grandparents) <= args.maxGrandparentOverlapBytes;
  }

  /** Every input file. */
  allInputs(): FileMetaData[] {
    return [...this.inputs[0], ...this.inputs[1]];
  }

  inputBytes(which: 0 | 1): number {
    return totalBytes(this.inputs[which]);
  }

  /**
   * For each level below the output level, the ranges of its files that overlap the
   * compaction: a key outside all of them has no older data below ("bottommost" for it).
   */
  lowerLevelRanges(ucmp: Comparator): KeyRange[][] {
    const out: KeyRange[][] = [];
    for (let l = this.outputLevel + 1; l < NUM_LEVELS; l++) {
      out.push(overlappingInLevel(ucmp, this.version.levels[l]!, this.range).map(fileRange));
    }
    return out;
  }

  /** The edit that installs the result: inputs out, outputs (or the moved file) in. */
  edit(outputs: readonly FileMetaData[]): VersionEdit {
    const e = new VersionEdit();
    for (const f of this.inputs[0]) e.deleteFile(this.level, f.number);
    for (const f of this.inputs[1]) e.deleteFile(this.outputLevel, f.number);
    for (const f of outputs) e.addFile(this.outputLevel, f);
    return e;
  }

  /** `L0 -> L1: 12,13 + 7` for logs and tests (`-` for no file). */
  toString(): string {
    const n = (fs: readonly FileMetaData[]) =>
      fs.length === 0 ? "-" : fs.map((f) => f.number).join(",");
    const move = this.trivialMove ? " (trivial move)" : "";
    return `L${this.level} -> L${this.outputLevel}: ${n(this.inputs[0])} + ${n(this.inputs[1])}${move}`;
  }
}

export function totalBytes(files: readonly FileMetaData[]): number {
  let n = 0;
  for (const f of files) n += f.size;
  return n;
}
