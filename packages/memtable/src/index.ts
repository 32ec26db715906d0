/**
 * @shale/memtable — the sorted in-memory table of shale's write path: a B+tree of internal
 * keys over an arena of SharedArrayBuffer chunks, with a hash index for point lookups,
 * point entries and range tombstones, shareable read-only with worker threads.
 */
export { ChunkPool, type ChunkPoolOptions, type ChunkPoolStats } from "./chunk-pool.js";
export { MemTable } from "./memtable.js";
export {
  MemTableBloom,
  type MemTableBloomOptions,
  type MemTableBloomPrefix,
} from "./memtable-bloom.js";
export type { MemTableIterator } from "./memtable-iterator.js";
export type { MemTableOptions } from "./memtable-options.js";
export { POISON_BYTE } from "./poison.js";
export type { SharedMemTableData } from "./shared.js";
