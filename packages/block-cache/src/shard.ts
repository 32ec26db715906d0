/**
 * One shard of the LRU cache (RocksDB's LRUCacheShard): its capacity, usage and an
 * intrusive, circular, doubly-linked LRU list by slot index (the PREV / NEXT words of the
 * cache's entry table, entry-table.ts, which every shard shares). Every unpinned entry in
 * the table is in the list; a pinned entry stays where it was until eviction reaches it,
 * which takes it off the list instead of evicting it (IN_LIST tells), so pinned entries are
 * never evicted and a pin or a release costs no list writes.
 *
 *       evict from here                                                 newest
 *       NEXT of [s]                                                    PREV of [s]
 *   [s] <-> L1 <-> ... <-> Lk <-> H1 <-> ... <-> Hm <-> [s]     (circular; [s] = this shard's
 *           \______ low ______/   \________ high-priority pool ______/     sentinel slot)
 *                        ^ lowPriHead (= [s] when the low region is empty)
 *
 * - Linking an entry in (insertUnpinned; the last release of an entry eviction took off the
 *   list, or of a pinned insert): priority "high" (and highPriPoolRatio > 0): at the head of
 *   the high pool (before [s]); otherwise: at the head of the low region (right after
 *   lowPriHead) — midpoint insertion, so a scan of low-priority blocks never pushes the high
 *   pool towards eviction.
 * - The high pool holds at most highPriCapacity = floor(capacity * highPriPoolRatio) bytes:
 *   while it holds more, its oldest entry H1 is demoted by moving lowPriHead forward over it
 *   (the list order never changes, only the boundary).
 * - Eviction takes NEXT of [s] (the oldest low entry, then the oldest high entry) until
 *   usage + charge <= capacity or the list is empty: a pinned one leaves the list (its last
 *   release links it back in as the newest of its pool), a REFERENCED one is relinked as the
 *   newest of its pool, unreferenced (CLOCK's second chance), any other is evicted.
 * - A hit, pinning (lookup) or not (get, entry-table.ts's `touch`), sets REFERENCED and
 *   leaves the list alone: an entry used since it was linked in outlives every entry that
 *   was not. A release that is not an entry's last, or whose entry is still in the list,
 *   writes only the pin count; an entry erased meanwhile is freed, and so is one whose shard
 *   is over capacity (pinned entries held it there).
 *
 * usage counts every entry still charged: in the table, or erased but still pinned.
 * lruUsage counts the entries in the list (pinned ones included); pinnedUsage the entries
 * holding a pin.
 * No step allocates, except a table growth (amortized).
 *
 * Worked example: capacity 100, highPriPoolRatio 0.5 (highPriCapacity 50), all unpinned:
 *   H1(30, high), H2(30, high)   high pool 60 > 50: H1 demoted     [s] H1 | H2
 *   L1(20, low)                  after lowPriHead (H1)             [s] H1 L1 | H2
 *   L2(30, low)                  110 > 100: evict H1, then insert  [s] L1 L2 | H2
 * then lookup L1 (pinned, REFERENCED, still in the list) and insert L3(30, low): 130 > 100,
 * L1 is pinned: off the list; L2 evicted                          [s] L3 | H2
 * and release L1 (its last pin): linked in after lowPriHead        [s] L3 L1 | H2
 */
import { assertInvariant, invariants } from "@shale/base";
import {
  BIG_CHARGE,
  CHARGE,
  type EntryTable,
  HAS_REF,
  HIGH_PRI,
  IN_CACHE,
  IN_HIGH_POOL,
  IN_LIST,
  MAX_PINS,
  PIN,
  REFERENCED,
  type SlotHandle,
  STATE,
  STRIDE,
} from "./entry-table.js";
import type { FreedList } from "./freed-list.js";

export class LRUShard<V> {
  /** The cache this shard belongs to (handles of other caches are rejected). */
  readonly owner: object;
  /** The cache's entries, shared by its shards. */
  readonly table: EntryTable<V>;
  /** This shard's LRU list sentinel: a reserved slot of the table. */
  readonly sentinel: number;
  /** How the cache picks a key's shard (for checks): (hash >>> shift) & mask = sentinel. */
  private readonly shardShift: number;
  private readonly shardMask: number;
  /** Entries of this shard in the table. */
  count = 0;
  capacity = 0;
  highPriCapacity = 0;
  readonly highPriPoolRatio: number;
  readonly strictCapacityLimit: boolean;

  usage = 0;
  lruUsage = 0;
  /** Bytes charged by entries holding a pin. */
  pinnedUsage = 0;
  highPriUsage = 0;

  inserts = 0;
  evictions = 0;

