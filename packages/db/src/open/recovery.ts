/**
 * Opening a database: read CURRENT and the MANIFEST, replay the WALs that are not yet in
 * tables into memtables, start a new WAL and a new MANIFEST, and remove obsolete files.
 *
 * MANIFEST side (version-set.ts, manifest-recovery.ts, options-file.ts):
 * - a new database first gets IDENTITY and RocksDB's NewDB MANIFEST + CURRENT (a directory
 *   holding a log file is refused, as RocksDB does); then every open is the same path;
 * - the newest OPTIONS file is checked (comparator, merge operator) and a new one written;
 * - the MANIFEST is read strictly unless `bestEffortsRecovery` (then no WAL is replayed and
 *   nothing is deleted); column families other than `default` make writes NotSupported;
 * - obsolete files: only files the database made are considered (removeObsoleteFiles).
 *
 * WAL damage, by recovery mode (see @shale/wal's LogReader for the per-file rules):
 * - the LAST WAL may end in a torn tail (a write that was in flight when the process died):
 *   it is dropped in every mode but AbsoluteConsistency, and the file is truncated to its
 *   last whole record so the next recovery sees a clean log;
 * - an EARLIER WAL was synced before its successor was created, so any damage in it is
 *   real corruption: an error in every mode but SkipAnyCorrupted.
 *
 * Nothing is dropped silently: every run of WAL bytes the reader drops (a torn
 * tail; corruption PointInTime drops at the end of the last WAL; whatever SkipAnyCorrupted
 * skips) and every record SkipAnyCorrupted skips because its WriteBatch does not decode
 * becomes a `RecoveryDrop`: counted in the tickers WalRecoveryDroppedBytes and
 * WalRecoveryDrops, listed by the property `shale.recovery-dropped`, and announced as a
 * process warning (shale has no info log: see `announceDrops`).
 *
 * The replayed memtables (one per `writeBufferSize` of replayed data) stay in memory by
 * default (`avoidFlushDuringRecovery`, RocksDB's avoid_flush_during_recovery): the last one,
 * not full, is the mutable memtable, which takes the writes after the open, as RocksDB keeps
 * its final replayed memtable; the full ones before it are immutable memtables for the
 * background flush. Each carries the WAL its data starts in: this open's MANIFEST edit keeps
 * the log number at the oldest replayed WAL, so those WALs stay until the flushes install
 * (flush-scheduler.ts then deletes them; for the mutable one, after its switch and flush),
 * and a crash before that replays them again. So a reopen reads its recent data from memory
 * as the run before it did, instead of from a small L0 table that a cold cache serves with
 * preads. With the option false (RocksDB's default) they are flushed to L0
 * tables here, inline, and the old WALs deleted: the open then has no immutable memtable
 * and an empty mutable one. Either way the open starts a fresh WAL.
 */

