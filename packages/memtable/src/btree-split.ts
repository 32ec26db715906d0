/**
 * Node splits of the memtable's B+tree (layout and rules at the top of btree.ts).
 *
 * ```
 * full leaf, new key k at slot 2:            split in half, k goes left
 *   [a b c d]          ->   [a b k] <-> [c d]        sep "c" goes up to the parent
 * full leaf, new key k at its end:           the old leaf stays full
 *   [a b c d]          ->   [a b c d] <-> [k]        sep "k" goes up
 * full inner node (children c0..c3, seps s1..s3), new child at 3:
 *   [c0 s1 c1 s2 c2 s3 c3] -> [c0 s1 c1 s new] , [c2 s3 c3]    sep s2 goes up
 * ```
 *
 * After a split each half's skip is the common prefix of its new fences (it can only grow);
 * when it grew, the half's slices are read again from its entries.
 */
import {
  INNER_CAP,
  INNER_LANE,
  INNER_WORDS,
  LEAF_CAP,
  NONE,
  W_COUNT,
  W_NEXT,
  W_PREV,
  W_SKIP,
  W_SLOTS,
} from "./btree-layout.js";
import { resliceInner, resliceLeaf } from "./btree-slices.js";
import type { KeyTarget } from "./key-target.js";

/**
 * What a split needs of the tree (btree.ts's BTree is one): its target's comparisons, its
 * node chunks, root, height and last leaf, and the path its last insert remembered. An
 * interface, so this file does not import btree.ts (which imports this one).
 */
export interface SplitTree extends KeyTarget {
  readonly nodeChunks: Int32Array[];
  root: number;
  height: number;
  lastLeaf: number;
  newLeaf(): number;
  pathNodeAt(depth: number): number;
  pathIndexAt(depth: number): number;
  fenceLow(depth: number): number;
  fenceHigh(depth: number): number;
}

/**
 * Splits the full `leaf` (depth height-1 on the remembered path) and inserts the entry at
 * `address` (the tree's target) at `slot`.
 */
export function splitLeafAndInsert(
  t: SplitTree,
  leaf: number,
  slot: number,
  address: number,
): void {
  const chunks = t.nodeChunks;
  const shift = t.arena.nodeShift;
  const mask = t.arena.nodeMask;
  const right = t.newLeaf();
  const lw = chunks[leaf >>> shift]!;
  const lb = leaf & mask;
  const rw = chunks[right >>> shift]!;
  const rb = right & mask;
  const oldSkip = lw[lb + W_SKIP]!;
  // Keys [keep, LEAF_CAP) move right.
  const keep = slot === LEAF_CAP ? LEAF_CAP : slot === 0 ? 0 : LEAF_CAP >>> 1;
  const moved = LEAF_CAP - keep;
  rw.set(lw.subarray(lb + W_SLOTS + 2 * keep, lb + W_SLOTS + 2 * LEAF_CAP), rb + W_SLOTS);
  lw[lb + W_COUNT] = keep;
  rw[rb + W_COUNT] = moved;
  rw[rb + W_SKIP] = oldSkip;
  // The new key.
  const left = slot < keep || keep === 0;
  const w = left ? lw : rw;
  const b = left ? lb : rb;
  const pos = left ? slot : slot - keep;
  const n = w[b + W_COUNT]!;
  const at = b + W_SLOTS + 2 * pos;
  for (let i = b + W_SLOTS + 2 * n - 1; i >= at; i--) w[i + 2] = w[i]!;
  w[at] = t.sliceOfTarget(oldSkip);
  w[at + 1] = address;
  w[b + W_COUNT] = n + 1;
  // Link the new leaf after the old one.
  const next = lw[lb + W_NEXT]!;
  rw[rb + W_NEXT] = next;
  rw[rb + W_PREV] = leaf;
  if (next !== NONE) chunks[next >>> shift]![(next & mask) + W_PREV] = right;
  lw[lb + W_NEXT] = right;
  if (t.lastLeaf === leaf) t.lastLeaf = right;
  // Fences: the left half is [low, sep), the right half [sep, high); an infinite fence is
  // replaced by the half's outermost key.
  const depth = t.height - 1;
  const sep = rw[rb + W_SLOTS + 1]!;
  const low = t.fenceLow(depth);
  const high = t.fenceHigh(depth);
  const leftSkip = t.commonPrefix(low !== NONE ? low : lw[lb + W_SLOTS + 1]!, sep);
  if (leftSkip !== oldSkip) resliceLeaf(t, lw, lb, leftSkip);
  const last = high !== NONE ? high : rw[rb + W_SLOTS + 2 * rw[rb + W_COUNT]! - 1]!;
  const rightSkip = t.commonPrefix(sep, last);
  if (rightSkip !== oldSkip) resliceLeaf(t, rw, rb, rightSkip);
  insertIntoParent(t, depth - 1, sep, right);
}

