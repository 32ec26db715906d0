/**
 * A sharded LRU cache with byte charges and pinning handles (RocksDB's LRUCache +
 * ShardedCache), keyed by `(id, offset)`.
 *
 *   key (id, offset) --hashKey--> h (32 bits)
 *     shard = h >>> (32 - numShardBits)        one of 2^numShardBits independent LRUShards
 *     slot  = h & (table length - 1)           inside that shard's open-addressing table
 *
 * Capacity is split exactly over the shards (floor, the remainder spread one byte each over
 * the first shards), so the shards' capacities sum to `capacity`. See shard.ts for the LRU
 * list, the high-priority pool and eviction; entry-table.ts for how entries are stored (typed
 * arrays by slot: no object per entry) and entry.ts for handles and an entry's states.
 *
 * Single-threaded: no method may be called from inside another (except from `onEvict`, which
 * runs once the cache is consistent again).
 */
import { ShaleError } from "@shale/base";
import { type CacheHandle, type CachePriority, EntryHandle } from "./entry.js";
import { EntryTable, ID, IN_CACHE, OFFSET, PIN, STATE, STRIDE, WIDE_KEY } from "./entry-table.js";
import { FreedList } from "./freed-list.js";
import { checkBytes, hashKey, isKeyPart, keyError } from "./key.js";
import { type LRUCacheOptions, resolveOptions } from "./options.js";
import { LRUShard } from "./shard.js";

/** Counters and gauges of a cache (see `LRUCache.stats`). */
export interface CacheStats {
  /** Lookups that found their key. */
  hits: number;
  /** Lookups that did not. */
  misses: number;
  /** Entries added by insert / insertUnpinned (failed inserts are not counted). */
  inserts: number;
  /** Entries dropped to make room or because the cache was over capacity. */
  evictions: number;
  /** Bytes charged: entries in the cache plus erased entries still pinned. */
  usage: number;
  /** Bytes of `usage` held by pinned entries. */
  pinnedUsage: number;
  /** The configured capacity in bytes. */
  capacity: number;
  /** Number of entries in the cache (reachable by lookup). */
  entries: number;
}

/** The error of a release without a pin (a cold path, out of `release`). */
function releasedError(r: EntryHandle<unknown>): ShaleError {
  return ShaleError.invalidArgument(
    `release: handle of (${r.id}, ${r.offset}) was already released or holds no pin`,
  );
}

/** Released handles the pool keeps for later pins (entry.ts). */
export const MAX_POOLED_HANDLES = 256;

/** Entries one step of `eraseIdSoon` erases at most. */
export const ERASE_STEP_ENTRIES = 1024;
/** Slots one step of `eraseIdSoon` scans at most (~0.5-1 ms). */
export const ERASE_STEP_SLOTS = 1 << 16;

export class LRUCache<V> {
  private readonly shards: LRUShard<V>[];
  /** Every shard's entries: one table (see entry-table.ts). */
  private readonly table: EntryTable<V>;
  /** Released handles, the last released on top, for the next pins (entry.ts). */
  private readonly pool: EntryHandle<V>[] = [];
  /**
   * The last key a lookup or get missed, its hash, and `table.adds` then: an insert of that
   * key (the usual "miss, then insert") reuses the hash and, if nothing was added since,
   * skips looking for an entry to replace.
   */
  private missId = -1;
  private missOffset = -1;
  private missHash = 0;
  private missAdds = -1;
  /** Set by `hashOf`: the key is known to be absent from the table. */
  private absent = false;
  /** Lookups (get, lookup, touch) that found their entry, and that did not. */
  private hits = 0;
  private misses = 0;
  private readonly shardShift: number;
  private readonly shardMask: number;
  private totalCapacity: number;
  private lastId = 0;
  /** Entries freed during the current call, waiting for onEvict (null without onEvict). */
  private readonly freed: FreedList<V> | null;
  private readonly onEvict: ((value: V, id: number, offset: number) => void) | undefined;
  private draining = false;
  /** Ids `eraseIdSoon` was given and has not finished erasing, oldest first. */
  private readonly pendingIds: number[] = [];
  private eraseScheduled = false;
  /** The slot where `eraseIdSoon` goes on scanning for the first pending id. */
  private eraseSlot = 0;

