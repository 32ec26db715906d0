/**
 * Warming the block cache with tables just installed (the `prepopulateBlockCache` option):
 * each table is opened through the table cache, as the first read would open it, and its data
 * blocks are read back into the block cache while it has free room (`TableReader.
 * prepopulateBlockCache`, @shale/sstable's table-warm.ts).
 *
 * When the job that wrote a table kept its data blocks (`TableWriteOptions.captureBlocks`:
 * the builder's copies, @shale/sstable's captured-blocks.ts, handed over by the worker as
 * transferable buffers), warming inserts those (`TableReader.prepopulateBlockCacheFrom`):
 * no read, checksum or decompression on this thread, only a `Block` and a cache insert per
 * block. The blocks travel beside the table's metadata, in a WeakMap keyed by the
 * `FileMetaData` object the job returned (`attachCapturedBlocks`): taken once, when the table
 * is warmed, and gone with the metadata object if the table is never installed. Tables
 * without captured blocks (an inline job that did not keep them, a browser's nested worker)
 * are read back as before.
 *
 * Warming is an optimisation, never a read: a table it cannot read (a damaged block, an I/O
 * error) is left as it is and the reads that need it report the error, as they would without
 * warming. It runs on the main thread, when a flush or compaction is installed.
 *
 * Thread-safety: the database's thread.
 */
import type { BlockCache, CapturedDataBlocks, TableCache } from "@shale/sstable";
import type { FileMetaData } from "../version/version-edit.js";

/**
 * Bytes a job may capture for its tables' warming: the free room of `cache` now, plus, for a
 * compaction, the room its inputs' cached blocks leave when it is installed (at most twice
 * their `inputBytes` on disk: a block is charged its uncompressed size), at most the cache's
 * capacity. More would be dropped: warming never evicts.
 */
export function captureBudget(cache: BlockCache, inputBytes = 0): number {
  const free = Math.max(0, cache.capacity - cache.usage);
  return Math.min(cache.capacity, free + 2 * inputBytes);
}

/** Each new table's captured data blocks, by the metadata object its job returned. */
const captured = new WeakMap<FileMetaData, CapturedDataBlocks>();

/** Keeps `blocks` (the data blocks the job that wrote `file` captured) for its warming. */
export function attachCapturedBlocks(file: FileMetaData, blocks: CapturedDataBlocks): void {
  captured.set(file, blocks);
}

/** The captured blocks of `file`, handed over (a second call returns undefined). */
export function takeCapturedBlocks(file: FileMetaData): CapturedDataBlocks | undefined {
  const blocks = captured.get(file);
  if (blocks !== undefined) captured.delete(file);
  return blocks;
}

/**
 * Blocks inserted into the block cache for `files` (0 when it was full already). Takes the
 * captured blocks of every file, warmed or not (none stays behind in the map).
 */
export function warmTables(tableCache: TableCache, files: readonly FileMetaData[]): number {
  let inserted = 0;
  let full = false;
  for (const f of files) {
    const blocks = takeCapturedBlocks(f);
    if (full) continue;
    try {
      const reader = tableCache.get(f.number, f.size);
      const result =
        blocks !== undefined
          ? reader.prepopulateBlockCacheFrom(blocks)
          : reader.prepopulateBlockCache();
      inserted += result.inserted;
      full = result.full;
    } catch {
      // Left for the reads to report (see above).
    }
  }
  return inserted;
}

/** Drops the captured blocks of `files` (tables installed while warming is not wanted). */
export function discardCapturedBlocks(files: readonly FileMetaData[]): void {
  for (const f of files) captured.delete(f);
}
