/**
 * The version set: which table files make up the database, per level, and the counters
 * that must survive a restart (next file number, last sequence, live WAL number).
 *
 * Durability protocol (RocksDB's):
 * - A change is a VersionEdit appended to the MANIFEST and synced before it is applied;
 *   files become visible only through a synced edit.
 * - Each open writes a new MANIFEST that starts with a snapshot of the whole state, syncs
 *   it, and points CURRENT at it by writing `NNNNNN.dbtmp`, syncing, renaming it over
 *   CURRENT and syncing the directory. A crash at any point leaves CURRENT naming a
 *   complete MANIFEST (the old one or the new one).
 * - The MANIFEST is RocksDB's (version-edit.ts, docs/formats/manifest.md) and is read
 *   strictly (manifest-replay.ts): any damage, a torn last record included, is Corruption
 *   naming the file and offset, in every WAL recovery mode; `bestEfforts` (RocksDB's
 *   best_efforts_recovery) opens the newest whole version instead and reports the rest.
 */

import {
  baseName,
  type FileSystem,
  type InternalKeyComparator,
  ShaleError,
  toBytes,
} from "@shale/base";
import { LogWriter } from "@shale/wal";
import { currentFileName, manifestFileName, tempFileName } from "../core/filenames.js";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import { publishChange } from "../core/reader-control.js";
import { FamilyVersions, type FamilyVersionsOwner } from "./family-versions.js";
import { FileNumberCounter } from "./file-numbers.js";
import { recoverManifest } from "./manifest-recovery.js";
import type { FamilyComparator, ManifestState } from "./manifest-replay.js";
import { Version } from "./version.js";
import { VersionEdit } from "./version-edit.js";

export { FamilyVersions, type TreeVersions } from "./family-versions.js";
export { checkLevelOrdering, Version } from "./version.js";

export interface VersionSetOptions {
  fs: FileSystem;
  dir: string;
  icmp: InternalKeyComparator;
  /** Unused (the merge operator's name lives in the OPTIONS file); kept for callers. */
  mergeOperatorName?: string | undefined;
}

/** The families `followManifest` added and dropped. */
export interface FollowedFamilies {
  added: FamilyVersions[];
  dropped: FamilyVersions[];
}

/** What `recover` found beyond the default column family's files. */
export interface RecoverOptions {
  /** RocksDB's best_efforts_recovery (see DbOptions.bestEffortsRecovery). Default: false. */
  bestEfforts?: boolean;
  /** The comparator of each family other than default (manifest-replay.ts). */
  familyComparator?: FamilyComparator;
}

export class VersionSet implements FamilyVersionsOwner {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly icmp: InternalKeyComparator;
  /** The column families by id, `default` (0) first; each with its current version. */
  readonly families = new Map<number, FamilyVersions>();
  /** The default family's part (also `families.get(0)`). */
  readonly defaultFamily: FamilyVersions;
  /** Shared with background workers (compaction outputs take numbers from it). */
  readonly fileNumbers = new FileNumberCounter();
  /** For every table of a live version: how many live versions hold it. */
  private readonly fileRefs = new Map<number, number>();
  /** Versions with references (the current one included). */
  private readonly live = new Set<Version>();
  /**
   * Told the numbers of tables no live version refers to any more (after the edit that
   * dropped them was synced), so they can be deleted. Default: none (they stay on disk
   * until the next open removes them).
   */
  onObsoleteFiles: ((numbers: number[], blobNumbers: number[]) => void) | undefined;
  lastSequence = 0;
  /** Worker readers' control block (core/reader-control.ts), once a handle was made. */
  readerControl: Int32Array | undefined = undefined;
  manifestNumber = 0;
  /** The db id a RocksDB MANIFEST carried (write_dbid_to_manifest), rewritten as found. */
  dbId: string | undefined;
  /** The highest column family id ever used (RocksDB's max_column_family). */
  maxColumnFamily = 0;
  /** A MinLogNumberToKeep the MANIFEST recorded (0 = none). */
  private recordedMinLogToKeep = 0;
  /** NextFileNumber as the MANIFEST recorded it, before the directory scan raised it. */
  recoveredNextFileNumber = 0;
  /** Every table an edit of the recovered MANIFEST added (any family, later deleted or not). */
  readonly namedTables = new Set<number>();
  /** Best-efforts recovery: what was dropped (empty when nothing). */
  bestEffortsReport = "";
  private manifest: LogWriter | undefined;
  /** Set by a failed MANIFEST write or sync (see `logAndApply`). */
  private failure: ShaleError | undefined;

