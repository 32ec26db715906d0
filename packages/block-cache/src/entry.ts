/**
 * Handles: the objects a pinning lookup, a pinned insert or `insertReferenced` returns.
 *
 * An entry itself is a slot of its shard's typed arrays (entry-table.ts), not an object; a
 * handle object is given the first time an entry needs one and then returned for every pin
 * of that entry. When the entry is freed the shard sets the handle's `slot` to -1, drops its
 * value, and keeps it (up to MAX_SPARE_HANDLES per shard, shard.ts) for the next entry's
 * first pin, so that a pinned hit allocates nothing, the first included, once entries come
 * and go (RocksDB's handle is its entry, likewise reused). A handle is the caller's only
 * until released: a second release of it throws (InvalidArgument) while it is spare, and is
 * undefined behaviour once another entry took it (it drops that entry's pin), as in
 * RocksDB. An entry's states (`state` flags and pins, entry-table.ts):
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
  /** The owning shard. */
  readonly shard: EntryShard;
  /** The entry's slot in its shard, or -1 once the entry was freed. */
  slot: number;
  /**
   * Given out as a reference (LRUCache.insertReferenced), which may be held past the
   * entry's life: never reused for another entry.
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

  /** Points this (spare) handle at the entry in `slot` of its shard. */
  reset(slot: number, value: V, id: number, offset: number, charge: number): void {
    this.value = value;
    this.charge = charge;
    this.id = id;
    this.offset = offset;
    this.slot = slot;
  }

  /** The entry was freed: the handle points nowhere and keeps no value alive. */
  detach(): void {
    this.slot = -1;
    this.value = undefined as V;
  }
}
