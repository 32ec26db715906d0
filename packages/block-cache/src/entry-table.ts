/**
 * A shard's entries, in typed arrays indexed by slot, and its hash table from key
 * `(id, offset)` to slot: separate chaining through the slots themselves.
 *
 * One table holds the entries of every shard of a cache (so a lookup loads the same few
 * arrays whichever shard the key is in); each shard has its own LRU list through it.
 *
 *   slot e (firstSlot .. length-1; slots 0 .. shards-1 are the shards' LRU list sentinels,
 *   and 0 is "none" in every chain: a sentinel is never in a chain)
 *
 *   meta: Uint32Array, 5 words a slot, at e * 5 (what a lookup reads, side by side):
 *
 *   +0 OFFSET  the offset (its low 32 bits if WIDE_KEY: the full offset is in wideOffsets)
 *   +1 ID      the id     (likewise, the full id in wideIds)
 *   +2 STATE   flags (low 8 bits, below) | pins << 8
 *   +3 CHAIN   next slot of the same bucket, 0 at the end; for a free slot, the next free one
 *   +4 CHARGE  the charge (0 if BIG_CHARGE: the charge is in bigCharges)
 *
 *   links[e * 2], links[e * 2 + 1]   Int32Array   PREV, NEXT: the LRU list (shard.ts); a
 *                                                 shard's list starts and ends at its sentinel
 *   values[e]    V[]          the value (undefined for a free slot)
 *   buckets[b]   Int32Array   first slot of bucket b = hash & (length - 1), 0 if empty
 *
 *   20 + 8 + 8 bytes a slot, plus 4 a bucket (1 or 2 buckets a slot): 40-44 bytes a slot, at
 *   most one chain entry per bucket on average (load <= 1). A lookup reads its bucket, the
 *   slot's words (offset, id and state side by side) and the value; LRU list work touches the
 *   links, 8 bytes a slot, so a list's neighbours share cache lines far more often than in
 *   a wider record. The hash is not kept: it is recomputed from the key (key.ts, a few ns)
 *   when a slot leaves its chain or the table grows. Keys and charges of 2^32 or more are
 *   exact through the side Maps (made on first use), which stay empty in a block cache
 *   (ids 1, 2, 3, ..., offsets in files below 4 GiB).
 *
 * Slots are allocated from the free list (through `chain`), then from `highWater` up; when
 * none is left the per-slot arrays grow (see `grow`), and the buckets double (their chains
 * rebuilt) once the slots outnumber them. Arrays never shrink. A slot
 * is reused once its entry is freed; the old entry's reference (entry.ts), if any, was told so first.
 *
 * Worked example (length 8, so buckets 0..7): keys A and B hash to bucket 3, C to 5.
 *
 *   insert A, B, C    slots 1=A 2=B 3=C; buckets[3] = 2 -> chain[2] = 1 -> 0; buckets[5] = 3
 *   remove B          buckets[3] = chain[2] = 1; slot 2 heads the free list
 *   insert D (b. 5)   slot 2 = D; buckets[5] = 2 -> chain[2] = 3 -> 0
 *
 * Why not a Map keyed by a number or string: `id * 2^k + offset` loses bits above 2^53, a
 * string allocates per lookup; and a Map entry costs ~28-56 bytes before the LRU links.
 */
import { hashKey } from "./key.js";

/** Words of a slot in `meta`, and their places. */
export const STRIDE = 5;
export const OFFSET = 0;
export const ID = 1;
export const STATE = 2;
export const CHAIN = 3;
export const CHARGE = 4;

/** Entry flags, the low 8 bits of `state`. */
export const IN_CACHE = 1;
/** Read by `get`/`touch` since it was last linked into the LRU list (second chance). */
export const REFERENCED = 2;
/** In the LRU list's high-priority region. */
export const IN_HIGH_POOL = 4;
/** Inserted with priority "high". */
export const HIGH_PRI = 8;
/** A reference to this entry exists (`insertReferenced`; in `refs`, at its slot). */
export const HAS_REF = 16;
/** The id or the offset is 2^32 or more: the full key is in wideIds / wideOffsets. */
export const WIDE_KEY = 32;
/** The charge is 2^32 or more: it is in bigCharges. */
export const BIG_CHARGE = 64;
/** In its shard's LRU list (every unpinned entry in the table; a pinned one until evicted). */
export const IN_LIST = 128;
/** One pin, in `state`. */
export const PIN = 256;
/** Most pins an entry holds (state's top 24 bits). */
export const MAX_PINS = 0xffffff;

const TWO_POW_32 = 4294967296;
const INITIAL_LENGTH = 16;

/** What the table knows of a handle (entry.ts's EntryHandle): the slot it points at. */
export interface SlotHandle {
  slot: number;
  /** The entry was freed: point nowhere (entry.ts). */
  detach(): void;
}