  constructor(options: VersionSetOptions) {
    this.fs = options.fs;
    this.dir = options.dir;
    this.icmp = options.icmp;
    this.onObsoleteFiles = undefined;
    this.fileNumbers.next = 2;
    this.defaultFamily = new FamilyVersions(this, 0, "default", this.icmp, Version.empty(), 0);
    this.families.set(0, this.defaultFamily);
    this.install(this.defaultFamily, this.defaultFamily.current);
  }

  /** The default family's live version (held by the set until the next one is installed). */
  get current(): Version {
    return this.defaultFamily.current;
  }

  /** WALs with numbers below this hold nothing of the default family that is not in tables. */
  get logNumber(): number {
    return this.defaultFamily.logNumber;
  }

  set logNumber(n: number) {
    this.defaultFamily.logNumber = n;
  }

  /** The family named `name`, if the database has it. */
  familyByName(name: string): FamilyVersions | undefined {
    for (const f of this.families.values()) if (f.name === name) return f;
    return undefined;
  }

  get nextFileNumber(): number {
    return this.fileNumbers.next;
  }

  set nextFileNumber(n: number) {
    this.fileNumbers.next = n;
  }

  /**
   * WALs numbered below this hold nothing any column family still needs (as recorded): the
   * least family log number, and the MANIFEST's MinLogNumberToKeep when one was recorded
   * (two-phase commit: a WAL with a prepare record still needed, txn/two-phase.ts).
   */
  get minLogNumberToKeep(): number {
    let min = this.recordedMinLogToKeep > 0 ? this.recordedMinLogToKeep : Number.POSITIVE_INFINITY;
    for (const f of this.families.values()) if (f.logNumber < min) min = f.logNumber;
    return min;
  }

  /** The MinLogNumberToKeep the MANIFEST recorded (0: none). */
  get recordedMinLogNumberToKeep(): number {
    return this.recordedMinLogToKeep;
  }

  /**
   * Makes `v` the family's current version: the set holds a reference on it and drops the
   * one on the previous.
   */
  private install(family: FamilyVersions, v: Version): void {
    v.adopt(this);
    v.ref();
    this.live.add(v);
    for (const files of v.levels)
      for (const f of files) this.fileRefs.set(f.number, (this.fileRefs.get(f.number) ?? 0) + 1);
    // Blob files share the number space: counted in the same map.
    for (const n of v.blobFiles.keys()) this.fileRefs.set(n, (this.fileRefs.get(n) ?? 0) + 1);
    const previous = family.current;
    family.current = v;
    // A family's first install replaces the empty version it was made with (never held).
    if (previous !== v && this.live.has(previous)) previous.unref();
  }

  /** @internal A version's last reference is gone: its files may now be obsolete. */
  released(v: Version): void {
    this.live.delete(v);
    const obsolete: number[] = [];
    for (const files of v.levels) {
      for (const f of files) {
        const n = (this.fileRefs.get(f.number) ?? 0) - 1;
        if (n > 0) this.fileRefs.set(f.number, n);
        else {
          this.fileRefs.delete(f.number);
          obsolete.push(f.number);
        }
      }
    }
    const obsoleteBlobs: number[] = [];
    for (const b of v.blobFiles.keys()) {
      const n = (this.fileRefs.get(b) ?? 0) - 1;
      if (n > 0) this.fileRefs.set(b, n);
      else {
        this.fileRefs.delete(b);
        obsoleteBlobs.push(b);
      }
    }
    if (obsolete.length > 0 || obsoleteBlobs.length > 0)
      this.onObsoleteFiles?.(obsolete, obsoleteBlobs);
  }

