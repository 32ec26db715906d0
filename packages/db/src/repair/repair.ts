/**
 * `repair(dir)`: rebuilds a database's MANIFEST from the files present, as RocksDB's RepairDB
 * (db/repair.cc) and LevelDB's do, when the MANIFEST or CURRENT is lost or damaged.
 *
 * 1. Find files: every file of the directory is classified by its name; unknown names are
 *    left alone. The LOCK is taken (a database open elsewhere is `Busy`).
 * 2. Convert WALs to tables: each WAL is replayed (skipping damaged records, reported) into
 *    a memtable that is written as a new table; the WAL then goes to `lost/`.
 * 3. Scan every table (scan-table.ts): kept as it is, salvaged into a new table as far as it
 *    reads, or dropped; damaged and dropped tables go to `lost/` (nothing is deleted).
 * 4. Write a new MANIFEST naming every table, all in L0 (RocksDB's placement), with log
 *    number 0, next file number above every number seen and last sequence the largest
 *    sequence number found; point CURRENT at it. Old MANIFESTs go to `lost/`.
 * 5. L0 is searched newest table first (by largest sequence number), which finds the newest
 *    version of a key only if tables that share keys do not share sequence ranges. Tables
 *    from different levels of the lost version can (RocksDB's repair accepts the risk and
 *    says "some data may have been lost"); shale then opens the repaired database and
 *    compacts it fully (merging by sequence number puts every key's newest version first)
 *    before returning. A repair interrupted there leaves a database that opens; repairing
 *    again finishes the job.
 *
 * What was kept, salvaged and dropped is returned and written, one line per fact, to the
 * info log `LOG` (RocksDB's repairer logs there too; shale otherwise writes none).
 */