import {
  baseName,
  bytewiseComparator,
  type FileSystem,
  InternalKeyComparator,
  joinPath,
  ShaleError,
  type Statistics,
  Ticker,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { LogReader, LogWriter, WalRecoveryMode } from "@shale/wal";
import {
  newDbSessionId,
  type TableIdentity,
  tableWriteOptions,
} from "../compaction/build-table.js";
import {
  checkStyleFitsTree,
  compactionStyleEntries,
  recordedCompactionStyle,
  resolveCompactionStyle,
} from "../core/compaction-style-options.js";
import { dataBlockIndexEntries, recordedDataBlockIndex } from "../core/data-block-index-option.js";
import { FileType, logFileName, parseFileName } from "../core/filenames.js";
import { filterPolicyId } from "../core/filter-policy-option.js";
import { newFamilyMemTable } from "../core/memtable-bloom-option.js";
import {
  type ChecksumName,
  type ResolvedOptions,
  resolveColumnFamilyOptions,
} from "../core/options.js";
import {
  checkOptionsFile,
  compressionEntries,
  ensureIdentity,
  formatOptionsFile,
  mergeOperatorOf,
  type OptionsSection,
  readNewestOptions,
  writeOptionsFile,
} from "../core/options-file.js";
import {
  recordedPrefixExtractor,
  resolvePrefixExtractor,
} from "../core/prefix-extractor-option.js";
import { checkTtl, recordedTtl, ttlOptionsEntries } from "../core/ttl-option.js";
import { WAL_DECOMPRESSOR, walCompressor } from "../core/wal-codecs.js";
import { WriteBufferManager } from "../core/write-buffer-manager.js";
import { flushMemTable } from "../flush/flush-job.js";
import type { Follower } from "../secondary/follower.js";
import { SecondaryPins } from "../secondary/primary-pins.js";
import { checkLiveTables } from "../version/paranoid-checks.js";
import { NUM_LEVELS, VersionEdit } from "../version/version-edit.js";
import { type FamilyVersions, VersionSet } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import {
  PreparedReplay,
  prepareRecord,
  type RecoveredPrepared,
} from "../write/two-phase-records.js";
import { WalArchive } from "../write/wal-archive.js";
import { WriteBatch } from "../write/write-batch.js";
import { FamilyInserter } from "../write/write-path.js";

/** One column family as the open leaves it. */
export interface RecoveredFamilyState {
  versions: FamilyVersions;
  options: ResolvedOptions;
  mem: MemTable;
  imm: ImmutableMemTable[];
  /** The oldest WAL holding data of `mem` (the new WAL when `mem` is empty). */
  memLogNumber: number;
}

export interface RecoveredState {
  icmp: InternalKeyComparator;
  versions: VersionSet;
  /**
   * The mutable memtable: the last one the WAL replay filled (`avoidFlushDuringRecovery`),
   * or empty (the replayed data was flushed, or there was none).
   */
  mem: MemTable;
  /** Immutable memtables, newest first: the fuller replayed ones, left for the background flush. */
  imm: ImmutableMemTable[];
  /** The new WAL and its number: every write after the open goes there. */
  wal: LogWriter;
  logNumber: number;
  /** The oldest WAL holding data of `mem`: a replayed one, or `logNumber` when `mem` is empty. */
  memLogNumber: number;
  /**
   * NotSupported while the directory holds column families other than `default` (shale opens
   * the default one and leaves the others alone; writing could lose their WAL data).
   */
  writeRefusal: ShaleError | undefined;
  /** What WAL replay dropped instead of failing, in file order (empty when nothing was). */
  drops: RecoveryDrop[];
  /**
   * Every column family by id (`default`, 0, first, with `mem`/`imm`/`memLogNumber` above):
   * its part of the version set, its options, and the memtables the WAL replay left it.
   */
  families: Map<number, RecoveredFamilyState>;
  /** The database's id and this open's session id, recorded in the tables it writes. */
  identity: TableIdentity;
  /** Read-only and secondary opens: what follows the primary (secondary/follower.ts). */
  follower?: Follower;
  /**
   * A TransactionDB's prepared transactions the WALs left undecided (their prepare records
   * written again into the new WAL, `logNumber`).
   */
  prepared?: RecoveredPrepared[];
  /** Per replayed memtable: the oldest WAL of a prepare whose commit it holds ops of. */
  prepLogRefs?: Map<MemTable, number>;
}

/** `shale.ignored-column-families` and `shale.best-efforts-recovery`. */
export function recoveryProperty(name: string, versions: VersionSet): string {
  if (name === "shale.best-efforts-recovery") return versions.bestEffortsReport;
  void versions; // every family is opened now: none is left alone
  return "";
}

/** Says, once per open, what shale leaves alone or dropped (there is no info log). */
function warn(message: string): void {
  const p = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process;
  p?.emitWarning?.(message, { type: "ShaleWarning", code: "SHALE_RECOVERY" });
}

/** WAL bytes recovery dropped, one per report of the log reader or skipped record. */
export interface RecoveryDrop {
  /** The WAL's file name (`NNNNNN.log`). */
  file: string;
  /** File offset of the first dropped byte. */
  offset: number;
  /** How many bytes of the file were dropped from `offset`. */
  bytes: number;
  /** The log reader's reason ("truncated record", "checksum mismatch", ...) or the error. */
  reason: string;
  /** The walRecoveryMode that dropped it (its name). */
  mode: string;
}

const MODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(WalRecoveryMode).map(([name, value]) => [value, name]),
);

/** The code of the process warning recovery emits for each drop. */
export const WAL_DROPPED_WARNING = "SHALE_WAL_DROPPED";

/**
 * Counts the drops in the tickers and announces each as a process warning
 * (`process.emitWarning`, type "ShaleWarning", code SHALE_WAL_DROPPED): shale has no info
 * log (RocksDB logs these to LOG), and a warning is Node's channel for a library to tell
 * the operator something without one — printed to stderr by default, observable with
 * `process.on("warning")`, silenced with `--no-warnings`. The property
 * `shale.recovery-dropped` lists the same drops.
 */
function announceDrops(drops: readonly RecoveryDrop[], stats: Statistics | undefined): void {
  for (const d of drops) {
    stats?.tick(Ticker.WalRecoveryDroppedBytes, d.bytes);
    stats?.tick(Ticker.WalRecoveryDrops);
    const emit = (globalThis as { process?: { emitWarning?: (...args: unknown[]) => void } })
      .process?.emitWarning;
    emit?.(
      `WAL recovery (${d.mode}) dropped ${d.bytes} bytes of ${d.file} @ ${d.offset}: ${d.reason}`,
      { type: "ShaleWarning", code: WAL_DROPPED_WARNING },
    );
  }
}