  /** Throws TypeError / ShaleError (InvalidArgument) for bad options (see LRUCacheOptions). */
  constructor(options: LRUCacheOptions<V>) {
    const resolved = resolveOptions(options);
    const bits = resolved.numShardBits;
    this.shardShift = 32 - bits; // bits = 0: shift 32 acts as 0, but the mask is 0 then
    this.shardMask = (1 << bits) - 1;
    this.totalCapacity = resolved.capacity;
    this.onEvict = resolved.onEvict;
    this.freed = resolved.onEvict === undefined ? null : new FreedList<V>();
    this.shards = [];
    this.table = new EntryTable<V>(1 << bits);
    for (let i = 0; i < 1 << bits; i++) {
      const shard = new LRUShard<V>(
        this,
        this.table,
        i,
        this.shardShift,
        this.shardMask,
        0,
        resolved.highPriPoolRatio,
        resolved.strictCapacityLimit,
        this.freed,
      );
      this.shards.push(shard);
    }
    this.spreadCapacity(resolved.capacity);
  }

  /**
   * Inserts `value` under `(id, offset)`, charging `charge` bytes, and returns a handle that
   * pins the new entry (release it exactly once). An existing entry with that key is replaced:
   * it leaves the cache now and is freed once its own pins are released. Unpinned entries of
   * the key's shard are evicted, least recently used first, to make room.
   *
   * If the entry still does not fit: with `strictCapacityLimit` it throws ShaleError
   * (Incomplete) and nothing is inserted (an existing entry of the key stays, but evictions
   * already made are not undone); without it, the entry is inserted anyway and the cache
   * stays over capacity until pinned entries are released.
   * id, offset and charge must be non-negative safe integers (else ShaleError InvalidArgument,
   * or TypeError for non-numbers); priority is "high" or "low" (Default: "low").
   * The cache keeps `value` itself (no copy): do not mutate it while it is cached.
   */
  insert(
    id: number,
    offset: number,
    value: V,
    charge: number,
    priority?: CachePriority,
  ): CacheHandle<V> {
    const highPri = this.checkInsert(id, offset, charge, priority);
    const h = this.hashOf(id, offset);
    const shard = this.shards[(h >>> this.shardShift) & this.shardMask]!;
    const e = shard.insert(h, id, offset, value, charge, highPri, true, this.absent);
    // The handle is filled before onEvict runs: a callback may free the entry again.
    const handle = e === 0 ? undefined : this.handleFor(shard, e, this.table.chargeOf(e));
    if (this.freed !== null && this.freed.count !== 0) this.drain();
    if (handle === undefined) {
      throw ShaleError.incomplete(
        `insert of (${id}, ${offset}) with charge ${charge} failed: it does not fit in its shard without evicting pinned entries`,
      );
    }
    return handle;
  }

  /**
   * As `insert`, but keeps no pin: the entry is evictable at once. Returns false, inserting
   * nothing, when the entry does not fit even after evicting every unpinned entry of its
   * shard — with or without `strictCapacityLimit` (as RocksDB, an unpinned entry that does
   * not fit would be evicted immediately).
   */
  insertUnpinned(
    id: number,
    offset: number,
    value: V,
    charge: number,
    priority?: CachePriority,
  ): boolean {
    const highPri = this.checkInsert(id, offset, charge, priority);
    const h = this.hashOf(id, offset);
    const shard = this.shards[(h >>> this.shardShift) & this.shardMask]!;
    const e = shard.insert(h, id, offset, value, charge, highPri, false, this.absent);
    if (this.freed !== null && this.freed.count !== 0) this.drain();
    return e !== 0;
  }

  /**
   * As `insertUnpinned`, but returns a reference to the new entry, or undefined when nothing
   * was inserted. A reference is a `CacheHandle` that holds no pin (never release it): pass
   * it to `touch` to count a hit on the entry without looking its key up. It is good until
   * the entry leaves the cache (evicted, erased or replaced); with `onEvict`, the call that
   * reports the entry's value marks that moment, so a holder can forget the reference there.
   */
  insertReferenced(
    id: number,
    offset: number,
    value: V,
    charge: number,
    priority?: CachePriority,
  ): CacheHandle<V> | undefined {
    const highPri = this.checkInsert(id, offset, charge, priority);
    const h = this.hashOf(id, offset);
    const shard = this.shards[(h >>> this.shardShift) & this.shardMask]!;
    const e = shard.insert(h, id, offset, value, charge, highPri, false, this.absent);
    let ref: EntryHandle<V> | undefined;
    if (e !== 0) {
      ref = this.handleFor(shard, e, this.table.chargeOf(e));
      ref.referenced = true;
      shard.setReference(e, ref);
    }
    if (this.freed !== null && this.freed.count !== 0) this.drain();
    return ref;
  }

