/**
 * One shard of the LRU cache (RocksDB's LRUCacheShard): a hash table of its entries plus an
 * intrusive, circular, doubly-linked LRU list of its UNPINNED entries (refs === 0). Pinned
 * entries are in the table only, so they can never be evicted.
 *
 *       evict from here                                                 newest
 *        lru.next                                                      lru.prev
 *   [lru] <-> L1 <-> ... <-> Lk <-> H1 <-> ... <-> Hm <-> [lru]     (circular; [lru] = sentinel)
 *             \______ low ______/   \________ high-priority pool ______/
 *                          ^ lowPriHead (= [lru] when the low region is empty)
 *
 * - Unpinning (insertUnpinned, release of the last handle) links an entry in:
 *   priority "high" (and highPriPoolRatio > 0): at the head of the high pool (before [lru]);
 *   otherwise: at the head of the low region (right after lowPriHead) — midpoint insertion,
 *   so a scan of low-priority blocks never pushes the high pool towards eviction.
 * - The high pool holds at most highPriCapacity = floor(capacity * highPriPoolRatio) bytes:
 *   while it holds more, its oldest entry H1 is demoted by moving lowPriHead forward over it
 *   (the list order never changes, only the boundary).
 * - Eviction takes lru.next (the oldest low entry, then the oldest high entry) until
 *   usage + charge <= capacity or the list is empty.
 * - lookup unlinks an unpinned entry ("in use"); the last release links it back in, or frees
 *   it if it was erased meanwhile or if the shard is over capacity.
 * - get (no pin) only sets `referenced`; eviction relinks a referenced lru.next as the newest
 *   of its pool, unreferenced, and goes on (CLOCK's second chance): a hit costs no list
 *   writes, and an entry read since it was linked in outlives every entry that was not.
 *
 * usage counts every entry still charged: in the table, or erased but still pinned.
 * lruUsage counts the entries in the list; pinned usage = usage - lruUsage.
 *
 * Worked example: capacity 100, highPriPoolRatio 0.5 (highPriCapacity 50), all unpinned:
 *   H1(30, high), H2(30, high)   high pool 60 > 50: H1 demoted     [lru] H1 | H2
 *   L1(20, low)                  after lowPriHead (H1)             [lru] H1 L1 | H2
 *   L2(30, low)                  110 > 100: evict H1, then insert  [lru] L1 L2 | H2
 */
import { assertInvariant, invariants } from "@shale/base";
import { CacheEntry } from "./entry.js";
import { EntryTable } from "./entry-table.js";
import type { FreedList } from "./freed-list.js";

export class LRUShard<V> {
  /** The cache this shard belongs to (handles of other caches are rejected). */
  readonly owner: object;
  capacity = 0;
  highPriCapacity = 0;
  readonly highPriPoolRatio: number;
  readonly strictCapacityLimit: boolean;

  usage = 0;
  lruUsage = 0;
  highPriUsage = 0;

  hits = 0;
  misses = 0;
  inserts = 0;
  evictions = 0;

  readonly table = new EntryTable<V>();
  /** The list sentinel: lru.next is the oldest unpinned entry, lru.prev the newest. */
  readonly lru: CacheEntry<V>;
  /** The newest entry of the low-priority region, or the sentinel if that region is empty. */
  lowPriHead: CacheEntry<V>;
  /** Entries freed during the current cache call, for `onEvict` (null when there is none). */
  private readonly freed: FreedList<V> | null;

  constructor(
    owner: object,
    capacity: number,
    highPriPoolRatio: number,
    strictCapacityLimit: boolean,
    freed: FreedList<V> | null,
  ) {
    this.owner = owner;
    this.highPriPoolRatio = highPriPoolRatio;
    this.strictCapacityLimit = strictCapacityLimit;
    this.freed = freed;
    const lru = new CacheEntry<V>(this, -1, -1, 0, undefined as unknown as V, 0, false);
    lru.prev = lru;
    lru.next = lru;
    this.lru = lru;
    this.lowPriHead = lru;
    this.setCapacity(capacity);
  }

  /** The entry with this key, or undefined (no pin, no counting). */
  find(hash: number, id: number, offset: number): CacheEntry<V> | undefined {
    return this.table.find(hash, id, offset);
  }