export function recover(
  dir: string,
  options: ResolvedOptions,
  icmp: InternalKeyComparator,
): RecoveredState {
  const fs = options.fs;
  const versions = new VersionSet({ fs, dir, icmp });
  // A failed open closes what it opened (the new WAL, the MANIFEST): the caller releases the
  // LOCK, and a reopen in the same process must find no handle left behind.
  let wal: LogWriter | undefined;
  try {
    // Best-efforts recovery needs no CURRENT: it reads the MANIFESTs in the directory.
    const manifests = fs.list(dir).some((n) => parseFileName(n)?.type === FileType.Manifest);
    let created = false;
    if (VersionSet.exists(fs, dir) || (options.bestEffortsRecovery && manifests)) {
      if (options.errorIfExists)
        throw ShaleError.invalidArgument(`a database already exists in ${dir}`);
    } else if (!options.createIfMissing) {
      throw ShaleError.invalidArgument(`no database in ${dir} (createIfMissing is false)`);
    } else {
      createDatabase(fs, dir, versions);
      created = true;
    }
    const previousOptions = readNewestOptions(fs, dir);
    if (previousOptions !== undefined)
      checkOptionsFile(previousOptions, icmp.name, options.mergeOperator?.name);
    // Not given: as the database was last opened (RocksDB's atomic_flush in DBOptions).
    options.atomicFlush ??= recordedAtomicFlush(previousOptions?.sections ?? []);
    // Neither dbWriteBufferSize nor writeBufferManager given: the recorded budget.
    if (options.dbWriteBufferSize === undefined) {
      const recorded = recordedDbWriteBufferSize(previousOptions?.sections ?? []);
      options.dbWriteBufferSize = recorded;
      if (recorded > 0) options.writeBufferManager = new WriteBufferManager(recorded);
    }
    versions.recover({
      bestEfforts: options.bestEffortsRecovery,
      familyComparator: familyComparator(options, icmp),
    });
    // Families named in the options and missing here: created below, or refused before any write.
    const missing = Object.keys(options.columnFamilies).filter(
      (name) => name !== "default" && versions.familyByName(name) === undefined,
    );
    if (missing.length > 0 && !options.createMissingColumnFamilies)
      throw ShaleError.invalidArgument(
        `column families not found in ${dir}: ${missing.map((n) => JSON.stringify(n)).join(", ")} (set createMissingColumnFamilies to create them)`,
      );
    const familyOptions = new Map<number, ResolvedOptions>();
    for (const f of versions.families.values()) {
      const own = resolveColumnFamilyOptions(options, f.name);
      const prefixExtractor = resolvePrefixExtractor(
        recordedPrefixExtractor(previousOptions?.sections ?? [], f.name),
        own.prefixExtractor,
        f.name,
        previousOptions?.name ?? "OPTIONS",
      );
      const optionsFile = previousOptions?.name ?? "OPTIONS";
      const recorded = recordedTtl(previousOptions?.sections ?? [], f.name);
      checkTtl(recorded, own.ttl, f.name, optionsFile);
      const recordedCompaction = recordedCompactionStyle(
        previousOptions?.sections ?? [],
        f.name,
        optionsFile,
      );
      if (!options.readOnly)
        checkStyleFitsTree(
          resolveCompactionStyle(own, recordedCompaction).compactionStyle,
          f.name,
          f.current.levels.map((l) => l.length),
        );
      // Not given: as the family was last opened (RocksDB's table options), else the defaults.
      const recordedIndex = recordedDataBlockIndex(
        previousOptions?.sections ?? [],
        f.name,
        optionsFile,
      );
      familyOptions.set(f.id, {
        ...own,
        comparator: f.icmp.user,
        prefixExtractor,
        recordedCompaction,
        dataBlockIndexType: own.dataBlockIndexType ?? recordedIndex.dataBlockIndexType,
        dataBlockHashTableUtilRatio:
          own.dataBlockHashTableUtilRatio ?? recordedIndex.dataBlockHashTableUtilRatio,
      });
    }
    if (options.paranoidChecks && !options.bestEffortsRecovery)
      checkLiveTables(fs, dir, versions.current);
    const identity = {
      dbId: ensureIdentity(fs, dir, versions.dbId),
      dbSessionId: newDbSessionId(),
    };
    // Files numbered below this were handed out by this database. A database created just now
    // made none of the files already in the directory.
    const recoveredNext = created ? 0 : versions.recoveredNextFileNumber;
    const writeRefusal: ShaleError | undefined = undefined;

    const logs: number[] = [];
    // A TransactionDB reads, for their prepare records only, the WALs below every family's
    // log number that are still there when the MANIFEST recorded no MinLogNumberToKeep
    // (RocksDB keeps a prepare's WAL without recording one; txn/two-phase.ts).
    const familyMinLog = versions.minLogNumberToKeep;
    const readOlder =
      options.transactionDB !== undefined && versions.recordedMinLogNumberToKeep === 0;
    for (const name of fs.list(dir)) {
      const parsed = parseFileName(name);
      if (parsed === undefined) continue;
      versions.markFileNumberUsed(parsed.number);
      // Best-efforts recovery does not replay WALs (RocksDB's rule: the version it opens may
      // be older than the WALs' data).
      if (
        parsed.type === FileType.Log &&
        (parsed.number >= familyMinLog || readOlder) &&
        !options.bestEffortsRecovery
      )
        logs.push(parsed.number);
    }
    logs.sort((a, b) => a - b);

    // paranoidChecks false: WAL damage is skipped whatever the mode (paranoid-checks.ts).
    const walMode = options.paranoidChecks
      ? options.walRecoveryMode
      : WalRecoveryMode.SkipAnyCorrupted;
    // Per family: the memtables replayed, oldest first, and the WAL each one's data starts
    // in (at worst a WAL older than that, never one below the family's log number: those
    // are not replayed into it, and a kept memtable's log number becomes the family's).
    const replays = new Map<number, { mems: MemTable[]; logs: number[]; limit: number }>();
    for (const f of versions.families.values()) {
      const limit = familyOptions.get(f.id)!.writeBufferSize;
      replays.set(f.id, {
        mems: [newFamilyMemTable(familyOptions.get(f.id)!)],
        logs: [Math.max(logs[0] ?? 0, f.logNumber)],
        limit,
      });
    }
    let lastSeq = versions.lastSequence;
    const inserter = new FamilyInserter();
    // A TransactionDB replays two-phase commits (txn/two-phase.ts); elsewhere a prepare
    // marker is NotSupported (as RocksDB without allow_2pc).
    const replay = options.transactionDB !== undefined ? new PreparedReplay(inserter) : undefined;
    const handler = replay ?? inserter;
    const drops: RecoveryDrop[] = [];
    const modeName = MODE_NAMES[walMode] ?? String(walMode);
    for (let i = 0; i < logs.length; i++) {
      const number = logs[i]!;
      const path = logFileName(dir, number);
      const name = baseName(path);
      const isLast = i === logs.length - 1;
      let firstDrop: number | undefined;
      // A WAL older than a family's log number holds nothing of it that is not in its tables.
      // A full memtable is switched only here, between WALs, as the writer switched them: a
      // WAL's records of one family stay in one memtable. Split between two, the older one's
      // flush would set the family's log number to this WAL (the newer one's data is there)
      // and the next open would replay the flushed records again (a merge operand twice;
      // RocksDB, which filters by log number alone, too).
      inserter.mems.length = 0;
      if (replay !== undefined) replay.logNumber = number;
      for (const f of versions.families.values()) {
        const r = replays.get(f.id)!;
        if (number < f.logNumber) {
          inserter.mems[f.id] = undefined;
          continue;
        }
        let mem = r.mems[r.mems.length - 1]!;
        if (mem.approximateMemoryUsage() >= r.limit) {
          mem = newFamilyMemTable(familyOptions.get(f.id)!);
          r.mems.push(mem);
          r.logs.push(number);
        }
        inserter.mems[f.id] = mem;
      }
      const file = fs.openSequential(path);
      const reader = new LogReader(file, {
        mode: walMode,
        fileName: name,
        logNumber: number,
        decompressor: WAL_DECOMPRESSOR,
        reporter: (info) => {
          if (firstDrop === undefined) firstDrop = info.offset;
          drops.push({ file: name, ...info, mode: modeName });
        },
      });
      try {
        for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
          const offset = reader.lastRecordOffset;
          let seq: number;
          let count: number;
          try {
            if (rec.length < 12)
              throw ShaleError.corruption(
                "WAL record shorter than a write batch header",
                name,
                offset,
              );
            seq = WriteBatch.sequence(rec);
            count = WriteBatch.countOf(rec);
            inserter.seq = seq;
            if (replay !== undefined) replay.recordSeq = seq;
            WriteBatch.iterate(rec, handler, name, offset, true);
          } catch (e) {
            if (walMode === WalRecoveryMode.SkipAnyCorrupted && ShaleError.isInstance(e)) {
              drops.push({
                file: name,
                offset,
                bytes: reader.lastRecordEndOffset - offset,
                reason: e.message.replace(/^\w+: /, "").replace(/ \([^()]*\)$/, ""),
                mode: modeName,
              });
              continue;
            }
            throw e;
          }
          if (seq + count - 1 > lastSeq) lastSeq = seq + count - 1;
          if (replay !== undefined && replay.maxSeq > lastSeq) lastSeq = replay.maxSeq;
        }
      } finally {
        file.close();
      }
      // A WAL below every family's log number is read for prepare records alone: its
      // damage loses nothing (it stays as it is).
      if (
        firstDrop !== undefined &&
        walMode !== WalRecoveryMode.SkipAnyCorrupted &&
        number >= familyMinLog
      ) {
        if (!isLast) {
          throw ShaleError.corruption(
            "damaged records in a WAL that later WALs follow",
            name,
            firstDrop,
          );
        }
        fs.truncate(path, firstDrop);
      }
    }
    versions.lastSequence = lastSeq;
    announceDrops(drops, options.statistics);

    const logNumber = versions.newFileNumber();
    const compressor = walCompressor(options.walCompression);
    wal = new LogWriter(
      fs.openWritable(logFileName(dir, logNumber)),
      compressor !== undefined ? { compressor } : {},
    );
    fs.syncDir(dir);
    // Prepared transactions not decided: their prepare records again, in the new WAL (so
    // the WALs they were in may go like any other).
    const prepared = replay === undefined ? [] : [...replay.pending.values()];
    if (prepared.length > 0) {
      for (const p of prepared) wal.addRecord(prepareRecord(p.batch, p.name, lastSeq + 1));
      wal.sync();
    }
    versions.rollManifest(!options.bestEffortsRecovery);

    // What was replayed, oldest first. Kept in memory (its WALs kept: the log number stays
    // at the oldest of them): the last memtable, not full, stays the mutable one, as in
    // RocksDB, and the full ones go to the background flush. Or flushed now (oldest first,
    // so L0 stays ordered newest first by seq) with the old WALs retired in the same
    // MANIFEST edit.
    const keep = options.avoidFlushDuringRecovery;
    const families = new Map<number, RecoveredFamilyState>();
    const edits: [FamilyVersions, VersionEdit][] = [];
    const syncFrom = { log: Number.POSITIVE_INFINITY };
    for (const f of versions.families.values()) {
      const r = replays.get(f.id)!;
      const fo = familyOptions.get(f.id)!;
      const kept = keepOrFlush(fs, dir, versions, f, fo, identity, r, keep, logNumber);
      families.set(f.id, kept.state);
      edits.push([f, kept.edit]);
      if (kept.oldestKept !== undefined && kept.oldestKept < syncFrom.log)
        syncFrom.log = kept.oldestKept;
    }
    // The kept WALs hold writes the last process handed to the OS, perhaps never synced (it
    // died). A synced write after this open syncs only the new WAL, so without this a power
    // cut could keep that write and lose the older ones these logs hold.
    for (const n of logs) if (n >= syncFrom.log) syncLog(fs, logFileName(dir, n));
    // OPTIONS takes its number before the edit records NextFileNumber, so the number is the
    // database's by the obsolete-file rule below.
    for (const name of missing) {
      const own = resolveColumnFamilyOptions(options, name);
      const f = versions.addFamily(name, new InternalKeyComparator(own.comparator), logNumber);
      families.set(f.id, {
        versions: f,
        options: own,
        mem: newFamilyMemTable(own),
        imm: [],
        memLogNumber: logNumber,
      });
    }
    writeOptions(
      fs,
      dir,
      versions,
      options,
      previousOptions?.sections ?? [],
      recoveredNext,
      families,
    );
    // Flushed now, the replayed WALs hold nothing any family needs: a MinLogNumberToKeep the
    // MANIFEST recorded (RocksDB records one with every flush) moves up to the new WAL, as
    // RocksDB's recovery flush moves it (without two-phase commit), or it would keep them.
    if (
      !keep &&
      options.transactionDB === undefined &&
      versions.recordedMinLogNumberToKeep > 0 &&
      versions.recordedMinLogNumberToKeep < logNumber &&
      edits.length > 0
    )
      edits[0]![1].minLogNumberToKeep = logNumber;
    // With atomicFlush, the families' recovery flushes are installed together (one group).
    if (options.atomicFlush === true && edits.some(([, e]) => e.newFiles.length > 0))
      versions.logAndApplyGroup(edits.map(([family, edit]) => ({ edit, family })));
    else for (const [f, edit] of edits) f.logAndApply(edit);
    const main = families.get(0)!;

    // A best-efforts open may have opened an older version than the files around it: it
    // deletes nothing, and names the WALs it did not replay.
    if (options.bestEffortsRecovery) {
      const unreplayed = fs
        .list(dir)
        .filter((n) => {
          const p = parseFileName(n);
          return p?.type === FileType.Log && p.number !== logNumber;
        })
        .sort();
      if (unreplayed.length > 0) {
        const line = `WALs not replayed (kept): ${unreplayed.join(", ")}`;
        versions.bestEffortsReport =
          versions.bestEffortsReport === "" ? line : `${versions.bestEffortsReport}\n${line}`;
      }
    } else {
      // A kept memtable holding a commit whose prepare is in an older WAL keeps that WAL.
      let keepLog = versions.minLogNumberToKeep;
      if (keep && replay !== undefined)
        for (const log of replay.memRefs.values()) if (log < keepLog) keepLog = log;
      const archive = new WalArchive(fs, dir, {
        ttlSeconds: options.walTtlSeconds,
        sizeLimitMb: options.walSizeLimitMb,
      });
      removeObsoleteFiles(fs, dir, versions, new Set(logs), recoveredNext, keepLog, archive);
    }
    if (versions.bestEffortsReport !== "")
      warn(`best-efforts recovery of ${dir} left out: ${versions.bestEffortsReport}`);
    return {
      icmp,
      versions,
      mem: main.mem,
      imm: main.imm,
      wal,
      logNumber,
      memLogNumber: main.memLogNumber,
      families,
      writeRefusal,
      drops,
      identity,
      prepared,
      prepLogRefs: replay?.memRefs ?? new Map(),
    };
  } catch (e) {
    try {
      wal?.close();
    } catch {
      // The open's own error is the one reported.
    }
    versions.close();
    throw e;
  }
}

