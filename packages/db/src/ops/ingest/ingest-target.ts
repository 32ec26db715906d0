/**
 * What an ingestion needs of the database and of the column family it ingests into (built
 * by column-family/ingest-target-of.ts), and the overlap probes it is made of: does a
 * memtable, or a level's tables, hold a key or range deletion in a range (RocksDB's
 * RangesOverlapWithMemtables and Version::OverlapWithLevelIterator)?
 *
 * Threading: the database's thread.
 */
import {
  type Comparator,
  type FileSystem,
  type InternalIterator,
  type InternalKeyComparator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  makeInternalKey,
  type RangeTombstone,
  TRAILER_SIZE,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableCache } from "@shale/sstable";
import { endsBefore, fileRange, type KeyRange, rangesOverlap } from "../../version/key-range.js";
import type { Version } from "../../version/version.js";
import type { FileMetaData, VersionEdit } from "../../version/version-edit.js";
import type { LevelProbe } from "./pick-level.js";

export interface IngestTarget extends LevelProbe {
  readonly fs: FileSystem;
  readonly dir: string;
  /** The family's id and key order. */
  readonly id: number;
  readonly icmp: InternalKeyComparator;
  current(): Version;
  /** True when the mutable or an immutable memtable holds data in `range`. */
  memtablesHaveDataIn(range: KeyRange): boolean;
  /** The family's flush (every immutable memtable on disk when it resolves). */
  flush(): Promise<void>;
  /** How many snapshots the database holds. */
  snapshotCount(): number;
  lastSequence(): number;
  /** Moves the last sequence number (readers see up to it; the next write takes seq + 1). */
  setLastSequence(seq: number): void;
  /** Syncs the WALs: every write acknowledged before the ingestion becomes durable. */
  syncWal(): void;
  newFileNumber(): number;
  /** Writes the file-number counter to the MANIFEST (an edit of counters only), synced. */
  recordFileNumbers(): void;
  /**
   * Writes each edit for its target's family to the MANIFEST, as one atomic group when
   * there are several (synced), installs them and re-plans the families' work. Every target
   * must be of this database (made by the same `ingestTargetOf` core).
   */
  applyEdits(edits: readonly { readonly target: IngestTarget; readonly edit: VersionEdit }[]): void;
  checkWritable(): void;
  takeFinished(): void;
}

const userKey = (ikey: Uint8Array) => ikey.subarray(0, ikey.length - TRAILER_SIZE);

/** The first entry of `it` at or after `range.lo` is inside `range`. */
function iteratorHasKeyIn(it: InternalIterator, ucmp: Comparator, range: KeyRange): boolean {
  try {
    it.seek(makeInternalKey(range.lo, MAX_SEQ, KIND_FOR_SEEK));
    return it.valid() && !endsBefore(ucmp, range, userKey(it.key()));
  } finally {
    it.close();
  }
}

function tombstonesOverlap(
  tombstones: readonly RangeTombstone[],
  ucmp: Comparator,
  range: KeyRange,
): boolean {
  for (const t of tombstones) {
    if (rangesOverlap(ucmp, { lo: t.start, hi: t.end, hiExclusive: true }, range)) return true;
  }
  return false;
}

/** `mem` holds a key or a range deletion in `range`. */
export function memtableHasDataIn(mem: MemTable, ucmp: Comparator, range: KeyRange): boolean {
  if (mem.numEntries > 0 && iteratorHasKeyIn(mem.newIterator(), ucmp, range)) return true;
  return mem.numRangeTombstones > 0 && tombstonesOverlap(mem.rangeTombstones(), ucmp, range);
}

/** One of `files` (a level's tables) holds a key or a range deletion in `range`. */
export function tablesHaveDataIn(
  tableCache: TableCache,
  files: readonly FileMetaData[],
  ucmp: Comparator,
  range: KeyRange,
): boolean {
  for (const f of files) {
    if (!rangesOverlap(ucmp, fileRange(f), range)) continue;
    const reader = tableCache.get(f.number, f.size, f.largestSeq);
    if (tombstonesOverlap(reader.rangeTombstones().tombstones(), ucmp, range)) return true;
    if (iteratorHasKeyIn(reader.newIterator({ fillCache: false }), ucmp, range)) return true;
  }
  return false;
}
