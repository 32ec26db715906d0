/**
 * Following the primary's MANIFEST (RocksDB's ReactiveVersionSet): the edits appended since
 * the last look are read from where the last read stopped and applied to the replayed state.
 *
 * - CURRENT is read first on every advance. When it names another MANIFEST (the primary
 *   reopened and rolled it), the new one is replayed from its start into a fresh state: it
 *   begins with a snapshot of the whole database, so nothing of the old one is needed.
 * - The MANIFEST is read strictly, like the primary's recovery (manifest-replay.ts), except
 *   at its end: the primary may be appending a record right now, so a record cut short at
 *   the end of the file, or an atomic group not yet complete, is not applied and is read
 *   again, whole, by the next advance (`offset` stays at the last whole edit or group).
 * - A MANIFEST that vanishes between reading CURRENT and opening it (the primary rolled it
 *   again) is `Vanished`: the caller reads CURRENT again.
 *
 * Not thread-safe: one follower, one thread.
 */
import { baseName, type FileSystem, type InternalKeyComparator, ShaleError } from "@shale/base";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { currentFileName, manifestFileName } from "../core/filenames.js";
import { readCurrent } from "../version/current-file.js";
import { EditUnits, type FamilyComparator, ManifestState } from "../version/manifest-replay.js";
import { VersionEdit } from "../version/version-edit.js";

/** A file the primary deleted between our looking it up and opening it: look again. */
export class Vanished extends Error {
  constructor(readonly path: string) {
    super(`${path} vanished`);
  }
}

/** True if `e` says the file does not exist (IOError caused, at some depth, by ENOENT). */
export function isMissingFile(e: unknown): boolean {
  for (let depth = 0; depth < 4; depth++) {
    if (!ShaleError.isInstance(e) || e.code !== "IOError") return false;
    const cause = (e as { cause?: { code?: unknown } }).cause;
    if (cause?.code === "ENOENT") return true;
    e = cause;
  }
  return false;
}

/** The MANIFEST number CURRENT names, or Vanished when there is no CURRENT (yet/any more). */
export function readCurrentNumber(fs: FileSystem, dir: string): number {
  try {
    return readCurrent(fs, dir);
  } catch (e) {
    if (isMissingFile(e)) throw new Vanished(currentFileName(dir));
    throw e;
  }
}

export class ManifestTail {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly icmp: InternalKeyComparator;
  private readonly familyComparator: FamilyComparator | undefined;
  /** The MANIFEST followed (0 before the first advance). */
  number = 0;
  /** File offset just past the last whole edit (or atomic group) applied. */
  offset = 0;
  state: ManifestState;

  /** `familyComparator`: the comparator of each family other than default (manifest-replay.ts). */
  constructor(
    fs: FileSystem,
    dir: string,
    icmp: InternalKeyComparator,
    familyComparator?: FamilyComparator,
  ) {
    this.fs = fs;
    this.dir = dir;
    this.icmp = icmp;
    this.familyComparator = familyComparator;
    this.state = new ManifestState(icmp, familyComparator);
  }

  /**
   * WALs numbered below this hold nothing any family needs that is not in its tables: the
   * lowest log number of any family (0 before the first advance).
   */
  get minLogNumber(): number {
    let min = this.state.logNumber ?? 0;
    for (const f of this.state.families.values()) if (f.logNumber < min) min = f.logNumber;
    return min;
  }

  /**
   * The highest log number of any family: a WAL at or above it holds data no family has
   * flushed yet (0 before the first advance).
   */
  get maxLogNumber(): number {
    let max = this.state.logNumber ?? 0;
    for (const f of this.state.families.values()) if (f.logNumber > max) max = f.logNumber;
    return max;
  }

  /**
   * Reads CURRENT and the edits appended since the last call; returns how many edits were
   * applied (0: nothing new). Throws Vanished (look again), Corruption (damage before the
   * end of the MANIFEST, or a MANIFEST without its counters), InvalidArgument (comparator).
   */
  advance(): number {
    const number = readCurrentNumber(this.fs, this.dir);
    if (number !== this.number) {
      // A new MANIFEST: replayed from its start into a fresh state, installed only if whole.
      const fresh = new ManifestTail(this.fs, this.dir, this.icmp, this.familyComparator);
      fresh.number = number;
      const applied = fresh.readFrom();
      fresh.checkCounters();
      this.number = number;
      this.offset = fresh.offset;
      this.state = fresh.state;
      return Math.max(applied, 1);
    }
    return this.readFrom();
  }

  /** Applies the whole edits (and groups) after `offset`; returns how many. */
  private readFrom(): number {
    const path = manifestFileName(this.dir, this.number);
    const name = baseName(path);
    let file: ReturnType<FileSystem["openSequential"]>;
    try {
      file = this.fs.openSequential(path);
    } catch (e) {
      if (isMissingFile(e)) throw new Vanished(path);
      throw e;
    }
    // TolerateCorruptedTail: a record cut short at the end (being written) ends the read;
    // damage before the end throws Corruption, as the primary's strict read would.
    const reader = new LogReader(file, {
      mode: WalRecoveryMode.TolerateCorruptedTail,
      fileName: name,
      startOffset: this.offset,
      reporter: () => {},
    });
    let applied = 0;
    const units = new EditUnits();
    try {
      for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
        const at = reader.lastRecordOffset;
        const unit = units.add(VersionEdit.decode(rec, name, at), name, at);
        if (unit === undefined) continue; // inside an atomic group
        for (const u of unit) this.state.apply(u.edit, name, u.offset);
        this.state.units++;
        applied += unit.length;
        this.offset = reader.lastRecordEndOffset;
      }
    } finally {
      file.close();
    }
    return applied;
  }

  /** A MANIFEST must record the counters (as manifest-recovery.ts requires of the primary's). */
  private checkCounters(): void {
    const name = baseName(manifestFileName(this.dir, this.number));
    const s = this.state;
    const missing = (what: string) =>
      ShaleError.corruption(`no meta-${what} entry in ${name}`, name, 0);
    // The primary writes the whole snapshot before pointing CURRENT at a MANIFEST, so the
    // counters are there as soon as CURRENT names it.
    if (s.nextFileNumber === undefined) throw missing("nextfile");
    if (s.logNumber === undefined) throw missing("lognumber");
    if (s.lastSequence === undefined) throw missing("last-sequence-number");
  }
}
