/**
 * The block cache a table reader takes: an `LRUCache` of `@shale/block-cache` holding this
 * package's `Block`s. `newBlockCache(capacity)` makes one, so a user need not import the
 * `Block` type to name the cache's value type (`new LRUCache<Block>(...)` works too).
 * One cache is usually shared by every reader of a process (each reader has its own id).
 */
import { LRUCache, type LRUCacheOptions } from "@shale/block-cache";
import type { Block } from "./block.js";

/** A block cache for `TableReader` / `TableCache` (`blockCache` option). */
export type BlockCache = LRUCache<Block>;

/**
 * A block cache of `capacity` bytes (blocks are charged their size plus a small overhead).
 * `options`: the other `LRUCacheOptions` (numShardBits, strictCapacityLimit,
 * highPriPoolRatio, onEvict). Throws as `new LRUCache` does for bad options.
 */
export function newBlockCache(
  capacity: number,
  options: Omit<LRUCacheOptions<Block>, "capacity"> = {},
): BlockCache {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("newBlockCache options must be an object");
  }
  return new LRUCache<Block>({ ...options, capacity });
}
