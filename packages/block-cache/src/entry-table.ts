/**
 * A shard's entries, in typed arrays indexed by slot, and its hash table from key
 * `(id, offset)` to slot: separate chaining through the slots themselves.
 *
 *   slot e (1 .. length-1; slot 0 is the LRU list's sentinel and "none" in every chain)
 *
 *   ids[e]       Uint32Array   id     (its low 32 bits if WIDE_KEY, the full id in wideIds)
 *   offsets[e]   Uint32Array   offset (likewise, the full offset in wideOffsets)
 *   charges[e]   Uint32Array   charge (0 if BIG_CHARGE: the charge is in bigCharges)
 *   state[e]     Uint32Array   flags (low 8 bits, below) | pins << 8
 *   prev[e]      Int32Array    LRU list links (shard.ts), 0 = the sentinel
 *   next[e]      Int32Array
 *   chain[e]     Int32Array    next slot of the same bucket, 0 at the end; for a free slot,
 *                              the next free slot
 *   values[e]    V[]           the value (undefined for a free slot)
 *   buckets[b]   Int32Array    first slot of bucket b = hash & (length - 1), 0 if empty
 *
 *   4+4+4+4+4+4+4+8 = 36 bytes a slot, plus 4 a bucket (as many buckets as slots): 40 bytes
 *   a slot, at most one chain entry per bucket on average (load <= 1). The hash is not
 *   kept: it is recomputed from the key (key.ts, a few ns) when a slot leaves its chain or
 *   the table grows. Keys, charges and pins above 32 bits are exact through the side Maps,
 *   which stay empty in a block cache (ids 1, 2, 3, ..., offsets in files below 4 GiB).
 *
 * Slots are allocated from the free list (through `chain`), then from `highWater` up; when
 * none is left every array doubles and the buckets are rebuilt. Arrays never shrink. A slot
 * is reused once its entry is freed; a handle of the old entry (entry.ts) was told so first.
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

/** Entry flags, the low 8 bits of `state`. */
export const IN_CACHE = 1;
/** Read by `get`/`touch` since it was last linked into the LRU list (second chance). */
export const REFERENCED = 2;
/** In the LRU list's high-priority region. */
export const IN_HIGH_POOL = 4;
/** Inserted with priority "high". */
export const HIGH_PRI = 8;
/** A handle object of this entry exists (in `handles`). */
export const HAS_HANDLE = 16;
/** The id or the offset is 2^32 or more: the full key is in wideIds / wideOffsets. */
export const WIDE_KEY = 32;
/** The charge is 2^32 or more: it is in bigCharges. */
export const BIG_CHARGE = 64;
/** One pin, in `state`. */
export const PIN = 256;
/** Most pins an entry holds (state's top 24 bits). */
export const MAX_PINS = 0xffffff;

const TWO_POW_32 = 4294967296;
const INITIAL_LENGTH = 16;

export class EntryTable<V> {
  ids: Uint32Array = new Uint32Array(INITIAL_LENGTH);
  offsets: Uint32Array = new Uint32Array(INITIAL_LENGTH);
  charges: Uint32Array = new Uint32Array(INITIAL_LENGTH);
  state: Uint32Array = new Uint32Array(INITIAL_LENGTH);
  prev: Int32Array = new Int32Array(INITIAL_LENGTH);
  next: Int32Array = new Int32Array(INITIAL_LENGTH);
  chain: Int32Array = new Int32Array(INITIAL_LENGTH);
  buckets: Int32Array = new Int32Array(INITIAL_LENGTH);
  values: (V | undefined)[] = [];
  /** length - 1 (the bucket mask). */
  mask = INITIAL_LENGTH - 1;
  /** Slots below this have been used; slots from here up never were. */
  private highWater = 1;
  /** The first free slot below highWater, 0 if none. */
  private freeHead = 0;
  /** Entries in the table (reachable by key). */
  count = 0;
  /** Full keys and charges that do not fit 32 bits, by slot (usually empty). */
  readonly wideIds = new Map<number, number>();
  readonly wideOffsets = new Map<number, number>();
  readonly bigCharges = new Map<number, number>();

  constructor() {
    for (let i = 0; i < INITIAL_LENGTH; i++) this.values.push(undefined);
  }

  /** The slot of the entry in the table with this key, or 0. */
  find(hash: number, id: number, offset: number): number {
    if (id >= TWO_POW_32 || offset >= TWO_POW_32) return this.findWide(hash, id, offset);
    const ids = this.ids;
    const offsets = this.offsets;
    const state = this.state;
    const chain = this.chain;
    let e = this.buckets[hash & this.mask]!;
    while (e !== 0) {
      if (offsets[e] === offset && ids[e] === id && (state[e]! & WIDE_KEY) === 0) return e;
      e = chain[e]!;
    }
    return 0;
  }

  private findWide(hash: number, id: number, offset: number): number {
    const chain = this.chain;
    let e = this.buckets[hash & this.mask]!;
    while (e !== 0) {
      if ((this.state[e]! & WIDE_KEY) !== 0 && this.offsetOf(e) === offset && this.idOf(e) === id) {
        return e;
      }
      e = chain[e]!;
    }
    return 0;
  }

