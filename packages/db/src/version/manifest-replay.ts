/**
 * Replaying a MANIFEST: the edits, in order, rebuild every column family's files and the
 * database's counters (RocksDB's VersionEditHandler, reduced to what shale needs).
 *
 * - The default column family (id 0) exists from the start; every other family is created
 *   by ColumnFamilyAdd (with its comparator's name) and removed by ColumnFamilyDrop. Each
 *   family's files become its own `Version` (applied edit by edit through `Version.apply`,
 *   which checks the level ordering under invariants), with its own log number. A family
 *   whose comparator shale does not have is InvalidArgument naming the family and the
 *   recorded name (`familyComparator`). Blob file additions and garbage (RocksDB's BlobDB)
 *   belong to the family of their edit, as its tables do: each family's version lists its
 *   own blob files.
 * - Edits of an atomic group (InAtomicGroup n, n-1, ..., 0) are applied together when the
 *   group is complete; a group the MANIFEST ends inside is not applied (RocksDB's rule: the
 *   writer died before finishing it).
 * - Strict by default: the log is read in AbsoluteConsistency mode, so a checksum mismatch,
 *   a length running past the end or a torn last record is Corruption with file and offset
 *   — never "the older version", which would let open delete the newer version's tables.
 * - `bestEfforts` (RocksDB's best_efforts_recovery): reading stops at the first damage,
 *   and the result is the state after the last edit at which every table of every family
 *   existed with its recorded size; what was left out is reported.
 */
import { baseName, type FileSystem, type InternalKeyComparator, ShaleError } from "@shale/base";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { tableFileName } from "../core/filenames.js";
import { Version } from "./version.js";
import type { FileMetaData, VersionEdit } from "./version-edit.js";
import { VersionEdit as Edit } from "./version-edit.js";

/** A column family other than `default`, as the MANIFEST describes it. */
export interface RecoveredFamily {
  readonly id: number;
  readonly name: string;
  /** The comparator the family's files are ordered by (resolved from the recorded name). */
  readonly icmp: InternalKeyComparator;
  logNumber: number;
  version: Version;
  readonly compactCursors: Map<number, Uint8Array>;
}

/**
 * The comparator of family `name`, whose MANIFEST records comparator `recorded` (undefined:
 * none recorded, the default family's). Throws InvalidArgument naming both when shale has
 * no such comparator.
 */
export type FamilyComparator = (
  name: string,
  recorded: string | undefined,
) => InternalKeyComparator;

/** Resolves every family to `icmp` when the names agree (the default resolution). */
export function sameComparator(icmp: InternalKeyComparator): FamilyComparator {
  return (name, recorded) => {
    if (recorded === undefined || recorded === icmp.name) return icmp;
    throw ShaleError.invalidArgument(
      `column family "${name}" uses comparator ${recorded}, which shale does not have (pass it as options.columnFamilies["${name}"].comparator)`,
    );
  };
}

export class ManifestState {
  version = Version.empty();
  comparator: string | undefined;
  dbId: string | undefined;
  logNumber: number | undefined;
  prevLogNumber: number | undefined;
  nextFileNumber: number | undefined;
  lastSequence: number | undefined;
  minLogNumberToKeep: number | undefined;
  maxColumnFamily = 0;
  /** The default family's compaction cursors, by level. */
  readonly compactCursors = new Map<number, Uint8Array>();
  readonly families = new Map<number, RecoveredFamily>();
  /** Ids of dropped families: later edits of theirs (a flush that raced the drop) are ignored. */
  private readonly dropped = new Set<number>();
  /** Every table number an edit of this MANIFEST added, in any family. */
  readonly namedTables = new Set<number>();
  /** Edits (or whole atomic groups) applied. */
  units = 0;

  private readonly familyComparator: FamilyComparator;

  constructor(
    private readonly icmp: InternalKeyComparator,
    familyComparator?: FamilyComparator,
  ) {
    this.familyComparator = familyComparator ?? sameComparator(icmp);
  }