  /**
   * Counts a hit on the entry `ref` refers to (a reference from `insertReferenced`) and
   * marks it recently used, as `get` does, without the key's lookup; returns its value.
   * Returns undefined, counting nothing, once the entry has left the cache. Allocates
   * nothing. TypeError for a reference of another cache.
   */
  touch(ref: CacheHandle<V>): V | undefined {
    const r = ref as EntryHandle<V>;
    const shard = r.shard;
    if (shard === undefined || shard.owner !== this) {
      throw new TypeError("touch: not a reference of this cache");
    }
    const slot = r.slot;
    if (slot <= 0 || !shard.inCache(slot)) return undefined;
    this.hits++;
    return this.table.touch(slot);
  }

  /**
   * A handle pinning the entry with this key (release it exactly once), or undefined.
   * Counts a hit or a miss. Each pin has a handle of its own, taken from the pool of released
   * handles: allocates nothing unless the pool is empty (more pins held than ever released).
   */
  lookup(id: number, offset: number): CacheHandle<V> | undefined {
    const h = hashKey(id, offset);
    const e = this.table.find(h, id, offset);
    if (e !== 0) {
      this.hits++;
      const shard = this.shards[(h >>> this.shardShift) & this.shardMask]!;
      return this.handleFor(shard, e, shard.pin(e));
    }
    // Only a miss can come from a bad key (a hit equals, with ===, a key checked by insert),
    // so the key is checked here, off the hit path.
    if (!isKeyPart(id) || !isKeyPart(offset)) throw keyError(id, offset);
    this.misses++;
    this.missed(id, offset, h);
    return undefined;
  }

  /**
   * The value of the entry with this key, or undefined; the entry becomes the most recently
   * used of its pool, but no pin is taken (nothing to release). The value stays valid after
   * the entry leaves the cache (the garbage collector keeps what is referenced), so this is
   * `lookup` + `release` for callers that need no eviction barrier, at less cost.
   * Counts a hit or a miss. Allocates nothing.
   */
  get(id: number, offset: number): V | undefined {
    const h = hashKey(id, offset);
    const e = this.table.find(h, id, offset);
    if (e !== 0) {
      this.hits++;
      return this.table.touch(e);
    }
    if (!isKeyPart(id) || !isKeyPart(offset)) throw keyError(id, offset);
    this.misses++;
    this.missed(id, offset, h);
    return undefined;
  }

  /** Remembers a missed key (see `missId`). */
  private missed(id: number, offset: number, h: number): void {
    this.missId = id;
    this.missOffset = offset;
    this.missHash = h;
    this.missAdds = this.table.adds;
  }

  /** The key's hash, from the last miss if it is that key; sets `absent`. */
  private hashOf(id: number, offset: number): number {
    if (id === this.missId && offset === this.missOffset) {
      this.absent = this.missAdds === this.table.adds;
      return this.missHash;
    }
    this.absent = false;
    return hashKey(id, offset);
  }

  /**
   * Drops the pin of `handle`. When an entry's last pin goes it becomes evictable again (at
   * the head of its pool), or is freed if it was erased or replaced, or if its shard is over
   * capacity. Throws ShaleError (InvalidArgument) when the entry has no pin left (a second
   * release of a handle), TypeError for a handle of another cache.
   * Note: a released handle goes back to a pool and a later pin (of any entry) may take it,
   * after which a second release of it drops that pin, as in RocksDB: release each handle
   * once. A reference (`insertReferenced`) holds no pin: releasing it throws.
   */
  release(handle: CacheHandle<V>): void {
    const r = handle as EntryHandle<V>;
    const shard = r.shard as LRUShard<V> | undefined;
    if (shard === undefined || shard.owner !== this) {
      throw new TypeError("release: not a handle of this cache");
    }
    const slot = r.slot;
    const meta = this.table.meta;
    const at = slot * STRIDE + STATE;
    const st = slot > 0 && !r.referenced ? meta[at]! : 0;
    if (st < PIN) throw releasedError(r);
    const charge = r.charge;
    r.detach();
    const pool = this.pool;
    if (pool.length < MAX_POOLED_HANDLES) pool.push(r);
    meta[at] = st - PIN;
    if (st >= 2 * PIN) return; // not the last pin
    shard.released(slot, st - PIN, charge);
    if (this.freed !== null && this.freed.count !== 0) this.drain();
  }