/**
 * A new database: no log may be lying around (RocksDB refuses "While creating a new Db,
 * wal_dir contains existing log file"; replaying a stranger's file as a WAL would be worse),
 * then the first MANIFEST and CURRENT are written before anything else (RocksDB's NewDB), so
 * a crash at any later point leaves a directory that opens. The MANIFEST takes a number above
 * every db-named file already in the directory, so it overwrites nothing.
 */
function createDatabase(fs: FileSystem, dir: string, versions: VersionSet): void {
  let highest = 0;
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed === undefined) continue;
    if (parsed.type === FileType.Log)
      throw ShaleError.corruption(
        `while creating a new database, ${dir} holds a log file ${name} (shale did not write it)`,
        name,
        0,
      );
    if (parsed.number > highest) highest = parsed.number;
  }
  versions.createNew(highest + 1);
}

/**
 * Writes an OPTIONS file (options-file.ts) with every column family's sections (at open, and
 * when a family is created or dropped).
 */
export function writeOptions(
  fs: FileSystem,
  dir: string,
  versions: VersionSet,
  options: ResolvedOptions,
  previous: readonly OptionsSection[],
  recoveredNext: number,
  families: ReadonlyMap<number, { options: ResolvedOptions; versions: FamilyVersions }>,
): void {
  const number = versions.newFileNumber();
  const others = [...families.values()]
    .filter((f) => f.versions.id !== 0)
    .sort((a, b) => a.versions.id - b.versions.id)
    .map((f) => ({
      name: f.versions.name,
      comparator: f.versions.comparatorName,
      mergeOperator:
        f.options.mergeOperator?.name ?? recordedMergeOperator(previous, f.versions.name),
      ttl: f.options.ttl !== undefined,
      cf: cfRecord(f.options),
      table: tableRecord(f.options),
    }));
  const text = formatOptionsFile({
    comparator: versions.comparatorName,
    // Opening without a merge operator keeps the one the previous file named.
    mergeOperator: options.mergeOperator?.name ?? recordedMergeOperator(previous, "default"),
    ttl: (families.get(0)?.options ?? options).ttl !== undefined,
    db: {
      create_if_missing: options.createIfMissing,
      error_if_exists: options.errorIfExists,
      paranoid_checks: options.paranoidChecks,
      max_background_jobs: options.maxBackgroundJobs,
      max_open_files: options.maxOpenFiles,
      wal_recovery_mode: WAL_RECOVERY_MODE_NAMES[options.walRecoveryMode]!,
      best_efforts_recovery: options.bestEffortsRecovery,
      avoid_flush_during_recovery: options.avoidFlushDuringRecovery,
      atomic_flush: options.atomicFlush === true,
      wal_compression: options.walCompression === "zstd" ? "kZSTD" : "kNoCompression",
      WAL_ttl_seconds: options.walTtlSeconds,
      WAL_size_limit_MB: options.walSizeLimitMb,
      max_total_wal_size: options.maxTotalWalSize,
      // Not resolved by an open (repair): as the previous file recorded it.
      db_write_buffer_size: options.dbWriteBufferSize ?? recordedDbWriteBufferSize(previous),
      create_missing_column_families: options.createMissingColumnFamilies,
    },
    cf: cfRecord(families.get(0)?.options ?? options),
    table: tableRecord(families.get(0)?.options ?? options),
    foreignSections: [],
    families: others,
  });
  writeOptionsFile(fs, dir, number, text, (n) => n < recoveredNext);
}

