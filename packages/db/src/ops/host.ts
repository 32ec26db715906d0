/**
 * What the operations in this folder (checkpoints, backups, live files, sizes, checksums,
 * deleting files in a range) need from a database: the DB hands one `OpsHost` to each of
 * them, so they live outside db.ts and db.ts keeps one thin method per operation.
 *
 * Threading: everything here is called on the database's thread. The getters read the
 * database's state at the moment they are called (the memtable changes at a switch).
 */
import type { FileSystem, InternalKeyComparator, Statistics } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableCache } from "@shale/sstable";
import type { VersionEdit } from "../version/version-edit.js";
import type { Version, VersionSet } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";

/** One column family, as an operation on it sees it. */
export interface OpsFamily {
  readonly icmp: InternalKeyComparator;
  /** The family's current version. */
  current(): Version;
  /** Table numbers a running compaction of the family reads or writes. */
  busyFiles(): ReadonlySet<number>;
  /** Writes `edit` for the family to the MANIFEST, installs it, re-plans background work. */
  applyEdit(edit: VersionEdit): void;
}

export interface OpsHost {
  readonly dir: string;
  readonly fs: FileSystem;
  readonly icmp: InternalKeyComparator;
  readonly versions: VersionSet;
  readonly tableCache: TableCache;
  readonly statistics: Statistics | undefined;
  /** The mutable memtable. */
  mem(): MemTable;
  /** The immutable memtables, newest first. */
  imm(): readonly ImmutableMemTable[];
  /** The sequence number of the last write. */
  lastSequence(): number;
  /** Throws Closed once the database is closed. */
  checkOpen(): void;
  /** Throws what a write would throw (closed, failed, column families left alone). */
  checkWritable(): void;
  /** Installs finished background jobs (so the state read next is the newest). */
  takeFinished(): void;
  /** Keeps the current version's tables on disk until the release function is called. */
  pinVersion(): { version: Version; release(): void };
  /**
   * RocksDB's DisableFileDeletions: no obsolete file (table, WAL) is deleted until the
   * returned function is called (each hold once; holds nest). Deletions asked for meanwhile
   * happen at the last release.
   */
  holdFileDeletions(): () => void;
  /** `db.flush()`: the memtable to L0, waiting for every immutable memtable. */
  flush(): Promise<void>;
  /**
   * The column family of `handle` (a handle from `db.columnFamily()`; undefined: `default`).
   * TypeError for anything else, InvalidArgument for another database's handle or a dropped
   * family.
   */
  family(handle: unknown): OpsFamily;
}
