/**
 * A shard's hash table from key `(id, offset)` to entry: open addressing with linear probing.
 *
 *   slots: Array<CacheEntry | null>, length 2^k (k >= 4), at most half full
 *
 *   home(e) = e.hash & (length - 1); an entry sits at its home slot or at the first free slot
 *   after it (wrapping around). There are no tombstones.
 *
 *   find(id, offset)  probe from home until a null slot; match on `e.id === id &&
 *                     e.offset === offset`: both halves compared exactly, so keys up to 2^53-1
 *                     never collide (see key.ts; no combined number, no string).
 *   remove at i       backward shift: walk j = i+1, i+2, ... while slots[j] is not null; an
 *                     entry whose home is not cyclically in (i, j] moves back to i (i := j).
 *   growth            doubles when count * 2 > length; never shrinks.
 *   byId              per id, a doubly linked list of its entries (`idPrev` / `idNext`),
 *                     headed in a Map: `collectId` walks one table's blocks instead of
 *                     scanning every slot (erasing a deleted table's blocks cost ~1 µs per
 *                     entry of the whole cache, scanned; 40-65 ms per compaction here).
 *
 * Worked example (length 8): A and B hash home to 3, C to 4.
 *
 *   insert A, B, C    [ .  .  .  A  B  C  .  . ]
 *   remove A          B's home 3 is not in (3,4]: B -> 3; C's home 4 is not in (4,5]: C -> 4
 *                     [ .  .  .  B  C  .  .  . ]
 *
 * Why not `Map<id, Map<offset, entry>>`: a hit would cost two Map probes (each hashing a
 * possibly-heap number) and every id an inner Map; here a hit is one integer hash and, at a
 * load factor of at most 1/2, about 1.5 slot reads on average.
 */
import type { CacheEntry } from "./entry.js";

const INITIAL_LENGTH = 16;

function nullSlots<V>(length: number): (CacheEntry<V> | null)[] {
  // Built by push so V8 keeps the array PACKED (no hole checks on reads).
  const slots: (CacheEntry<V> | null)[] = [];
  for (let i = 0; i < length; i++) slots.push(null);
  return slots;
}

export class EntryTable<V> {
  private slots: (CacheEntry<V> | null)[] = nullSlots<V>(INITIAL_LENGTH);
  private mask = INITIAL_LENGTH - 1;
  /** Number of entries in the table. */
  count = 0;
  /** The first entry of each id's list. */
  private readonly byId = new Map<number, CacheEntry<V>>();

  /** The entry with this key, or undefined. */
  find(hash: number, id: number, offset: number): CacheEntry<V> | undefined {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash & mask;
    for (;;) {
      const e = slots[i];
      if (e === null) return undefined;
      if (e.offset === offset && e.id === id) return e;
      i = (i + 1) & mask;
    }
  }

  /** Adds `e`, replacing and returning the entry with the same key if there is one. */
  insert(e: CacheEntry<V>): CacheEntry<V> | undefined {
    const slots = this.slots;
    const mask = this.mask;
    const id = e.id;
    const offset = e.offset;
    let i = e.hash & mask;
    for (;;) {
      const cur = slots[i];
      if (cur === null) break;
      if (cur.offset === offset && cur.id === id) {
        slots[i] = e;
        this.unlinkId(cur);
        this.linkId(e);
        return cur;
      }
      i = (i + 1) & mask;
    }
    slots[i] = e;
    this.linkId(e);
    if (++this.count * 2 > slots.length) this.grow();
    return undefined;
  }

  /** Removes `e`. REQUIRES: `e` is in the table. */
  remove(e: CacheEntry<V>): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = e.hash & mask;
    while (slots[i] !== e) i = (i + 1) & mask;
    this.removeAt(i);
    this.unlinkId(e);
  }

  /** Removes and returns the entry with this key, or returns undefined. */
  removeKey(hash: number, id: number, offset: number): CacheEntry<V> | undefined {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash & mask;
    for (;;) {
      const e = slots[i];
      if (e === null) return undefined;
      if (e.offset === offset && e.id === id) {
        this.removeAt(i);
        this.unlinkId(e);
        return e;
      }
      i = (i + 1) & mask;
    }
  }

  /** Appends every entry whose id is `id` to `out` (its list: no scan of the table). */
  collectId(id: number, out: CacheEntry<V>[]): void {
    let e = this.byId.get(id) ?? null;
    for (; e !== null; e = e.idNext) out.push(e);
  }

  /** The first entry of `id`'s list, or null when the table holds none of that id. */
  firstOfId(id: number): CacheEntry<V> | null {
    return this.byId.get(id) ?? null;
  }

  /** Number of ids with an entry in the table (for checks and tests). */
  get idCount(): number {
    return this.byId.size;
  }

  /** Makes `e` the first entry of its id's list. */
  private linkId(e: CacheEntry<V>): void {
    const head = this.byId.get(e.id);
    e.idPrev = null;
    e.idNext = head ?? null;
    if (head !== undefined) head.idPrev = e;
    this.byId.set(e.id, e);
  }

  /** Takes `e` out of its id's list. */
  private unlinkId(e: CacheEntry<V>): void {
    const prev = e.idPrev;
    const next = e.idNext;
    if (next !== null) next.idPrev = prev;
    if (prev !== null) prev.idNext = next;
    else if (next !== null) this.byId.set(e.id, next);
    else this.byId.delete(e.id);
    e.idPrev = null;
    e.idNext = null;
  }

  /** Every entry, in slot order (for checks and tests). */
  entries(): CacheEntry<V>[] {
    const out: CacheEntry<V>[] = [];
    for (const e of this.slots) if (e !== null) out.push(e);
    return out;
  }

  /** The length of the probe sequence that finds `e` (1 = at its home slot), for checks. */
  probeLength(e: CacheEntry<V>): number {
    const mask = this.mask;
    let i = e.hash & mask;
    let n = 1;
    while (this.slots[i] !== e) {
      if (this.slots[i] === null) return -1;
      i = (i + 1) & mask;
      n++;
    }
    return n;
  }

  private removeAt(i: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const e = slots[j];
      if (e === null) break;
      const home = e.hash & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (!stays) {
        slots[i] = e;
        i = j;
      }
    }
    slots[i] = null;
    this.count--;
  }

  private grow(): void {
    const old = this.slots;
    const length = old.length * 2;
    const slots = nullSlots<V>(length);
    const mask = length - 1;
    for (const e of old) {
      if (e === null) continue;
      let i = e.hash & mask;
      while (slots[i] !== null) i = (i + 1) & mask;
      slots[i] = e;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
