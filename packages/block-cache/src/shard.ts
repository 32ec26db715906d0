/**
 * One shard of the LRU cache (RocksDB's LRUCacheShard): its entries in typed arrays with a
 * hash table (entry-table.ts, which this class extends) plus an intrusive, circular,
 * doubly-linked LRU list by slot index (the PREV / NEXT words) of its UNPINNED entries.
 * Pinned entries are in the table only, so they can never be evicted.
 *
 *       evict from here                                                 newest
 *       NEXT of 0                                                       PREV of 0
 *   [0] <-> L1 <-> ... <-> Lk <-> H1 <-> ... <-> Hm <-> [0]     (circular; slot 0 = sentinel)
 *           \______ low ______/   \________ high-priority pool ______/
 *                        ^ lowPriHead (= 0 when the low region is empty)
 *
 * - Unpinning (insertUnpinned, release of the last handle) links an entry in:
 *   priority "high" (and highPriPoolRatio > 0): at the head of the high pool (before [0]);
 *   otherwise: at the head of the low region (right after lowPriHead) — midpoint insertion,
 *   so a scan of low-priority blocks never pushes the high pool towards eviction.
 * - The high pool holds at most highPriCapacity = floor(capacity * highPriPoolRatio) bytes:
 *   while it holds more, its oldest entry H1 is demoted by moving lowPriHead forward over it
 *   (the list order never changes, only the boundary).
 * - Eviction takes NEXT of 0 (the oldest low entry, then the oldest high entry) until
 *   usage + charge <= capacity or the list is empty.
 * - lookup unlinks an unpinned entry ("in use"); the last release links it back in, or frees
 *   it if it was erased meanwhile or if the shard is over capacity.
 * - get (no pin) only sets REFERENCED; eviction relinks a referenced oldest entry as the newest
 *   of its pool, unreferenced, and goes on (CLOCK's second chance): a hit costs no list
 *   writes, and an entry read since it was linked in outlives every entry that was not.
 *
 * usage counts every entry still charged: in the table, or erased but still pinned.
 * lruUsage counts the entries in the list; pinned usage = usage - lruUsage.
 * No step allocates, except a table growth (amortized) and a handle's first creation.
 *
 * Worked example: capacity 100, highPriPoolRatio 0.5 (highPriCapacity 50), all unpinned:
 *   H1(30, high), H2(30, high)   high pool 60 > 50: H1 demoted     [0] H1 | H2
 *   L1(20, low)                  after lowPriHead (H1)             [0] H1 L1 | H2
 *   L2(30, low)                  110 > 100: evict H1, then insert  [0] L1 L2 | H2
 */
import { assertInvariant, invariants } from "@shale/base";
import { EntryHandle } from "./entry.js";
import {
  EntryTable,
  HAS_HANDLE,
  HIGH_PRI,
  ID,
  IN_CACHE,
  IN_HIGH_POOL,
  MAX_PINS,
  NEXT,
  PIN,
  PREV,
  REFERENCED,
  STATE,
  STRIDE,
  WIDE_KEY,
} from "./entry-table.js";
import type { FreedList } from "./freed-list.js";

export class LRUShard<V> extends EntryTable<V> {
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
  /** Entries the last `eraseIdInSlots` erased. */
  erased = 0;

  /** The newest slot of the low-priority region, or 0 (the sentinel) if it is empty. */
  lowPriHead = 0;
  /** The handle object of each slot that has one (HAS_HANDLE). */
  private handles: Map<number, EntryHandle<V>> | null = null;
  /** Entries freed during the current cache call, for `onEvict` (null when there is none). */
  private readonly freed: FreedList<V> | null;

  constructor(
    owner: object,
    capacity: number,
    highPriPoolRatio: number,
    strictCapacityLimit: boolean,
    freed: FreedList<V> | null,
  ) {
    super();
    this.owner = owner;
    this.highPriPoolRatio = highPriPoolRatio;
    this.strictCapacityLimit = strictCapacityLimit;
    this.freed = freed;
    this.setCapacity(capacity);
  }

  /** Counts a hit on slot `e`, marks it referenced and returns its value (no pin). */
  touch(e: number): V {
    this.hits++;
    this.meta[e * STRIDE + STATE]! |= REFERENCED;
    return this.values[e] as V;
  }