  /**
   * True if some live version (current, or referenced) of any family holds table or blob
   * file `number`.
   */
  isLiveFile(number: number): boolean {
    return this.fileRefs.has(number);
  }

  /**
   * @internal Read-only and secondary instances (secondary/follower.ts): makes the versions
   * of `state`, read from the primary's MANIFEST, current with its counters — every family's:
   * the families the state has and this set lacks are added, those it no longer has are
   * dropped (their versions' references go). Writes nothing.
   */
  followManifest(
    state: ManifestState,
    counters: { nextFileNumber: number; manifestNumber: number },
  ): FollowedFamilies {
    const lastSequence = state.lastSequence ?? 0;
    if (lastSequence > this.lastSequence) this.lastSequence = lastSequence;
    this.nextFileNumber = Math.max(this.nextFileNumber, counters.nextFileNumber);
    this.manifestNumber = counters.manifestNumber;
    this.maxColumnFamily = Math.max(this.maxColumnFamily, state.maxColumnFamily);
    this.logNumber = state.logNumber ?? 0;
    if (state.version !== this.defaultFamily.current)
      this.install(this.defaultFamily, state.version);
    const added: FamilyVersions[] = [];
    const dropped: FamilyVersions[] = [];
    for (const family of this.families.values())
      if (family.id !== 0 && !state.families.has(family.id)) dropped.push(family);
    for (const family of dropped) {
      this.families.delete(family.id);
      family.current.unref();
    }
    for (const f of [...state.families.values()].sort((a, b) => a.id - b.id)) {
      let family = this.families.get(f.id);
      if (family === undefined) {
        family = new FamilyVersions(this, f.id, f.name, f.icmp, Version.empty(), f.logNumber);
        this.families.set(f.id, family);
        added.push(family);
      }
      family.logNumber = f.logNumber;
      if (f.version !== family.current) this.install(family, f.version);
    }
    return { added, dropped };
  }

  /** @internal The tables of every live version (a secondary registers them). */
  liveTableNumbers(): number[] {
    return [...this.fileRefs.keys()];
  }

  /** Number of versions still referenced (the current one included). */
  get liveVersions(): number {
    return this.live.size;
  }

  /** True if the directory holds a database (a CURRENT file). */
  static exists(fs: FileSystem, dir: string): boolean {
    return fs.exists(currentFileName(dir));
  }

  newFileNumber(): number {
    return this.fileNumbers.allocate();
  }

  /** Makes sure `nextFileNumber` is above every number already used in the directory. */
  markFileNumberUsed(n: number): void {
    this.fileNumbers.markUsed(n);
  }

  /** The user comparator's name (what the MANIFEST and OPTIONS record). */
  get comparatorName(): string {
    return this.icmp.name;
  }

  /**
   * Writes the first MANIFEST of a new database (MANIFEST-`number`, 1 in an empty directory;
   * RocksDB's NewDB edit: comparator, log number 0, next file number + 1, last sequence 0)
   * and points CURRENT at it.
   */
  createNew(number = 1): void {
    const edit = new VersionEdit();
    edit.comparator = this.icmp.name;
    edit.logNumber = 0;
    edit.nextFileNumber = number + 1;
    edit.lastSequence = 0;
    const writer = new LogWriter(this.fs.openWritable(manifestFileName(this.dir, number)));
    try {
      writer.addRecord(edit.encode());
      writer.sync();
    } finally {
      writer.close();
    }
    this.setCurrent(number);
  }

