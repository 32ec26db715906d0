/**
 * Per-level compaction statistics and the RocksDB-style summary table of `shale.stats`.
 *
 * As in RocksDB's InternalStats, a compaction is accounted to its OUTPUT level, and a flush
 * to L0. Columns:
 * - Read(GB) = Rn + Rnp1: bytes read from the input level (Rn) and from the output level
 *   (Rnp1); Write(GB): bytes of tables written; Moved(GB): bytes moved by trivial moves;
 * - W-Amp = Write / Rn for a level (how many bytes were written per byte brought down);
 * - Sum row W-Amp = (bytes written by flushes + compactions) / bytes written by flushes —
 *   RocksDB's "write amplification": total bytes written to tables per byte of user data
 *   that reached a table (the WAL is not counted);
 * - Comp(sec), Comp(cnt): wall time and number of jobs (trivial moves count, at 0 s).
 * Universal and FIFO compactions may write into L0 (L0 -> L0); their bytes count as
 * compaction bytes, not flushed ones. FIFO deletions count their tables and bytes in
 * `deletedFiles` / `deletedBytes` of the level they left.
 */
import { NUM_LEVELS } from "../version/version-edit.js";
import type { Version } from "../version/version-set.js";

export interface LevelStats {
  count: number;
  micros: number;
  /** Bytes read from the input level (Rn) and from the output level (Rnp1). */
  bytesReadInput: number;
  bytesReadOutput: number;
  bytesWritten: number;
  bytesMoved: number;
  trivialMoves: number;
  filesIn: number;
  filesOut: number;
  keysIn: number;
  keysDropped: number;
  /** Tables (and their bytes) deleted without being read (FIFO). */
  deletedFiles: number;
  deletedBytes: number;
}

function emptyLevel(): LevelStats {
  return {
    count: 0,
    micros: 0,
    bytesReadInput: 0,
    bytesReadOutput: 0,
    bytesWritten: 0,
    bytesMoved: 0,
    trivialMoves: 0,
    filesIn: 0,
    filesOut: 0,
    keysIn: 0,
    keysDropped: 0,
    deletedFiles: 0,
    deletedBytes: 0,
  };
}

export interface CompactionRecord {
  outputLevel: number;
  micros: number;
  bytesReadInput: number;
  bytesReadOutput: number;
  bytesWritten: number;
  filesIn: number;
  filesOut: number;
  keysIn: number;
  keysOut: number;
}

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

export class CompactionStats {
  /** Indexed by output level (L0 = flushes). */
  readonly levels: LevelStats[] = Array.from({ length: NUM_LEVELS }, emptyLevel);
  private flushedBytes = 0;
  private flushes = 0;

  recordFlush(bytes: number, micros: number, entries: number): void {
    this.flushedBytes += bytes;
    this.flushes++;
    const l = this.levels[0]!;
    l.count++;
    l.micros += micros;
    l.bytesWritten += bytes;
    l.filesOut++;
    l.keysIn += entries;
  }

  recordCompaction(r: CompactionRecord): void {
    const l = this.levels[r.outputLevel]!;
    l.count++;
    l.micros += r.micros;
    l.bytesReadInput += r.bytesReadInput;
    l.bytesReadOutput += r.bytesReadOutput;
    l.bytesWritten += r.bytesWritten;
    l.filesIn += r.filesIn;
    l.filesOut += r.filesOut;
    l.keysIn += r.keysIn;
    l.keysDropped += r.keysIn - r.keysOut;
  }

  recordMove(outputLevel: number, bytes: number): void {
    const l = this.levels[outputLevel]!;
    l.count++;
    l.trivialMoves++;
    l.bytesMoved += bytes;
  }

  /** A FIFO deletion of `files` tables of `level` holding `bytes`. */
  recordDeletion(level: number, files: number, bytes: number): void {
    const l = this.levels[level]!;
    l.deletedFiles += files;
    l.deletedBytes += bytes;
  }

  /** Bytes of tables written by flushes. */
  get bytesFlushed(): number {
    return this.flushedBytes;
  }

  /** Bytes of tables written by compactions (trivial moves write nothing). */
  get bytesCompacted(): number {
    let n = 0;
    for (let l = 0; l < NUM_LEVELS; l++) n += this.levels[l]!.bytesWritten;
    return n - this.flushedBytes;
  }

  /** Tables deleted by FIFO compaction. */
  get filesDeleted(): number {
    let n = 0;
    for (const l of this.levels) n += l.deletedFiles;
    return n;
  }

