/**
 * Word layout of the B+tree's nodes and the key slices beside their entry addresses (the
 * drawings are at the top of btree.ts).
 */
import { bytewiseComparator, type Comparator, fixed32At, keyWordAt } from "@shale/base";

/** Keys per leaf. */
export const LEAF_CAP = 64;
/** Children per inner node. */
export const INNER_CAP = 64;
/** "No node" / "no fence" (an infinite fence). */
export const NONE = -1;
export const W_COUNT = 0;
export const W_SKIP = 1;
export const W_NEXT = 2;
export const W_PREV = 3;
/** Leaf slot i: slice at W_SLOTS + 2i, entry address at W_SLOTS + 2i + 1. */
export const W_SLOTS = 4;
export const LEAF_WORDS = W_SLOTS + 2 * LEAF_CAP;
/** Inner slot i: slice at W_SLOTS + 3i - 2, separator at + 3i - 1, child at + 3i. */
export const INNER_WORDS = W_SLOTS + 3 * INNER_CAP - 2;
/** Lanes of the arena: leaves and inner nodes apart, so the inner nodes stay in cache. */
export const LEAF_LANE = 0;
export const INNER_LANE = 1;
/** Deepest possible tree: (2^31 words / LEAF_WORDS) leaves, fan-out at least 2. */
export const MAX_DEPTH = 32;
export const TWO_24 = 16777216;

/** seq div 2^24 of the trailer at `t` (< 2^29: a small integer). */
export function seqHigh(b: Uint8Array, t: number): number {
  return fixed32At(b, t + 4);
}

/** seq mod 2^24 of the trailer at `t`. */
export function seqLow(b: Uint8Array, t: number): number {
  return b[t + 1]! | (b[t + 2]! << 8) | (b[t + 3]! << 16);
}

/** True when `c` orders keys bytewise (checked by identity or by its persisted name). */
export function isBytewise(c: Comparator): boolean {
  return c === bytewiseComparator || c.name === bytewiseComparator.name;
}

/**
 * The slice of `key[off, off + len)` at byte `skip` (see above): @shale/base's `keyWordAt`
 * (big-endian, zero past the key's end) with its top bit flipped, so signed int32 compares
 * order slices as unsigned ones.
 */
export function keySlice(key: Uint8Array, off: number, len: number, skip: number): number {
  return keyWordAt(key, off + skip, off + len) ^ 0x80000000;
}
