/**
 * Repair's look at one table (RocksDB's Repairer::ScanTable, LevelDB's RepairTable): every
 * entry is read, in order, to learn the table's key range and sequence numbers from its
 * contents (the MANIFEST that recorded them is what is being rebuilt).
 *
 * - A table that reads whole is kept as it is: its FileMetaData comes from the scan (the
 *   first and last keys, widened by its range tombstones as the table builder widens them).
 * - A table whose reading fails part way (a damaged data block, a bad range-deletion block)
 *   is salvaged: what was read before the failure is written to a new table, and the
 *   damaged one goes to `lost/`.
 * - A table that does not open (footer, index or properties damaged; another comparator) or
 *   holds nothing readable is dropped (to `lost/`).
 */
import {
  type FileSystem,
  type InternalKeyComparator,
  MAX_SEQ,
  makeInternalKey,
  ShaleError,
  seqOf,
  ValueKind,
} from "@shale/base";
import type { RangeTombstone } from "@shale/range-tombstones";
import { type TableBuilderOptions, TableReader } from "@shale/sstable";
import { TableFile } from "../compaction/build-table.js";
import type { FileMetaData } from "../version/version-edit.js";

export type TableScan =
  | { kind: "kept"; file: FileMetaData; entries: number; rangeDeletions: number }
  | {
      kind: "salvaged";
      file: FileMetaData;
      entries: number;
      rangeDeletions: number;
      reason: string;
    }
  | { kind: "dropped"; reason: string };

const describe = (e: unknown): string =>
  e instanceof Error ? e.message.replace(/^\w+: /, "") : String(e);

/**
 * Scans table `number` (at `path`) of the column family ordered by `icmp` (families.ts found
 * which); a salvage is written as table `newNumber()` in `dir` with `builderOptions` (the
 * family's).
 */
export function scanTable(
  fs: FileSystem,
  dir: string,
  path: string,
  number: number,
  icmp: InternalKeyComparator,
  builderOptions: TableBuilderOptions,
  newNumber: () => number,
): TableScan {
  let reader: TableReader;
  try {
    reader = TableReader.open(fs.openRandomAccess(path), {
      fileSize: fs.fileSize(path),
      fileName: path,
      fileNumber: number,
      comparator: icmp.user,
    });
  } catch (e) {
    return { kind: "dropped", reason: `does not open: ${describe(e)}` };
  }
  try {
    let failure: string | undefined;
    let tombstones: RangeTombstone[] = [];
    try {
      tombstones = reader.rangeTombstones().tombstones();
    } catch (e) {
      failure = `range deletions unreadable: ${describe(e)}`;
    }
    let entries = 0;
    let first: Uint8Array | undefined;
    let last: Uint8Array | undefined;
    let smallestSeq = MAX_SEQ;
    let largestSeq = 0;
    const it = reader.newIterator({ fillCache: false });
    try {
      for (it.seekToFirst(); it.valid(); it.next()) {
        const k = it.key();
        if (first === undefined) first = k.slice();
        last = k;
        const seq = seqOf(k);
        if (seq < smallestSeq) smallestSeq = seq;
        if (seq > largestSeq) largestSeq = seq;
        entries++;
      }
      if (last !== undefined) last = last.slice();
    } catch (e) {
      failure ??= `read fails after ${entries} entries: ${describe(e)}`;
      if (last !== undefined) last = last.slice();
    } finally {
      it.close();
    }
    if (entries === 0 && tombstones.length === 0)
      return { kind: "dropped", reason: failure ?? "holds no entries" };
    if (failure !== undefined) {
      const salvaged = salvage(fs, dir, reader, entries, tombstones, builderOptions, newNumber());
      if (salvaged === undefined) return { kind: "dropped", reason: failure };
      return {
        kind: "salvaged",
        file: salvaged,
        entries,
        rangeDeletions: tombstones.length,
        reason: failure,
      };
    }
    let smallest = first;
    let largest = last;
    for (const t of tombstones) {
      if (t.seq < smallestSeq) smallestSeq = t.seq;
      if (t.seq > largestSeq) largestSeq = t.seq;
      const lo = makeInternalKey(t.start, t.seq, ValueKind.RangeDeletion);
      if (smallest === undefined || icmp.compare(lo, smallest) < 0) smallest = lo;
      const hi = makeInternalKey(t.end, MAX_SEQ, ValueKind.RangeDeletion);
      if (largest === undefined || icmp.compare(hi, largest) > 0) largest = hi;
    }
    return {
      kind: "kept",
      file: {
        number,
        size: reader.fileSize,
        smallest: smallest!,
        largest: largest!,
        smallestSeq,
        largestSeq,
      },
      entries,
      rangeDeletions: tombstones.length,
    };
  } finally {
    reader.close();
  }
}

/** Copies the first `entries` entries of `reader` and `tombstones` into table `number`. */
function salvage(
  fs: FileSystem,
  dir: string,
  reader: TableReader,
  entries: number,
  tombstones: readonly RangeTombstone[],
  builderOptions: TableBuilderOptions,
  number: number,
): FileMetaData | undefined {
  const out = new TableFile(fs, dir, number, builderOptions);
  const it = reader.newIterator({ fillCache: false });
  try {
    let n = 0;
    // Stops on the last good entry: moving past it is what failed.
    for (it.seekToFirst(); it.valid(); it.next()) {
      out.add(it.key(), it.value());
      if (++n === entries) break;
    }
    if (n < entries)
      throw ShaleError.corruption(
        `the table read differently the second time (${n} of ${entries})`,
      );
    for (const t of tombstones) out.addRangeTombstone(t.start, t.end, t.seq);
  } catch (e) {
    out.abandon();
    throw e;
  } finally {
    it.close();
  }
  const file = out.finish();
  if (file !== undefined) fs.syncDir(dir);
  return file;
}
