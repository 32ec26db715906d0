/**
 * A cache entry, which is also the handle returned to users (so a lookup allocates nothing).
 *
 * One entry object per inserted value; entries are never recycled, so a stale handle can
 * never alias a newer entry. Its state:
 *
 *   inCache  refs  where it is
 *   -------  ----  ---------------------------------------------------------------
 *   true     0     in its shard's table and LRU list (evictable)
 *   true     > 0   in its shard's table only ("in use": pinned by `refs` handles)
 *   false    > 0   erased, replaced or evicted-on-release pending; charged until released
 *   false    0     freed: owned by nobody; releasing it again throws
 */

/**
 * @internal What an entry knows of its shard (shard.ts's LRUShard): where LRUCache sends an inserted
 * entry and a released handle, and which cache owns it. An interface, so this file does not
 * import shard.ts (which imports this one).
 */
export interface EntryShard<V> {
  readonly owner: unknown;
  insert(e: CacheEntry<V>, pin: boolean): boolean;
  release(e: CacheEntry<V>): void;
  touch(e: CacheEntry<V>): V;
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

/** @internal The entry record: a handle plus the shard's bookkeeping. */
export class CacheEntry<V> implements CacheHandle<V> {
  readonly value: V;
  readonly charge: number;
  readonly id: number;
  readonly offset: number;
  /** `hashKey(id, offset)`, kept for the table's probing and removal. */
  readonly hash: number;
  /** Inserted with priority "high". */
  readonly highPri: boolean;
  /** The owning shard. */
  readonly shard: EntryShard<V>;
  /** Number of unreleased handles. */
  refs = 0;
  /** In the shard's table (reachable by lookup). */
  inCache = false;
  /**
   * Used by `LRUCache.get` or `touch` since the entry was last linked in: eviction gives it
   * a second chance (relinks it as newest) instead of evicting it.
   */
  referenced = false;
  /** In the LRU list's high-priority region (meaningful only while in the list). */
  inHighPriPool = false;
  /** LRU list links (both null when the entry is not in the list). */
  prev: CacheEntry<V> | null = null;
  next: CacheEntry<V> | null = null;
  /** Links of its id's list in the shard's table (entry-table.ts), null at the ends. */
  idPrev: CacheEntry<V> | null = null;
  idNext: CacheEntry<V> | null = null;

  constructor(
    shard: EntryShard<V>,
    id: number,
    offset: number,
    hash: number,
    value: V,
    charge: number,
    highPri: boolean,
  ) {
    this.value = value;
    this.charge = charge;
    this.id = id;
    this.offset = offset;
    this.hash = hash;
    this.highPri = highPri;
    this.shard = shard;
  }
}