import {
  baseName,
  bytesToString,
  type FileSystem,
  InternalKeyComparator,
  joinPath,
  ShaleError,
  toBytes,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { LogReader, LogWriter, WalRecoveryMode } from "@shale/wal";
import { newDbSessionId, tableWriteOptions } from "../compaction/build-table.js";
import {
  currentFileName,
  FileType,
  lockFileName,
  logFileName,
  manifestFileName,
  parseFileName,
  tableFileName,
  tempFileName,
} from "../core/filenames.js";
import { type DbOptions, resolveOptions } from "../core/options.js";
import { checkOptionsFile, readNewestOptions } from "../core/options-file.js";
import { WAL_DECOMPRESSOR } from "../core/wal-codecs.js";
import { DB } from "../db.js";
import { flushMemTable } from "../flush/flush-job.js";
import { type FileMetaData, VersionEdit } from "../version/version-edit.js";
import { WriteBatch } from "../write/write-batch.js";
import { MemTableInserter } from "../write/write-path.js";
import { scanTable } from "./scan-table.js";

/** A table in the rebuilt MANIFEST. */
export interface RepairedTable {
  /** Its file name (`NNNNNN.sst`). */
  file: string;
  /** Where its data came from: the table itself, the damaged table it salvages, or a WAL. */
  source: string;
  /** "kept" (read whole), "salvaged" (what a damaged table held up to the damage), "log". */
  kind: "kept" | "salvaged" | "log";
  entries: number;
  rangeDeletions: number;
  smallestSeq: number;
  largestSeq: number;
  /** Why a salvage was needed. */
  reason?: string;
}

/** A WAL converted to a table. */
export interface RepairedLog {
  file: string;
  /** Write batches replayed. */
  records: number;
  /** Bytes skipped as damaged. */
  droppedBytes: number;
  /** The table written (undefined: the WAL held nothing). */
  table?: string;
}

/** A table left out of the repaired database: its data is not in it. */
export interface DroppedFile {
  file: string;
  reason: string;
}

/** A file repair moved to `lost/` (nothing is deleted). */
export interface MovedFile {
  file: string;
  reason: string;
  /** Its path now. */
  movedTo: string;
}

export interface RepairReport {
  /** The MANIFEST written (`MANIFEST-NNNNNN`). */
  manifest: string;
  /** The largest sequence number found. */
  lastSequence: number;
  tables: RepairedTable[];
  logs: RepairedLog[];
  /** Tables that did not open or hold nothing of the default column family. */
  dropped: DroppedFile[];
  /** Every file moved to `lost/`: dropped and salvaged tables, converted WALs, old MANIFESTs. */
  moved: MovedFile[];
  /** True if the repaired database was compacted (tables sharing keys and sequence ranges). */
  compacted: boolean;
  /** The same, as the lines written to `LOG`. */
  lines: string[];
}

export type RepairOptions = Omit<DbOptions, "readOnly" | "createIfMissing" | "errorIfExists">;

const LOST = "lost";

/**
 * Rebuilds the MANIFEST of the database in `dir` from its tables and WALs (see the file
 * comment). `options`: the database's comparator and merge operator (checked against its
 * OPTIONS file when one is readable), `fs`, and the table options for the tables it writes.
 * Throws Busy if the database is open, InvalidArgument if `dir` holds no database files.
 */
export async function repair(dir: string, options?: RepairOptions): Promise<RepairReport> {
  if (typeof dir !== "string" || dir.length === 0)
    throw new TypeError("dir must be a non-empty string");
  for (const name of ["readOnly", "createIfMissing", "errorIfExists"] as const)
    if (options !== undefined && (options as DbOptions)[name] !== undefined)
      throw ShaleError.invalidArgument(`options.${name} does not apply to repair`);
  const resolved = resolveOptions(options);
  const fs = resolved.fs;
  if (!fs.exists(dir)) throw ShaleError.invalidArgument(`${dir} does not exist`);
  const icmp = new InternalKeyComparator(resolved.comparator);
  const lines: string[] = [];
  const say = (line: string) => lines.push(line);
  const lock = fs.lock(lockFileName(dir));
  let report: RepairReport;
  let needsCompaction = false;
  try {
    // 1. Find files.
    const names = fs.list(dir);
    const tables: number[] = [];
    const logs: number[] = [];
    const manifests: string[] = [];
    let highest = 1;
    for (const name of names) {
      const p = parseFileName(name);
      if (p === undefined) continue;
      if (p.number > highest) highest = p.number;
      if (p.type === FileType.Table) tables.push(p.number);
      else if (p.type === FileType.Log) logs.push(p.number);
      else if (p.type === FileType.Manifest) manifests.push(name);
      else if (p.type === FileType.Blob)
        // The rebuilt MANIFEST would not list the blob files (shale does not rebuild their
        // records from the tables' blob indexes yet), and their values would be lost.
        throw ShaleError.notSupported(
          `repair of a database with blob files (${name}, RocksDB's BlobDB) is not supported`,
        );
    }
    if (tables.length === 0 && logs.length === 0 && manifests.length === 0)
      throw ShaleError.invalidArgument(`no database files in ${dir}`);
    tables.sort((a, b) => a - b);
    logs.sort((a, b) => a - b);
    try {
      const previous = readNewestOptions(fs, dir);
      if (previous !== undefined)
        checkOptionsFile(previous, icmp.name, resolved.mergeOperator?.name);
    } catch (e) {
      if (ShaleError.isInstance(e) && e.code === "InvalidArgument") throw e;
      say(`OPTIONS file unreadable (not checked): ${e instanceof Error ? e.message : e}`);
    }
    let next = highest + 1;
    const newNumber = () => next++;
    const builderOptions = {
      ...tableWriteOptions(resolved, { dbId: "", dbSessionId: newDbSessionId() }),
      comparator: icmp.user,
    };
    const dropped: DroppedFile[] = [];
    const moved: MovedFile[] = [];
    const lostDir = joinPath(dir, LOST);
    const archive = (name: string, reason: string) => {
      fs.mkdir(lostDir);
      let target = joinPath(lostDir, name);
      for (let i = 1; fs.exists(target); i++) target = joinPath(lostDir, `${name}.${i}`);
      fs.rename(joinPath(dir, name), target);
      moved.push({ file: name, reason, movedTo: target });
      say(`${name}: moved to ${LOST}/: ${reason}`);
    };

    // 2. WALs to tables.
    const repairedLogs: RepairedLog[] = [];
    const fromLogs = new Map<number, string>();
    for (const number of logs) {
      const path = logFileName(dir, number);
      const name = baseName(path);
      const result = convertLog(fs, path, number, icmp);
      const entry: RepairedLog = {
        file: name,
        records: result.records,
        droppedBytes: result.droppedBytes,
      };
      if (result.mem.numEntries > 0 || result.mem.numRangeTombstones > 0) {
        result.mem.seal();
        const file = flushMemTable(fs, dir, newNumber(), result.mem, builderOptions);
        if (file !== undefined) {
          entry.table = baseName(tableFileName(dir, file.number));
          tables.push(file.number);
          fromLogs.set(file.number, name);
        }
      }
      repairedLogs.push(entry);
      say(
        `${name}: ${result.records} batches replayed${result.droppedBytes > 0 ? `, ${result.droppedBytes} damaged bytes skipped` : ""}${entry.table !== undefined ? ` into ${entry.table}` : ""}`,
      );
      archive(name, entry.table !== undefined ? `converted to ${entry.table}` : "held nothing");
    }

    // 3. Scan the tables.
    const repaired: RepairedTable[] = [];
    const files: FileMetaData[] = [];
    let lastSequence = 0;
    for (const number of tables) {
      const path = tableFileName(dir, number);
      const name = baseName(path);
      const scan = scanTable(fs, dir, path, number, icmp, builderOptions, newNumber);
      if (scan.kind === "dropped") {
        dropped.push({ file: name, reason: scan.reason });
        archive(name, `dropped: ${scan.reason}`);
        continue;
      }
      const f = scan.file;
      files.push(f);
      if (f.largestSeq > lastSequence) lastSequence = f.largestSeq;
      const fileName = baseName(tableFileName(dir, f.number));
      const source = fromLogs.get(number);
      const t: RepairedTable = {
        file: fileName,
        source: source ?? name,
        kind: scan.kind === "salvaged" ? "salvaged" : source !== undefined ? "log" : "kept",
        entries: scan.entries,
        rangeDeletions: scan.rangeDeletions,
        smallestSeq: f.smallestSeq,
        largestSeq: f.largestSeq,
      };
      if (scan.kind === "salvaged") {
        t.reason = scan.reason;
        say(`${name}: salvaged ${scan.entries} entries into ${fileName}: ${scan.reason}`);
        archive(name, `damaged; salvaged into ${fileName}`);
      } else {
        say(`${fileName}: kept, ${scan.entries} entries, seq ${f.smallestSeq}..${f.largestSeq}`);
      }
      repaired.push(t);
    }

    // 4. The new MANIFEST, then CURRENT.
    needsCompaction = sharesKeysAndSequences(files, icmp);
    const manifestNumber = newNumber();
    const edit = new VersionEdit();
    edit.comparator = icmp.name;
    edit.logNumber = 0;
    edit.prevLogNumber = 0;
    edit.nextFileNumber = next;
    edit.lastSequence = lastSequence;
    for (const f of files) edit.addFile(0, f);
    writeDescriptor(fs, dir, manifestNumber, edit);
    const manifest = baseName(manifestFileName(dir, manifestNumber));
    for (const name of manifests) archive(name, `replaced by ${manifest}`);
    say(
      `${manifest}: ${files.length} tables in L0, last sequence ${lastSequence}, next file ${next}`,
    );
    report = {
      manifest,
      lastSequence,
      tables: repaired,
      logs: repairedLogs,
      dropped,
      moved,
      compacted: false,
      lines,
    };
  } finally {
    lock.release();
  }

  // 5. Tables sharing keys and sequence ranges: a full compaction puts each key's newest
  // version first (in a new MANIFEST the open writes).
  if (needsCompaction) {
    const db = await DB.open(dir, { ...options, createIfMissing: false });
    try {
      await db.compactRange();
    } finally {
      await db.close();
    }
    report.compacted = true;
    say("tables shared keys and sequence ranges: compacted into non-overlapping levels");
  }
  say(
    `repaired ${dir}: ${report.tables.length} tables (${report.tables.filter((t) => t.kind === "salvaged").length} salvaged), ${report.dropped.length} dropped${report.dropped.length + report.tables.filter((t) => t.kind === "salvaged").length > 0 ? "; some data was lost" : ""}`,
  );
  writeInfoLog(fs, dir, lines);
  return report;
}

/** Replays one WAL into a memtable, skipping damage (SkipAnyCorrupted). */
function convertLog(
  fs: FileSystem,
  path: string,
  number: number,
  icmp: InternalKeyComparator,
): { mem: MemTable; records: number; droppedBytes: number } {
  const name = baseName(path);
  const mem = new MemTable({ comparator: icmp.user });
  let droppedBytes = 0;
  let records = 0;
  const file = fs.openSequential(path);
  const reader = new LogReader(file, {
    mode: WalRecoveryMode.SkipAnyCorrupted,
    fileName: name,
    logNumber: number,
    decompressor: WAL_DECOMPRESSOR,
    reporter: (info) => {
      droppedBytes += info.bytes;
    },
  });
  const inserter = new MemTableInserter();
  try {
    for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
      const offset = reader.lastRecordOffset;
      try {
        if (rec.length < 12) throw ShaleError.corruption("short record", name, offset);
        inserter.mem = mem;
        inserter.seq = WriteBatch.sequence(rec);
        // Checked whole first, so a bad batch adds nothing.
        WriteBatch.iterate(rec, { apply() {} }, name, offset);
        WriteBatch.iterate(rec, inserter, name, offset);
        records++;
      } catch (e) {
        if (!ShaleError.isInstance(e) || e.code !== "Corruption") throw e;
        droppedBytes += reader.lastRecordEndOffset - offset;
      }
    }
  } finally {
    file.close();
  }
  return { mem, records, droppedBytes };
}