  /** The newest slot of the low-priority region, or the sentinel if that region is empty. */
  lowPriHead: number;
  /** Entries freed during the current cache call, for `onEvict` (null when there is none). */
  private readonly freed: FreedList<V> | null;

  constructor(
    owner: object,
    table: EntryTable<V>,
    sentinel: number,
    shardShift: number,
    shardMask: number,
    capacity: number,
    highPriPoolRatio: number,
    strictCapacityLimit: boolean,
    freed: FreedList<V> | null,
  ) {
    this.owner = owner;
    this.table = table;
    this.shardShift = shardShift;
    this.shardMask = shardMask;
    this.sentinel = sentinel;
    this.lowPriHead = sentinel;
    table.links[sentinel * 2] = sentinel;
    table.links[sentinel * 2 + 1] = sentinel;
    this.highPriPoolRatio = highPriPoolRatio;
    this.strictCapacityLimit = strictCapacityLimit;
    this.freed = freed;
    this.setCapacity(capacity);
  }

  /**
   * Pins slot `e` and marks it REFERENCED, leaving it where it is in the LRU list (the
   * cache fills a pooled handle for the pin); returns its charge.
   */
  pin(e: number): number {
    const meta = this.table.meta;
    const at = e * STRIDE + STATE;
    const st = meta[at]!;
    if (st >= MAX_PINS * PIN) throw new RangeError("an entry holds too many pins");
    const charge = (st & BIG_CHARGE) === 0 ? meta[e * STRIDE + CHARGE]! : this.table.chargeOf(e);
    if (st < PIN) this.pinnedUsage += charge;
    meta[at] = (st | REFERENCED) + PIN;
    return charge;
  }

  /** Records `ref` as slot `e`'s reference (insertReferenced): it is detached when freed. */
  setReference(e: number, ref: SlotHandle): void {
    this.table.meta[e * STRIDE + STATE]! |= HAS_REF;
    (this.table.refs ?? this.table.makeRefs())[e] = ref;
  }

  /** True if slot `e`'s entry is in the table (not erased, replaced or evicted). */
  inCache(e: number): boolean {
    return (this.table.meta[e * STRIDE + STATE]! & IN_CACHE) !== 0;
  }

  /**
   * Adds the entry (pinned once if `pin`), evicting unpinned entries first as needed, and
   * returns its slot. Returns 0, adding nothing, if it still does not fit and either the
   * limit is strict or the entry would be unpinned (it would be evicted at once). A replaced
   * entry is freed once unpinned. `absent`: the caller knows no entry of the key is in the
   * table (then it is not looked for).
   */
  insert(
    hash: number,
    id: number,
    offset: number,
    value: V,
    charge: number,
    highPri: boolean,
    pin: boolean,
    absent: boolean,
  ): number {
    this.evict(charge);
    if (this.usage + charge > this.capacity && (this.strictCapacityLimit || !pin)) return 0;
    const old = absent ? 0 : this.table.find(hash, id, offset);
    if (old !== 0) {
      this.unchainSlot(old);
      this.detach(old);
    }
    const e = this.table.add(hash, id, offset, value, charge, highPri ? HIGH_PRI : 0);
    this.count++;
    this.usage += charge;
    this.inserts++;
    if (pin) {
      this.table.meta[e * STRIDE + STATE]! += PIN;
      this.pinnedUsage += charge;
    } else this.link(e);
    return e;
  }

  /**
   * After the last pin of slot `e` (of `charge` bytes) was dropped, leaving state `st`:
   * links it back in if eviction took it off the list, or frees it if it was erased or its
   * shard is over capacity. REQUIRES: its state word already holds `st` (no pin).
   */
  released(e: number, st: number, charge: number): void {
    this.pinnedUsage -= charge;
    if ((st & IN_CACHE) !== 0) {
      if (this.usage <= this.capacity) {
        if ((st & IN_LIST) === 0) this.link(e);
        return;
      }
      // Over capacity (pinned entries held it there): free instead of keeping.
      if ((st & IN_LIST) !== 0) this.unlink(e);
      this.unchainSlot(e);
      this.evictions++;
    }
    this.usage -= charge;
    this.free(e);
  }

  /** Removes the entry with this key from the table; it is freed now or on its last release. */
  erase(hash: number, id: number, offset: number): void {
    const e = this.table.find(hash, id, offset);
    if (e === 0) return;
    this.unchainSlot(e);
    this.detach(e);
  }

  /** Erases the entry in slot `e` (in the table and of this shard), as `erase`. */
  eraseSlot(e: number): void {
    this.unchainSlot(e);
    this.detach(e);
  }

  setCapacity(capacity: number): void {
    this.capacity = capacity;
    this.highPriCapacity = Math.floor(capacity * this.highPriPoolRatio);
    this.evict(0);
    this.maintainPoolSize();
  }

