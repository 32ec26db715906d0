/**
 * CompactionOutputs: writes a compaction's surviving entries as one or more tables.
 *
 * Cutting: before the first entry of a new user key, the current table is finished when it
 * reached `targetFileSize`, or when the keys written to it since the last cut overlap more
 * than `maxGrandparentOverlapBytes` of the grandparent level (LevelDB's ShouldStopBefore: a
 * later compaction of this file into the next level will not have to rewrite too much). One
 * user key's entries therefore never span two tables.
 *
 * Range tombstones: table i owns the user keys [lower(i), lower(i+1)), where lower(i) is its
 * first user key (lower(0) = -inf, lower(last+1) = +inf); each surviving tombstone is clipped
 * to the tables it overlaps. The builder widens each table's smallest/largest to its
 * tombstones; a tombstone clipped at lower(i+1) ends the table with the sentinel
 * `lower(i+1)#MAX,RANGEDEL`, which key-range.ts reads as "up to, not including".
 *
 * ```
 *   points:      a b c | d e f      (cut before d)       tombstone [b, e)#9
 *   table 1:     a b c + [b, d)#9   largest d#MAX,RANGEDEL
 *   table 2:     d e f + [d, e)#9   smallest d#9,RANGEDEL (sorts before d's points)
 * ```
 */
import { type Comparator, type FileSystem, type RangeTombstone, TRAILER_SIZE } from "@shale/base";
import type { TableBuilderOptions } from "@shale/sstable";
import { endsBefore, type KeyRange } from "../version/key-range.js";
import type { FileMetaData } from "../version/version-edit.js";
import { type CaptureBudget, captureBudgetOf, TableFile } from "./build-table.js";

export interface GrandparentFile extends KeyRange {
  size: number;
}

export interface CompactionOutputsOptions {
  fs: FileSystem;
  dir: string;
  builder: TableBuilderOptions & { comparator: Comparator; captureBlocks?: number };
  /** Takes a fresh file number. */
  newFileNumber: () => number;
  targetFileSize: number;
  /** Files of the level below the output level overlapping the compaction, sorted. */
  grandparents: readonly GrandparentFile[];
  maxGrandparentOverlapBytes: number;
  /** Surviving range tombstones, sorted by start, non-overlapping fragments (a fragment may repeat with several seqs). */
  tombstones: readonly RangeTombstone[];
}

export class CompactionOutputs {
  private readonly o: CompactionOutputsOptions;
  private readonly ucmp: Comparator;
  /** Finished tables, in key order. */
  readonly files: FileMetaData[] = [];
  private current: TableFile | undefined;
  /** First user key of the current table (undefined: -inf, for the first table). */
  private lower: Uint8Array | undefined;
  /** The last user key added: a view of `lastBuf` (undefined before the first). */
  private lastUser: Uint8Array | undefined;
  private lastBuf = new Uint8Array(64);
  /** First tombstone that may still reach the current or a later table. */
  private tombstoneIndex = 0;
  private grandparentIndex = 0;
  private overlappedBytes = 0;
  private seenKey = false;
  /** Output file numbers created (finished or not), for cleanup. */
  private readonly created: TableFile[] = [];

  /** The job's capture budget, shared by its tables (build-table.ts). */
  private readonly capture: CaptureBudget | undefined;

  constructor(options: CompactionOutputsOptions) {
    this.o = options;
    this.capture = captureBudgetOf(options.builder);
    this.ucmp = options.builder.comparator;
  }

  /**
   * Adds a point entry. REQUIRES: keys in increasing internal-key order. Copies both.
   * `startsUserKey` says whether the entry's user key differs from the previous entry's
   * (the CompactionIterator knows); when undefined, the keys are compared here.
   */
  add(ikey: Uint8Array, value: Uint8Array, startsUserKey?: boolean): void {
    let newUser = startsUserKey;
    if (newUser === undefined) {
      const user = ikey.subarray(0, ikey.length - TRAILER_SIZE);
      newUser = this.lastUser === undefined || this.ucmp.compare(this.lastUser, user) !== 0;
      if (newUser) this.remember(user);
    }
    if (newUser) {
      const t = this.current;
      const full = t !== undefined && t.estimatedFileSize >= this.o.targetFileSize;
      if (full || this.o.grandparents.length > 0) {
        const user = ikey.subarray(0, ikey.length - TRAILER_SIZE);
        if ((this.shouldStopBefore(user) || full) && t !== undefined) this.cut(user);
      }
    }
    if (this.current === undefined) this.open();
    this.current!.add(ikey, value);
  }

  /** Finishes the last table (writing the remaining tombstones). Returns every table. */
  finish(): FileMetaData[] {
    if (this.current === undefined && this.tombstoneIndex < this.o.tombstones.length) this.open();
    if (this.current !== undefined) this.finishCurrent(undefined);
    return this.files;
  }

  /** Removes every table written or being written. Never throws. */
  abandon(): void {
    for (const t of this.created) t.abandon();
    this.current = undefined;
  }

  get bytesWritten(): number {
    let n = 0;
    for (const f of this.files) n += f.size;
    return n;
  }

  private remember(user: Uint8Array): void {
    const n = user.length;
    if (n > this.lastBuf.length)
      this.lastBuf = new Uint8Array(Math.max(n, this.lastBuf.length * 2));
    const buf = this.lastBuf;
    for (let i = 0; i < n; i++) buf[i] = user[i]!;
    const last = this.lastUser;
    if (last === undefined || last.length !== n || last.buffer !== buf.buffer) {
      this.lastUser = buf.subarray(0, n);
    }
  }

  private open(): void {
    const t = new TableFile(
      this.o.fs,
      this.o.dir,
      this.o.newFileNumber(),
      this.o.builder,
      this.capture,
    );
    this.created.push(t);
    this.current = t;
  }

  private cut(nextUser: Uint8Array): void {
    this.finishCurrent(nextUser);
    this.lower = nextUser.slice();
    this.overlappedBytes = 0;
  }

  /** Adds the tombstones of [lower, upper) to the current table and finishes it. */
  private finishCurrent(upper: Uint8Array | undefined): void {
    const t = this.current!;
    this.current = undefined;
    const ucmp = this.ucmp;
    const list = this.o.tombstones;
    const lower = this.lower;
    // Fragments wholly before `lower` went to earlier tables.
    while (
      this.tombstoneIndex < list.length &&
      lower !== undefined &&
      ucmp.compare(list[this.tombstoneIndex]!.end, lower) <= 0
    ) {
      this.tombstoneIndex++;
    }
    for (let i = this.tombstoneIndex; i < list.length; i++) {
      const r = list[i]!;
      if (upper !== undefined && ucmp.compare(r.start, upper) >= 0) break;
      const start = lower !== undefined && ucmp.compare(r.start, lower) < 0 ? lower : r.start;
      const end = upper !== undefined && ucmp.compare(r.end, upper) > 0 ? upper : r.end;
      t.addRangeTombstone(start, end, r.seq);
    }
    const meta = t.finish();
    if (meta !== undefined) this.files.push(meta);
  }

  /** LevelDB's ShouldStopBefore, evaluated at each new user key. */
  private shouldStopBefore(user: Uint8Array): boolean {
    const gp = this.o.grandparents;
    while (
      this.grandparentIndex < gp.length &&
      endsBefore(this.ucmp, gp[this.grandparentIndex]!, user)
    ) {
      if (this.seenKey) this.overlappedBytes += gp[this.grandparentIndex]!.size;
      this.grandparentIndex++;
    }
    this.seenKey = true;
    return this.overlappedBytes > this.o.maxGrandparentOverlapBytes;
  }
}