/**
 * True if two tables share user keys and sequence ranges: then the L0 order (largest
 * sequence number first) may not put a key's newest version first.
 */
function sharesKeysAndSequences(files: readonly FileMetaData[], icmp: InternalKeyComparator) {
  const user = icmp.user;
  const userKey = (k: Uint8Array) => k.subarray(0, k.length - 8);
  const sorted = [...files].sort((a, b) => user.compare(userKey(a.smallest), userKey(b.smallest)));
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j]!;
      if (user.compare(userKey(b.smallest), userKey(a.largest)) > 0) break;
      if (a.smallestSeq <= b.largestSeq && b.smallestSeq <= a.largestSeq) return true;
    }
  }
  return false;
}

/** Writes MANIFEST-`number` holding `edit`, syncs it, and points CURRENT at it (durably). */
function writeDescriptor(fs: FileSystem, dir: string, number: number, edit: VersionEdit): void {
  const path = manifestFileName(dir, number);
  const writer = new LogWriter(fs.openWritable(path));
  try {
    writer.addRecord(edit.encode());
    writer.sync();
  } finally {
    writer.close();
  }
  const tmp = tempFileName(dir, number);
  fs.writeFile(tmp, toBytes(`${baseName(path)}\n`), { sync: true });
  fs.rename(tmp, currentFileName(dir));
  fs.syncDir(dir);
}

/** Appends `lines` to the info log `LOG` (best effort: the report is the result). */
function writeInfoLog(fs: FileSystem, dir: string, lines: readonly string[]): void {
  try {
    const path = joinPath(dir, "LOG");
    const previous = fs.exists(path) ? bytesToString(fs.readFile(path)) : "";
    const stamp = new Date().toISOString();
    const text = lines.map((l) => `${stamp} [repair] ${l}\n`).join("");
    fs.writeFile(path, toBytes(previous + text), { sync: true });
  } catch {
    // The report was returned; the log is a copy.
  }
}
