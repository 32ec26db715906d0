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
 *
 * The copy itself (entries through the rules, then the range tombstones) is @shale/sstable's
 * `copyMemTable`, the loop of its `flushMemTable`: one flush loop, with these rules as its
 * option; `TableFile` adds what the database needs around it (blob links, the empty-table
 * case, FileMetaData). Used by the background flush (worker-main.ts, executor.ts), recovery
 * and repair.
 */
import {
  bytewiseComparator,
  type FileSystem,
  type InternalIterator,
  InternalKeyComparator,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { copyMemTable, type FlushRules, type TableBuilderOptions } from "@shale/sstable";
import { TableFile } from "../compaction/build-table.js";
import { CompactionIterator } from "../compaction/compaction-iterator.js";
import type { FileMetaData } from "../version/version-edit.js";

/** A flush is never at the bottom for a key: deletions must stay. */
const NEVER_BOTTOMMOST = {
  isBottommost: (_userKey: Uint8Array): boolean => false,
};

/**
 * The compaction rules of a flush of `mem`: its entries through a `CompactionIterator` with
 * `snapshots` (live snapshot seqs, any order, duplicates allowed) and its own range
 * tombstones, nothing bottommost, no merge operator.
 */
function flushRules(
  mem: MemTable,
  options: TableBuilderOptions,
  snapshots: readonly number[],
): FlushRules {
  const icmp = new InternalKeyComparator(options.comparator ?? bytewiseComparator);
  const sorted = [...new Set(snapshots)].sort((a, b) => a - b);
  return (input: InternalIterator) =>
    new CompactionIterator(input, {
      icmp,
      snapshots: sorted,
      mergeOperator: undefined,
      tombstones: mem.fragmentedRangeTombstones(),
      bottommost: NEVER_BOTTOMMOST,
    });
}

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
  const table = new TableFile(fs, dir, fileNumber, {
    ...options,
    filterContext: { reason: "flush", levelAtCreation: 0 },
  });
  try {
    copyMemTable(mem, table, flushRules(mem, options, snapshots));
  } catch (e) {
    table.abandon();
    throw e;
  }
  const file = table.finish();
  // The new name must be durable before the MANIFEST edit can refer to it.
  if (file !== undefined) fs.syncDir(dir);
  return file;
}