export class EntryTable<V> {
  /** The slots' words (see the layout above). */
  meta: Uint32Array;
  /** LRU list links, two words a slot: PREV at e * 2, NEXT at e * 2 + 1 (shard.ts). */
  links: Int32Array;
  buckets: Int32Array;
  values: (V | undefined)[];
  /** Slots the per-slot arrays hold (meta, links, values, refs); grows by half. */
  capacity: number;
  /** buckets.length - 1 (a power of two, at least capacity, minus one). */
  mask: number;
  /** Slots below this have been used; slots from here up never were. */
  private highWater: number;
  /** The first free slot below highWater, 0 if none. */
  private freeHead = 0;
  /** Entries in the table (reachable by key). */
  count = 0;
  /** Entries ever added (`add` calls): a key absent at one value stays absent until it moves. */
  adds = 0;
  /**
   * The reference of each slot that has one (HAS_REF), by slot; null until the first
   * reference is made (a cache used without insertReferenced never pays its 8 bytes a
   * slot).
   */
  refs: (SlotHandle | undefined)[] | null = null;
  /** Full keys and charges that do not fit 32 bits, by slot (null until needed). */
  wideIds: Map<number, number> | null = null;
  wideOffsets: Map<number, number> | null = null;
  bigCharges: Map<number, number> | null = null;

  /** The first `sentinels` slots are reserved (the shards' LRU list sentinels). */
  constructor(sentinels = 1) {
    let length = INITIAL_LENGTH;
    while (length <= sentinels) length *= 2;
    this.meta = new Uint32Array(length * STRIDE);
    this.links = new Int32Array(length * 2);
    this.buckets = new Int32Array(length);
    this.mask = length - 1;
    this.capacity = length;
    this.values = resized([], length);
    this.highWater = sentinels;
    this.firstSlot = sentinels;
  }

  /** The first slot that can hold an entry (the ones below are sentinels). */
  readonly firstSlot: number;

  /** The slot of the entry in the table with this key, or 0. */
  find(hash: number, id: number, offset: number): number {
    if (id >= TWO_POW_32 || offset >= TWO_POW_32) return this.findWide(hash, id, offset);
    const meta = this.meta;
    let e = this.buckets[hash & this.mask]!;
    while (e !== 0) {
      const at = e * STRIDE;
      if (
        meta[at + OFFSET] === offset &&
        meta[at + ID] === id &&
        (meta[at + STATE]! & WIDE_KEY) === 0
      ) {
        return e;
      }
      e = meta[at + CHAIN]!;
    }
    return 0;
  }

  private findWide(hash: number, id: number, offset: number): number {
    const meta = this.meta;
    let e = this.buckets[hash & this.mask]!;
    while (e !== 0) {
      if (
        (meta[e * STRIDE + STATE]! & WIDE_KEY) !== 0 &&
        this.offsetOf(e) === offset &&
        this.idOf(e) === id
      ) {
        return e;
      }
      e = meta[e * STRIDE + CHAIN]!;
    }
    return 0;
  }

  /**
   * Marks slot `e` REFERENCED (read since it was linked into its LRU list: eviction gives it
   * a second chance) and returns its value. The word is written only if the flag was clear.
   */
  touch(e: number): V {
    const at = e * STRIDE + STATE;
    const st = this.meta[at]!;
    if ((st & REFERENCED) === 0) this.meta[at] = st | REFERENCED;
    return this.values[e] as V;
  }

  /**
   * A free slot holding this key, `value` and `charge`, in the table (head of its chain),
   * flags `flags` | IN_CACHE, no pins. REQUIRES: no entry of this key is in the table.
   */
  add(hash: number, id: number, offset: number, value: V, charge: number, flags: number): number {
    let e = this.freeHead;
    if (e !== 0) this.freeHead = this.meta[e * STRIDE + CHAIN]!;
    else {
      if (this.highWater === this.capacity) this.grow();
      e = this.highWater++;
    }
    if (id >= TWO_POW_32 || offset >= TWO_POW_32) {
      flags |= WIDE_KEY;
      (this.wideIds ??= new Map()).set(e, id);
      (this.wideOffsets ??= new Map()).set(e, offset);
    }
    if (charge >= TWO_POW_32) {
      flags |= BIG_CHARGE;
      (this.bigCharges ??= new Map()).set(e, charge);
      charge = 0;
    }
    const meta = this.meta;
    const at = e * STRIDE;
    const b = hash & this.mask;
    meta[at + OFFSET] = offset;
    meta[at + ID] = id;
    meta[at + STATE] = flags | IN_CACHE;
    meta[at + CHAIN] = this.buckets[b]!;
    meta[at + CHARGE] = charge;
    this.values[e] = value;
    this.buckets[b] = e;
    this.count++;
    this.adds++;
    return e;
  }