  /** Pins slot `e` (taking it off the LRU list if unpinned), counts a hit; its handle. */
  pin(e: number): EntryHandle<V> {
    const st = this.meta[e * STRIDE + STATE]!;
    if (st < PIN) this.unlink(e);
    else if (st >>> 8 === MAX_PINS) throw new RangeError("an entry holds too many pins");
    this.meta[e * STRIDE + STATE] = st + PIN;
    this.hits++;
    return this.handleOf(e);
  }

  /** The handle object of slot `e`, made on first use. */
  handleOf(e: number): EntryHandle<V> {
    if ((this.meta[e * STRIDE + STATE]! & HAS_HANDLE) !== 0) return this.handles!.get(e)!;
    const h = new EntryHandle<V>(
      this,
      e,
      this.values[e] as V,
      this.idOf(e),
      this.offsetOf(e),
      this.chargeOf(e),
    );
    this.meta[e * STRIDE + STATE]! |= HAS_HANDLE;
    (this.handles ??= new Map()).set(e, h);
    return h;
  }

  /** Pins held on slot `e`. */
  pinsOf(e: number): number {
    return this.meta[e * STRIDE + STATE]! >>> 8;
  }

  /** True if slot `e`'s entry is in the table (not erased, replaced or evicted). */
  inCache(e: number): boolean {
    return (this.meta[e * STRIDE + STATE]! & IN_CACHE) !== 0;
  }

  /**
   * Adds the entry (pinned once if `pin`), evicting unpinned entries first as needed, and
   * returns its slot. Returns 0, adding nothing, if it still does not fit and either the
   * limit is strict or the entry would be unpinned (it would be evicted at once). A replaced
   * entry is freed once unpinned.
   */
  insert(
    hash: number,
    id: number,
    offset: number,
    value: V,
    charge: number,
    highPri: boolean,
    pin: boolean,
  ): number {
    this.evict(charge);
    if (this.usage + charge > this.capacity && (this.strictCapacityLimit || !pin)) return 0;
    const old = this.find(hash, id, offset);
    if (old !== 0) {
      this.unchain(old);
      this.detach(old);
    }
    const e = this.add(hash, id, offset, value, charge, highPri ? HIGH_PRI : 0);
    this.usage += charge;
    this.inserts++;
    if (pin) this.meta[e * STRIDE + STATE]! += PIN;
    else this.link(e);
    return e;
  }

  /** Drops one pin of slot `e`. REQUIRES: it holds a pin. */
  release(e: number): void {
    const st = this.meta[e * STRIDE + STATE]! - PIN;
    this.meta[e * STRIDE + STATE] = st;
    if (st >= PIN) return;
    if ((st & IN_CACHE) !== 0) {
      if (this.usage <= this.capacity) {
        this.link(e);
        return;
      }
      // Over capacity (pinned entries held it there): free instead of keeping.
      this.unchain(e);
      this.evictions++;
    }
    this.usage -= this.chargeOf(e);
    this.free(e);
  }

  /** Removes the entry with this key from the table; it is freed now or on its last release. */
  erase(hash: number, id: number, offset: number): void {
    const e = this.find(hash, id, offset);
    if (e === 0) return;
    this.unchain(e);
    this.detach(e);
  }

  /** Erases every entry whose id is `id` (a scan of the slots' words). */
  eraseId(id: number): void {
    this.eraseIdInSlots(id, 1, this.slotLimit, Number.POSITIVE_INFINITY);
  }

  /**
   * Erases the entries whose id is `id` in slots `from` .. `to` - 1, at most `max` of them;
   * returns the slot where it stopped (`to`, or the slot after the max-th entry erased) and
   * leaves the number erased in `erased`.
   */
  eraseIdInSlots(id: number, from: number, to: number, max: number): number {
    const meta = this.meta; // erasing never reallocates it
    let n = 0;
    let e = from;
    if (id >= 4294967296) {
      for (; e < to && n < max; e++) {
        if ((meta[e * STRIDE + STATE]! & IN_CACHE) !== 0 && this.idOf(e) === id) {
          this.unchain(e);
          this.detach(e);
          n++;
        }
      }
    } else {
      for (let at = e * STRIDE; e < to && n < max; e++, at += STRIDE) {
        // A WIDE_KEY entry's ID word is its id's low half: compare the full id then.
        const st = meta[at + STATE]!;
        if (
          meta[at + ID] === id &&
          (st & IN_CACHE) !== 0 &&
          ((st & WIDE_KEY) === 0 || this.idOf(e) === id)
        ) {
          this.unchain(e);
          this.detach(e);
          n++;
        }
      }
    }
    this.erased = n;
    return e;
  }

