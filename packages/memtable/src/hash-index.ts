/**
 * A hash index over the point entries' user keys, for point lookups (bytewise comparator
 * only, where equal keys are equal bytes): user key -> entry address of its newest version
 * (the first in internal-key order). A `get` at the newest snapshot then costs a probe and
 * the entry, not a tree descent; a key the memtable does not hold costs a probe.
 *
 * ```
 * table: Int32Array of 2 * capacity words, open addressing with linear probing
 *   slot i: +-----------------+---------------------+
 *           | hash (32 bits)  | entry address + 1   |     0 = empty slot
 *           +-----------------+---------------------+
 *   a key with hash h lives in the first slot at or after (h & (capacity - 1)) (wrapping)
 *   whose hash is h and whose entry has the key; probing stops at an empty slot.
 * ```
 *
 * The full 32-bit hash kept in the slot settles almost every probe without reading an
 * entry, and lets the table double (when 7/10 full) without reading any. The table is a
 * SharedArrayBuffer, exported with the memtable, so a reopened memtable uses it too.
 *
 * Doubling is incremental: the old table stays and each `flush` moves the next
 * MIGRATE_SLOTS of its slots into the new one (done long before the new table fills: it
 * has room for 0.7 x its slots of new keys, and the old table's slots are moved at 8 per
 * insert). Meanwhile a lookup probes the new table, then the old one (an old slot not moved
 * yet, or already moved and so also in the new table, which is probed first). Rehashing a
 * 2^19-slot table at once was a ~50 ms pause in a 5M-key fill.
 *
 * The hash is MurmurHash3 (x86, 32-bit) of the key bytes, seed 0.
 */
import type { BTree } from "./btree.js";

