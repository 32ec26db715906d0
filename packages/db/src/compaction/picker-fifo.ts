/**
 * FIFO compaction picking (RocksDB's FIFOCompactionPicker, compaction_picker_fifo.cc): every
 * table stays in L0; the oldest tables are deleted, never rewritten.
 *
 * In order, the first that picks something wins:
 * 1. TTL (ttl > 0): from the oldest L0 table on, the tables whose creation time is at least
 *    `ttl` seconds before now (a table of unknown time, 0, stops the walk) — taken only if
 *    deleting them brings the total under `maxTableFilesSize` (else step 2 decides).
 * 2. Size: while the tables' total exceeds `maxTableFilesSize`, the oldest ones, until the
 *    total is within it.
 * 3. With `allowCompaction`, when the total is within the limit: RocksDB's
 *    FindIntraL0Compaction — from the newest L0 table, tables join while the bytes per table
 *    removed do not grow and the total stays within `maxCompactionBytes`
 *    (25 x targetFileSizeBase); at least `level0FileNumCompactionTrigger` tables, none of
 *    them over 1.1 x writeBufferSize on average; merged into L0 tables of up to 16 MiB.
 *
 * Only one FIFO compaction runs at a time (RocksDB: "compactions are very fast"). The score
 * (for `shale.compaction-pending` and the stats) is RocksDB's: total bytes /
 * maxTableFilesSize, with allowCompaction at least files / trigger, with ttl at least the
 * number of expired tables.
 *
 * Example (max 100 MB): L0 newest first 9 (40 MB), 8 (40 MB), 7 (30 MB), 6 (20 MB) = 130 MB
 * -> delete 6 (110 MB left, still over), then 7 (80 MB): `L0 deleted: 6,7`.
 */

import type { InternalKeyComparator } from "@shale/base";
import type { ResolvedFifoOptions } from "../core/compaction-style-options.js";
import type { FileMetaData } from "../version/version-edit.js";
import type { Version } from "../version/version-set.js";
import { Compaction, CompactionReason, totalBytes } from "./compaction.js";

export interface FifoPickerOptions {
  fifo: ResolvedFifoOptions;
  level0FileNumCompactionTrigger: number;
  targetFileSizeBase: number;
  writeBufferSize: number;
  /** Seconds since the epoch (injected by tests). Default: the system clock. */
  nowSeconds?: () => number;
}

export class FifoCompactionPicker {
  private readonly icmp: InternalKeyComparator;
  private readonly options: FifoPickerOptions;
  private readonly now: () => number;

  constructor(icmp: InternalKeyComparator, options: FifoPickerOptions) {
    this.icmp = icmp;
    this.options = options;
    this.now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  /** RocksDB's L0 score for FIFO (the other levels: 0). */
  scores(version: Version, busy: ReadonlySet<number>): number[] {
    const l0 = version.levels[0]!;
    const fifo = this.options.fifo;
    let bytes = 0;
    let files = 0;
    for (const f of l0) {
      if (busy.has(f.number)) continue;
      bytes += f.size;
      files++;
    }
    let score =
      fifo.maxTableFilesSize === 0 ? (bytes > 0 ? Infinity : 0) : bytes / fifo.maxTableFilesSize;
    if (fifo.allowCompaction)
      score = Math.max(score, files / this.options.level0FileNumCompactionTrigger);
    if (fifo.ttl > 0) score = Math.max(score, this.expired(l0).length);
    const out = new Array<number>(version.levels.length - 1).fill(0);
    out[0] = score;
    return out;
  }

  needsCompaction(version: Version, busy: ReadonlySet<number>): boolean {
    return this.scores(version, busy)[0]! >= 1;
  }

  /** The L0 tables older than ttl, oldest first, up to the first that is not (or unknown). */
  private expired(l0: readonly FileMetaData[]): FileMetaData[] {
    const ttl = this.options.fifo.ttl;
    const now = this.now();
    const out: FileMetaData[] = [];
    if (ttl <= 0 || now <= ttl) return out;
    for (let i = l0.length - 1; i >= 0; i--) {
      const f = l0[i]!;
      const created = f.fileCreationTime ?? 0;
      if (created === 0 || created >= now - ttl) break;
      out.push(f);
    }
    return out;
  }

  /**
   * The next FIFO compaction (a deletion, or with allowCompaction an L0 -> L0 merge), or
   * undefined. `busy` files: one FIFO compaction at a time, so any busy L0 file means none.
   */
  pick(
    version: Version,
    busy: ReadonlySet<number>,
    _running?: readonly unknown[],
  ): Compaction | undefined {
    const l0 = version.levels[0]!;
    for (const f of l0) if (busy.has(f.number)) return undefined;
    const fifo = this.options.fifo;
    const score = this.scores(version, busy)[0]!;
    if (fifo.ttl > 0) {
      const expired = this.expired(l0);
      if (expired.length > 0 && totalBytes(l0) - totalBytes(expired) <= fifo.maxTableFilesSize)
        return this.deletion(version, expired, CompactionReason.FifoTtl, score);
    }
    let total = totalBytes(l0);
    if (total > fifo.maxTableFilesSize) {
      const picked: FileMetaData[] = [];
      for (let i = l0.length - 1; i >= 0; i--) {
        const f = l0[i]!;
        total -= f.size;
        picked.push(f);
        if (total <= fifo.maxTableFilesSize) break;
      }
      return this.deletion(version, picked, CompactionReason.FifoMaxSize, score);
    }
    if (fifo.allowCompaction) return this.intraL0(version, l0, score);
    return undefined;
  }

  private deletion(
    version: Version,
    files: FileMetaData[],
    reason: CompactionReason,
    score: number,
  ): Compaction {
    // Newest first, as L0 lists them.
    const inputs = files.slice().reverse();
    return new Compaction({
      version,
      level: 0,
      outputLevel: 0,
      inputs: [inputs, []],
      reason,
      score,
      ucmp: this.icmp.user,
      allowTrivialMove: false,
      maxGrandparentOverlapBytes: 0,
      deletion: true,
      grandparents: [],
    });
  }

  /** RocksDB's FindIntraL0Compaction over `l0` (newest first). */
  private intraL0(
    version: Version,
    l0: readonly FileMetaData[],
    score: number,
  ): Compaction | undefined {
    if (l0.length === 0) return undefined;
    const maxCompactionBytes = 25 * this.options.targetFileSizeBase;
    const maxBytesPerDeletedFile = Math.floor(this.options.writeBufferSize * 1.1);
    let compactBytes = l0[0]!.size;
    let bytesPerDeletedFile = Number.MAX_SAFE_INTEGER;
    let limit = 1;
    for (; limit < l0.length; limit++) {
      compactBytes += l0[limit]!.size;
      const next = Math.floor(compactBytes / limit);
      if (next > bytesPerDeletedFile || compactBytes > maxCompactionBytes) break;
      bytesPerDeletedFile = next;
    }
    if (
      limit < this.options.level0FileNumCompactionTrigger ||
      bytesPerDeletedFile >= maxBytesPerDeletedFile
    )
      return undefined;
    return new Compaction({
      version,
      level: 0,
      outputLevel: 0,
      inputs: [l0.slice(0, limit), []],
      reason: CompactionReason.FifoReduceNumFiles,
      score,
      ucmp: this.icmp.user,
      allowTrivialMove: false,
      maxGrandparentOverlapBytes: 0,
      grandparents: [],
      // RocksDB's output file size limit for FIFO's L0 -> L0 compactions.
      maxOutputFileSize: 16 * 1024 * 1024,
    });
  }
}
