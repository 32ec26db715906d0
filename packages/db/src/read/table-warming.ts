/**
 * Warming the block cache with tables just installed (the `prepopulateBlockCache` option):
 * each table is opened through the table cache, as the first read would open it, and its data
 * blocks are read back into the block cache while it has free room (`TableReader.
 * prepopulateBlockCache`, @shale/sstable's table-warm.ts).
 *
 * Warming is an optimisation, never a read: a table it cannot read (a damaged block, an I/O
 * error) is left as it is and the reads that need it report the error, as they would without
 * warming. It runs on the main thread, when a flush or compaction is installed.
 *
 * Thread-safety: the database's thread.
 */
import type { TableCache } from "@shale/sstable";
import type { FileMetaData } from "../version/version-edit.js";

/** Blocks inserted into the block cache for `files` (0 when it was full already). */
export function warmTables(tableCache: TableCache, files: readonly FileMetaData[]): number {
  let inserted = 0;
  for (const f of files) {
    try {
      const result = tableCache.get(f.number, f.size).prepopulateBlockCache();
      inserted += result.inserted;
      if (result.full) break;
    } catch {
      // Left for the reads to report (see above).
    }
  }
  return inserted;
}
