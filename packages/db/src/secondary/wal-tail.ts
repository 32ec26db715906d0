/**
 * Following the primary's WALs: one memtable per WAL (RocksDB's secondary keeps its
 * memtables by log the same way), filled from where the last read of that WAL stopped.
 *
 * - The WALs read are those numbered at or above the MANIFEST's log number; the memtables of
 *   WALs below it are dropped (their data is in tables the MANIFEST now names).
 * - The newest WAL is still being appended to: a record cut short at its end (or any damage
 *   there: a write in flight) ends the read, and the next advance reads it again from the
 *   end of the last whole record. A WAL that has a successor is complete (the primary hands
 *   a log's bytes to the OS before it starts the next one): damage in it is Corruption.
 * - A WAL that vanished (the primary flushed it and deleted it before we opened it) is
 *   skipped and named in `vanished`: the MANIFEST has moved on past it (the flush's edit is
 *   synced before its WALs are deleted), which the caller checks by reading the MANIFEST
 *   on; its memtable stays until then, so a WAL that vanished for any other reason is not
 *   dropped unnoticed.
 *
 * The memtables are never sealed: a WAL that got a successor can still receive the records
 * our previous read saw cut short.
 */
import { baseName, type Comparator, type FileSystem, ShaleError } from "@shale/base";
import { MemTable } from "@shale/memtable";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { FileType, logFileName, parseFileName } from "../core/filenames.js";
import { WAL_DECOMPRESSOR } from "../core/wal-codecs.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import { WriteBatch } from "../write/write-batch.js";
import { MemTableInserter } from "../write/write-path.js";
import { isMissingFile } from "./manifest-tail.js";

interface FollowedLog {
  readonly number: number;
  readonly mem: MemTable;
  /** File offset just past the last whole record applied. */
  offset: number;
}

export class WalTail {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly comparator: Comparator;
  private readonly mode: WalRecoveryMode;
  /** Oldest first. */
  private logs: FollowedLog[] = [];
  private readonly inserter = new MemTableInserter();
  /** The highest sequence number applied from any WAL. */
  lastSequence = 0;
  /** The highest-numbered WAL the last `advance` found deleted (undefined: none). */
  vanished: number | undefined;

  constructor(fs: FileSystem, dir: string, comparator: Comparator, mode: WalRecoveryMode) {
    this.fs = fs;
    this.dir = dir;
    this.comparator = comparator;
    this.mode = mode;
  }

  /** The lowest WAL number still read (Infinity when none). */
  get minLogNumber(): number {
    return this.logs.length > 0 ? this.logs[0]!.number : Number.POSITIVE_INFINITY;
  }

  /** The memtable of the newest WAL (an empty one when there is none). */
  get mem(): MemTable {
    const last = this.logs[this.logs.length - 1];
    return last !== undefined ? last.mem : new MemTable({ comparator: this.comparator });
  }

  /** The memtables of the older WALs, newest first. */
  get imm(): ImmutableMemTable[] {
    const out: ImmutableMemTable[] = [];
    for (let i = this.logs.length - 2; i >= 0; i--)
      out.push({ mem: this.logs[i]!.mem, logNumber: this.logs[i]!.number });
    return out;
  }

  /**
   * Drops the memtables of WALs below `logNumber`, then reads every WAL at or above it from
   * where the last read stopped. Returns the number of records applied.
   */
  advance(logNumber: number): number {
    this.dropBelow(logNumber);
    this.vanished = undefined;
    const known = new Set(this.logs.map((l) => l.number));
    for (const name of this.fs.list(this.dir)) {
      const parsed = parseFileName(name);
      if (parsed?.type !== FileType.Log || parsed.number < logNumber || known.has(parsed.number))
        continue;
      this.logs.push({
        number: parsed.number,
        mem: new MemTable({ comparator: this.comparator }),
        offset: 0,
      });
    }
    this.logs.sort((a, b) => a.number - b.number);
    let records = 0;
    for (let i = 0; i < this.logs.length; i++)
      records += this.read(this.logs[i]!, i === this.logs.length - 1);
    return records;
  }

  /** Drops the memtables of WALs below `logNumber` (their data is in tables now). */
  dropBelow(logNumber: number): void {
    if (this.logs.length > 0 && this.logs[0]!.number < logNumber)
      this.logs = this.logs.filter((l) => l.number >= logNumber);
  }

  private read(log: FollowedLog, newest: boolean): number {
    const path = logFileName(this.dir, log.number);
    const name = baseName(path);
    let file: ReturnType<FileSystem["openSequential"]>;
    try {
      file = this.fs.openSequential(path);
    } catch (e) {
      if (!isMissingFile(e)) throw e;
      if (this.vanished === undefined || log.number > this.vanished) this.vanished = log.number;
      return 0;
    }
    const reader = new LogReader(file, {
      // The newest log's end may be a write in flight: every damage there just ends the read.
      mode: newest ? WalRecoveryMode.TolerateCorruptedTail : this.mode,
      fileName: name,
      logNumber: log.number,
      decompressor: WAL_DECOMPRESSOR,
      startOffset: log.offset,
      reporter: () => {},
    });
    const inserter = this.inserter;
    let records = 0;
    try {
      for (;;) {
        let rec: Uint8Array | undefined;
        try {
          rec = reader.readRecord();
        } catch (e) {
          if (newest && ShaleError.isInstance(e) && e.code === "Corruption") break;
          throw e;
        }
        if (rec === undefined) break;
        const offset = reader.lastRecordOffset;
        if (rec.length < 12)
          throw ShaleError.corruption("WAL record shorter than a write batch header", name, offset);
        const seq = WriteBatch.sequence(rec);
        const count = WriteBatch.countOf(rec);
        inserter.mem = log.mem;
        inserter.seq = seq;
        WriteBatch.iterate(rec, inserter, name, offset);
        if (seq + count - 1 > this.lastSequence) this.lastSequence = seq + count - 1;
        log.offset = reader.lastRecordEndOffset;
        records++;
      }
    } finally {
      file.close();
    }
    return records;
  }
}
