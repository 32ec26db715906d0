/**
 * A B+tree of arena entries ordered by internal key (single writer): nodes are Int32 words in
 * the arena's node chunks, entries are bytes in its entry chunks (arena.ts for addresses,
 * entry.ts for the entry format). Every key lives in a leaf; inner nodes hold separators.
 *
 * ```
 * leaf (LEAF_WORDS = 4 + 2 * LEAF_CAP words):
 * +-------+------+-----------+-----------+---------+---------+---------+---------+-----+
 * | count | skip | next leaf | prev leaf | slice 0 | entry 0 | slice 1 | entry 1 | ... |
 * +-------+------+-----------+-----------+---------+---------+---------+---------+-----+
 *   word 0  1      2           3           4         5         6         7
 *
 * inner (INNER_WORDS = 2 + 3 * INNER_CAP words), children c0 .. c(count-1):
 * +-------+------+--------+-------+----+---------+---------+----+-----+
 * | count | skip | unused | unused| c0 | slice 1 | sep 1   | c1 | ... |
 * +-------+------+--------+-------+----+---------+---------+----+-----+
 *   sep i (i >= 1) is the entry address of the first key under c_i: c_i holds the keys in
 *   [sep i, sep i+1); sep 0 is minus infinity.
 *
 *            [  . | b#9 | . | k#2 | .  ]                    (root, inner, skip 0)
 *              /          |          \
 *   [a#7 a#3] <-> [b#9 c#4 d#1] <-> [k#2 m#5]                (leaves, doubly linked)
 * ```
 *
 * Keys sort by user key (the comparator), then seq descending, then kind descending.
 *
 * **Slices.** Beside every entry address sits a *slice*: 4 bytes of its user key starting
 * at the node's `skip`, big-endian, zero-padded, top bit flipped so that signed int32 order
 * is byte order (bytewise comparator only; 0 otherwise). Every key in a node shares its
 * first `skip` bytes, so the slice is where keys differ: a search compares slices and reads
 * an entry only on a tie. With db_bench keys (8-byte big-endian numbers) the first bytes
 * are all zero and a slice at offset 0 would settle nothing; `skip` moves it past them.
 *
 * A node between two finite fences (the separators bounding it in its parent) gets as skip
 * the common prefix of its fences, which every key and every search routed to it share; a
 * node's fences only narrow, so it stays valid. A node on the tree's left or right edge has
 * an infinite fence: its skip is the common prefix of its outermost keys, and a search
 * there first compares the target's first `skip` bytes with the node's first key: if they
 * differ the target sorts before or after the whole node; an insert of such a key lowers
 * the node's skip instead (and re-reads its slices). Each split recomputes both halves'
 * skips and re-reads the slices of a half whose skip changed.
 *
 * **Leaf search.** A leaf is scanned linearly by slice (its loads do not wait for one
 * another, so the leaf's cache lines arrive together), then the run of equal slices is
 * binary-searched by entry. Inner nodes are binary-searched.
 *
 * **Splits.** A full leaf splits in half, except that a key going to its end (or front)
 * leaves the old keys where they are and opens a new leaf, so ascending (descending) inserts
 * fill leaves completely. New nodes always go to the right: a leaf never moves, the first
 * leaf stays first. Inner nodes split alike; a root split adds a level (btree-split.ts).
 *
 * **Sequential inserts** (RocksDB's splice): the last insert's leaf, slot and path are
 * kept; a key that sorts right after (or before) the key inserted last goes next to it
 * without a descent; a key past the tree's last key goes at the end of the last leaf, its
 * path read down the right spine (ascending keys with a few out of order among them). Random
 * inserts try these only now and then (see prepareInsert).
 *
 * Searches compare nodes against a *target* held in fields (`setTarget*`, key-target.ts,
 * which the tree extends for its comparisons only); the tree searches its nodes with the
 * functions of btree-search.ts and keeps their slices with btree-slices.ts. Module arrows
 * point one way: btree -> btree-search, btree-split -> btree-slices -> key-target.
 */