  /** Pins an entry found by `find` (taking it off the LRU list) and counts a hit. */
  pin(e: CacheEntry<V>): CacheEntry<V> {
    if (e.refs === 0) this.unlink(e);
    e.refs++;
    this.hits++;
    return e;
  }

  /**
   * Counts a hit and marks `e` referenced; returns its value. The list is not touched (its
   * neighbours are other cache lines): eviction relinks a referenced entry as newest instead.
   */
  touch(e: CacheEntry<V>): V {
    this.hits++;
    e.referenced = true;
    return e.value;
  }

  /**
   * Adds `e` (pinned once if `pin`), evicting unpinned entries first as needed. Returns false,
   * without adding `e`, if it still does not fit and either the limit is strict or `e` would
   * be unpinned (it would be evicted at once). A replaced entry is freed once unpinned.
   */
  insert(e: CacheEntry<V>, pin: boolean): boolean {
    const charge = e.charge;
    this.evict(charge);
    if (this.usage + charge > this.capacity && (this.strictCapacityLimit || !pin)) return false;
    const old = this.table.insert(e);
    e.inCache = true;
    this.usage += charge;
    this.inserts++;
    if (old !== undefined) {
      old.inCache = false;
      if (old.refs === 0) {
        this.unlink(old);
        this.usage -= old.charge;
        this.free(old);
      }
    }
    if (pin) e.refs = 1;
    else this.link(e);
    return true;
  }

  /** Drops one pin of `e`. REQUIRES: e.refs > 0 and e belongs to this shard. */
  release(e: CacheEntry<V>): void {
    if (--e.refs !== 0) return;
    if (e.inCache) {
      if (this.usage <= this.capacity) {
        this.link(e);
        return;
      }
      // Over capacity (pinned entries held it there): free instead of keeping.
      this.table.remove(e);
      e.inCache = false;
      this.evictions++;
    }
    this.usage -= e.charge;
    this.free(e);
  }

  /** Removes the entry with this key from the table; it is freed now or on its last release. */
  erase(hash: number, id: number, offset: number): void {
    const e = this.table.removeKey(hash, id, offset);
    if (e !== undefined) this.detach(e);
  }

  /** Erases every entry whose id is `id` (walks its list in the table). */
  eraseId(id: number): void {
    const found: CacheEntry<V>[] = [];
    this.table.collectId(id, found);
    for (const e of found) {
      this.table.remove(e);
      this.detach(e);
    }
  }

  /**
   * Erases up to `max` entries whose id is `id`; returns how many it erased (fewer than
   * `max`: none of that id is left here).
   */
  eraseIdSome(id: number, max: number): number {
    let n = 0;
    let e = this.table.firstOfId(id);
    while (e !== null && n < max) {
      const next = e.idNext;
      this.table.remove(e);
      this.detach(e);
      n++;
      e = next;
    }
    return n;
  }

  setCapacity(capacity: number): void {
    this.capacity = capacity;
    this.highPriCapacity = Math.floor(capacity * this.highPriPoolRatio);
    this.evict(0);
    this.maintainPoolSize();
  }

  /** Marks a just-removed-from-table entry as not in cache and frees it if unpinned. */
  private detach(e: CacheEntry<V>): void {
    e.inCache = false;
    if (e.refs === 0) {
      this.unlink(e);
      this.usage -= e.charge;
      this.free(e);
    }
  }

  /** Evicts from the LRU end until usage + charge <= capacity or no unpinned entry is left. */
  private evict(charge: number): void {
    const lru = this.lru;
    while (this.usage + charge > this.capacity) {
      const old = lru.next!;
      if (old === lru) return;
      this.unlink(old);
      if (old.referenced) {
        // Second chance (see `touch`): it goes back in as newest of its pool, unreferenced.
        this.link(old);
        continue;
      }
      this.table.remove(old);
      old.inCache = false;
      this.usage -= old.charge;
      this.evictions++;
      this.free(old);
    }
  }

  private free(e: CacheEntry<V>): void {
    if (invariants) assertInvariant(this.usage >= 0, "shard usage went negative");
    if (this.freed !== null) this.freed.push(e);
  }

