/**
 * Searches within one node of the memtable's B+tree (layout at the top of btree.ts), against
 * the tree's target (key-target.ts): which child of an inner node holds the target, which
 * slot of a leaf it goes in. Slices decide first; entries are compared only within a run of
 * equal slices.
 */
import { W_COUNT, W_SKIP, W_SLOTS } from "./btree-layout.js";
import { resliceInner, resliceLeaf } from "./btree-slices.js";
import type { KeyTarget } from "./key-target.js";

/**
 * In the inner node at words[b], the index of the child whose range holds the target:
 * the last i with sep i <= target, 0 if none. `spine`: the node has an infinite fence, so
 * the target may not share the node's prefix; `inserting`: then lower the node's skip
 * (the target is about to be stored below it) rather than route around the prefix.
 */
export function childFor(
  t: KeyTarget,
  words: Int32Array,
  b: number,
  spine: boolean,
  inserting: boolean,
): number {
  const n = words[b + W_COUNT]!;
  let skip = words[b + W_SKIP]!;
  if (spine && skip > 0 && n > 1) {
    const anchor = words[b + W_SLOTS + 2]!;
    const p = t.comparePrefix(anchor, skip);
    if (p !== 0) {
      if (!inserting) return p > 0 ? 0 : n - 1;
      skip = t.targetCommonPrefix(anchor);
      resliceInner(t, words, b, skip);
    }
  }
  const ts = t.sliceOfTarget(skip);
  let lo = 1;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = b + W_SLOTS + 3 * mid;
    const s = words[at - 2]!;
    let c: number;
    if (s !== ts) c = s < ts ? -1 : 1;
    else c = t.compareEntry(words[at - 1]!);
    if (c <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * In the leaf at words[b], the first slot whose key is >= target (`orEqual`: > target);
 * `found` tells whether it equals the target (unless orEqual). `spine` and `inserting` as
 * in childFor.
 */
export function slotFor(
  t: KeyTarget,
  words: Int32Array,
  b: number,
  spine: boolean,
  inserting: boolean,
  orEqual: boolean,
): number {
  const n = words[b + W_COUNT]!;
  let skip = words[b + W_SKIP]!;
  t.found = false;
  if (spine && skip > 0 && n > 0) {
    const anchor = words[b + W_SLOTS + 1]!;
    const p = t.comparePrefix(anchor, skip);
    if (p !== 0) {
      if (!inserting) return p > 0 ? 0 : n;
      skip = t.targetCommonPrefix(anchor);
      resliceLeaf(t, words, b, skip);
    }
  }
  const ts = t.sliceOfTarget(skip);
  // A linear scan of the slices: its loads do not depend on one another, so the leaf's
  // cache lines are fetched together rather than one after another as in a binary search.
  // It finds the run of slices equal to the target's, in which entries decide (by binary
  // search: a run can be long, e.g. versions of one key, or every key when not bytewise).
  const first = b + W_SLOTS;
  const end = first + 2 * n;
  let at = first;
  while (at < end && words[at]! < ts) at += 2;
  let lo = (at - first) >>> 1;
  while (at < end && words[at] === ts) at += 2;
  let hi = (at - first) >>> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let c = t.compareEntry(words[first + 2 * mid + 1]!);
    if (c === 0) {
      if (orEqual) c = -1;
      else t.found = true;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sign of (key in `slot` of the leaf at words[b]) - target, by slice first. */
export function compareSlot(
  t: KeyTarget,
  words: Int32Array,
  b: number,
  slot: number,
  skip: number,
): number {
  const s = words[b + W_SLOTS + 2 * slot]!;
  const ts = t.sliceOfTarget(skip);
  if (s !== ts) return s < ts ? -1 : 1;
  return t.compareEntry(words[b + W_SLOTS + 2 * slot + 1]!);
}