import type { Comparator } from "@shale/base";
import type { Arena } from "./arena.js";
import {
  LEAF_CAP,
  LEAF_LANE,
  LEAF_WORDS,
  NONE,
  W_COUNT,
  W_NEXT,
  W_PREV,
  W_SKIP,
  W_SLOTS,
} from "./btree-layout.js";
import { childFor, compareSlot, slotFor } from "./btree-search.js";
import { splitLeafAndInsert } from "./btree-split.js";
import { KeyTarget } from "./key-target.js";

/** The state of a tree, to reopen it elsewhere (shared.ts). */
export interface TreeRoots {
  readonly root: number;
  readonly height: number;
  readonly firstLeaf: number;
  readonly lastLeaf: number;
}

/** Words of BTree's path array per level (see there), and their places. */
const P_STRIDE = 4;
const P_INDEX = 1;
const P_LOW = 2;
const P_HIGH = 3;
/**
 * Inserts in a row that the shortcuts (next to the last insert, past the last key) may miss
 * before they are tried only on every SHORTCUT_RETRY-th insert (random keys then pay for
 * them rarely; a hit makes them tried on every insert again).
 */
const SHORTCUT_PATIENCE = 4;
const SHORTCUT_RETRY = 16;

export class BTree extends KeyTarget {
  root: number;
  /** Levels: 1 while the root is a leaf. */
  height: number;
  readonly firstLeaf: number;
  lastLeaf: number;
  /** Bumped by every insert: iterators re-find their entry when it changed. */
  version = 0;
  /** Result of the last search: a leaf and a slot in it (slot may equal the leaf's count). */
  leaf = NONE;
  slot = 0;
  // The arena's chunk arrays (the same, growing, array objects) and address geometry.
  readonly nodeChunks: Int32Array[];
  private readonly nodeShift: number;
  private readonly nodeMask: number;
  // The path of the last insert, P_STRIDE small integers per level d: node at
  // [P_STRIDE * d], child index at [+ P_INDEX], fences at [+ P_LOW] and [+ P_HIGH]. A plain
  // array grown with the tree (a typed array of all levels would be a buffer of its
  // own to allocate, which small memtables, made often, notice).
  private readonly path: number[] = [];
  /** True when the path describes the leaf of the last insert (for the sequential shortcut). */
  private pathValid = false;
  /** Where prepareInsert found the target's place: a leaf and a slot in it. */
  private insertLeaf = NONE;
  private insertSlot = 0;
  /** Inserts in a row the shortcuts missed, and inserts since they were last tried. */
  private shortcutMisses = 0;
  private shortcutSkipped = 0;

  /** A new, empty tree, or (roots given) a tree reopened from shared chunks. */
  constructor(arena: Arena, user: Comparator, roots?: TreeRoots) {
    super(arena, user);
    this.nodeChunks = arena.nodeChunks;
    this.nodeShift = arena.nodeShift;
    this.nodeMask = arena.nodeMask;
    if (roots === undefined) {
      const leaf = this.newLeaf();
      this.root = leaf;
      this.height = 1;
      this.firstLeaf = leaf;
      this.lastLeaf = leaf;
    } else {
      this.root = roots.root;
      this.height = roots.height;
      this.firstLeaf = roots.firstLeaf;
      this.lastLeaf = roots.lastLeaf;
    }
  }

  get roots(): TreeRoots {
    return {
      root: this.root,
      height: this.height,
      firstLeaf: this.firstLeaf,
      lastLeaf: this.lastLeaf,
    };
  }

  /** A new, empty leaf (not linked). */
  newLeaf(): number {
    const node = this.arena.allocateNode(LEAF_WORDS, LEAF_LANE);
    const w = this.nodeChunks[node >>> this.nodeShift]!;
    const b = node & this.nodeMask;
    w[b + W_NEXT] = NONE;
    w[b + W_PREV] = NONE;
    return node;
  }

  // ---- node accessors -------------------------------------------------------------------

  /** Keys in `leaf`. */
  count(leaf: number): number {
    return this.nodeChunks[leaf >>> this.nodeShift]![(leaf & this.nodeMask) + W_COUNT]!;
  }

