/**
 * Handles: the objects a pinning lookup, a pinned insert or `insertReferenced` returns.
 *
 * An entry itself is a slot of its shard's typed arrays (entry-table.ts), not an object; a
 * handle object is made the first time an entry needs one and then returned for every pin of
 * that entry (so a lookup hit allocates nothing after the first). When the entry is freed the
 * shard sets the handle's `slot` to -1 and forgets it, so a stale handle never aliases the
 * entry that reuses the slot. An entry's states (`state` flags and pins, entry-table.ts):
 *
 *   IN_CACHE  pins  where it is
 *   --------  ----  ---------------------------------------------------------------
 *   set       0     in its shard's table and LRU list (evictable)
 *   set       > 0   in its shard's table only ("in use": pinned)
 *   clear     > 0   erased, replaced or evicted-on-release pending; charged until released
 *   (freed)         the slot is free; the handle has slot -1, releasing it again throws
 */

/**
 * @internal What a handle knows of its shard (shard.ts's LRUShard): which cache owns it and
 * the slot state it reads. An interface, so this file does not import shard.ts (which imports
 * this one).
 */
export interface EntryShard {
  readonly owner: unknown;
  pinsOf(slot: number): number;
  inCache(slot: number): boolean;
  release(slot: number): void;
}

/** Where an entry lives in the LRU list. Default: `"low"`. */
export type CachePriority = "high" | "low";

/**
 * A pin on one cache entry: while any handle of an entry is unreleased the entry is never
 * evicted or freed, so `value` (the inserted object itself, not a copy) stays valid even if
 * the key is erased or replaced meanwhile. Release each handle exactly once with
 * `LRUCache.release`; after that the value may be freed (and passed to `onEvict`) at any time,
 * so do not use the handle or its value afterwards.
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
  readonly value: V;
  readonly charge: number;
  readonly id: number;
  readonly offset: number;
  /** The owning shard. */
  readonly shard: EntryShard;
  /** The entry's slot in its shard, or -1 once the entry was freed. */
  slot: number;

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
}