  /**
   * A handle pinning slot `e` (of `charge` bytes) of `shard`: the last released one, or a
   * new one if the pool is empty.
   */
  private handleFor(shard: LRUShard<V>, e: number, charge: number): EntryHandle<V> {
    const table = this.table;
    const meta = table.meta;
    const at = e * STRIDE;
    const value = table.values[e] as V;
    const wide = (meta[at + STATE]! & WIDE_KEY) !== 0;
    const id = wide ? table.idOf(e) : meta[at + ID]!;
    const offset = wide ? table.offsetOf(e) : meta[at + OFFSET]!;
    const pool = this.pool;
    if (pool.length === 0) return new EntryHandle<V>(shard, e, value, id, offset, charge);
    const h = pool.pop()!;
    h.reset(shard, e, value, id, offset, charge);
    return h;
  }

  /**
   * True if an entry of this key and `charge` would fit in its shard without evicting
   * anything (a reader filling the cache only with free space asks this: the total usage
   * can be below capacity while the entry's own shard is full).
   */
  hasRoomFor(id: number, offset: number, charge: number): boolean {
    const shard = this.shards[(hashKey(id, offset) >>> this.shardShift) & this.shardMask]!;
    return shard.usage + charge <= shard.capacity;
  }

  /** Removes the entry with this key, if any; it is freed now or on its last release. */
  erase(id: number, offset: number): void {
    if (!isKeyPart(id) || !isKeyPart(offset)) throw keyError(id, offset);
    const h = hashKey(id, offset);
    this.shards[(h >>> this.shardShift) & this.shardMask]!.erase(h, id, offset);
    if (this.freed !== null && this.freed.count !== 0) this.drain();
  }

  /**
   * Erases every entry whose id is `id` (e.g. the blocks of a deleted table), as `erase`.
   * Cost: a scan of the entry table (~10 ns a slot once it is bigger than the CPU caches:
   * 0.16 ms at 16k entries, 12-13 ms at 1M) plus the entries erased; `eraseIdSoon` spreads
   * it over bounded steps.
   */
  eraseId(id: number): void {
    if (!isKeyPart(id)) throw keyError(id, 0);
    this.eraseIdInSlots(id, this.table.firstSlot, this.table.slotLimit, Number.POSITIVE_INFINITY);
    if (this.freed !== null && this.freed.count !== 0) this.drain();
  }

  /**
   * Erases every entry whose id is `id`, as `eraseId`, but in steps, one per macrotask
   * (`setTimeout(0)`, unref'd in Node), each scanning at most `ERASE_STEP_SLOTS` slots and
   * erasing at most `ERASE_STEP_ENTRIES` entries, so that a caller dropping a big table's
   * blocks never pauses for it. Until erased the entries stay findable and evictable as
   * before; an entry of `id` inserted after this call may stay (a slot already scanned is
   * not scanned again). Pending ids are erased in the order given. An `onEvict` exception in
   * a step is thrown from the timer (uncaught); the step's other callbacks then run at the
   * next cache call.
   */
  eraseIdSoon(id: number): void {
    if (!isKeyPart(id)) throw keyError(id, 0);
    this.pendingIds.push(id);
    if (!this.eraseScheduled) this.scheduleErase();
  }

  /** Ids whose entries `eraseIdSoon` has yet to erase (tests). */
  get pendingEraseIds(): readonly number[] {
    return this.pendingIds;
  }

  private scheduleErase(): void {
    this.eraseScheduled = true;
    const timer = setTimeout(this.eraseStep, 0) as unknown as { unref?: () => void };
    timer.unref?.();
  }

  /** One step of `eraseIdSoon`: a bounded scan from where the last step stopped. */
  private readonly eraseStep = (): void => {
    this.eraseScheduled = false;
    let entries = ERASE_STEP_ENTRIES;
    let slots = ERASE_STEP_SLOTS;
    const pending = this.pendingIds;
    const table = this.table;
    while (entries > 0 && slots > 0 && pending.length > 0) {
      const from = Math.max(this.eraseSlot, table.firstSlot);
      const limit = table.slotLimit;
      const to = limit - from < slots ? limit : from + slots;
      const stop = this.eraseIdInSlots(pending[0]!, from, to, entries);
      entries -= this.erased;
      slots -= stop - from;
      this.eraseSlot = stop;
      if (stop >= limit) {
        this.eraseSlot = 0;
        pending.shift();
      }
    }
    if (pending.length > 0) this.scheduleErase();
    if (this.freed !== null && this.freed.count !== 0) this.drain();
  };