function cfRecord(options: ResolvedOptions): Record<string, string | number | boolean> {
  return {
    write_buffer_size: options.writeBufferSize,
    max_write_buffer_number: options.maxWriteBufferNumber,
    max_write_buffer_size_to_maintain: options.maxWriteBufferSizeToMaintain,
    num_levels: NUM_LEVELS,
    level0_file_num_compaction_trigger: options.level0FileNumCompactionTrigger,
    level0_slowdown_writes_trigger: options.level0SlowdownWritesTrigger,
    level0_stop_writes_trigger: options.level0StopWritesTrigger,
    soft_pending_compaction_bytes_limit: options.softPendingCompactionBytesLimit,
    hard_pending_compaction_bytes_limit: options.hardPendingCompactionBytesLimit,
    max_bytes_for_level_base: options.maxBytesForLevelBase,
    max_bytes_for_level_multiplier: options.maxBytesForLevelMultiplier,
    target_file_size_base: options.targetFileSizeBase,
    disable_auto_compactions: options.disableAutoCompactions,
    level_compaction_dynamic_level_bytes: false,
    prefix_extractor: options.prefixExtractor?.name ?? "nullptr",
    memtable_prefix_bloom_size_ratio: options.memtablePrefixBloomSizeRatio,
    memtable_whole_key_filtering: options.memtableWholeKeyFiltering,
    ...ttlOptionsEntries(options.ttl),
    ...compressionEntries(options),
    ...compactionStyleEntries(resolveCompactionStyle(options, options.recordedCompaction)),
  };
}

