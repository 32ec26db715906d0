/**
 * Opening a database: read CURRENT and the MANIFEST, replay the WALs that are not yet in
 * tables into memtables, start a new WAL and a new MANIFEST, and remove obsolete files.
 *
 * WAL damage, by recovery mode (see @shale/wal's LogReader for the per-file rules):
 * - the LAST WAL may end in a torn tail (a write that was in flight when the process died):
 *   it is dropped in every mode but AbsoluteConsistency, and the file is truncated to its
 *   last whole record so the next recovery sees a clean log;
 * - an EARLIER WAL was synced before its successor was created, so any damage in it is
 *   real corruption: an error in every mode but SkipAnyCorrupted.
 *
 * Nothing is dropped silently (issue 14): every run of WAL bytes the reader drops (a torn
 * tail; corruption PointInTime drops at the end of the last WAL; whatever SkipAnyCorrupted
 * skips) and every record SkipAnyCorrupted skips because its WriteBatch does not decode
 * becomes a `RecoveryDrop`: counted in the tickers WalRecoveryDroppedBytes and
 * WalRecoveryDrops, listed by the property `shale.recovery-dropped`, and announced as a
 * process warning (shale has no info log: see `announceDrops`).
 *
 * Like RocksDB, the replayed memtables are flushed to L0 tables during open (inline: the
 * database is not serving yet), so the old WALs can be deleted and every open starts with
 * an empty memtable and a fresh WAL.
 */
import {
  baseName,
  type InternalKeyComparator,
  joinPath,
  ShaleError,
  type Statistics,
  Ticker,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { LogReader, LogWriter, WalRecoveryMode } from "@shale/wal";
import { tableWriteOptions } from "./background/build-table.js";
import { flushMemTable } from "./background/flush-job.js";
import { FileType, logFileName, parseFileName } from "./filenames.js";
import type { ImmutableMemTable } from "./flush-scheduler.js";
import type { ResolvedOptions } from "./options.js";
import { checkLiveTables } from "./paranoid-checks.js";
import { VersionEdit } from "./version-edit.js";
import { VersionSet } from "./version-set.js";
import { WriteBatch } from "./write-batch.js";
import { MemTableInserter } from "./write-path.js";

export interface RecoveredState {
  icmp: InternalKeyComparator;
  versions: VersionSet;
  /** The mutable memtable (empty: replayed data was flushed). */
  mem: MemTable;
  /** Immutable memtables (none after recovery). */
  imm: ImmutableMemTable[];
  /** The new WAL and its number: the mutable memtable's data will all be in it. */
  wal: LogWriter;
  logNumber: number;
  /** What WAL replay dropped instead of failing, in file order (empty when nothing was). */
  drops: RecoveryDrop[];
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
  const versions = new VersionSet({
    fs,
    dir,
    icmp,
    mergeOperatorName: options.mergeOperator?.name,
  });
  if (VersionSet.exists(fs, dir)) {
    if (options.errorIfExists)
      throw ShaleError.invalidArgument(`a database already exists in ${dir}`);
    versions.recover();
    if (options.paranoidChecks) checkLiveTables(fs, dir, versions.current);
  } else if (!options.createIfMissing) {
    throw ShaleError.invalidArgument(`no database in ${dir} (createIfMissing is false)`);
  } else {
    versions.nextFileNumber = 1;
  }

  const logs: number[] = [];
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed === undefined) continue;
    versions.markFileNumberUsed(parsed.number);
    if (parsed.type === FileType.Log && parsed.number >= versions.logNumber)
      logs.push(parsed.number);
  }
  logs.sort((a, b) => a - b);

  // paranoidChecks false: WAL damage is skipped whatever the mode (paranoid-checks.ts).
  const walMode = options.paranoidChecks
    ? options.walRecoveryMode
    : WalRecoveryMode.SkipAnyCorrupted;
  const replayed: MemTable[] = []; // oldest first
  let mem = new MemTable({ comparator: icmp.user });
  replayed.push(mem);
  let lastSeq = versions.lastSequence;
  const inserter = new MemTableInserter();
  const drops: RecoveryDrop[] = [];
  const modeName = MODE_NAMES[walMode] ?? String(walMode);
  for (let i = 0; i < logs.length; i++) {
    const number = logs[i]!;
    const path = logFileName(dir, number);
    const name = baseName(path);
    const isLast = i === logs.length - 1;
    let firstDrop: number | undefined;
    const file = fs.openSequential(path);
    const reader = new LogReader(file, {
      mode: walMode,
      fileName: name,
      logNumber: number,
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
          inserter.mem = mem;
          inserter.seq = seq;
          WriteBatch.iterate(rec, inserter, name, offset);
        } catch (e) {
          if (
            walMode === WalRecoveryMode.SkipAnyCorrupted &&
            ShaleError.isInstance(e)
          ) {
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
        if (mem.approximateMemoryUsage() >= options.writeBufferSize) {
          mem = new MemTable({ comparator: icmp.user });
          replayed.push(mem);
        }
      }
    } finally {
      file.close();
    }
    if (firstDrop !== undefined && walMode !== WalRecoveryMode.SkipAnyCorrupted) {
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
  const wal = new LogWriter(fs.openWritable(logFileName(dir, logNumber)));
  fs.syncDir(dir);
  versions.rollManifest();

  // Flush what was replayed (oldest first, so L0 stays ordered newest first by seq), then
  // retire the old WALs in the same MANIFEST edit.
  const edit = new VersionEdit();
  edit.logNumber = logNumber;
  const builderOptions = { ...tableWriteOptions(options), comparator: icmp.user };
  for (const m of replayed) {
    if (m.numEntries === 0 && m.numRangeTombstones === 0) continue;
    m.seal();
    const file = flushMemTable(fs, dir, versions.newFileNumber(), m, builderOptions);
    if (file !== undefined) edit.addFile(0, file);
  }
  versions.logAndApply(edit);

  // Obsolete files: WALs already in tables, MANIFESTs other than the live one, temp files,
  // and tables no version refers to (left by a flush or compaction that died midway).
  const live = new Set<number>();
  for (const files of versions.current.levels) for (const f of files) live.add(f.number);
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed === undefined) continue;
    const obsolete =
      (parsed.type === FileType.Log && parsed.number < versions.logNumber) ||
      (parsed.type === FileType.Manifest && parsed.number !== versions.manifestNumber) ||
      (parsed.type === FileType.Table && !live.has(parsed.number)) ||
      parsed.type === FileType.Temp;
    if (obsolete) fs.remove(joinPath(dir, name));
  }
  return {
    icmp,
    versions,
    mem: new MemTable({ comparator: icmp.user }),
    imm: [],
    wal,
    logNumber,
    drops,
  };
}