  /**
   * Erases the entries whose id is `id` in slots `from` .. `to` - 1, at most `max` of them;
   * returns the slot where it stopped (`to`, or the slot after the max-th entry erased) and
   * leaves the number erased in `erased`. Compares each slot's id word in place.
   */
  private eraseIdInSlots(id: number, from: number, to: number, max: number): number {
    const table = this.table;
    const meta = table.meta; // erasing never reallocates it
    const wide = id >= 4294967296;
    let n = 0;
    let e = from;
    for (let at = e * STRIDE; e < to && n < max; e++, at += STRIDE) {
      const st = meta[at + STATE]!;
      if ((st & IN_CACHE) === 0) continue;
      // A WIDE_KEY entry's ID word is its id's low half: compare the full id then.
      if (wide || (st & WIDE_KEY) !== 0 ? table.idOf(e) === id : meta[at + ID] === id) {
        const h = table.hashOf(e);
        this.shards[(h >>> this.shardShift) & this.shardMask]!.eraseSlot(e);
        n++;
      }
    }
    this.erased = n;
    return e;
  }

  /** Entries the last `eraseIdInSlots` erased. */
  private erased = 0;

  /**
   * Sets the capacity in bytes; shrinking evicts unpinned entries at once (pinned ones keep
   * usage above the new capacity until they are released).
   */
  setCapacity(bytes: number): void {
    this.totalCapacity = checkBytes("capacity", bytes);
    this.spreadCapacity(bytes);
    if (this.freed !== null && this.freed.count !== 0) this.drain();
  }

  /** The capacity in bytes. */
  get capacity(): number {
    return this.totalCapacity;
  }

  /** Bytes charged: entries in the cache plus erased entries still pinned. */
  get usage(): number {
    let usage = 0;
    for (const shard of this.shards) usage += shard.usage;
    return usage;
  }

  /** Bytes charged by pinned entries. */
  get pinnedUsage(): number {
    let pinned = 0;
    for (const shard of this.shards) pinned += shard.pinnedUsage;
    return pinned;
  }

  /** The number of shards (2^numShardBits). */
  get numShards(): number {
    return this.shards.length;
  }

  /**
   * Entries evicted so far (since construction or `resetStats`), over every shard: what
   * `stats().evictions` says, without building the snapshot.
   */
  get evictions(): number {
    let n = 0;
    for (const shard of this.shards) n += shard.evictions;
    return n;
  }

  /** A snapshot of the counters (since construction or `resetStats`) and gauges. */
  stats(): CacheStats {
    const s: CacheStats = {
      hits: this.hits,
      misses: this.misses,
      inserts: 0,
      evictions: 0,
      usage: 0,
      pinnedUsage: 0,
      capacity: this.totalCapacity,
      entries: 0,
    };
    for (const shard of this.shards) {
      s.inserts += shard.inserts;
      s.evictions += shard.evictions;
      s.usage += shard.usage;
      s.pinnedUsage += shard.pinnedUsage;
      s.entries += shard.count;
    }
    return s;
  }

  /** Zeroes hits, misses, inserts and evictions. */
  resetStats(): void {
    this.hits = 0;
    this.misses = 0;
    for (const shard of this.shards) {
      shard.inserts = 0;
      shard.evictions = 0;
    }
  }

  /**
   * A fresh id (1, 2, 3, ...) for a new user of the cache (e.g. each opened table), unique per
   * cache. Do not mix it with ids chosen by hand in the same cache.
   */
  newId(): number {
    return ++this.lastId;
  }

  /** Validates an insert's arguments; true for priority "high". */
  private checkInsert(
    id: number,
    offset: number,
    charge: number,
    priority: CachePriority | undefined,
  ): boolean {
    if (!isKeyPart(id) || !isKeyPart(offset)) throw keyError(id, offset);
    checkBytes("charge", charge);
    if (priority === "high") return true;
    if (priority !== undefined && priority !== "low") {
      if (typeof priority !== "string") throw new TypeError("priority must be a string");
      throw ShaleError.invalidArgument(`priority must be "high" or "low", got "${priority}"`);
    }
    return false;
  }

  private spreadCapacity(capacity: number): void {
    const n = this.shards.length;
    const base = Math.floor(capacity / n);
    const extra = capacity - base * n;
    for (let i = 0; i < n; i++) this.shards[i]!.setCapacity(base + (i < extra ? 1 : 0));
  }

  /** Runs onEvict for the entries freed so far (not re-entrantly). */
  private drain(): void {
    if (this.draining) return;
    const freed = this.freed!;
    const onEvict = this.onEvict!;
    this.draining = true;
    let i = 0;
    try {
      // onEvict may free more (a re-entrant call): `count` is read at every step.
      for (; i < freed.count; i++) {
        onEvict(freed.valueAt(i), freed.idAt(i), freed.offsetAt(i));
      }
    } finally {
      // After a throw, the entry that threw is dropped with the ones before it.
      freed.dropFirst(i >= freed.count ? freed.count : i + 1);
      this.draining = false;
    }
  }
}
