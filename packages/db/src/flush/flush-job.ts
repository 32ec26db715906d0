/**
 * Flush: writes a sealed memtable (its point entries and range tombstones) as one table.
 * Runs in a worker thread (on a MemTable reopened from shared memory) or inline.
 *
 * As RocksDB's flush, the entries go through the compaction rules (`CompactionIterator`)
 * with the live snapshots: an entry hidden by a newer one of its key in the same snapshot
 * stripe is dropped, and so is one covered by a range tombstone of the memtable in its
 * stripe (rules 1 and 2 of compaction-iterator.ts). An overwritten key reaches L0 once, not
 * once per write (db_bench fillrandom: ~21 % of a 64 MiB memtable's entries). Nothing is
 * bottommost for a flush (older data may exist in any level), so deletions stay; merge
 * operands are kept as they are, with everything older of their stripe (reads and
 * compactions merge them), so a merge operator never runs in a flush.
 */
import {
  bytewiseComparator,
  type FileSystem,
  InternalKeyComparator,
  type RangeTombstone,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableBuilderOptions } from "@shale/sstable";
import { TableFile } from "../compaction/build-table.js";
import { CompactionIterator } from "../compaction/compaction-iterator.js";
import type { FileMetaData } from "../version/version-edit.js";

/** A flush is never at the bottom for a key: deletions must stay. */
const NEVER_BOTTOMMOST = {
  isBottommost: (_userKey: Uint8Array): boolean => false,
};

/**
 * Writes `mem` as table `fileNumber` in `dir` and syncs the directory. `snapshots`: the live
 * snapshot seqs (any order, duplicates allowed) when the flush was scheduled — a snapshot
 * taken later is above every entry of a sealed memtable. Returns the table's metadata, or
 * undefined when nothing was left to write (no file).
 */
export function flushMemTable(
  fs: FileSystem,
  dir: string,
  fileNumber: number,
  mem: MemTable,
  options: TableBuilderOptions,
  snapshots: readonly number[] = [],
): FileMetaData | undefined {
  const input = mem.newIterator();
  let file: FileMetaData | undefined;
  try {
    const icmp = new InternalKeyComparator(options.comparator ?? bytewiseComparator);
    const iter = new CompactionIterator(input, {
      icmp,
      snapshots: [...new Set(snapshots)].sort((a, b) => a - b),
      mergeOperator: undefined,
      tombstones: mem.fragmentedRangeTombstones(),
      bottommost: NEVER_BOTTOMMOST,
    });
    file = writeTable(fs, dir, fileNumber, iter, mem.rangeTombstones(), options);
  } finally {
    input.close();
  }
  // The new name must be durable before the MANIFEST edit can refer to it.
  if (file !== undefined) fs.syncDir(dir);
  return file;
}

function writeTable(
  fs: FileSystem,
  dir: string,
  fileNumber: number,
  iter: CompactionIterator,
  tombstones: readonly RangeTombstone[],
  options: TableBuilderOptions,
): FileMetaData | undefined {
  const table = new TableFile(fs, dir, fileNumber, {
    ...options,
    filterContext: { reason: "flush", levelAtCreation: 0 },
  });
  try {
    for (iter.seekToFirst(); iter.valid(); iter.next()) table.add(iter.key(), iter.value());
    for (const t of tombstones) table.addRangeTombstone(t.start, t.end, t.seq);
  } catch (e) {
    table.abandon();
    throw e;
  }
  return table.finish();
}
