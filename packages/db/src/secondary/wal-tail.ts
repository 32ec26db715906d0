/**
 * Following the primary's WALs: one memtable per WAL and column family (RocksDB's secondary
 * keeps its memtables by log the same way), filled from where the last read of that WAL
 * stopped.
 *
 * - The WALs read are those numbered at or above the lowest log number of any family; the
 *   memtables of WALs below it are dropped (their data is in tables the MANIFEST now names).
 *   A family reads the memtables of the WALs at or above its own log number (`memTables`):
 *   the older ones hold its records that are in its tables now.
 * - Every family's records are kept (those of a family whose log number is above the WAL
 *   too: its log number is applied when the memtables are read, so a family's log number
 *   read later changes nothing already read). Records of a dropped family (an id at or
 *   below the MANIFEST's max column family that it no longer has) are skipped. A record of
 *   a family the MANIFEST read does not know yet (created after that read) stops the read
 *   of that WAL before the record: `FamilyNotYetKnown`, the caller reads the MANIFEST on.
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
import {
  baseName,
  type Comparator,
  type FileSystem,
  ShaleError,
  type ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { FileType, logFileName, parseFileName } from "../core/filenames.js";
import { WAL_DECOMPRESSOR } from "../core/wal-codecs.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import { WriteBatch } from "../write/write-batch.js";
import { isMissingFile, Vanished } from "./manifest-tail.js";

interface FollowedLog {
  readonly number: number;
  /** The memtable of each family with records in this WAL, by family id. */
  readonly mems: Map<number, MemTable>;
  /** File offset just past the last whole record applied. */
  offset: number;
  /**
   * The compression the WAL's SetCompressionType record (at its start) named, as read so
   * far: a read resuming at `offset` starts past that record and must be told it.
   */
  compression: number;
}

/** The column families the MANIFEST read so far knows. */
export interface WalFamilies {
  /** The user comparator of family `id`; undefined when the MANIFEST has no such family. */
  comparatorOf(id: number): Comparator | undefined;
  /** The highest family id the MANIFEST ever used (a higher id is not known yet). */
  readonly maxColumnFamily: number;
}

/** A WAL record of a family the MANIFEST read does not know yet: read the MANIFEST on. */
export class FamilyNotYetKnown extends Vanished {
  constructor(
    path: string,
    readonly family: number,
  ) {
    super(path);
    this.message = `${path} holds records of column family ${family}, which the MANIFEST does not have`;
  }
}

/** The families a batch writes (its records' family ids). */
class FamilyCollector {
  readonly ids = new Set<number>();
  apply(_kind: ValueKind, _key: Uint8Array, _value: Uint8Array, _index: number, family: number) {
    this.ids.add(family);
  }
}

/** Applies a batch's records to the WAL's memtable of each family (`mems`, by id). */
class LogInserter {
  mems!: Map<number, MemTable>;
  families!: WalFamilies;
  seq = 0;
  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, index: number, family: number) {
    let mem = this.mems.get(family);
    if (mem === undefined) {
      const comparator = this.families.comparatorOf(family);
      if (comparator === undefined) return; // a dropped family's
      mem = new MemTable({ comparator });
      this.mems.set(family, mem);
    }
    mem.add(this.seq + index, kind, key, value);
  }
}

export class WalTail {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly mode: WalRecoveryMode;
  /** Oldest first. */
  private logs: FollowedLog[] = [];
  private readonly inserter = new LogInserter();
  /** The highest sequence number applied from any WAL. */
  lastSequence = 0;
  /** The highest-numbered WAL the last `advance` found deleted (undefined: none). */
  vanished: number | undefined;

  constructor(fs: FileSystem, dir: string, mode: WalRecoveryMode) {
    this.fs = fs;
    this.dir = dir;
    this.mode = mode;
  }

  /** The lowest WAL number still read (Infinity when none). */
  get minLogNumber(): number {
    return this.logs.length > 0 ? this.logs[0]!.number : Number.POSITIVE_INFINITY;
  }

  /**
   * The memtables of family `id` (ordered by `comparator`) in the WALs at or above
   * `logNumber`: `mem` of the newest WAL (made empty when the family has no records there),
   * `imm` of the older ones with records of it, newest first.
   */
  memTables(
    id: number,
    comparator: Comparator,
    logNumber: number,
  ): { mem: MemTable; imm: ImmutableMemTable[] } {
    const logs = this.logs.filter((l) => l.number >= logNumber);
    const newest = logs[logs.length - 1];
    let mem = newest?.mems.get(id);
    if (mem === undefined) {
      mem = new MemTable({ comparator });
      newest?.mems.set(id, mem);
    }
    const imm: ImmutableMemTable[] = [];
    for (let i = logs.length - 2; i >= 0; i--) {
      const m = logs[i]!.mems.get(id);
      if (m !== undefined) imm.push({ mem: m, logNumber: logs[i]!.number });
    }
    return { mem, imm };
  }

  /**
   * Drops the memtables of WALs below `logNumber`, then reads every WAL at or above it from
   * where the last read stopped. Returns the number of records applied. Throws
   * FamilyNotYetKnown (the records before it applied).
   */
  advance(logNumber: number, families: WalFamilies): number {
    this.dropBelow(logNumber);
    this.vanished = undefined;
    const known = new Set(this.logs.map((l) => l.number));
    for (const name of this.fs.list(this.dir)) {
      const parsed = parseFileName(name);
      if (parsed?.type !== FileType.Log || parsed.number < logNumber || known.has(parsed.number))
        continue;
      this.logs.push({ number: parsed.number, mems: new Map(), offset: 0, compression: 0 });
    }
    this.logs.sort((a, b) => a.number - b.number);
    let records = 0;
    for (let i = 0; i < this.logs.length; i++)
      records += this.read(this.logs[i]!, i === this.logs.length - 1, families);
    return records;
  }

  /** Drops the memtables of WALs below `logNumber` (their data is in tables now). */
  dropBelow(logNumber: number): void {
    if (this.logs.length > 0 && this.logs[0]!.number < logNumber)
      this.logs = this.logs.filter((l) => l.number >= logNumber);
  }

  private read(log: FollowedLog, newest: boolean, families: WalFamilies): number {
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
      startCompression: log.compression,
      reporter: () => {},
    });
    const inserter = this.inserter;
    inserter.mems = log.mems;
    inserter.families = families;
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
        const written = new FamilyCollector();
        WriteBatch.iterate(rec, written, name, offset, true);
        for (const id of written.ids)
          if (id > families.maxColumnFamily) throw new FamilyNotYetKnown(path, id);
        inserter.seq = seq;
        WriteBatch.iterate(rec, inserter, name, offset, true);
        if (seq + count - 1 > this.lastSequence) this.lastSequence = seq + count - 1;
        log.offset = reader.lastRecordEndOffset;
        log.compression = reader.compressionType;
        records++;
      }
    } finally {
      file.close();
    }
    return records;
  }
}