function tableRecord(options: ResolvedOptions): Record<string, string | number | boolean> {
  return {
    block_size: options.blockSize,
    block_restart_interval: options.blockRestartInterval,
    filter_policy: filterPolicyId(options.filterPolicy),
    whole_key_filtering: options.wholeKeyFiltering,
    cache_index_and_filter_blocks: options.cacheIndexAndFilterBlocks,
    prepopulate_block_cache:
      options.prepopulateBlockCache === "disable" ? "kDisable" : "kFlushOnly",
    format_version: options.formatVersion,
    checksum: ROCKSDB_CHECKSUM_NAMES[options.checksum],
    index_type: ROCKSDB_INDEX_TYPE_NAMES[options.indexType],
    partition_filters: options.partitionFilters,
    metadata_block_size: options.metadataBlockSize,
    ...dataBlockIndexEntries(options),
  };
}

function recordedMergeOperator(
  previous: readonly OptionsSection[],
  family: string,
): string | undefined {
  const cf = previous.find((s) => s.title === `CFOptions "${family}"`);
  return mergeOperatorOf(cf?.entries.get("merge_operator"));
}

/** The `atomic_flush` of an OPTIONS file's DBOptions (false when absent, as RocksDB's default). */
export function recordedAtomicFlush(previous: readonly OptionsSection[]): boolean {
  const db = previous.find((s) => s.title === "DBOptions");
  return db?.entries.get("atomic_flush") === "true";
}