  setCapacity(capacity: number): void {
    this.capacity = capacity;
    this.highPriCapacity = Math.floor(capacity * this.highPriPoolRatio);
    this.evict(0);
    this.maintainPoolSize();
  }

  /** Marks an unchained slot as not in cache and frees it if unpinned. */
  private detach(e: number): void {
    const st = this.meta[e * STRIDE + STATE]! & ~IN_CACHE;
    this.meta[e * STRIDE + STATE] = st;
    if (st < PIN) {
      this.unlink(e);
      this.usage -= this.chargeOf(e);
      this.free(e);
    }
  }

  /** Evicts from the LRU end until usage + charge <= capacity or no unpinned entry is left. */
  private evict(charge: number): void {
    while (this.usage + charge > this.capacity) {
      const old = this.meta[NEXT]!;
      if (old === 0) return;
      this.unlink(old);
      if ((this.meta[old * STRIDE + STATE]! & REFERENCED) !== 0) {
        // Second chance (see `touch`): it goes back in as newest of its pool, unreferenced.
        this.link(old);
        continue;
      }
      this.unchain(old);
      this.meta[old * STRIDE + STATE]! &= ~IN_CACHE;
      this.usage -= this.chargeOf(old);
      this.evictions++;
      this.free(old);
    }
  }

  /** Lets slot `e` go: to onEvict's list, its handle told, the slot reused. */
  private free(e: number): void {
    if (invariants) assertInvariant(this.usage >= 0, "shard usage went negative");
    if (this.freed !== null) this.freed.push(this.values[e] as V, this.idOf(e), this.offsetOf(e));
    if ((this.meta[e * STRIDE + STATE]! & HAS_HANDLE) !== 0) {
      const handles = this.handles!;
      handles.get(e)!.slot = -1;
      handles.delete(e);
    }
    this.freeSlot(e);
  }

  /** Links an unpinned slot in at the head of its pool (see the drawing above). */
  private link(e: number): void {
    const meta = this.meta;
    const at = e * STRIDE;
    const charge = this.chargeOf(e);
    const st = meta[at + STATE]! & ~(REFERENCED | IN_HIGH_POOL);
    if ((st & HIGH_PRI) !== 0 && this.highPriPoolRatio > 0) {
      const newest = meta[PREV]!;
      meta[at + NEXT] = 0;
      meta[at + PREV] = newest;
      meta[newest * STRIDE + NEXT] = e;
      meta[PREV] = e;
      meta[at + STATE] = st | IN_HIGH_POOL;
      this.highPriUsage += charge;
      this.lruUsage += charge;
      this.maintainPoolSize();
    } else {
      const head = this.lowPriHead;
      const after = meta[head * STRIDE + NEXT]!;
      meta[at + NEXT] = after;
      meta[at + PREV] = head;
      meta[head * STRIDE + NEXT] = e;
      meta[after * STRIDE + PREV] = e;
      meta[at + STATE] = st;
      this.lowPriHead = e;
      this.lruUsage += charge;
    }
  }

  /** Unlinks a slot from the LRU list. REQUIRES: it is in the list. */
  private unlink(e: number): void {
    const meta = this.meta;
    const at = e * STRIDE;
    const before = meta[at + PREV]!;
    const after = meta[at + NEXT]!;
    if (this.lowPriHead === e) this.lowPriHead = before;
    meta[after * STRIDE + PREV] = before;
    meta[before * STRIDE + NEXT] = after;
    const charge = this.chargeOf(e);
    this.lruUsage -= charge;
    const st = meta[at + STATE]!;
    if ((st & IN_HIGH_POOL) !== 0) {
      this.highPriUsage -= charge;
      meta[at + STATE] = st & ~IN_HIGH_POOL;
    }
  }

