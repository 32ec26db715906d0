/**
 * Handles: the objects a pinning lookup, a pinned insert or `insertReferenced` returns.
 *
 * An entry itself is a slot of the cache's typed arrays (entry-table.ts), not an object. A
 * handle is one pin: every `lookup` or pinned `insert` that succeeds fills a handle object
 * taken from the cache's pool of released handles (made only when the pool is empty), and
 * `release` drops the pin, points the handle nowhere (slot -1, no value) and puts it back
 * in the pool (up to MAX_POOLED_HANDLES, lru-cache.ts). So a pinned hit allocates nothing
 * and writes a handle that was used a moment ago (in the CPU's cache), not one object per
 * entry scattered over the heap. A second release of a handle throws (InvalidArgument)
 * while it is in the pool, and is undefined behaviour once a later pin took it (it drops
 * that pin), as in RocksDB. A reference (`insertReferenced`) is a handle that holds no pin:
 * one per entry at most, kept in the table's `refs` by slot until the entry is freed (then
 * its slot is -1), never pooled. An entry's states (`state` flags and pins, entry-table.ts):
 *
 *   IN_CACHE  pins  where it is
 *   --------  ----  ---------------------------------------------------------------
 *   set       0     in its shard's table and LRU list (evictable)
 *   set       > 0   in its shard's table only ("in use": pinned)
 *   clear     > 0   erased, replaced or evicted-on-release pending; charged until released
 *   (freed)         the slot is free; its reference, if any, has slot -1
 */

/**
 * @internal What a handle knows of its shard (shard.ts's LRUShard): which cache owns it and
 * the slot state it reads. An interface, so this file does not import shard.ts (which imports
 * this one).
 */
export interface EntryShard {
  readonly owner: unknown;
  inCache(slot: number): boolean;
}

/** Where an entry lives in the LRU list. Default: `"low"`. */
export type CachePriority = "high" | "low";

/**
 * A pin on one cache entry: while any handle of an entry is unreleased the entry is never
 * evicted or freed, so `value` (the inserted object itself, not a copy) stays valid even if
 * the key is erased or replaced meanwhile. Release each handle exactly once with
 * `LRUCache.release`; after that the value may be freed (and passed to `onEvict`) at any time,
 * and the handle object given to another entry, so do not use the handle or its value
 * afterwards.
 */
export interface CacheHandle<V> {
  /** The cached value, as inserted (the cache never copies it). */
  readonly value: V;
  /** The bytes this entry counts against the capacity. */
  readonly charge: number;
  /** The first half of the key. */
  readonly id: number;
  /** The second half of the key. */
  readonly offset: number;
}

/** @internal A handle: the entry's key, value and charge, and where its slot is. */
export class EntryHandle<V> implements CacheHandle<V> {
  value: V;
  charge: number;
  id: number;
  offset: number;
  /** The shard of the entry (set at each pin: a pooled handle moves between shards). */
  shard: EntryShard;
  /** The entry's slot, or -1 once released (a pin) or once the entry was freed (a reference). */
  slot: number;
  /**
   * Given out as a reference (LRUCache.insertReferenced), which may be held past the
   * entry's life and holds no pin: never released, never pooled.
   */
  referenced = false;

  constructor(
    shard: EntryShard,
    slot: number,
    value: V,
    id: number,
    offset: number,
    charge: number,
  ) {
    this.value = value;
    this.charge = charge;
    this.id = id;
    this.offset = offset;
    this.shard = shard;
    this.slot = slot;
  }

  /** Points this (pooled) handle at the entry in `slot` of `shard`. */
  reset(
    shard: EntryShard,
    slot: number,
    value: V,
    id: number,
    offset: number,
    charge: number,
  ): void {
    this.shard = shard;
    this.value = value;
    this.charge = charge;
    this.id = id;
    this.offset = offset;
    this.slot = slot;
  }

  /** Released, or its entry freed: the handle points nowhere and keeps no value alive. */
  detach(): void {
    this.slot = -1;
    this.value = undefined as V;
  }
}
