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
 * - Reading a MANIFEST tolerates a torn last record (an edit whose write was not
 *   acknowledged) and rejects any other damage with Corruption.
 */
import {
  baseName,
  bytesToString,
  type FileSystem,
  formatInternalKey,
  type InternalKeyComparator,
  ShaleError,
  toBytes,
} from "@shale/base";
import { LogReader, LogWriter, WalRecoveryMode } from "@shale/wal";
import { FileNumberCounter } from "./background/file-numbers.js";
import { currentFileName, manifestFileName, parseFileName, tempFileName } from "./filenames.js";
import { type FileMetaData, NUM_LEVELS, VersionEdit } from "./version-edit.js";

/**
 * An immutable list of files per level. L0 is newest first; L1+ sorted by smallest key.
 *
 * Reference counting: the VersionSet holds a reference on its current version; an iterator
 * or a running compaction takes one (`ref()`) to keep every file it reads alive, and drops
 * it with `unref()`. When the count of a version that is no longer current reaches 0, the
 * files that no live version refers to any more are deleted (VersionSet `onObsoleteFiles`).
 * A point lookup (`db.get`) is synchronous and needs no reference.
 */
export class Version {
  readonly levels: readonly (readonly FileMetaData[])[];
  private refs = 0;
  /** Set when the version is installed; told when the last reference goes. */
  private owner: VersionSet | undefined;
  private dead = false;

  constructor(levels: readonly (readonly FileMetaData[])[]) {
    this.levels = levels;
  }

  static empty(): Version {
    return new Version(Array.from({ length: NUM_LEVELS }, () => []));
  }

  numFiles(level: number): number {
    return this.levels[level]!.length;
  }

  levelBytes(level: number): number {
    let n = 0;
    for (const f of this.levels[level]!) n += f.size;
    return n;
  }

  /** References held (the VersionSet's own one included while current). */
  get refCount(): number {
    return this.refs;
  }

  /**
   * Keeps this version's files alive until the matching `unref()`.
   * REQUIRES: the version is alive (current, or still referenced).
   */
  ref(): void {
    if (this.dead) throw ShaleError.invalidArgument("ref() of a released version");
    this.refs++;
  }

  /** Drops a reference taken with `ref()`. */
  unref(): void {
    if (this.refs <= 0) throw ShaleError.invalidArgument("unref() without a matching ref()");
    if (--this.refs === 0) {
      this.dead = true;
      this.owner?.released(this);
    }
  }

  /** @internal Called by the VersionSet when it installs this version. */
  adopt(owner: VersionSet): void {
    this.owner = owner;
  }

  /** A new version with `edit` applied. */
  apply(edit: VersionEdit, icmp: InternalKeyComparator): Version {
    const levels = this.levels.map((l) => l.slice());
    for (const d of edit.deletedFiles) {
      const files = levels[d.level]!;
      const i = files.findIndex((f) => f.number === d.number);
      if (i < 0)
        throw ShaleError.corruption(`version edit deletes unknown file ${d.number} at L${d.level}`);
      files.splice(i, 1);
    }
    for (const { level, file } of edit.newFiles) levels[level]!.push(file);
    levels[0]!.sort((a, b) => b.largestSeq - a.largestSeq || b.number - a.number);
    for (let l = 1; l < NUM_LEVELS; l++)
      levels[l]!.sort((a, b) => icmp.compare(a.smallest, b.smallest));
    return new Version(levels);
  }

  /** `L0: 12[a#5,SET .. k#9,SET] ...` — deterministic, for tests and logs. */
  toString(): string {
    const out: string[] = [];
    this.levels.forEach((files, level) => {
      if (files.length === 0) return;
      const list = files.map(
        (f) => `${f.number}[${formatInternalKey(f.smallest)} .. ${formatInternalKey(f.largest)}]`,
      );
      out.push(`L${level}: ${list.join(" ")}`);
    });
    return out.join("\n");
  }
}

export interface VersionSetOptions {
  fs: FileSystem;
  dir: string;
  icmp: InternalKeyComparator;
  mergeOperatorName: string | undefined;
}

export class VersionSet {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly icmp: InternalKeyComparator;
  private readonly mergeOperatorName: string | undefined;
  private currentVersion: Version;
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
  onObsoleteFiles: ((numbers: number[]) => void) | undefined;
  lastSequence = 0;
  /** WALs with numbers below this hold nothing that is not in tables. */
  logNumber = 0;
  manifestNumber = 0;
  private manifest: LogWriter | undefined;
  /** Set by a failed MANIFEST write or sync (see `logAndApply`). */
  private failure: ShaleError | undefined;

  constructor(options: VersionSetOptions) {
    this.fs = options.fs;
    this.dir = options.dir;
    this.icmp = options.icmp;
    this.mergeOperatorName = options.mergeOperatorName;
    this.onObsoleteFiles = undefined;
    this.fileNumbers.next = 2;
    this.currentVersion = Version.empty();
    this.install(this.currentVersion);
  }

  /** The live version (held by the set until the next one is installed). */
  get current(): Version {
    return this.currentVersion;
  }

  get nextFileNumber(): number {
    return this.fileNumbers.next;
  }

  set nextFileNumber(n: number) {
    this.fileNumbers.next = n;
  }