  get bytesReadByCompactions(): number {
    let n = 0;
    for (const l of this.levels) n += l.bytesReadInput + l.bytesReadOutput;
    return n;
  }

  /** Compactions run (trivial moves excluded). */
  get compactions(): number {
    let n = -this.flushes;
    for (let l = 0; l < NUM_LEVELS; l++) n += this.levels[l]!.count - this.levels[l]!.trivialMoves;
    return n;
  }

  get trivialMoves(): number {
    let n = 0;
    for (const l of this.levels) n += l.trivialMoves;
    return n;
  }

  /** (flush + compaction bytes written) / flush bytes; 0 before the first flush. */
  get writeAmplification(): number {
    const flushed = this.bytesFlushed;
    return flushed === 0 ? 0 : (flushed + this.bytesCompacted) / flushed;
  }

  /**
   * The table (RocksDB's "Compaction Stats"): one row per level that has files or history,
   * then Sum.
   */
  format(version: Version, scores: readonly number[], busy: ReadonlySet<number>): string {
    const header = [
      "Level",
      "Files",
      "Size(MB)",
      "Score",
      "Read(GB)",
      "Rn(GB)",
      "Rnp1(GB)",
      "Write(GB)",
      "Moved(GB)",
      "W-Amp",
      "Comp(sec)",
      "Comp(cnt)",
      "KeyIn",
      "KeyDrop",
    ];
    const widths = [5, 9, 9, 6, 9, 8, 9, 10, 10, 6, 10, 10, 10, 10];
    const row = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" ");
    const lines = ["** Compaction Stats **", row(header), "-".repeat(row(header).length)];
    const sum = emptyLevel();
    let files = 0;
    let compacting = 0;
    let bytes = 0;
    for (let level = 0; level < NUM_LEVELS; level++) {
      const s = this.levels[level]!;
      const lf = version.levels[level]!;
      const being = lf.filter((f) => busy.has(f.number)).length;
      const size = version.levelBytes(level);
      if (lf.length === 0 && s.count === 0) continue;
      files += lf.length;
      compacting += being;
      bytes += size;
      for (const k of Object.keys(sum) as (keyof LevelStats)[]) sum[k] += s[k];
      const score = level < scores.length ? scores[level]! : 0;
      lines.push(row(cells(`L${level}`, `${lf.length}/${being}`, size, score, s, level === 0)));
    }
    lines.push(
      row(cells("Sum", `${files}/${compacting}`, bytes, 0, sum, false, this.writeAmplification)),
    );
    return lines.join("\n");
  }
}

function cells(
  name: string,
  files: string,
  size: number,
  score: number,
  s: LevelStats,
  isFlushLevel: boolean,
  wampOverride?: number,
): string[] {
  const wamp =
    wampOverride ??
    (isFlushLevel ? 1 : s.bytesReadInput === 0 ? 0 : s.bytesWritten / s.bytesReadInput);
  return [
    name,
    files,
    (size / MB).toFixed(2),
    score.toFixed(2),
    ((s.bytesReadInput + s.bytesReadOutput) / GB).toFixed(3),
    (s.bytesReadInput / GB).toFixed(3),
    (s.bytesReadOutput / GB).toFixed(3),
    (s.bytesWritten / GB).toFixed(3),
    (s.bytesMoved / GB).toFixed(3),
    wamp.toFixed(2),
    (s.micros / 1e6).toFixed(3),
    String(s.count),
    String(s.keysIn),
    String(s.keysDropped),
  ];
}

/**
 * RocksDB's estimate of the bytes compaction must rewrite to bring every level within its
 * target (VersionStorageInfo::EstimateCompactionBytesNeeded): L0 counts whole (with L1) once
 * it reaches the trigger; each deeper level's excess over its target counts, scaled by
 * (1 + next level / this level) for the rewrite of the overlapping next-level data.
 */
export function estimatePendingCompactionBytes(
  version: Version,
  level0Trigger: number,
  maxBytesForLevel: (level: number) => number,
): number {
  let estimate = 0;
  let carried = 0;
  const l0 = version.levelBytes(0);
  if (version.numFiles(0) >= level0Trigger) {
    carried = l0;
    estimate = l0 + version.levelBytes(1);
  }
  for (let level = 1; level < NUM_LEVELS - 1; level++) {
    const size = version.levelBytes(level) + carried;
    carried = 0;
    const target = maxBytesForLevel(level);
    if (size > target) {
      carried = size - target;
      const next = version.levelBytes(level + 1);
      if (next > 0) estimate += Math.round(carried * (1 + next / size));
    }
  }
  return estimate;
}
