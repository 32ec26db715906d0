/**
 * The bucket array of `SharedBlockCache` (layout.ts): (file, offset) -> slot + 1, open
 * addressing with linear probing. Readers probe without the lock and check every slot they
 * land on against its generation (shared-block-cache.ts); only the lock holder adds and
 * removes. A removal shifts the entries after it back (no tombstones, so probes stay short);
 * a reader probing meanwhile may miss an entry that is present, which costs it a block read,
 * never a wrong block.
 */
import { SLOT_WORDS, SlotWord } from "./layout.js";

/** The bucket (hash & mask) where the probe for (file, offsetLo, offsetHi) starts. */
export function bucketOf(file: number, offsetLo: number, offsetHi: number, mask: number): number {
  let h = Math.imul(file ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ offsetLo, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16) ^ offsetHi, 0x27d4eb2f);
  return (h ^ (h >>> 15)) & mask;
}

/**
 * Adds slot `slot` (its FILE/OFFSET words written) to `buckets`. REQUIRES: the lock, a free
 * bucket somewhere (the array has twice as many buckets as slots).
 */
export function addToBuckets(buckets: Int32Array, slots: Int32Array, slot: number): void {
  const s = slot * SLOT_WORDS;
  const mask = buckets.length - 1;
  let b = bucketOf(
    slots[s + SlotWord.FILE]!,
    slots[s + SlotWord.OFFSET_LO]!,
    slots[s + SlotWord.OFFSET_HI]!,
    mask,
  );
  while (buckets[b] !== 0) b = (b + 1) & mask;
  Atomics.store(buckets, b, slot + 1);
}

/**
 * Removes slot `slot` from `buckets` (backward-shift deletion). REQUIRES: the lock; the
 * slot's FILE/OFFSET words still name its block.
 */
export function removeFromBuckets(buckets: Int32Array, slots: Int32Array, slot: number): void {
  const mask = buckets.length - 1;
  const s = slot * SLOT_WORDS;
  let b = bucketOf(
    slots[s + SlotWord.FILE]!,
    slots[s + SlotWord.OFFSET_LO]!,
    slots[s + SlotWord.OFFSET_HI]!,
    mask,
  );
  while (buckets[b] !== slot + 1) {
    if (buckets[b] === 0) return; // not present
    b = (b + 1) & mask;
  }
  // Shift back every later entry of the run whose home is not in (hole, entry].
  let hole = b;
  let next = (b + 1) & mask;
  for (;;) {
    const v = buckets[next]!;
    if (v === 0) break;
    const t = (v - 1) * SLOT_WORDS;
    const home = bucketOf(
      slots[t + SlotWord.FILE]!,
      slots[t + SlotWord.OFFSET_LO]!,
      slots[t + SlotWord.OFFSET_HI]!,
      mask,
    );
    const between = hole <= next ? home > hole && home <= next : home > hole || home <= next;
    if (!between) {
      Atomics.store(buckets, hole, v);
      hole = next;
    }
    next = (next + 1) & mask;
  }
  Atomics.store(buckets, hole, 0);
}