  /** The leaf after `leaf`, or NONE. */
  nextLeaf(leaf: number): number {
    return this.nodeChunks[leaf >>> this.nodeShift]![(leaf & this.nodeMask) + W_NEXT]!;
  }

  /** The leaf before `leaf`, or NONE. */
  prevLeaf(leaf: number): number {
    return this.nodeChunks[leaf >>> this.nodeShift]![(leaf & this.nodeMask) + W_PREV]!;
  }

  /** The entry address in slot `slot` of `leaf`. */
  entryAt(leaf: number, slot: number): number {
    return this.nodeChunks[leaf >>> this.nodeShift]![
      (leaf & this.nodeMask) + W_SLOTS + 2 * slot + 1
    ]!;
  }

  /**
   * Loads the first byte of every entry of `leaf` and returns their sum (store it somewhere,
   * so the loads are kept). A scan entering a leaf calls it: the entries of a memtable lie
   * in insertion order, scattered over the arena, so each one read in key order is a cache
   * miss, and a miss waits for the previous one when the addresses come one step at a time.
   * Loads whose addresses are all known up front overlap (JavaScript has no prefetch).
   */
  touchEntries(leaf: number): number {
    const words = this.nodeChunks[leaf >>> this.nodeShift]!;
    const base = (leaf & this.nodeMask) + W_SLOTS + 1;
    const n = words[(leaf & this.nodeMask) + W_COUNT]!;
    const chunks = this.arena.entryChunks;
    const shift = this.arena.shift;
    const mask = this.arena.mask;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const address = words[base + 2 * i]!;
      sum += chunks[address >>> shift]![address & mask]!;
    }
    return sum;
  }

  // ---- searches -------------------------------------------------------------------------

  /**
   * True when no key of the tree has the target's user key because it sorts before the
   * first key's or after the last key's (or the tree is empty): two comparisons with keys
   * that stay in cache, which settle a lookup of a key outside the tree's range (a read of
   * old keys while new ones are appended) before any hash or descent.
   */
  outsideUserKeys(): boolean {
    const first = this.firstLeaf;
    const fw = this.nodeChunks[first >>> this.nodeShift]!;
    const fb = first & this.nodeMask;
    if (fw[fb + W_COUNT] === 0) return true;
    if (this.compareUserKeyOf(fw[fb + W_SLOTS + 1]!) > 0) return true;
    const last = this.lastLeaf;
    const lw = this.nodeChunks[last >>> this.nodeShift]!;
    const lb = last & this.nodeMask;
    return this.compareUserKeyOf(lw[lb + W_SLOTS + 2 * lw[lb + W_COUNT]! - 1]!) < 0;
  }

  /**
   * Positions `leaf`/`slot` at the first key >= target (`orEqual`: > target), or leaf NONE
   * when there is none.
   */
  seek(orEqual: boolean): void {
    const chunks = this.nodeChunks;
    let node = this.root;
    let left = true;
    let right = true;
    for (let d = this.height - 1; d > 0; d--) {
      const words = chunks[node >>> this.nodeShift]!;
      const b = node & this.nodeMask;
      const i = childFor(this, words, b, left || right, false);
      left = left && i === 0;
      right = right && i === words[b + W_COUNT]! - 1;
      node = words[b + W_SLOTS + 3 * i]!;
    }
    const words = chunks[node >>> this.nodeShift]!;
    const b = node & this.nodeMask;
    const slot = slotFor(this, words, b, left || right, false, orEqual);
    if (slot < words[b + W_COUNT]!) {
      this.leaf = node;
      this.slot = slot;
    } else {
      // Past this leaf's keys: the answer is the next leaf's first key (>= its fence).
      this.leaf = words[b + W_NEXT]!;
      this.slot = 0;
    }
  }

  /** The position of the last key < target (`orEqual`: <= target); leaf NONE if none. */
  seekBefore(orEqual: boolean): void {
    this.seek(orEqual);
    if (this.leaf === NONE) {
      this.leaf = this.count(this.lastLeaf) > 0 ? this.lastLeaf : NONE;
      this.slot = this.leaf === NONE ? 0 : this.count(this.leaf) - 1;
    } else if (this.slot > 0) {
      this.slot--;
    } else {
      this.leaf = this.prevLeaf(this.leaf);
      this.slot = this.leaf === NONE ? 0 : this.count(this.leaf) - 1;
    }
  }

  // ---- insertion ------------------------------------------------------------------------

  /**
   * Finds where the target goes and remembers the path for `insert`. Returns false when a
   * key equal to the target exists.
   *
   * Shortcuts, tried before a descent: the sequential one (RocksDB's splice): if the target
   * sorts right after (or before) the key inserted last, it goes next to it in the same
   * leaf; the append (Pebble's arenaskl "insert after the last"): a target past the tree's
   * last key goes at the end of the last leaf, its path the right spine, read without a
   * comparison. After SHORTCUT_PATIENCE misses in a row (random keys) they are tried only
   * every SHORTCUT_RETRY-th insert until one hits again.
   */
  prepareInsert(): boolean {
    if (this.shortcutMisses < SHORTCUT_PATIENCE || ++this.shortcutSkipped % SHORTCUT_RETRY === 0) {
      if (this.pathValid && this.sequentialPlace()) {
        this.shortcutMisses = 0;
        return !this.found;
      }
      if (this.appendPlace()) {
        this.shortcutMisses = 0;
        return true;
      }
      this.shortcutMisses++;
    }
    const chunks = this.nodeChunks;
    const leafDepth = this.height - 1;
    const path = this.path;
    while (path.length < P_STRIDE * this.height) path.push(0);
    let node = this.root;
    let low = NONE;
    let high = NONE;
    let left = true;
    let right = true;
    for (let d = 0; d < leafDepth; d++) {
      const words = chunks[node >>> this.nodeShift]!;
      const b = node & this.nodeMask;
      const i = childFor(this, words, b, left || right, true);
      const n = words[b + W_COUNT]!;
      this.path[P_STRIDE * d] = node;
      this.path[P_STRIDE * d + P_INDEX] = i;
      this.path[P_STRIDE * d + P_LOW] = low;
      this.path[P_STRIDE * d + P_HIGH] = high;
      if (i > 0) low = words[b + W_SLOTS + 3 * i - 1]!;
      if (i + 1 < n) high = words[b + W_SLOTS + 3 * i + 2]!;
      left = left && i === 0;
      right = right && i === n - 1;
      node = words[b + W_SLOTS + 3 * i]!;
    }
    this.path[P_STRIDE * leafDepth + P_LOW] = low;
    this.path[P_STRIDE * leafDepth + P_HIGH] = high;
    this.pathValid = true;
    const words = chunks[node >>> this.nodeShift]!;
    const b = node & this.nodeMask;
    this.insertLeaf = node;
    this.insertSlot = slotFor(this, words, b, left || right, true, false);
    return !this.found;
  }

  /**
   * Tries the append shortcut: true (and the place and path set) when the target sorts
   * after every key and shares the prefix (`skip` bytes) of each node on the right spine,
   * so no node's slices change. The path's low fences are the spine's last separators; its
   * high fences are infinite.
   */
  private appendPlace(): boolean {
    const leaf = this.lastLeaf;
    const chunks = this.nodeChunks;
    const shift = this.nodeShift;
    const mask = this.nodeMask;
    const lw = chunks[leaf >>> shift]!;
    const lb = leaf & mask;
    const n = lw[lb + W_COUNT]!;
    if (n === 0 || this.compareEntry(lw[lb + W_SLOTS + 2 * n - 1]!) >= 0) return false;
    // The target shares the first `lcp` bytes of the last key, which shares every spine
    // node's prefix (skips are 0 unless bytewise).
    const lcp = this.bytewise ? this.lcp : 0;
    if (lw[lb + W_SKIP]! > lcp) return false;
    const leafDepth = this.height - 1;
    const path = this.path;
    while (path.length < P_STRIDE * this.height) path.push(0);
    let node = this.root;
    let low = NONE;
    for (let d = 0; d < leafDepth; d++) {
      const w = chunks[node >>> shift]!;
      const b = node & mask;
      if (w[b + W_SKIP]! > lcp) return false;
      const i = w[b + W_COUNT]! - 1;
      path[P_STRIDE * d] = node;
      path[P_STRIDE * d + P_INDEX] = i;
      path[P_STRIDE * d + P_LOW] = low;
      path[P_STRIDE * d + P_HIGH] = NONE;
      if (i > 0) low = w[b + W_SLOTS + 3 * i - 1]!;
      node = w[b + W_SLOTS + 3 * i]!;
    }
    path[P_STRIDE * leafDepth + P_LOW] = low;
    path[P_STRIDE * leafDepth + P_HIGH] = NONE;
    this.pathValid = true;
    this.insertLeaf = leaf;
    this.insertSlot = n;
    this.found = false;
    return true;
  }

  /**
   * Tries the sequential shortcut: true when the target's place (and `found`) is known
   * from the last insert's neighbours.
   */
  private sequentialPlace(): boolean {
    const leaf = this.insertLeaf;
    const words = this.nodeChunks[leaf >>> this.nodeShift]!;
    const b = leaf & this.nodeMask;
    const n = words[b + W_COUNT]!;
    const s = this.insertSlot;
    if (s >= n) return false;
    const skip = words[b + W_SKIP]!;
    const last = words[b + W_SLOTS + 2 * s + 1]!;
    const c = this.compareEntry(last);
    this.found = c === 0;
    if (c === 0) return true;
    // Slices are comparable only if the target shares the leaf's prefix.
    if (skip > 0 && this.lcp < skip) return false;
    const leafDepth = this.height - 1;
    if (c < 0) {
      // last < target: does it go right after `last`?
      if (s + 1 < n) {
        const c2 = compareSlot(this, words, b, s + 1, skip);
        if (c2 < 0) return false;
        this.found = c2 === 0;
      } else {
        const high = this.path[P_STRIDE * leafDepth + P_HIGH]!;
        if (high !== NONE && this.compareEntry(high) <= 0) return false;
      }
      this.insertSlot = s + 1;
      return true;
    }
    // target < last: does it go right before `last`?
    if (s > 0) {
      const c0 = compareSlot(this, words, b, s - 1, skip);
      if (c0 > 0) return false;
      if (c0 === 0) {
        this.found = true;
        this.insertSlot = s - 1;
        return true;
      }
    } else {
      const low = this.path[P_STRIDE * leafDepth + P_LOW]!;
      if (low !== NONE && this.compareEntry(low) > 0) return false;
    }
    return true;
  }

  /**
   * Inserts the entry at `address` (whose key is the target) where the last successful
   * `prepareInsert` found its place (nothing may be inserted in between).
   */
  insert(address: number): void {
    this.version++;
    const leaf = this.insertLeaf;
    const words = this.nodeChunks[leaf >>> this.nodeShift]!;
    const b = leaf & this.nodeMask;
    const n = words[b + W_COUNT]!;
    const slot = this.insertSlot;
    if (n < LEAF_CAP) {
      const at = b + W_SLOTS + 2 * slot;
      for (let i = b + W_SLOTS + 2 * n - 1; i >= at; i--) words[i + 2] = words[i]!;
      words[at] = this.sliceOfTarget(words[b + W_SKIP]!);
      words[at + 1] = address;
      words[b + W_COUNT] = n + 1;
      return;
    }
    this.pathValid = false;
    splitLeafAndInsert(this, leaf, slot, address);
  }

  // ---- helpers for splits (btree-split.ts) ----------------------------------------------

  /** @internal */ pathNodeAt(depth: number): number {
    return this.path[P_STRIDE * depth]!;
  }
  /** @internal */ pathIndexAt(depth: number): number {
    return this.path[P_STRIDE * depth + P_INDEX]!;
  }
  /** @internal */ fenceLow(depth: number): number {
    return this.path[P_STRIDE * depth + P_LOW]!;
  }
  /** @internal */ fenceHigh(depth: number): number {
    return this.path[P_STRIDE * depth + P_HIGH]!;
  }
}
