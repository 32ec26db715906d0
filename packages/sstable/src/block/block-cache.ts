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

/** `newBlockCache`'s options: `LRUCacheOptions` without the capacity, plus `recycleBlocks`. */
export interface BlockCacheOptions extends Omit<LRUCacheOptions<Block>, "capacity"> {
  /**
   * Reuse the memory of evicted data blocks for the blocks read next (no fresh ArrayBuffer
   * per cache miss, less garbage). The price is a shorter lifetime for zero-copy values:
   * a value view a `TableReader.get` returned is valid only until the next read through
   * this cache, and an iterator's `value()` only until the iterator leaves the block
   * (`isValuePinned()` says false for them; merge operands are copied). Default: false.
   * The database's own cache (`blockCacheSize`) recycles: its zero-copy reads are valid
   * until the next call into the database anyway.
   */
  recycleBlocks?: boolean;
}

/** The caches `newBlockCache` made with `recycleBlocks`. */
const recycling = new WeakSet<BlockCache>();
/** The caches `newBlockCache` made: every block they let go is told (`Block.evict`). */
const hooked = new WeakSet<BlockCache>();

/** @internal True if `cache` recycles evicted blocks (`recycleBlocks`). */
export function recyclesBlocks(cache: BlockCache): boolean {
  return recycling.has(cache);
}

/**
 * @internal True if `cache` calls `Block.evict` on every block it lets go (a cache made by
 * `newBlockCache`): a reader may then keep its own references to the data blocks it cached
 * (an index block's `dataSlots`), since eviction empties them.
 */
export function reportsEvictions(cache: BlockCache): boolean {
  return hooked.has(cache);
}

/**
 * A block cache of `capacity` bytes (blocks are charged their size plus a small overhead).
 * `options`: the other `LRUCacheOptions` (numShardBits, strictCapacityLimit,
 * highPriPoolRatio, onEvict) and `recycleBlocks`. Throws as `new LRUCache` does for bad
 * options, TypeError for a `recycleBlocks` that is not a boolean.
 */
export function newBlockCache(capacity: number, options: BlockCacheOptions = {}): BlockCache {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("newBlockCache options must be an object");
  }
  const { recycleBlocks, ...lru } = options;
  if (recycleBlocks !== undefined && typeof recycleBlocks !== "boolean") {
    throw new TypeError("recycleBlocks must be a boolean");
  }
  const user = lru.onEvict;
  if (user !== undefined && typeof user !== "function") {
    throw new TypeError("onEvict must be a function");
  }
  const onEvict =
    user === undefined
      ? (block: Block) => block.evict()
      : (block: Block, id: number, offset: number) => {
          user(block, id, offset);
          block.evict();
        };
  const cache = new LRUCache<Block>({ ...lru, capacity, onEvict });
  hooked.add(cache);
  if (recycleBlocks === true) recycling.add(cache);
  return cache;
}