/**
 * The `db_write_buffer_size` of an OPTIONS file's DBOptions (0 when absent or not a
 * non-negative integer, as RocksDB's default).
 */
export function recordedDbWriteBufferSize(previous: readonly OptionsSection[]): number {
  const db = previous.find((s) => s.title === "DBOptions");
  const text = db?.entries.get("db_write_buffer_size");
  if (text === undefined || !/^\d+$/.test(text)) return 0;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : 0;
}

/** RocksDB's OPTIONS spelling of each checksum type (options_helper.cc). */
const ROCKSDB_CHECKSUM_NAMES: Readonly<Record<ChecksumName, string>> = Object.freeze({
  crc32c: "kCRC32c",
  xxhash: "kxxHash",
  xxhash64: "kxxHash64",
  xxh3: "kXXH3",
});
/** RocksDB's names of the index types in OPTIONS files (BlockBasedTableOptions::IndexType). */
const ROCKSDB_INDEX_TYPE_NAMES: Readonly<Record<ResolvedOptions["indexType"], string>> =
  Object.freeze({
    binarySearch: "kBinarySearch",
    twoLevelIndex: "kTwoLevelIndexSearch",
    binarySearchWithFirstKey: "kBinarySearchWithFirstKey",
  });

const WAL_RECOVERY_MODE_NAMES: Readonly<Record<number, string>> = Object.freeze({
  0: "kTolerateCorruptedTailRecords",
  1: "kAbsoluteConsistency",
  2: "kPointInTimeRecovery",
  3: "kSkipAnyCorruptedRecords",
});

/**
 * Deletes the files this open made obsolete — and only files the database made: a file is
 * considered only if the MANIFEST history named it (tables), this open replayed it (WALs),
 * or it parses as a db file numbered below the MANIFEST's NextFileNumber (RocksDB's rule:
 * numbers at or above it were never handed out by this database); obsolete WALs are archived
 * instead when the options ask for it (write/wal-archive.ts). Never deleted: the live
 * version's tables and blob files of every family, WALs any family still
 * needs, CURRENT, IDENTITY, LOCK, OPTIONS files (writeOptionsFile keeps two), info logs.
 */