  /** Takes slot `e` out of the table's chains (lookups miss it). */
  private unchainSlot(e: number): void {
    this.table.unchain(e);
    this.count--;
  }

  /** Marks an unchained slot as not in cache, takes it off the list, frees it if unpinned. */
  private detach(e: number): void {
    const st = this.table.meta[e * STRIDE + STATE]! & ~IN_CACHE;
    this.table.meta[e * STRIDE + STATE] = st;
    if ((st & IN_LIST) !== 0) this.unlink(e);
    if (st < PIN) {
      this.usage -= this.table.chargeOf(e);
      this.free(e);
    }
  }

  /** Evicts from the LRU end until usage + charge <= capacity or no unpinned entry is left. */
  private evict(charge: number): void {
    while (this.usage + charge > this.capacity) {
      const old = this.table.links[this.sentinel * 2 + 1]!;
      if (old === this.sentinel) return;
      this.unlink(old);
      const st = this.table.meta[old * STRIDE + STATE]!;
      // Pinned: off the list until its last release links it back in.
      if (st >= PIN) continue;
      if ((st & REFERENCED) !== 0) {
        // Second chance (see `touch`): it goes back in as newest of its pool, unreferenced.
        this.link(old);
        continue;
      }
      this.unchainSlot(old);
      this.table.meta[old * STRIDE + STATE]! &= ~IN_CACHE;
      this.usage -= this.table.chargeOf(old);
      this.evictions++;
      this.free(old);
    }
  }

  /** Lets slot `e` go: to onEvict's list, its reference told, the slot reused. */
  private free(e: number): void {
    if (invariants) assertInvariant(this.usage >= 0, "shard usage went negative");
    if (this.freed !== null)
      this.freed.push(this.table.values[e] as V, this.table.idOf(e), this.table.offsetOf(e));
    if ((this.table.meta[e * STRIDE + STATE]! & HAS_REF) !== 0) {
      const refs = this.table.refs!;
      refs[e]!.detach();
      refs[e] = undefined;
    }
    this.table.freeSlot(e);
  }

  /** Links an unpinned slot in at the head of its pool (see the drawing above). */
  private link(e: number): void {
    const meta = this.table.meta;
    const links = this.table.links;
    const at = e * STRIDE;
    const charge = this.table.chargeOf(e);
    const st = (meta[at + STATE]! & ~(REFERENCED | IN_HIGH_POOL)) | IN_LIST;
    if ((st & HIGH_PRI) !== 0 && this.highPriPoolRatio > 0) {
      const sentinel = this.sentinel;
      const newest = links[sentinel * 2]!;
      links[e * 2 + 1] = sentinel;
      links[e * 2] = newest;
      links[newest * 2 + 1] = e;
      links[sentinel * 2] = e;
      meta[at + STATE] = st | IN_HIGH_POOL;
      this.highPriUsage += charge;
      this.lruUsage += charge;
      this.maintainPoolSize();
    } else {
      const head = this.lowPriHead;
      const after = links[head * 2 + 1]!;
      links[e * 2 + 1] = after;
      links[e * 2] = head;
      links[head * 2 + 1] = e;
      links[after * 2] = e;
      meta[at + STATE] = st;
      this.lowPriHead = e;
      this.lruUsage += charge;
    }
  }

  /** Unlinks a slot from the LRU list. REQUIRES: it is in the list. */
  private unlink(e: number): void {
    const meta = this.table.meta;
    const links = this.table.links;
    const at = e * STRIDE;
    const before = links[e * 2]!;
    const after = links[e * 2 + 1]!;
    if (this.lowPriHead === e) this.lowPriHead = before;
    links[after * 2] = before;
    links[before * 2 + 1] = after;
    const charge = this.table.chargeOf(e);
    this.lruUsage -= charge;
    const st = meta[at + STATE]!;
    if ((st & IN_HIGH_POOL) !== 0) this.highPriUsage -= charge;
    meta[at + STATE] = st & ~(IN_HIGH_POOL | IN_LIST);
  }

  /** Demotes the oldest high-pool entries into the low region until the pool fits. */
  private maintainPoolSize(): void {
    while (this.highPriUsage > this.highPriCapacity) {
      const e = this.table.links[this.lowPriHead * 2 + 1]!;
      this.lowPriHead = e;
      this.table.meta[e * STRIDE + STATE]! &= ~IN_HIGH_POOL;
      this.highPriUsage -= this.table.chargeOf(e);
    }
  }