  apply(edit: VersionEdit, file: string, offset: number): void {
    const at = (message: string): ShaleError => ShaleError.corruption(message, file, offset);
    if (edit.maxColumnFamily !== undefined)
      this.maxColumnFamily = Math.max(this.maxColumnFamily, edit.maxColumnFamily);
    if (edit.dbId !== undefined) this.dbId = edit.dbId;
    if (edit.nextFileNumber !== undefined) this.nextFileNumber = edit.nextFileNumber;
    if (edit.lastSequence !== undefined) this.lastSequence = edit.lastSequence;
    if (edit.prevLogNumber !== undefined) this.prevLogNumber = edit.prevLogNumber;
    if (edit.minLogNumberToKeep !== undefined)
      this.minLogNumberToKeep = Math.max(this.minLogNumberToKeep ?? 0, edit.minLogNumberToKeep);
    for (const { file: f } of edit.newFiles) this.namedTables.add(f.number);
    const cf = edit.columnFamily;
    if (edit.columnFamilyAdd !== undefined) {
      if (cf === 0 || this.families.has(cf))
        throw at(`column family ${cf} ("${edit.columnFamilyAdd}") added twice`);
      this.families.set(cf, {
        id: cf,
        name: edit.columnFamilyAdd,
        icmp: this.familyComparator(edit.columnFamilyAdd, edit.comparator),
        logNumber: edit.logNumber ?? 0,
        version: Version.empty(),
        compactCursors: new Map(),
      });
      this.maxColumnFamily = Math.max(this.maxColumnFamily, cf);
      return;
    }
    if (edit.columnFamilyDrop) {
      if (cf === 0) throw at("the default column family cannot be dropped");
      if (!this.families.delete(cf)) throw at(`drop of unknown column family ${cf}`);
      this.dropped.add(cf);
      return;
    }
    if (cf === 0) {
      if (edit.comparator !== undefined) {
        if (this.comparator === undefined) this.comparator = edit.comparator;
        if (edit.comparator !== this.icmp.name)
          throw ShaleError.invalidArgument(
            `${this.icmp.name} does not match existing comparator ${edit.comparator} (${file})`,
          );
      }
      if (edit.logNumber !== undefined) this.logNumber = edit.logNumber;
      for (const c of edit.compactCursors) this.compactCursors.set(c.level, c.key);
      this.version = this.version.apply(edit, this.icmp, file, offset);
      return;
    }
    const family = this.families.get(cf);
    if (family === undefined) {
      if (this.dropped.has(cf)) return;
      throw at(`edit of unknown column family ${cf}`);
    }
    if (edit.comparator !== undefined && edit.comparator !== family.icmp.name)
      throw ShaleError.invalidArgument(
        `column family "${family.name}": comparator ${edit.comparator} does not match ${family.icmp.name} (${file})`,
      );
    if (edit.logNumber !== undefined) family.logNumber = edit.logNumber;
    for (const c of edit.compactCursors) family.compactCursors.set(c.level, c.key);
    family.version = family.version.apply(edit, family.icmp, file, offset);
  }

  /** Every table of every live family (default included). */
  *liveTables(): Iterable<FileMetaData> {
    for (const files of this.version.levels) yield* files;
    for (const family of this.families.values())
      for (const files of family.version.levels) yield* files;
  }
}

export interface ReplayOptions {
  fs: FileSystem;
  dir: string;
  icmp: InternalKeyComparator;
  /** Apply at most this many edits (or atomic groups). Default: all. */
  limit?: number;
  /** Stop at the first damage instead of throwing, and track which states are whole. */
  bestEfforts?: boolean;
  /** The comparator of each family other than default. Default: `sameComparator(icmp)`. */
  familyComparator?: FamilyComparator;
}

export interface ReplayResult {
  state: ManifestState;
  /** Best efforts: the damage reading stopped at. */
  damage?: ShaleError;
  /** Best efforts: the last unit count at which every table existed (0 = none). */
  lastWhole: number;
  /** Best efforts: the tables missing (or of the wrong size) after the last edit read. */
  missing: string[];
}