  /**
   * Reads CURRENT and replays its MANIFEST (manifest-recovery.ts): strictly — any damage, or
   * a table that is missing, is Corruption naming the file (sizes: paranoid-checks.ts) — unless
   * `bestEfforts`. Checks the comparator name.
   */
  recover(options: RecoverOptions = {}): void {
    const { state, number, report } = recoverManifest(
      this.fs,
      this.dir,
      this.icmp,
      options.bestEfforts === true,
      options.familyComparator,
    );
    this.manifestNumber = number;
    this.defaultFamily.logNumber = state.logNumber ?? 0;
    this.defaultFamily.compactCursors = state.compactCursors;
    this.nextFileNumber = Math.max(2, state.nextFileNumber ?? 2);
    this.recoveredNextFileNumber = state.nextFileNumber ?? 0;
    this.lastSequence = state.lastSequence ?? 0;
    this.dbId = state.dbId;
    this.maxColumnFamily = state.maxColumnFamily;
    this.recordedMinLogToKeep = state.minLogNumberToKeep ?? 0;
    for (const n of state.namedTables) this.namedTables.add(n);
    this.bestEffortsReport = report;
    this.install(this.defaultFamily, state.version);
    for (const f of [...state.families.values()].sort((a, b) => a.id - b.id)) {
      const family = new FamilyVersions(this, f.id, f.name, f.icmp, Version.empty(), f.logNumber);
      family.compactCursors = f.compactCursors;
      this.families.set(f.id, family);
      this.install(family, f.version);
    }
    this.markFileNumberUsed(this.manifestNumber);
  }

  /**
   * The records that open every MANIFEST, as RocksDB's WriteCurrentStateToManifest writes
   * them: [db id], per column family (default first) one edit naming it (ColumnFamilyAdd +
   * comparator; the default family only its comparator) and one with its files and log
   * number; then the counters.
   */
  private snapshotEdits(): VersionEdit[] {
    const edits: VersionEdit[] = [];
    if (this.dbId !== undefined) {
      const id = new VersionEdit();
      id.dbId = this.dbId;
      edits.push(id);
    }
    const head = new VersionEdit();
    head.comparator = this.icmp.name;
    edits.push(head);
    for (const family of this.families.values()) {
      if (family.id !== 0) {
        const add = new VersionEdit();
        add.columnFamily = family.id;
        add.columnFamilyAdd = family.name;
        add.comparator = family.comparatorName;
        edits.push(add);
      }
      const files = new VersionEdit();
      files.columnFamily = family.id;
      family.current.levels.forEach((level, l) => {
        for (const f of level) files.addFile(l, f);
      });
      const blobs = [...family.current.blobFiles.values()].sort((x, y) => x.number - y.number);
      for (const b of blobs) {
        files.blobFileAdditions.push(b);
        if (b.garbageBlobCount > 0 || b.garbageBlobBytes > 0)
          files.blobFileGarbages.push({
            number: b.number,
            garbageBlobCount: b.garbageBlobCount,
            garbageBlobBytes: b.garbageBlobBytes,
          });
      }
      for (const [level, key] of [...family.compactCursors].sort((a, b) => a[0] - b[0]))
        files.compactCursors.push({ level, key });
      files.logNumber = family.logNumber;
      if (family.id === 0 && this.recordedMinLogToKeep !== 0)
        files.minLogNumberToKeep = this.minLogNumberToKeep;
      files.lastSequence = this.lastSequence;
      edits.push(files);
    }
    const counters = new VersionEdit();
    counters.prevLogNumber = 0;
    counters.nextFileNumber = this.nextFileNumber;
    if (this.maxColumnFamily > 0) counters.maxColumnFamily = this.maxColumnFamily;
    counters.lastSequence = this.lastSequence;
    edits.push(counters);
    return edits;
  }

  /**
   * Starts a new MANIFEST holding the current state, makes CURRENT point at it (durably),
   * and removes the previous MANIFEST (unless `removePrevious` is false: a best-efforts open
   * keeps the damaged one).
   */
  rollManifest(removePrevious = true): void {
    const previous = this.manifestNumber;
    const number = this.newFileNumber();
    const path = manifestFileName(this.dir, number);
    const writer = new LogWriter(this.fs.openWritable(path));
    try {
      for (const edit of this.snapshotEdits()) writer.addRecord(edit.encode());
      writer.sync();
      this.setCurrent(number);
    } catch (e) {
      // The new MANIFEST is left in place (CURRENT may already name it), its handle closed.
      try {
        writer.close();
      } catch {
        // The write's own error is the one reported.
      }
      throw e;
    }
    this.manifest?.close();
    this.manifest = writer;
    this.manifestNumber = number;
    if (removePrevious && previous !== 0 && previous !== number) {
      const old = manifestFileName(this.dir, previous);
      if (this.fs.exists(old)) this.fs.remove(old);
    }
  }