  /** Makes `v` current: the set holds a reference on it and drops the one on the previous. */
  private install(v: Version): void {
    v.adopt(this);
    v.ref();
    this.live.add(v);
    for (const files of v.levels)
      for (const f of files) this.fileRefs.set(f.number, (this.fileRefs.get(f.number) ?? 0) + 1);
    const previous = this.currentVersion;
    this.currentVersion = v;
    if (previous !== v) previous.unref();
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
    if (obsolete.length > 0) this.onObsoleteFiles?.(obsolete);
  }

  /** True if some live version (current, or referenced) holds table `number`. */
  isLiveFile(number: number): boolean {
    return this.fileRefs.has(number);
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

  /** Reads CURRENT and replays its MANIFEST. Checks the comparator and merge operator names. */
  recover(): void {
    const current = currentFileName(this.dir);
    const text = bytesToString(this.fs.readFile(current));
    if (!text.endsWith("\n") || !text.startsWith("MANIFEST-")) {
      throw ShaleError.corruption(
        `CURRENT does not name a MANIFEST: ${JSON.stringify(text)}`,
        current,
        0,
      );
    }
    const name = text.slice(0, -1);
    const parsed = parseFileName(name);
    if (parsed === undefined || parsed.type !== "manifest")
      throw ShaleError.corruption(`bad MANIFEST name ${name}`, current, 0);
    const path = manifestFileName(this.dir, parsed.number);
    if (!this.fs.exists(path))
      throw ShaleError.corruption(`CURRENT names a missing ${name}`, current, 0);
    this.manifestNumber = parsed.number;
    const file = this.fs.openSequential(path);
    const reader = new LogReader(file, {
      mode: WalRecoveryMode.TolerateCorruptedTail,
      fileName: baseName(path),
    });
    let version = Version.empty();
    let sawComparator = false;
    try {
      for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
        const edit = VersionEdit.decode(rec, baseName(path), reader.lastRecordOffset);
        if (edit.comparator !== undefined) {
          sawComparator = true;
          if (edit.comparator !== this.icmp.name) {
            throw ShaleError.invalidArgument(
              `the database was created with comparator "${edit.comparator}", not "${this.icmp.name}"`,
            );
          }
        }
        if (
          edit.mergeOperator !== undefined &&
          edit.mergeOperator !== "" &&
          this.mergeOperatorName !== undefined
        ) {
          if (edit.mergeOperator !== this.mergeOperatorName) {
            throw ShaleError.invalidArgument(
              `the database was created with merge operator "${edit.mergeOperator}", not "${this.mergeOperatorName}"`,
            );
          }
        }
        if (edit.logNumber !== undefined) this.logNumber = edit.logNumber;
        if (edit.nextFileNumber !== undefined) this.nextFileNumber = edit.nextFileNumber;
        if (edit.lastSequence !== undefined) this.lastSequence = edit.lastSequence;
        version = version.apply(edit, this.icmp);
      }
    } finally {
      file.close();
    }
    if (!sawComparator)
      throw ShaleError.corruption("MANIFEST has no comparator record", baseName(path), 0);
    this.install(version);
    this.markFileNumberUsed(this.manifestNumber);
  }

  /** A full-state edit: the first record of every MANIFEST. */
  private snapshotEdit(): VersionEdit {
    const e = new VersionEdit();
    e.comparator = this.icmp.name;
    e.mergeOperator = this.mergeOperatorName ?? "";
    e.logNumber = this.logNumber;
    e.nextFileNumber = this.nextFileNumber;
    e.lastSequence = this.lastSequence;
    this.current.levels.forEach((files, level) => {
      for (const f of files) e.addFile(level, f);
    });
    return e;
  }

  /**
   * Starts a new MANIFEST holding the current state, makes CURRENT point at it (durably),
   * and removes the previous MANIFEST.
   */
  rollManifest(): void {
    const previous = this.manifestNumber;
    const number = this.newFileNumber();
    const path = manifestFileName(this.dir, number);
    const writer = new LogWriter(this.fs.openWritable(path));
    writer.addRecord(this.snapshotEdit().encode());
    writer.sync();
    this.setCurrent(number);
    this.manifest?.close();
    this.manifest = writer;
    this.manifestNumber = number;
    if (previous !== 0 && previous !== number) {
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
   * every later `logAndApply` throws it (`manifestError`), since the MANIFEST may now end
   * in a partial record or in bytes a failed fsync dropped. The next open writes a new
   * MANIFEST (as RocksDB does after a failed MANIFEST write).
   */
  logAndApply(edit: VersionEdit): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.manifest === undefined) throw ShaleError.closed("the MANIFEST is not open");
    edit.nextFileNumber = this.nextFileNumber;
    edit.lastSequence = this.lastSequence;
    if (edit.logNumber === undefined) edit.logNumber = this.logNumber;
    const next = this.current.apply(edit, this.icmp);
    try {
      this.manifest.addRecord(edit.encode());
      this.manifest.sync();
    } catch (e) {
      this.failure = ShaleError.isInstance(e)
        ? e
        : ShaleError.ioError(
            "MANIFEST write failed",
            baseName(manifestFileName(this.dir, this.manifestNumber)),
            e,
          );
      throw this.failure;
    }
    this.logNumber = edit.logNumber;
    this.install(next);
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