  /** Takes slot `e` out of its chain (lookups miss it; the slot stays allocated). */
  unchain(e: number): void {
    const meta = this.meta;
    const b = this.hashOf(e) & this.mask;
    const after = meta[e * STRIDE + CHAIN]!;
    let p = this.buckets[b]!;
    if (p === e) this.buckets[b] = after;
    else {
      let next = meta[p * STRIDE + CHAIN]!;
      while (next !== e) {
        p = next;
        next = meta[p * STRIDE + CHAIN]!;
      }
      meta[p * STRIDE + CHAIN] = after;
    }
    meta[e * STRIDE + CHAIN] = 0;
    this.count--;
  }

  /** Returns slot `e` to the free list. REQUIRES: not in the table or the LRU list. */
  freeSlot(e: number): void {
    const at = e * STRIDE;
    const st = this.meta[at + STATE]!;
    if ((st & WIDE_KEY) !== 0) {
      this.wideIds!.delete(e);
      this.wideOffsets!.delete(e);
    }
    if ((st & BIG_CHARGE) !== 0) this.bigCharges!.delete(e);
    this.meta[at + STATE] = 0;
    this.meta[at + CHAIN] = this.freeHead;
    this.values[e] = undefined;
    this.freeHead = e;
  }

  idOf(e: number): number {
    const at = e * STRIDE;
    return (this.meta[at + STATE]! & WIDE_KEY) === 0 ? this.meta[at + ID]! : this.wideIds!.get(e)!;
  }

  offsetOf(e: number): number {
    const at = e * STRIDE;
    return (this.meta[at + STATE]! & WIDE_KEY) === 0
      ? this.meta[at + OFFSET]!
      : this.wideOffsets!.get(e)!;
  }

  chargeOf(e: number): number {
    const at = e * STRIDE;
    return (this.meta[at + STATE]! & BIG_CHARGE) === 0
      ? this.meta[at + CHARGE]!
      : this.bigCharges!.get(e)!;
  }

  hashOf(e: number): number {
    const at = e * STRIDE;
    return (this.meta[at + STATE]! & WIDE_KEY) === 0
      ? hashKey(this.meta[at + ID]!, this.meta[at + OFFSET]!)
      : hashKey(this.wideIds!.get(e)!, this.wideOffsets!.get(e)!);
  }

  /** Makes `refs` (as long as the other arrays). */
  makeRefs(): (SlotHandle | undefined)[] {
    const refs = resized<SlotHandle>([], this.capacity);
    this.refs = refs;
    return refs;
  }

  /** Slots ever used are firstSlot .. slotLimit - 1 (free ones have state 0). */
  get slotLimit(): number {
    return this.highWater;
  }

  /** Number of allocated slots (for checks): entries in the table plus pinned erased ones. */
  get allocated(): number {
    let free = 0;
    for (let e = this.freeHead; e !== 0; e = this.meta[e * STRIDE + CHAIN]!) free++;
    return this.highWater - this.firstSlot - free;
  }

  /** The number of chain steps that finds slot `e` (1 = first of its bucket), -1 if not. */
  chainPosition(e: number): number {
    let n = 1;
    let s = this.buckets[this.hashOf(e) & this.mask]!;
    for (; s !== 0; s = this.meta[s * STRIDE + CHAIN]!, n++) if (s === e) return n;
    return -1;
  }

  /**
   * Makes room for more slots: capacities go 2^k, 1.5 x 2^k, 2^(k+1), ... (the arrays'
   * slack stays under a third of them), and the buckets, a power of two, double (their chains
   * rebuilt) when the slots outgrow them, every other growth: at most 1 and at least 0.375
   * entries a bucket when full.
   */
  private grow(): void {
    const capacity =
      this.capacity === this.mask + 1 ? this.capacity + (this.capacity >> 1) : this.mask + 1;
    const meta = new Uint32Array(capacity * STRIDE);
    meta.set(this.meta);
    this.meta = meta;
    const links = new Int32Array(capacity * 2);
    links.set(this.links);
    this.links = links;
    this.values = resized(this.values, capacity);
    if (this.refs !== null) this.refs = resized(this.refs, capacity);
    this.capacity = capacity;
    if (capacity <= this.mask + 1) return;
    let length = this.mask + 1;
    while (length < capacity) length *= 2;
    const buckets = new Int32Array(length);
    this.mask = length - 1;
    // Every slot below highWater is in use (the free list is empty when growing): in the
    // table (IN_CACHE), or pinned and erased (in no chain).
    for (let e = this.firstSlot; e < this.highWater; e++) {
      if ((meta[e * STRIDE + STATE]! & IN_CACHE) === 0) continue;
      const b = this.hashOf(e) & this.mask;
      meta[e * STRIDE + CHAIN] = buckets[b]!;
      buckets[b] = e;
    }
    this.buckets = buckets;
  }
}

/** A copy of `old` exactly `length` long, the rest undefined (no growth slack of push). */
function resized<T>(old: (T | undefined)[], length: number): (T | undefined)[] {
  const out = new Array<T | undefined>(length);
  for (let i = 0; i < old.length; i++) out[i] = old[i];
  for (let i = old.length; i < length; i++) out[i] = undefined;
  return out;
}