  private setCurrent(manifestNumber: number): void {
    const tmp = tempFileName(this.dir, manifestNumber);
    this.fs.writeFile(tmp, toBytes(`${baseName(manifestFileName(this.dir, manifestNumber))}\n`), {
      sync: true,
    });
    this.fs.rename(tmp, currentFileName(this.dir));
    this.fs.syncDir(this.dir);
  }

  /**
   * Appends `edit` (stamped with the counters) to the MANIFEST, syncs it, then installs the
   * resulting version. Nothing is applied in memory if the write or sync fails.
   *
   * A failed write or sync leaves the outcome UNKNOWN: the edit's bytes may be in the file
   * (and a later open will apply them) or not. So the caller must delete no file of either
   * version (not the new one's outputs, not the old one's inputs), and the error latches:
   * every later `logAndApply` throws it (`manifestError`): the MANIFEST is closed and cut
   * back to its last whole record (`cutBack`), so the edit may be in it or not. The next
   * open writes a new MANIFEST (as RocksDB does after a failed MANIFEST write).
   */
  logAndApply(edit: VersionEdit): void {
    const family = this.families.get(edit.columnFamily);
    if (family === undefined && edit.columnFamilyAdd === undefined)
      throw ShaleError.invalidArgument(`no column family ${edit.columnFamily}`);
    this.logAndApplyFamily(edit, family);
  }

  /**
   * @internal `logAndApply` for `family` (undefined: the edit adds a family; see
   * `addFamily`). Stamps the edit with the family's id.
   */
  logAndApplyFamily(edit: VersionEdit, family: FamilyVersions | undefined): void {
    this.logAndApplyEdits([{ edit, family }]);
  }

  /**
   * @internal Writes the edits of several families as ONE atomic group (RocksDB's
   * kInAtomicGroup: each edit carries how many of the group follow it, n-1 down to 0), with
   * one sync, then installs every family's new version. Recovery and followers apply a group
   * whole or not at all (manifest-replay.ts `EditUnits`), so the families' new versions reach
   * the disk together (atomic flush). One edit is written alone, unmarked (as RocksDB does).
   * Failures as in `logAndApply`: nothing is installed, the error latches.
   */
  logAndApplyGroup(edits: readonly { edit: VersionEdit; family: FamilyVersions }[]): void {
    if (edits.length > 1)
      edits.forEach(({ edit }, i) => {
        edit.atomicGroupRemaining = edits.length - 1 - i;
      });
    this.logAndApplyEdits(edits);
  }

