/**
 * A version: the table files of each level at one point in time, immutable, reference
 * counted, and the ordering check every edit applied to one runs under invariants. The
 * VersionSet (version-set.ts) installs versions and owns their lifetime; it is the
 * `VersionOwner` a version tells when its last reference goes.
 */
import { formatInternalKey, type InternalKeyComparator, invariants, ShaleError } from "@shale/base";
import { applyBlobFileEdits, type BlobFileMeta } from "../blob/blob-file-meta.js";
import { type FileMetaData, NUM_LEVELS, type VersionEdit } from "./version-edit.js";

const NO_BLOB_FILES: ReadonlyMap<number, BlobFileMeta> = new Map();

/** Who a version tells when its last reference goes (the VersionSet that installed it). */
export interface VersionOwner {
  released(version: Version): void;
}

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
  /**
   * The live blob files (RocksDB's integrated BlobDB), by number: those the tables' blob
   * indexes may point into (blob/blob-file-meta.ts has the rule). Empty for most databases.
   */
  readonly blobFiles: ReadonlyMap<number, BlobFileMeta>;
  private refs = 0;
  /** Set when the version is installed; told when the last reference goes. */
  private owner: VersionOwner | undefined;
  private dead = false;

  constructor(
    levels: readonly (readonly FileMetaData[])[],
    blobFiles: ReadonlyMap<number, BlobFileMeta> = NO_BLOB_FILES,
  ) {
    this.levels = levels;
    this.blobFiles = blobFiles;
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
  adopt(owner: VersionOwner): void {
    this.owner = owner;
  }

  /**
   * A new version with `edit` applied (its files of the default column family). Under
   * invariants, checks what LevelDB's `Builder::MaybeAddFile` asserts: above L0 the files of
   * a level are sorted and do not overlap ("overlapping ranges in same level"), and every
   * file's smallest key is not above its largest. `file`/`offset` name the edit's record in
   * errors.
   */
  apply(edit: VersionEdit, icmp: InternalKeyComparator, file?: string, offset?: number): Version {
    const levels = this.levels.map((l) => l.slice());
    for (const d of edit.deletedFiles) {
      const files = levels[d.level]!;
      const i = files.findIndex((f) => f.number === d.number);
      if (i < 0) {
        const message = `version edit deletes unknown file ${d.number} at L${d.level}`;
        throw file !== undefined
          ? ShaleError.corruption(message, file, offset)
          : ShaleError.assertionFailed(`invariant violated: ${message}`);
      }
      files.splice(i, 1);
    }
    for (const { level, file: f } of edit.newFiles) levels[level]!.push(f);
    levels[0]!.sort((a, b) => b.largestSeq - a.largestSeq || b.number - a.number);
    for (let l = 1; l < NUM_LEVELS; l++)
      levels[l]!.sort((a, b) => icmp.compare(a.smallest, b.smallest));
    if (invariants) checkLevelOrdering(levels, icmp, file, offset);
    const blobFiles = applyBlobFileEdits(
      this.blobFiles,
      edit.blobFileAdditions,
      edit.blobFileGarbages,
      levels.flat(),
      (message) =>
        file !== undefined
          ? ShaleError.corruption(message, file, offset)
          : ShaleError.assertionFailed(`invariant violated: ${message}`),
    );
    return new Version(levels, blobFiles);
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
    if (this.blobFiles.size > 0)
      out.push(`blob: ${[...this.blobFiles.keys()].sort((a, b) => a - b).join(" ")}`);
    return out.join("\n");
  }
}

/**
 * Throws unless every level above L0 is sorted by smallest key with no two files
 * overlapping, and every file's bounds are in order (L0 included). With `file` (an edit read
 * from that MANIFEST) the error is Corruption naming the file and offset: the stored state is
 * damaged. Without it (an edit the engine built) it is AssertionFailed: an engine bug.
 */
export function checkLevelOrdering(
  levels: readonly (readonly FileMetaData[])[],
  icmp: InternalKeyComparator,
  file?: string,
  offset?: number,
): void {
  const show = (f: FileMetaData) =>
    `${f.number}[${formatInternalKey(f.smallest)} .. ${formatInternalKey(f.largest)}]`;
  const fail = (message: string): ShaleError =>
    file !== undefined
      ? ShaleError.corruption(message, file, offset)
      : ShaleError.assertionFailed(`invariant violated: ${message}`);
  levels.forEach((files, level) => {
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      if (icmp.compare(f.smallest, f.largest) > 0)
        throw fail(`L${level} file ${show(f)} has smallest > largest`);
      if (level === 0 || i === 0) continue;
      const prev = files[i - 1]!;
      if (icmp.compare(prev.largest, f.smallest) >= 0)
        throw fail(`overlapping ranges in same level L${level}: ${show(prev)} vs ${show(f)}`);
    }
  });
}
