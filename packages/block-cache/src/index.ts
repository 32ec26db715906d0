/**
 * @shale/block-cache — a sharded, byte-charged LRU cache keyed by `(id, offset)`, with handles
 * that pin entries, an optional strict capacity limit and a high-priority pool (RocksDB's
 * LRUCache). Used by the SSTable reader for data, index and filter blocks; usable alone as a
 * general byte-charged LRU.
 */
export type { CacheHandle, CachePriority } from "./entry.js";
export { type CacheStats, LRUCache } from "./lru-cache.js";
export { defaultShardBits, type LRUCacheOptions, MAX_SHARD_BITS } from "./options.js";
export type { SharedBlockCacheBuffers } from "./shared/layout.js";
export {
  SharedBlockCache,
  type SharedBlockCacheOptions,
  type SharedBlockCacheStats,
} from "./shared/shared-block-cache.js";