  private logAndApplyEdits(
    edits: readonly { edit: VersionEdit; family: FamilyVersions | undefined }[],
  ): void {
    if (this.failure !== undefined) throw this.failure;
    const manifest = this.manifest;
    if (manifest === undefined) throw ShaleError.closed("the MANIFEST is not open");
    let t0 = tracingPauses ? pauseStart() : 0;
    const next: (Version | undefined)[] = [];
    for (const { edit, family } of edits) {
      if (family !== undefined) edit.columnFamily = family.id;
      edit.prevLogNumber = 0;
      edit.nextFileNumber = this.nextFileNumber;
      edit.lastSequence = this.lastSequence;
      if (edit.logNumber === undefined && family !== undefined && !edit.columnFamilyDrop)
        edit.logNumber = family.logNumber;
      if (edit.columnFamilyAdd !== undefined) edit.maxColumnFamily = this.maxColumnFamily;
      if (
        edit.minLogNumberToKeep !== undefined &&
        edit.minLogNumberToKeep > this.recordedMinLogToKeep
      )
        this.recordedMinLogToKeep = edit.minLogNumberToKeep;
      next.push(
        family === undefined || edit.isColumnFamilyManipulation
          ? undefined
          : family.current.apply(edit, family.icmp),
      );
    }
    if (tracingPauses) pauseEnd(t0, "version apply");
    const wholeSize = manifest.size;
    try {
      for (const { edit } of edits) manifest.addRecord(edit.encode());
      if (tracingPauses) t0 = pauseStart();
      manifest.sync();
      if (tracingPauses) pauseEnd(t0, "manifest sync");
    } catch (e) {
      this.cutBack(wholeSize);
      this.failure = ShaleError.isInstance(e)
        ? e
        : ShaleError.ioError(
            "MANIFEST write failed",
            baseName(manifestFileName(this.dir, this.manifestNumber)),
            e,
          );
      throw this.failure;
    }
    if (tracingPauses) t0 = pauseStart();
    edits.forEach(({ edit, family }, i) => {
      const version = next[i];
      if (family === undefined || version === undefined) return;
      if (edit.logNumber !== undefined) family.logNumber = edit.logNumber;
      this.install(family, version);
    });
    if (this.readerControl !== undefined) publishChange(this.readerControl);
    if (tracingPauses) pauseEnd(t0, "version install");
  }

  /**
   * Creates column family `name` (RocksDB's CreateColumnFamily): one synced MANIFEST edit
   * (ColumnFamilyAdd with the comparator's name, the family's id, MaxColumnFamily), its
   * log number `logNumber` (the current WAL: older ones hold nothing of it).
   */
  addFamily(name: string, icmp: InternalKeyComparator, logNumber: number): FamilyVersions {
    const id = this.maxColumnFamily + 1;
    const edit = new VersionEdit();
    edit.columnFamily = id;
    edit.columnFamilyAdd = name;
    edit.comparator = icmp.name;
    edit.logNumber = logNumber;
    this.maxColumnFamily = id;
    try {
      this.logAndApplyFamily(edit, undefined);
    } catch (e) {
      this.maxColumnFamily = id - 1;
      throw e;
    }
    const family = new FamilyVersions(this, id, name, icmp, Version.empty(), logNumber);
    this.families.set(id, family);
    this.install(family, family.current);
    return family;
  }

  /**
   * Drops `family` (RocksDB's DropColumnFamily): one synced MANIFEST edit; its version's
   * reference goes, so its tables are deleted once no iterator reads them.
   */
  dropFamily(family: FamilyVersions): void {
    const edit = new VersionEdit();
    edit.columnFamilyDrop = true;
    this.logAndApplyFamily(edit, family);
    this.families.delete(family.id);
    family.current.unref();
  }

  /**
   * After a failed append: closes the MANIFEST and cuts it back to `size`, its last whole
   * record (best effort). A partial record left at the end would make the next open fail,
   * since the MANIFEST is read strictly (a torn tail cannot be told from a damaged length);
   * without the edit the next open recovers the previous version, and the WALs of a failed
   * flush are kept, so nothing acknowledged is lost. If even the cut fails, the next open
   * reports Corruption and `bestEffortsRecovery` opens the directory.
   */
  private cutBack(size: number): void {
    const manifest = this.manifest;
    this.manifest = undefined;
    const path = manifestFileName(this.dir, this.manifestNumber);
    try {
      manifest?.close();
    } catch {
      // The handle is released anyway; the failure that brought us here is what is reported.
    }
    try {
      if (this.fs.fileSize(path) > size) this.fs.truncate(path, size);
    } catch {
      // Best effort (see above).
    }
  }

  /**
   * The error of a failed MANIFEST write or sync, once there was one: the version on disk is
   * unknown from then on (see `logAndApply`).
   */
  get manifestError(): ShaleError | undefined {
    return this.failure;
  }

  /** Closes the MANIFEST (without syncing). Idempotent; the handle is released even if closing fails. */
  close(): void {
    const manifest = this.manifest;
    this.manifest = undefined;
    manifest?.close();
  }
}