/** One edit of a MANIFEST with the offset of its record. */
export interface EditAt {
  edit: VersionEdit;
  offset: number;
}

/**
 * Groups the edits of a MANIFEST, in record order, into the units that are applied whole: a
 * plain edit alone, or every edit of an atomic group (RocksDB's AtomicGroup: each edit
 * counts its remaining ones down to 0). Corruption (file and offset) for a group whose count
 * is out of order or that a plain edit interrupts. A group still open at the end of the file
 * is never returned (it was not committed).
 */
export class EditUnits {
  private group: EditAt[] | undefined;

  /** Takes the edit read at `offset`; returns the unit it completes, or undefined inside a group. */
  add(edit: VersionEdit, name: string, offset: number): EditAt[] | undefined {
    const remaining = edit.atomicGroupRemaining;
    if (remaining === undefined) {
      if (this.group !== undefined)
        throw ShaleError.corruption("atomic group ends early", name, offset);
      return [{ edit, offset }];
    }
    const group = this.group ?? [];
    const expected =
      group.length === 0 ? undefined : group[0]!.edit.atomicGroupRemaining! - group.length;
    if (expected !== undefined && remaining !== expected)
      throw ShaleError.corruption(
        `atomic group out of order: ${remaining} edits remaining, expected ${expected}`,
        name,
        offset,
      );
    group.push({ edit, offset });
    if (remaining !== 0) {
      this.group = group;
      return undefined;
    }
    this.group = undefined;
    return group;
  }
}

/** Replays the MANIFEST at `path` (see the file comment for the rules). */
export function replayManifest(path: string, options: ReplayOptions): ReplayResult {
  const { fs, dir, icmp } = options;
  const name = baseName(path);
  const state = new ManifestState(icmp, options.familyComparator);
  const bestEfforts = options.bestEfforts === true;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const file = fs.openSequential(path);
  const reader = new LogReader(file, {
    mode: WalRecoveryMode.AbsoluteConsistency,
    fileName: name,
  });
  // Best efforts: tables of the state being built that are not on disk as recorded.
  const missing = new Map<number, string>();
  const check = (f: FileMetaData): void => {
    const p = tableFileName(dir, f.number);
    if (!fs.exists(p)) missing.set(f.number, `${baseName(p)} is missing`);
    else if (fs.fileSize(p) !== f.size)
      missing.set(f.number, `${baseName(p)} has ${fs.fileSize(p)} bytes, not ${f.size}`);
  };
  let lastWhole = 0;
  let damage: ShaleError | undefined;
  const units = new EditUnits();
  try {
    // The limit is checked before reading on: the record after the last one wanted may be the
    // damage a best-efforts replay stops short of.
    while (state.units < limit) {
      const rec = reader.readRecord();
      if (rec === undefined) break;
      const offset = reader.lastRecordOffset;
      const unit = units.add(Edit.decode(rec, name, offset), name, offset);
      if (unit === undefined) continue; // inside an atomic group
      for (const u of unit) {
        if (bestEfforts) {
          for (const d of u.edit.deletedFiles) missing.delete(d.number);
          if (u.edit.columnFamilyDrop) {
            const family = state.families.get(u.edit.columnFamily);
            if (family !== undefined)
              for (const files of family.version.levels)
                for (const f of files) missing.delete(f.number);
          }
        }
        state.apply(u.edit, name, u.offset);
        if (bestEfforts) for (const { file: f } of u.edit.newFiles) check(f);
      }
      state.units++;
      if (bestEfforts && missing.size === 0) lastWhole = state.units;
    }
  } catch (e) {
    if (!bestEfforts || !ShaleError.isInstance(e) || e.code !== "Corruption") throw e;
    damage = e;
  } finally {
    file.close();
  }
  const result: ReplayResult = { state, lastWhole, missing: [...missing.values()] };
  if (damage !== undefined) result.damage = damage;
  return result;
}
