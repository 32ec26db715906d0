/**
 * Slice maintenance of the memtable's B+tree nodes (layout at the top of btree.ts): when a
 * node's skip (the prefix all its keys share) changes, the 4-byte slices it stores per key
 * are read again from the entries at the new skip.
 */
import { W_COUNT, W_SKIP, W_SLOTS } from "./btree-layout.js";
import type { KeyTarget } from "./key-target.js";

/** Recomputes the slices of a leaf (at words[b]) at `skip`. */
export function resliceLeaf(t: KeyTarget, words: Int32Array, b: number, skip: number): void {
  words[b + W_SKIP] = skip;
  const n = words[b + W_COUNT]!;
  for (let i = 0; i < n; i++) {
    const at = b + W_SLOTS + 2 * i;
    words[at] = t.sliceOfEntry(words[at + 1]!, skip);
  }
}

/** Recomputes the separator slices of an inner node (at words[b]) at `skip`. */
export function resliceInner(t: KeyTarget, words: Int32Array, b: number, skip: number): void {
  words[b + W_SKIP] = skip;
  const n = words[b + W_COUNT]!;
  for (let i = 1; i < n; i++) {
    const at = b + W_SLOTS + 3 * i;
    words[at - 2] = t.sliceOfEntry(words[at - 1]!, skip);
  }
}