  /**
   * A free slot holding this key, `value` and `charge`, in the table (head of its chain),
   * flags `flags` | IN_CACHE, no pins. REQUIRES: no entry of this key is in the table.
   */
  add(hash: number, id: number, offset: number, value: V, charge: number, flags: number): number {
    let e = this.freeHead;
    if (e !== 0) this.freeHead = this.chain[e]!;
    else {
      if (this.highWater === this.mask + 1) this.grow();
      e = this.highWater++;
    }
    if (id >= TWO_POW_32 || offset >= TWO_POW_32) {
      flags |= WIDE_KEY;
      this.wideIds.set(e, id);
      this.wideOffsets.set(e, offset);
    }
    if (charge >= TWO_POW_32) {
      flags |= BIG_CHARGE;
      this.bigCharges.set(e, charge);
      charge = 0;
    }
    this.ids[e] = id;
    this.offsets[e] = offset;
    this.charges[e] = charge;
    this.state[e] = flags | IN_CACHE;
    this.values[e] = value;
    const b = hash & this.mask;
    this.chain[e] = this.buckets[b]!;
    this.buckets[b] = e;
    this.count++;
    return e;
  }

  /** Takes slot `e` out of its chain (lookups miss it; the slot stays allocated). */
  unchain(e: number): void {
    const chain = this.chain;
    const b = this.hashOf(e) & this.mask;
    let p = this.buckets[b]!;
    if (p === e) this.buckets[b] = chain[e]!;
    else {
      while (chain[p] !== e) p = chain[p]!;
      chain[p] = chain[e]!;
    }
    chain[e] = 0;
    this.count--;
  }

  /** Returns slot `e` to the free list. REQUIRES: not in the table or the LRU list. */
  freeSlot(e: number): void {
    const st = this.state[e]!;
    if ((st & WIDE_KEY) !== 0) {
      this.wideIds.delete(e);
      this.wideOffsets.delete(e);
    }
    if ((st & BIG_CHARGE) !== 0) this.bigCharges.delete(e);
    this.state[e] = 0;
    this.values[e] = undefined;
    this.chain[e] = this.freeHead;
    this.freeHead = e;
  }

  idOf(e: number): number {
    return (this.state[e]! & WIDE_KEY) === 0 ? this.ids[e]! : this.wideIds.get(e)!;
  }

  offsetOf(e: number): number {
    return (this.state[e]! & WIDE_KEY) === 0 ? this.offsets[e]! : this.wideOffsets.get(e)!;
  }

  chargeOf(e: number): number {
    return (this.state[e]! & BIG_CHARGE) === 0 ? this.charges[e]! : this.bigCharges.get(e)!;
  }

  hashOf(e: number): number {
    return (this.state[e]! & WIDE_KEY) === 0
      ? hashKey(this.ids[e]!, this.offsets[e]!)
      : hashKey(this.wideIds.get(e)!, this.wideOffsets.get(e)!);
  }

  /** Slots ever used are 1 .. slotLimit - 1 (free ones have state 0). */
  get slotLimit(): number {
    return this.highWater;
  }

  /** Number of allocated slots (for checks): entries in the table plus pinned erased ones. */
  get allocated(): number {
    let free = 0;
    for (let e = this.freeHead; e !== 0; e = this.chain[e]!) free++;
    return this.highWater - 1 - free;
  }

  /** The number of chain steps that finds slot `e` (1 = first of its bucket), -1 if not. */
  chainPosition(e: number): number {
    let n = 1;
    for (let s = this.buckets[this.hashOf(e) & this.mask]!; s !== 0; s = this.chain[s]!, n++) {
      if (s === e) return n;
    }
    return -1;
  }

  private grow(): void {
    const length = (this.mask + 1) * 2;
    const widen = <T extends Uint32Array | Int32Array>(old: T, fresh: T): T => {
      fresh.set(old);
      return fresh;
    };
    this.ids = widen(this.ids, new Uint32Array(length));
    this.offsets = widen(this.offsets, new Uint32Array(length));
    this.charges = widen(this.charges, new Uint32Array(length));
    this.state = widen(this.state, new Uint32Array(length));
    this.prev = widen(this.prev, new Int32Array(length));
    this.next = widen(this.next, new Int32Array(length));
    const chain = new Int32Array(length);
    const buckets = new Int32Array(length);
    for (let i = this.values.length; i < length; i++) this.values.push(undefined);
    this.mask = length - 1;
    // Every slot in use is in the table (IN_CACHE) or pinned and erased (in no chain).
    // Free slots: none below highWater when growing (the free list is empty).
    const state = this.state;
    for (let e = 1; e < this.highWater; e++) {
      if ((state[e]! & IN_CACHE) === 0) continue;
      const b = this.hashOf(e) & this.mask;
      chain[e] = buckets[b]!;
      buckets[b] = e;
    }
    this.chain = chain;
    this.buckets = buckets;
  }
}