function removeObsoleteFiles(
  fs: FileSystem,
  dir: string,
  versions: VersionSet,
  replayed: ReadonlySet<number>,
  recoveredNext: number,
  minLog: number,
  archive: WalArchive,
): void {
  const pinned = SecondaryPins.pinned(fs, dir); // files a live secondary reads
  const wals: string[] = [];
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed === undefined) continue;
    const n = parsed.number;
    const ours = n < recoveredNext;
    let obsolete = false;
    switch (parsed.type) {
      case FileType.Log:
        obsolete = n < minLog && (ours || replayed.has(n));
        break;
      case FileType.Table:
        obsolete = !versions.isLiveFile(n) && (ours || versions.namedTables.has(n));
        break;
      case FileType.Blob:
        obsolete = !versions.isLiveFile(n) && ours;
        break;
      case FileType.Manifest:
        obsolete = n !== versions.manifestNumber && ours;
        break;
      case FileType.Temp:
      case FileType.OptionsTemp:
        obsolete = ours;
        break;
    }
    if (!obsolete || pinned(name)) continue;
    if (parsed.type === FileType.Log) wals.push(joinPath(dir, name));
    else fs.remove(joinPath(dir, name));
  }
  // With walTtlSeconds / walSizeLimitMb the WALs go to archive/ (write/wal-archive.ts).
  for (const path of archive.take(wals)) fs.remove(path);
  archive.prune();
}

/** Syncs an existing log file (its contents as they are). */
function syncLog(fs: FileSystem, path: string): void {
  const file = fs.openWritable(path, { append: true });
  try {
    file.sync();
  } finally {
    file.close();
  }
}

/**
 * What was replayed into family `f`, oldest first. Kept in memory (its WALs kept: the log
 * number stays at the oldest of them): the last memtable, not full, stays the mutable one, as
 * in RocksDB, and the full ones go to the background flush. Or flushed now (oldest first, so
 * L0 stays ordered newest first by seq) with the old WALs retired in the same MANIFEST edit.
 */
function keepOrFlush(
  fs: FileSystem,
  dir: string,
  versions: VersionSet,
  f: FamilyVersions,
  options: ResolvedOptions,
  identity: TableIdentity,
  r: { mems: MemTable[]; logs: number[] },
  keep: boolean,
  logNumber: number,
): { state: RecoveredFamilyState; edit: VersionEdit; oldestKept: number | undefined } {
  const edit = new VersionEdit();
  edit.logNumber = logNumber;
  const imm: ImmutableMemTable[] = []; // newest first
  let mutable: MemTable | undefined;
  let memLogNumber = logNumber;
  /** The WAL the oldest kept memtable's data starts in: the MANIFEST's log number then. */
  let oldestKept: number | undefined;
  const builderOptions = {
    ...tableWriteOptions(options, identity, f),
    comparator: f.icmp.user,
  };
  for (let i = 0; i < r.mems.length; i++) {
    const m = r.mems[i]!;
    if (m.numEntries === 0 && m.numRangeTombstones === 0) continue;
    if (keep) {
      const log = r.logs[i]!;
      oldestKept ??= log;
      // The last one stays mutable unless it is full (then the new WAL starts an empty one).
      if (i === r.mems.length - 1 && m.approximateMemoryUsage() < options.writeBufferSize) {
        mutable = m;
        memLogNumber = log;
      } else {
        m.seal();
        imm.unshift({ mem: m, logNumber: log });
      }
      continue;
    }
    m.seal();
    const file = flushMemTable(fs, dir, versions.newFileNumber(), m, builderOptions);
    if (file !== undefined) edit.addFile(0, file);
  }
  if (oldestKept !== undefined) edit.logNumber = oldestKept;
  return {
    state: {
      versions: f,
      options,
      mem: mutable ?? newFamilyMemTable(options),
      imm,
      memLogNumber,
    },
    edit,
    oldestKept,
  };
}

/**
 * The comparator of each family the MANIFEST names: the one `options.columnFamilies[name]`
 * gives if its name is the recorded one, else the database's if that is, else InvalidArgument
 * naming the family and the recorded name.
 */
/**
 * The comparator of each family other than default (manifest-replay.ts): the one its options
 * name, else `icmp` or bytewise when the MANIFEST records that name; else InvalidArgument.
 */
export function familyComparator(options: ResolvedOptions, icmp: InternalKeyComparator) {
  return (name: string, recorded: string | undefined): InternalKeyComparator => {
    const own = options.columnFamilies[name]?.comparator;
    if (own !== undefined && (recorded === undefined || own.name === recorded))
      return new InternalKeyComparator(own);
    if (own !== undefined)
      throw ShaleError.invalidArgument(
        `column family "${name}": options.columnFamilies["${name}"].comparator is ${own.name}, but the family was made with ${recorded}; a family's comparator cannot change`,
      );
    if (recorded === undefined || recorded === icmp.name) return icmp;
    if (recorded === bytewiseComparator.name) return new InternalKeyComparator(bytewiseComparator);
    throw ShaleError.invalidArgument(
      `column family "${name}" uses comparator ${recorded}, which shale does not have (pass it as options.columnFamilies["${name}"].comparator)`,
    );
  };
}
