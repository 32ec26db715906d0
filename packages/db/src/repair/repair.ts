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
 *
 * Column families (families.ts): every family the old MANIFESTs or the tables' properties
 * name is kept with its id and name; each table goes back to its family, and each WAL's
 * records go into one table per family (records of a family repair cannot name are
 * skipped, reported).
 * 5. L0 is searched newest table first (by largest sequence number), which finds the newest
 *    version of a key only if tables that share keys do not share sequence ranges. Tables
 *    from different levels of the lost version can (RocksDB's repair accepts the risk and
 *    says "some data may have been lost"); shale then opens the repaired database and
 *    compacts it fully (merging by sequence number puts every key's newest version first)
 *    before returning (each family that needs it). A repair interrupted there leaves a database that opens; repairing
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
import { newDbSessionId } from "../compaction/build-table.js";
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
import { FamilyInserter } from "../write/write-path.js";
import { findFamilies, type RepairFamily } from "./families.js";
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
  /** The first table written (undefined: the WAL held nothing). */
  table?: string;
  /** Every table written: one per column family with records in the WAL. */
  tables: string[];
  /** Records (write batch entries) of column families repair could not name, skipped. */
  skippedEntries: number;
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
  /** Tables that did not open, held nothing, or belong to a family repair cannot open. */
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
  /** The families whose tables share keys and sequence ranges. */
  let toCompact: string[] = [];
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
    const identity = { dbId: "", dbSessionId: newDbSessionId() };
    const { families, tableFamily, unknown } = findFamilies(
      fs,
      dir,
      resolved,
      icmp,
      identity,
      tables,
      manifests,
    );
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
      const result = convertLog(fs, path, number, families);
      const entry: RepairedLog = {
        file: name,
        records: result.records,
        droppedBytes: result.droppedBytes,
        tables: [],
        skippedEntries: result.skippedEntries,
      };
      for (const [id, mem] of result.mems) {
        if (mem.numEntries === 0 && mem.numRangeTombstones === 0) continue;
        mem.seal();
        const family = families.get(id)!;
        const file = flushMemTable(fs, dir, newNumber(), mem, family.builderOptions);
        if (file === undefined) continue;
        entry.tables.push(baseName(tableFileName(dir, file.number)));
        tables.push(file.number);
        tableFamily.set(file.number, id);
        fromLogs.set(file.number, name);
      }
      if (entry.tables.length > 0) entry.table = entry.tables[0]!;
      repairedLogs.push(entry);
      say(
        `${name}: ${result.records} batches replayed${result.droppedBytes > 0 ? `, ${result.droppedBytes} damaged bytes skipped` : ""}${result.skippedEntries > 0 ? `, ${result.skippedEntries} entries of unknown column families skipped` : ""}${entry.tables.length > 0 ? ` into ${entry.tables.join(", ")}` : ""}`,
      );
      archive(
        name,
        entry.tables.length > 0 ? `converted to ${entry.tables.join(", ")}` : "held nothing",
      );
    }

    // 3. Scan the tables.
    const repaired: RepairedTable[] = [];
    let lastSequence = 0;
    for (const number of tables) {
      const path = tableFileName(dir, number);
      const name = baseName(path);
      const id = tableFamily.get(number) ?? 0;
      const family = families.get(id);
      if (family === undefined) {
        const reason = `belongs to column family ${id} ("${unknown.get(id)}"), whose comparator shale does not have`;
        dropped.push({ file: name, reason });
        archive(name, `dropped: ${reason}`);
        continue;
      }
      const scan = scanTable(fs, dir, path, number, family.icmp, family.builderOptions, newNumber);
      if (scan.kind === "dropped") {
        dropped.push({ file: name, reason: scan.reason });
        archive(name, `dropped: ${scan.reason}`);
        continue;
      }
      const f = scan.file;
      family.files.push(f);
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
    toCompact = [...families.values()]
      .filter((f) => sharesKeysAndSequences(f.files, f.icmp))
      .map((f) => f.name);
    const manifestNumber = newNumber();
    writeDescriptor(fs, dir, manifestNumber, descriptorEdits(families, next, lastSequence));
    const manifest = baseName(manifestFileName(dir, manifestNumber));
    for (const name of manifests) archive(name, `replaced by ${manifest}`);
    const count = [...families.values()].reduce((n, f) => n + f.files.length, 0);
    const named = families.size > 1 ? ` of ${families.size} column families` : "";
    say(
      `${manifest}: ${count} tables${named} in L0, last sequence ${lastSequence}, next file ${next}`,
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
  if (toCompact.length > 0) {
    const db = await DB.open(dir, { ...options, createIfMissing: false });
    try {
      for (const name of toCompact) await db.columnFamily(name).compactRange();
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

/**
 * Replays one WAL into a memtable per column family, skipping damage (SkipAnyCorrupted) and
 * the records of families not in `families`.
 */
function convertLog(
  fs: FileSystem,
  path: string,
  number: number,
  families: ReadonlyMap<number, RepairFamily>,
): { mems: Map<number, MemTable>; records: number; droppedBytes: number; skippedEntries: number } {
  const name = baseName(path);
  const mems = new Map<number, MemTable>();
  const inserter = new FamilyInserter();
  for (const f of families.values()) {
    const mem = new MemTable({ comparator: f.icmp.user });
    mems.set(f.id, mem);
    inserter.mems[f.id] = mem;
  }
  let skippedEntries = 0;
  const check = {
    apply(_kind: unknown, _key: unknown, _value: unknown, _index: number, family: number) {
      if (!families.has(family)) skippedEntries++;
    },
  };
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
  try {
    for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
      const offset = reader.lastRecordOffset;
      try {
        if (rec.length < 12) throw ShaleError.corruption("short record", name, offset);
        inserter.seq = WriteBatch.sequence(rec);
        // Checked whole first, so a bad batch adds nothing.
        const skippedBefore = skippedEntries;
        try {
          WriteBatch.iterate(rec, check, name, offset, true);
        } catch (e) {
          skippedEntries = skippedBefore;
          throw e;
        }
        WriteBatch.iterate(rec, inserter, name, offset, true);
        records++;
      } catch (e) {
        if (!ShaleError.isInstance(e) || e.code !== "Corruption") throw e;
        droppedBytes += reader.lastRecordEndOffset - offset;
      }
    }
  } finally {
    file.close();
  }
  return { mems, records, droppedBytes, skippedEntries };
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

/**
 * The rebuilt MANIFEST's edits: the default family's (comparator, counters, its tables), then
 * per other family one adding it (id, name, comparator) and one with its tables.
 */
function descriptorEdits(
  families: ReadonlyMap<number, RepairFamily>,
  nextFileNumber: number,
  lastSequence: number,
): VersionEdit[] {
  const edits: VersionEdit[] = [];
  for (const family of [...families.values()].sort((a, b) => a.id - b.id)) {
    const edit = new VersionEdit();
    edit.columnFamily = family.id;
    edit.logNumber = 0;
    if (family.id === 0) {
      edit.comparator = family.icmp.name;
      edit.prevLogNumber = 0;
      edit.nextFileNumber = nextFileNumber;
      edit.lastSequence = lastSequence;
      const maxColumnFamily = Math.max(...families.keys());
      if (maxColumnFamily > 0) edit.maxColumnFamily = maxColumnFamily;
    } else {
      const add = new VersionEdit();
      add.columnFamily = family.id;
      add.columnFamilyAdd = family.name;
      add.comparator = family.icmp.name;
      add.logNumber = 0;
      edits.push(add);
    }
    for (const f of family.files) edit.addFile(0, f);
    edits.push(edit);
  }
  return edits;
}

/** Writes MANIFEST-`number` holding `edits`, syncs it, and points CURRENT at it (durably). */
function writeDescriptor(fs: FileSystem, dir: string, number: number, edits: VersionEdit[]): void {
  const path = manifestFileName(dir, number);
  const writer = new LogWriter(fs.openWritable(path));
  try {
    for (const edit of edits) writer.addRecord(edit.encode());
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
