/** LRUCache options, their defaults and validation. */
import { ShaleError } from "@shale/base";
import { checkBytes } from "./key.js";

export interface LRUCacheOptions<V = unknown> {
  /** Total bytes of charge the cache may hold (split evenly over the shards). Required. */
  capacity: number;
  /**
   * log2 of the number of shards, 0..19. A key's shard is chosen by the top bits of its hash;
   * each shard has capacity / 2^numShardBits and evicts on its own.
   * Default: as RocksDB, the largest value <= 6 that leaves every shard at least 512 KiB
   * (0 below 1 MiB of capacity); see `defaultShardBits`.
   */
  numShardBits?: number;
  /**
   * If true, `insert` throws `ShaleError` (Incomplete) and `insertUnpinned` returns false
   * rather than let pinned entries push usage over capacity. Default: false (the cache may
   * exceed capacity while pinned entries hold it; it shrinks back as they are released).
   */
  strictCapacityLimit?: boolean;
  /**
   * Fraction (0..1) of each shard's capacity reserved for entries inserted with priority
   * "high" (e.g. index and filter blocks): they are evicted only after every low-priority
   * entry or once they overflow the pool. 0 disables the pool. Default: 0.5.
   */
  highPriPoolRatio?: number;
  /**
   * Called once for each value the cache lets go of for good: evicted, erased, replaced, or
   * dropped on its last release. Runs after the cache call that freed it has finished updating
   * the cache, so it may call back into the cache. Not called for a value whose insert failed
   * (the caller still owns it). An exception propagates from that cache call; the callbacks
   * still pending then run at the next insert, insertUnpinned, release, erase, eraseId or
   * setCapacity. Default: none.
   */
  onEvict?: (value: V, id: number, offset: number) => void;
}

/** Largest accepted `numShardBits` (as RocksDB's NewLRUCache). */
export const MAX_SHARD_BITS = 19;

/** RocksDB's GetDefaultCacheShardBits: up to 6 bits with at least 512 KiB per shard. */
export function defaultShardBits(capacity: number): number {
  const minShardSize = 512 * 1024;
  let numShards = Math.floor(capacity / minShardSize);
  let bits = 0;
  while (numShards >= 2) {
    numShards = Math.floor(numShards / 2);
    if (++bits >= 6) return 6;
  }
  return bits;
}

export interface ResolvedOptions<V> {
  capacity: number;
  numShardBits: number;
  strictCapacityLimit: boolean;
  highPriPoolRatio: number;
  onEvict: ((value: V, id: number, offset: number) => void) | undefined;
}

/** Validates options and fills in defaults. */
export function resolveOptions<V>(options: LRUCacheOptions<V>): ResolvedOptions<V> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("LRUCache options must be an object");
  }
  const capacity = checkBytes("capacity", options.capacity);
  const { numShardBits, strictCapacityLimit, highPriPoolRatio, onEvict } = options;
  if (numShardBits !== undefined) {
    if (typeof numShardBits !== "number") throw new TypeError("numShardBits must be a number");
    if (!Number.isInteger(numShardBits) || numShardBits < 0 || numShardBits > MAX_SHARD_BITS) {
      throw ShaleError.invalidArgument(
        `numShardBits must be an integer in 0..${MAX_SHARD_BITS}, got ${numShardBits}`,
      );
    }
  }
  if (strictCapacityLimit !== undefined && typeof strictCapacityLimit !== "boolean") {
    throw new TypeError("strictCapacityLimit must be a boolean");
  }
  if (highPriPoolRatio !== undefined) {
    if (typeof highPriPoolRatio !== "number") {
      throw new TypeError("highPriPoolRatio must be a number");
    }
    if (!(highPriPoolRatio >= 0 && highPriPoolRatio <= 1)) {
      throw ShaleError.invalidArgument(
        `highPriPoolRatio must be in [0, 1], got ${highPriPoolRatio}`,
      );
    }
  }
  if (onEvict !== undefined && typeof onEvict !== "function") {
    throw new TypeError("onEvict must be a function");
  }
  return {
    capacity,
    numShardBits: numShardBits ?? defaultShardBits(capacity),
    strictCapacityLimit: strictCapacityLimit ?? false,
    highPriPoolRatio: highPriPoolRatio ?? 0.5,
    onEvict,
  };
}