/** MurmurHash3_x86_32 of `key[off, off + len)`, seed 0, as a signed int32. */
export function hashKey(key: Uint8Array, off: number, len: number): number {
  let h = 0;
  const end = off + (len & ~3);
  let i = off;
  for (; i < end; i += 4) {
    let k = key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16) | (key[i + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const rest = len & 3;
  if (rest > 0) {
    let k = key[i]!;
    if (rest > 1) k |= key[i + 1]! << 8;
    if (rest > 2) k |= key[i + 2]! << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Slots of a new table (room for a memtable's first INDEX_MIN_ENTRIES keys without doubling). */
export const INITIAL_SLOTS = 128;
/** The table doubles when more than this share of its slots would be used. */
export const MAX_LOAD = 0.7;

/** Slots of a table that holds `keys` keys: INITIAL_SLOTS, doubled while over MAX_LOAD. */
export function slotsFor(keys: number): number {
  let slots = INITIAL_SLOTS;
  while (keys > Math.floor(slots * MAX_LOAD)) slots *= 2;
  return slots;
}
/** Inserts queued before they are applied together (see `insert`). */
export const BATCH = 32;
/** Slots of the old table moved by each `flush` while the table is doubling. */
export const MIGRATE_SLOTS = 8 * BATCH;

/** The index as structured-clone friendly data (shared.ts). */
export interface SharedIndexData {
  readonly table: SharedArrayBuffer;
  readonly count: number;
}

/** Tables this large or larger are SharedArrayBuffers from the start; smaller ones plain. */
export const SHARED_TABLE_BYTES = 1 << 16;

/**
 * A zeroed table. A small one is a plain ArrayBuffer (a tenth of the cost of a shared one
 * to make, which matters for small memtables); `exportShared` copies it into shared memory.
 */
function newTable(slots: number): Int32Array {
  const bytes = 8 * slots;
  return new Int32Array(
    bytes >= SHARED_TABLE_BYTES ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes),
  );
}

export class HashIndex {
  private readonly tree: BTree;
  private table: Int32Array;
  private mask: number;
  /** User keys in the table. */
  private count: number;
  private limit: number;
  /** While doubling: the previous table, and how many of its slots were moved (see top). */
  private old: Int32Array | undefined = undefined;
  private oldMask = 0;
  private moved = 0;
  /** Queued inserts: hash and entry address. */
  private readonly queuedHash = new Int32Array(BATCH);
  private readonly queuedAddress = new Int32Array(BATCH);
  private queued = 0;
  /**
   * Where the prefetch pass of `flush` leaves what it read, so the compiler keeps the
   * reads (public only so that it does not look unused).
   */
  sink = 0;

  /**
   * An empty index over `tree`'s entries with room for `keys` keys before its table
   * doubles (Default: 0, the smallest table), or one reopened from exported data
   * (read-only use). The index sets the tree's search target when it applies queued inserts.
   */
  constructor(tree: BTree, data?: SharedIndexData, keys = 0) {
    this.tree = tree;
    this.table = data === undefined ? newTable(slotsFor(keys)) : new Int32Array(data.table);
    const slots = this.table.length >>> 1;
    this.mask = slots - 1;
    this.count = data === undefined ? 0 : data.count;
    this.limit = Math.floor(slots * MAX_LOAD);
  }

  /**
   * The table (shared, not copied; a small one is copied into shared memory once) and key
   * count, for exportShared; applies the queue.
   * Undefined while a doubling is under way (finishing it here would be the pause the
   * incremental doubling avoids): the reopened memtable then searches its tree.
   */
  exportShared(): SharedIndexData | undefined {
    this.flush();
    if (this.old !== undefined) return undefined;
    if (!(this.table.buffer instanceof SharedArrayBuffer)) {
      const shared = new Int32Array(new SharedArrayBuffer(this.table.byteLength));
      shared.set(this.table);
      this.table = shared;
    }
    return { table: this.table.buffer as SharedArrayBuffer, count: this.count };
  }

  /**
   * Bytes of the table once the queued inserts are applied (as if they were new keys). The
   * previous table, kept while a doubling moves its keys, is not counted.
   */
  get bytes(): number {
    // From the table's own size (called per write: a loop from INITIAL_SLOTS is ~12 steps).
    let slots = this.mask + 1;
    const keys = this.count + this.queued;
    while (keys > Math.floor(slots * MAX_LOAD)) slots *= 2;
    return 8 * slots;
  }

  /** User keys indexed (applied inserts only). */
  get size(): number {
    return this.count;
  }

  /** True when inserts are queued (`find` requires none: call `flush`). */
  get pending(): boolean {
    return this.queued > 0;
  }

  /**
   * The slot of the tree's target user key (hash `hash`), or -1 when it has none. Reads
   * only entries whose hash matches. REQUIRES: nothing queued.
   */
  find(hash: number): number {
    const found = this.findIn(this.table, this.mask, hash);
    if (found >= 0 || this.old === undefined) return found;
    const inOld = this.findIn(this.old, this.oldMask, hash);
    return inOld < 0 ? -1 : this.mask + 1 + inOld;
  }

  private findIn(table: Int32Array, mask: number, hash: number): number {
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const address = table[2 * i + 1]!;
      if (address === 0) return -1;
      if (table[2 * i] === hash && this.tree.userKeyEquals((address - 1) | 0)) return i;
    }
  }

  /** The entry address in `slot` (from find; slots past the table's are the old table's). */
  addressAt(slot: number): number {
    const slots = this.mask + 1;
    if (slot < slots) return (this.table[2 * slot + 1]! - 1) | 0;
    return (this.old![2 * (slot - slots) + 1]! - 1) | 0;
  }

  /**
   * Indexes the entry at `address`, whose user key hashes to `hash`, if it is its key's
   * newest. Inserts are queued and applied BATCH at a time (or by `flush`): a first pass
   * reads the slot of each, loads that do not wait for one another, so the batch pays
   * about one cache miss rather than one each.
   */
  insert(hash: number, address: number): void {
    const q = this.queued;
    this.queuedHash[q] = hash;
    this.queuedAddress[q] = address;
    this.queued = q + 1;
    if (q + 1 === BATCH) this.flush();
  }

  /** Applies the queued inserts. Changes the tree's search target. */
  flush(): void {
    const n = this.queued;
    if (n === 0) return;
    this.queued = 0;
    if (this.old !== undefined) this.migrate(MIGRATE_SLOTS);
    while (this.count + n > this.limit) this.grow();
    const table = this.table;
    const mask = this.mask;
    const hashes = this.queuedHash;
    let x = 0;
    for (let j = 0; j < n; j++) x ^= table[2 * (hashes[j]! & mask) + 1]!;
    this.sink = x;
    const tree = this.tree;
    for (let j = 0; j < n; j++) {
      const hash = hashes[j]!;
      const address = this.queuedAddress[j]!;
      tree.setTargetEntry(address);
      const slot = this.find(hash);
      if (slot >= 0) {
        // Keep the entry that sorts first (the larger seq, then kind).
        if (tree.compareEntry(this.addressAt(slot)) <= 0) continue;
        if (slot <= mask) {
          table[2 * slot + 1] = address + 1;
          continue;
        }
        // The key is only in the old table: its newest entry goes into the new one (the
        // move of the old slot will find it there and keep it).
        this.place(hash, address + 1);
        continue;
      }
      this.count++;
      this.place(hash, address + 1);
    }
  }

  /** Puts (hash, address + 1) into a free slot of the table. */
  private place(hash: number, stored: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
    table[2 * i] = hash;
    table[2 * i + 1] = stored;
  }

  /**
   * Moves up to `n` more slots of the old table into the table, keeping for each key the
   * entry that sorts first; drops the old table once every slot is moved. Changes the
   * tree's search target.
   */
  private migrate(n: number): void {
    const old = this.old!;
    const slots = old.length >>> 1;
    const end = Math.min(this.moved + n, slots);
    const tree = this.tree;
    const table = this.table;
    const mask = this.mask;
    for (let j = this.moved; j < end; j++) {
      const stored = old[2 * j + 1]!;
      if (stored === 0) continue;
      const hash = old[2 * j]!;
      // Probe the new table; the entry is read (the target set) only on an equal hash.
      let targetSet = false;
      let i = hash & mask;
      for (; ; i = (i + 1) & mask) {
        const there = table[2 * i + 1]!;
        if (there === 0) break;
        if (table[2 * i] !== hash) continue;
        if (!targetSet) {
          tree.setTargetEntry((stored - 1) | 0);
          targetSet = true;
        }
        if (tree.userKeyEquals((there - 1) | 0)) break;
      }
      const there = table[2 * i + 1]!;
      if (there === 0) {
        table[2 * i] = hash;
        table[2 * i + 1] = stored;
      } else if (tree.compareEntry((there - 1) | 0) > 0) {
        table[2 * i + 1] = stored;
      }
    }
    this.moved = end;
    if (end === slots) this.old = undefined;
  }

  /** Starts doubling the table (finishing a doubling still under way first). */
  private grow(): void {
    while (this.old !== undefined) this.migrate(this.old.length);
    const slots = 2 * (this.mask + 1);
    this.old = this.table;
    this.oldMask = this.mask;
    this.moved = 0;
    this.table = newTable(slots);
    this.mask = slots - 1;
    this.limit = Math.floor(slots * MAX_LOAD);
  }
}