  /** The LRU list, oldest first, as "id/offset" with "*" for the high pool (for tests). */
  lruKeys(): string[] {
    const meta = this.table.meta;
    const links = this.table.links;
    const out: string[] = [];
    const sentinel = this.sentinel;
    for (let e = links[sentinel * 2 + 1]!; e !== sentinel; e = links[e * 2 + 1]!) {
      const high = (meta[e * STRIDE + STATE]! & IN_HIGH_POOL) !== 0;
      out.push(`${this.table.idOf(e)}/${this.table.offsetOf(e)}${high ? "*" : ""}`);
    }
    return out;
  }

  /** True if slot `e` (allocated) holds a key of this shard. */
  owns(e: number): boolean {
    return ((this.table.hashOf(e) >>> this.shardShift) & this.shardMask) === this.sentinel;
  }

  /** Slots of this shard's entries in the table (for tests and checks). */
  tableSlots(): number[] {
    const out: number[] = [];
    for (let e = this.table.firstSlot; e < this.table.slotLimit; e++) {
      if (this.inCache(e) && this.owns(e)) out.push(e);
    }
    return out;
  }

  /** Walks the whole shard and throws if a structural invariant is broken (O(slots)). */
  verify(): void {
    const meta = this.table.meta;
    const links = this.table.links;
    const prev = (e: number): number => links[e * 2]!;
    const next = (e: number): number => links[e * 2 + 1]!;
    const state = (e: number): number => meta[e * STRIDE + STATE]!;
    let lruUsage = 0;
    let highPriUsage = 0;
    // Low entries come up to and including lowPriHead; high-pool entries come after it.
    const sentinel = this.sentinel;
    let sawHead = this.lowPriHead === sentinel;
    let listed = 0;
    for (let e = next(sentinel); e !== sentinel; e = next(e)) {
      assertInvariant(prev(next(e)) === e && next(prev(e)) === e, "LRU links are inconsistent");
      const st = state(e);
      assertInvariant(
        (st & IN_CACHE) !== 0 && (st & IN_LIST) !== 0,
        "an erased or unflagged entry is listed",
      );
      if ((st & IN_HIGH_POOL) !== 0) {
        assertInvariant(sawHead, "a high-pool entry precedes lowPriHead");
        highPriUsage += this.table.chargeOf(e);
      } else {
        assertInvariant(!sawHead, "a low entry follows lowPriHead");
      }
      if (e === this.lowPriHead) sawHead = true;
      lruUsage += this.table.chargeOf(e);
      assertInvariant(++listed <= this.table.slotLimit, "the LRU list has a cycle");
    }
    assertInvariant(sawHead, "lowPriHead is not in the LRU list");
    assertInvariant(lruUsage === this.lruUsage, "lruUsage does not match the list");
    assertInvariant(highPriUsage === this.highPriUsage, "highPriUsage does not match the list");
    assertInvariant(this.highPriUsage <= this.highPriCapacity, "the high pool is over capacity");
    assertInvariant(
      this.table.values.length === this.table.capacity,
      "values has the wrong length",
    );
    let inTable = 0;
    let flagged = 0;
    let pinned = 0;
    let charged = 0;
    let handles = 0;
    for (let e = this.table.firstSlot; e < this.table.slotLimit; e++) {
      const st = state(e);
      if (st === 0 || !this.owns(e)) continue; // free, or another shard's
      charged += this.table.chargeOf(e);
      if (st >= PIN) pinned += this.table.chargeOf(e);
      if ((st & IN_LIST) !== 0) flagged++;
      if ((st & HAS_REF) !== 0) {
        handles++;
        assertInvariant(this.table.refs?.[e]?.slot === e, "a reference flag without its reference");
      }
      if ((st & IN_CACHE) === 0) {
        assertInvariant(st >= PIN, "an erased entry with no pin was not freed");
        assertInvariant((st & IN_LIST) === 0, "an erased entry is in the LRU list");
        assertInvariant(this.table.chainPosition(e) === -1, "an erased entry is still findable");
        continue;
      }
      inTable++;
      if (st < PIN) assertInvariant((st & IN_LIST) !== 0, "an unpinned entry is not listed");
      assertInvariant(this.table.chainPosition(e) > 0, "a table entry is not reachable");
      assertInvariant(
        this.table.find(this.table.hashOf(e), this.table.idOf(e), this.table.offsetOf(e)) === e,
        "a key maps elsewhere",
      );
    }
    assertInvariant(inTable === this.count, "the shard's count is wrong");
    assertInvariant(flagged === listed, "IN_LIST entries and the LRU list differ");
    assertInvariant(pinned === this.pinnedUsage, "pinnedUsage does not match the pinned slots");
    assertInvariant(charged === this.usage, "usage does not match the charged slots");
    const all = this.table.refs ?? [];
    let kept = 0;
    for (let e = 0; e < all.length; e++) if (all[e] !== undefined && this.owns(e)) kept++;
    assertInvariant(handles === kept, "a reference outlived its entry");
  }
}
