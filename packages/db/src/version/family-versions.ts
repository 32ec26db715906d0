/**
 * One column family's part of the version set (RocksDB keeps it in ColumnFamilyData): its
 * name and id, its comparator, its current Version, and its log number — WALs numbered below
 * it hold nothing of this family that is not in its tables. The VersionSet holds one per
 * family (`default` is id 0) and writes them all into one MANIFEST; a family's flushes and
 * compactions see only this view (`TreeVersions`), so they are the same code for every
 * family.
 *
 * Threading: the database's thread.
 */
import type { InternalKeyComparator } from "@shale/base";
import type { FileNumberCounter } from "./file-numbers.js";
import type { Version } from "./version.js";
import type { VersionEdit } from "./version-edit.js";

/** What a family's flushes, compactions and reads use of the version set. */
export interface TreeVersions {
  /** The family's live version. */
  readonly current: Version;
  /** Shared with background workers (compaction outputs take numbers from it). */
  readonly fileNumbers: FileNumberCounter;
  newFileNumber(): number;
  /** Writes `edit` (for this family) to the MANIFEST, synced, and installs the result. */
  logAndApply(edit: VersionEdit): void;
}

/** The set a family belongs to (version-set.ts), as the family sees it. */
export interface FamilyVersionsOwner {
  readonly fileNumbers: FileNumberCounter;
  newFileNumber(): number;
  /** @internal (VersionSet's, stripped from its published declarations too) */
  logAndApplyFamily(edit: VersionEdit, family: FamilyVersions): void;
}

export class FamilyVersions implements TreeVersions {
  readonly id: number;
  readonly name: string;
  /** The user comparator's name the MANIFEST records for the family. */
  readonly comparatorName: string;
  readonly icmp: InternalKeyComparator;
  current: Version;
  /** WALs numbered below this hold nothing of this family that is not in tables. */
  logNumber: number;
  /** LevelDB's compaction pointers, by level (carried through MANIFEST rewrites). */
  compactCursors = new Map<number, Uint8Array>();
  private readonly owner: FamilyVersionsOwner;

  constructor(
    owner: FamilyVersionsOwner,
    id: number,
    name: string,
    icmp: InternalKeyComparator,
    current: Version,
    logNumber: number,
  ) {
    this.owner = owner;
    this.id = id;
    this.name = name;
    this.icmp = icmp;
    this.comparatorName = icmp.name;
    this.current = current;
    this.logNumber = logNumber;
  }

  get fileNumbers(): FileNumberCounter {
    return this.owner.fileNumbers;
  }

  newFileNumber(): number {
    return this.owner.newFileNumber();
  }

  logAndApply(edit: VersionEdit): void {
    this.owner.logAndApplyFamily(edit, this);
  }
}