  /** Links an unpinned entry in at the head of its pool (see the drawing above). */
  private link(e: CacheEntry<V>): void {
    const charge = e.charge;
    e.referenced = false;
    if (e.highPri && this.highPriPoolRatio > 0) {
      const lru = this.lru;
      const newest = lru.prev!;
      e.next = lru;
      e.prev = newest;
      newest.next = e;
      lru.prev = e;
      e.inHighPriPool = true;
      this.highPriUsage += charge;
      this.lruUsage += charge;
      this.maintainPoolSize();
    } else {
      const head = this.lowPriHead;
      const next = head.next!;
      e.next = next;
      e.prev = head;
      head.next = e;
      next.prev = e;
      e.inHighPriPool = false;
      this.lowPriHead = e;
      this.lruUsage += charge;
    }
  }

  /** Unlinks an entry from the LRU list. REQUIRES: it is in the list. */
  private unlink(e: CacheEntry<V>): void {
    const prev = e.prev!;
    const next = e.next!;
    if (this.lowPriHead === e) this.lowPriHead = prev;
    next.prev = prev;
    prev.next = next;
    e.prev = null;
    e.next = null;
    this.lruUsage -= e.charge;
    if (e.inHighPriPool) {
      this.highPriUsage -= e.charge;
      e.inHighPriPool = false;
    }
  }

  /** Demotes the oldest high-pool entries into the low region until the pool fits. */
  private maintainPoolSize(): void {
    while (this.highPriUsage > this.highPriCapacity) {
      const e = this.lowPriHead.next!;
      this.lowPriHead = e;
      e.inHighPriPool = false;
      this.highPriUsage -= e.charge;
    }
  }

  /** Walks the whole shard and throws if a structural invariant is broken (O(entries)). */
  verify(): void {
    const lru = this.lru;
    let lruUsage = 0;
    let highPriUsage = 0;
    // Low entries come up to and including lowPriHead; high-pool entries come after it.
    let sawHead = this.lowPriHead === lru;
    let listed = 0;
    for (let e = lru.next!; e !== lru; e = e.next!) {
      assertInvariant(e.next!.prev === e && e.prev!.next === e, "LRU links are inconsistent");
      assertInvariant(e.inCache && e.refs === 0, "a pinned or erased entry is in the LRU list");
      assertInvariant(e.shard === this, "an entry of another shard is in the LRU list");
      if (e.inHighPriPool) {
        assertInvariant(sawHead, "a high-pool entry precedes lowPriHead");
        highPriUsage += e.charge;
      } else {
        assertInvariant(!sawHead, "a low entry follows lowPriHead");
      }
      if (e === this.lowPriHead) sawHead = true;
      lruUsage += e.charge;
      listed++;
    }
    assertInvariant(sawHead, "lowPriHead is not in the LRU list");
    assertInvariant(lruUsage === this.lruUsage, "lruUsage does not match the list");
    assertInvariant(highPriUsage === this.highPriUsage, "highPriUsage does not match the list");
    assertInvariant(this.highPriUsage <= this.highPriCapacity, "the high pool is over capacity");
    const entries = this.table.entries();
    assertInvariant(entries.length === this.table.count, "table count is wrong");
    let tableUsage = 0;
    let unpinned = 0;
    for (const e of entries) {
      assertInvariant(e.inCache && e.shard === this, "a table entry is not in this cache shard");
      assertInvariant(this.table.probeLength(e) > 0, "a table entry is not reachable");
      assertInvariant(this.table.find(e.hash, e.id, e.offset) === e, "a key maps elsewhere");
      tableUsage += e.charge;
      if (e.refs === 0) unpinned++;
    }
    assertInvariant(unpinned === listed, "unpinned table entries and the LRU list differ");
    // Every entry is on its id's list exactly once, and the lists hold nothing else.
    const ids = new Map<number, number>();
    for (const e of entries) ids.set(e.id, (ids.get(e.id) ?? 0) + 1);
    assertInvariant(ids.size === this.table.idCount, "an id list is empty or missing");
    for (const [id, n] of ids) {
      const listedOfId: CacheEntry<V>[] = [];
      this.table.collectId(id, listedOfId);
      assertInvariant(listedOfId.length === n, `id ${id}'s list does not match the table`);
      for (const e of listedOfId)
        assertInvariant(e.id === id && e.inCache, "a stale id list entry");
    }
    assertInvariant(this.usage >= tableUsage, "usage is below the charges in the table");
  }
}