  /** Demotes the oldest high-pool entries into the low region until the pool fits. */
  private maintainPoolSize(): void {
    while (this.highPriUsage > this.highPriCapacity) {
      const e = this.meta[this.lowPriHead * STRIDE + NEXT]!;
      this.lowPriHead = e;
      this.meta[e * STRIDE + STATE]! &= ~IN_HIGH_POOL;
      this.highPriUsage -= this.chargeOf(e);
    }
  }

  /** The LRU list, oldest first, as "id/offset" with "*" for the high pool (for tests). */
  lruKeys(): string[] {
    const meta = this.meta;
    const out: string[] = [];
    for (let e = meta[NEXT]!; e !== 0; e = meta[e * STRIDE + NEXT]!) {
      const high = (meta[e * STRIDE + STATE]! & IN_HIGH_POOL) !== 0;
      out.push(`${this.idOf(e)}/${this.offsetOf(e)}${high ? "*" : ""}`);
    }
    return out;
  }

  /** Slots of the entries in the table (for tests and checks). */
  tableSlots(): number[] {
    const out: number[] = [];
    for (let e = 1; e < this.slotLimit; e++) if (this.inCache(e)) out.push(e);
    return out;
  }

  /** Walks the whole shard and throws if a structural invariant is broken (O(slots)). */
  verify(): void {
    const meta = this.meta;
    const prev = (e: number): number => meta[e * STRIDE + PREV]!;
    const next = (e: number): number => meta[e * STRIDE + NEXT]!;
    const state = (e: number): number => meta[e * STRIDE + STATE]!;
    let lruUsage = 0;
    let highPriUsage = 0;
    // Low entries come up to and including lowPriHead; high-pool entries come after it.
    let sawHead = this.lowPriHead === 0;
    let listed = 0;
    for (let e = next(0); e !== 0; e = next(e)) {
      assertInvariant(prev(next(e)) === e && next(prev(e)) === e, "LRU links are inconsistent");
      const st = state(e);
      assertInvariant((st & IN_CACHE) !== 0 && st < PIN, "a pinned or erased entry is listed");
      if ((st & IN_HIGH_POOL) !== 0) {
        assertInvariant(sawHead, "a high-pool entry precedes lowPriHead");
        highPriUsage += this.chargeOf(e);
      } else {
        assertInvariant(!sawHead, "a low entry follows lowPriHead");
      }
      if (e === this.lowPriHead) sawHead = true;
      lruUsage += this.chargeOf(e);
      assertInvariant(++listed <= this.slotLimit, "the LRU list has a cycle");
    }
    assertInvariant(sawHead, "lowPriHead is not in the LRU list");
    assertInvariant(lruUsage === this.lruUsage, "lruUsage does not match the list");
    assertInvariant(highPriUsage === this.highPriUsage, "highPriUsage does not match the list");
    assertInvariant(this.highPriUsage <= this.highPriCapacity, "the high pool is over capacity");
    assertInvariant(this.values.length === this.mask + 1, "values has the wrong length");
    let inTable = 0;
    let unpinned = 0;
    let charged = 0;
    let handles = 0;
    for (let e = 1; e < this.slotLimit; e++) {
      const st = state(e);
      if (st === 0) continue; // free
      charged += this.chargeOf(e);
      if ((st & HAS_HANDLE) !== 0) {
        handles++;
        assertInvariant(this.handles?.get(e)?.slot === e, "a handle flag without its handle");
      }
      if ((st & IN_CACHE) === 0) {
        assertInvariant(st >= PIN, "an erased entry with no pin was not freed");
        assertInvariant(this.chainPosition(e) === -1, "an erased entry is still findable");
        continue;
      }
      inTable++;
      if (st < PIN) unpinned++;
      assertInvariant(this.chainPosition(e) > 0, "a table entry is not reachable");
      assertInvariant(
        this.find(this.hashOf(e), this.idOf(e), this.offsetOf(e)) === e,
        "a key maps elsewhere",
      );
    }
    assertInvariant(inTable === this.count, "table count is wrong");
    assertInvariant(unpinned === listed, "unpinned table entries and the LRU list differ");
    assertInvariant(charged === this.usage, "usage does not match the charged slots");
    assertInvariant(handles === (this.handles?.size ?? 0), "a handle outlived its entry");
  }
}