/** Inserts child `child` with separator `sep` after the path's child at `depth`. */
function insertIntoParent(t: SplitTree, depth: number, sep: number, child: number): void {
  const chunks = t.nodeChunks;
  const shift = t.arena.nodeShift;
  const mask = t.arena.nodeMask;
  if (depth < 0) {
    const root = t.arena.allocateNode(INNER_WORDS, INNER_LANE);
    const w = chunks[root >>> shift]!;
    const b = root & mask;
    // The root has no fences: its skip is its one separator's length, to be lowered by
    // insertChild as separators that share less arrive.
    const skip = t.commonPrefix(sep, sep);
    w[b + W_COUNT] = 2;
    w[b + W_SKIP] = skip;
    w[b + W_SLOTS] = t.root;
    w[b + W_SLOTS + 1] = t.sliceOfEntry(sep, skip);
    w[b + W_SLOTS + 2] = sep;
    w[b + W_SLOTS + 3] = child;
    t.root = root;
    t.height++;
    return;
  }
  const node = t.pathNodeAt(depth);
  const pos = t.pathIndexAt(depth) + 1;
  const w = chunks[node >>> shift]!;
  const b = node & mask;
  const n = w[b + W_COUNT]!;
  if (n < INNER_CAP) {
    insertChild(t, w, b, pos, sep, child);
    return;
  }
  const right = t.arena.allocateNode(INNER_WORDS, INNER_LANE);
  const rw = chunks[right >>> shift]!;
  const rb = right & mask;
  const oldSkip = w[b + W_SKIP]!;
  let up: number;
  if (pos === n) {
    // Appending: the old node stays full, the new one starts with the new child alone.
    up = sep;
    rw[rb + W_COUNT] = 1;
    rw[rb + W_SLOTS] = child;
  } else {
    // Children [keep, n) move right; sep `keep` goes up.
    const keep = n >>> 1;
    up = w[b + W_SLOTS + 3 * keep - 1]!;
    rw.set(w.subarray(b + W_SLOTS + 3 * keep, b + W_SLOTS + 3 * n - 2), rb + W_SLOTS);
    rw[rb + W_COUNT] = n - keep;
    w[b + W_COUNT] = keep;
  }
  rw[rb + W_SKIP] = oldSkip;
  // As for leaves; an infinite fence is replaced by the half's outermost separator (a half
  // without separators gets skip 0 until insertChild gives it one).
  const low = t.fenceLow(depth);
  const high = t.fenceHigh(depth);
  const leftSkip = low !== NONE ? t.commonPrefix(low, up) : t.commonPrefix(w[b + W_SLOTS + 2]!, up);
  if (leftSkip !== oldSkip) resliceInner(t, w, b, leftSkip);
  const rn = rw[rb + W_COUNT]!;
  const rightSkip =
    high !== NONE
      ? t.commonPrefix(up, high)
      : rn > 1
        ? t.commonPrefix(up, rw[rb + W_SLOTS + 3 * (rn - 1) - 1]!)
        : 0;
  if (rightSkip !== oldSkip) resliceInner(t, rw, rb, rightSkip);
  if (pos !== n) {
    const keep = n >>> 1;
    if (pos <= keep) insertChild(t, w, b, pos, sep, child);
    else insertChild(t, rw, rb, pos - keep, sep, child);
  }
  insertIntoParent(t, depth - 1, up, right);
}

/** Inserts (sep, child) as child `pos` (>= 1) of the inner node at words[b] (not full). */
function insertChild(
  t: SplitTree,
  w: Int32Array,
  b: number,
  pos: number,
  sep: number,
  child: number,
): void {
  const n = w[b + W_COUNT]!;
  const skip = w[b + W_SKIP]!;
  // In a node with an infinite fence the new separator may not share the prefix.
  if (skip > 0 && n > 1) {
    const shared = t.commonPrefix(sep, w[b + W_SLOTS + 2]!);
    if (shared < skip) resliceInner(t, w, b, shared);
  }
  const at = b + W_SLOTS + 3 * pos;
  for (let i = b + W_SLOTS + 3 * (n - 1); i >= at - 2; i--) w[i + 3] = w[i]!;
  w[at - 2] = t.sliceOfEntry(sep, w[b + W_SKIP]!);
  w[at - 1] = sep;
  w[at] = child;
  w[b + W_COUNT] = n + 1;
}
