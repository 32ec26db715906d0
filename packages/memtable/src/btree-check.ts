/**
 * Invariant checks of the memtable's B+tree (slow; for tests and invariant builds). Each
 * throws Corruption (through assertInvariant) on a violation.
 */
import { assertInvariant } from "@shale/base";
import type { BTree } from "./btree.js";
import {
  INNER_CAP,
  LEAF_CAP,
  NONE,
  W_COUNT,
  W_NEXT,
  W_PREV,
  W_SKIP,
  W_SLOTS,
} from "./btree-layout.js";
import { type HashIndex, hashKey } from "./hash-index.js";

/** Sign of (entry a) - (entry b) in the tree's order. */
function compareEntries(t: BTree, a: number, b: number): number {
  t.setTargetEntry(b);
  return t.compareEntry(a);
}

/**
 * Checks the whole tree: order, fences, slices, skips, leaf links, equal leaf depth, first
 * and last leaf. Returns the number of keys.
 */
export function checkTree(t: BTree): number {
  const leaves: number[] = [];
  const keys = checkNode(t, t.root, t.height - 1, NONE, NONE, leaves);
  assertInvariant(leaves[0] === t.firstLeaf, "btree: wrong first leaf");
  assertInvariant(leaves[leaves.length - 1] === t.lastLeaf, "btree: wrong last leaf");
  for (let i = 0; i < leaves.length; i++) {
    assertInvariant(
      t.prevLeaf(leaves[i]!) === (i === 0 ? NONE : leaves[i - 1]),
      "btree: wrong prev link",
    );
    assertInvariant(
      t.nextLeaf(leaves[i]!) === (i === leaves.length - 1 ? NONE : leaves[i + 1]),
      "btree: wrong next link",
    );
  }
  return keys;
}

function words(t: BTree, node: number): [Int32Array, number] {
  return [t.nodeChunks[node >>> t.arena.nodeShift]!, node & t.arena.nodeMask];
}

/** Checks the subtree at `node` (`levels` above the leaves) within [low, high). */
function checkNode(
  t: BTree,
  node: number,
  levels: number,
  low: number,
  high: number,
  leaves: number[],
): number {
  const [w, b] = words(t, node);
  const n = w[b + W_COUNT]!;
  const skip = w[b + W_SKIP]!;
  // Both fences finite: the node's keys and every target routed to it share `skip` bytes.
  // Otherwise searches check the target's prefix against the node's first key.
  if (low !== NONE && high !== NONE) {
    assertInvariant(
      skip <= t.commonPrefix(low, high),
      "btree: skip longer than the fences' common prefix",
    );
  }
  const first = levels === 0 ? w[b + W_SLOTS + 1]! : w[b + W_SLOTS + 2]!;
  for (let i = levels === 0 ? 0 : 1; i < n; i++) {
    const e = levels === 0 ? w[b + W_SLOTS + 2 * i + 1]! : w[b + W_SLOTS + 3 * i - 1]!;
    assertInvariant(t.commonPrefix(e, first) >= skip, "btree: a key does not share the skip");
  }
  if (levels === 0) {
    leaves.push(node);
    assertInvariant(n <= LEAF_CAP && (n > 0 || node === t.root), "btree: bad leaf count");
    let prev = low;
    for (let i = 0; i < n; i++) {
      const e = w[b + W_SLOTS + 2 * i + 1]!;
      assertInvariant(
        w[b + W_SLOTS + 2 * i] === t.sliceOfEntry(e, skip),
        "btree: wrong slice in a leaf",
      );
      if (prev !== NONE) {
        const c = compareEntries(t, e, prev);
        assertInvariant(i === 0 ? c >= 0 : c > 0, "btree: leaf keys out of order");
      }
      prev = e;
    }
    if (n > 0 && high !== NONE)
      assertInvariant(compareEntries(t, prev, high) < 0, "btree: leaf key past its fence");
    return n;
  }
  assertInvariant(n >= 1 && n <= INNER_CAP, "btree: bad inner count");
  let keys = 0;
  for (let i = 0; i < n; i++) {
    const at = b + W_SLOTS + 3 * i;
    const childLow = i === 0 ? low : w[at - 1]!;
    const childHigh = i + 1 < n ? w[at + 2]! : high;
    if (i > 0) {
      assertInvariant(
        w[at - 2] === t.sliceOfEntry(childLow, skip),
        "btree: wrong slice in an inner node",
      );
      if (i > 1 || low !== NONE) {
        const before = i === 1 ? low : w[at - 4]!;
        assertInvariant(compareEntries(t, childLow, before) > 0, "btree: separators out of order");
      }
    }
    keys += checkNode(t, w[at]!, levels - 1, childLow, childHigh, leaves);
  }
  return keys;
}

/**
 * Checks that `index` maps the user key of the first entry of every run of equal user keys
 * in `t` (its newest) to that entry, and holds nothing else. Applies its queued inserts.
 */
export function checkIndex(t: BTree, index: HashIndex): void {
  index.flush();
  let keys = 0;
  let previous = NONE;
  for (let leaf = t.firstLeaf; leaf !== NONE; leaf = t.nextLeaf(leaf)) {
    for (let slot = 0; slot < t.count(leaf); slot++) {
      const address = t.entryAt(leaf, slot);
      if (previous !== NONE) {
        t.setTargetEntry(previous);
        if (t.userKeyEquals(address)) continue;
      }
      previous = address;
      keys++;
      const key = t.userKeyOf(address);
      t.setTargetEntry(address);
      const found = index.find(hashKey(key, 0, key.length));
      assertInvariant(
        found >= 0 && index.addressAt(found) === address,
        "hash index: a user key does not map to its newest entry",
      );
    }
  }
  assertInvariant(index.size === keys, "hash index: holds keys the tree does not");
}

/** Checks that the entry at `address` is found where it belongs, between its neighbours. */
export function checkInserted(t: BTree, address: number): void {
  t.setTargetEntry(address);
  t.seek(false);
  const leaf = t.leaf;
  const slot = t.slot;
  assertInvariant(leaf !== NONE && t.entryAt(leaf, slot) === address, "btree: entry not found");
  const [w, b] = words(t, leaf);
  assertInvariant(
    w[b + W_SLOTS + 2 * slot] === t.sliceOfEntry(address, w[b + W_SKIP]!),
    "btree: wrong slice for a new entry",
  );
  const prevLeaf = slot > 0 ? leaf : w[b + W_PREV]!;
  if (prevLeaf !== NONE) {
    const prev = t.entryAt(prevLeaf, slot > 0 ? slot - 1 : t.count(prevLeaf) - 1);
    assertInvariant(compareEntries(t, prev, address) < 0, "btree: previous key not smaller");
  }
  const nextLeaf = slot + 1 < w[b + W_COUNT]! ? leaf : w[b + W_NEXT]!;
  if (nextLeaf !== NONE) {
    const next = t.entryAt(nextLeaf, nextLeaf === leaf ? slot + 1 : 0);
    assertInvariant(compareEntries(t, next, address) > 0, "btree: next key not larger");
  }
}
