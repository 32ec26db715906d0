/**
 * The hash index's build from the tree (see MemTable.index): a walk of the point entries in
 * key order that takes a few entries per get or add into a new index, so no call waits for
 * the whole build. Entries only move right (an insert shifts a leaf's later slots, a split
 * moves a leaf's upper half to a new leaf after it), so the walk sees each entry that was
 * there when it started at least once; one it sees twice, or one an add indexed already,
 * changes nothing (the index keeps the entry that sorts first).
 */
import { TRAILER_SIZE } from "@shale/base";
import type { BTree } from "./btree.js";
import { NONE } from "./btree-layout.js";
import { readVarint32, varintEnd } from "./entry.js";
import { type HashIndex, hashKey } from "./hash-index.js";

export class IndexBuild {
  private readonly points: BTree;
  private readonly index: HashIndex;
  /** Where the walk goes on: a leaf of `points` (NONE when done) and a slot in it. */
  private leaf: number;
  private slot = 0;

  constructor(points: BTree, index: HashIndex) {
    this.points = points;
    this.index = index;
    this.leaf = points.firstLeaf;
  }

  /**
   * Takes up to `n` more entries of the tree into the index, in key order from where the
   * last step stopped; true when the walk has reached the end (the index is complete).
   */
  step(n: number): boolean {
    const points = this.points;
    const index = this.index;
    const arena = points.arena;
    let leaf = this.leaf;
    let slot = this.slot;
    while (n > 0 && leaf !== NONE) {
      if (slot >= points.count(leaf)) {
        leaf = points.nextLeaf(leaf);
        slot = 0;
        continue;
      }
      const address = points.entryAt(leaf, slot++);
      const chunk = arena.entryChunks[address >>> arena.shift]!;
      const ikeyLength = readVarint32(chunk, address & arena.mask);
      index.insert(hashKey(chunk, varintEnd, ikeyLength - TRAILER_SIZE), address);
      n--;
    }
    this.leaf = leaf;
    this.slot = slot;
    return leaf === NONE;
  }
}
