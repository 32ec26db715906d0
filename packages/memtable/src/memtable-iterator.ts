/**
 * The memtable's InternalIterator: a position (leaf, slot) in the B+tree's doubly linked
 * leaves. An insert may shift or split the leaf under the iterator, so the position carries
 * the tree's `version`; when the tree changed and the entry is no longer in its slot, the
 * iterator finds it again by key (O(log n)) before stepping. Entries added after a
 * positioning call may or may not be seen.
 *
 * The iterator holds a reference to its memtable (`owner`), dropped by the first `close()`:
 * until then the arena's chunks are not reused, so a value view stays valid until close.
 */
import { EMPTY_BYTES, type InternalIterator, ShaleError, TRAILER_SIZE } from "@shale/base";
import type { BTree } from "./btree.js";
import { NONE } from "./btree-layout.js";
import { readVarint32, varintEnd } from "./entry.js";

export class MemTableIterator implements InternalIterator {
  private readonly tree: BTree;
  /** Current leaf; NONE when not valid. */
  private leaf = NONE;
  private slot = 0;
  /** Entry address of the current key. */
  private entry = 0;
  /** The tree's version when (leaf, slot) was last known to hold `entry`. */
  private version = 0;
  /** Views of the current entry, built on first access after a move. */
  private keyView: Uint8Array = EMPTY_BYTES;
  private valueView: Uint8Array = EMPTY_BYTES;
  private viewsFor = -1;
  private valueFor = -1;
  /** Where the current entry's value lies (set with `keyView`). */
  private valueStart = 0;
  private valueLength = 0;
  /** @internal Sink of the prefetching loads (`BTree.touchEntries`). */
  touched = 0;
  /** Whose reference this iterator holds (dropped on close); undefined once closed. */
  private owner: { unref(): void } | undefined;
  private closed = false;

  /** `owner`: the memtable whose reference (taken by the caller) `close()` drops. */
  constructor(tree: BTree, owner?: { unref(): void }) {
    this.tree = tree;
    this.owner = owner;
  }

  valid(): boolean {
    return this.leaf !== NONE;
  }

  seekToFirst(): void {
    if (this.closed) throw closedError();
    const t = this.tree;
    this.setPosition(t.count(t.firstLeaf) > 0 ? t.firstLeaf : NONE, 0);
  }

  seekToLast(): void {
    if (this.closed) throw closedError();
    const t = this.tree;
    const n = t.count(t.lastLeaf);
    this.setPosition(n > 0 ? t.lastLeaf : NONE, n - 1);
  }

  seek(target: Uint8Array): void {
    if (this.closed) throw closedError();
    checkTarget(target);
    this.tree.setTargetInternal(target);
    this.tree.seek(false);
    this.setPosition(this.tree.leaf, this.tree.slot);
  }

  seekForPrev(target: Uint8Array): void {
    if (this.closed) throw closedError();
    checkTarget(target);
    this.tree.setTargetInternal(target);
    this.tree.seekBefore(true);
    this.setPosition(this.tree.leaf, this.tree.slot);
  }

  next(): void {
    if (this.leaf === NONE) throw new RangeError("next() on an invalid iterator");
    const t = this.tree;
    if (this.version !== t.version) this.sync();
    if (this.slot + 1 < t.count(this.leaf)) this.setPosition(this.leaf, this.slot + 1);
    else {
      const leaf = t.nextLeaf(this.leaf);
      if (leaf !== NONE) this.touched = t.touchEntries(leaf);
      this.setPosition(leaf, 0);
    }
  }

  prev(): void {
    if (this.leaf === NONE) throw new RangeError("prev() on an invalid iterator");
    const t = this.tree;
    if (this.version !== t.version) this.sync();
    if (this.slot > 0) this.setPosition(this.leaf, this.slot - 1);
    else {
      const leaf = t.prevLeaf(this.leaf);
      if (leaf !== NONE) this.touched = t.touchEntries(leaf);
      this.setPosition(leaf, leaf === NONE ? 0 : t.count(leaf) - 1);
    }
  }

  /** The internal key: a view into the arena, valid while the memtable lives. REQUIRES: valid(). */
  key(): Uint8Array {
    if (this.viewsFor !== this.entry || this.leaf === NONE) this.loadViews();
    return this.keyView;
  }

  /** The value: a view into the arena, valid while the memtable lives. REQUIRES: valid(). */
  value(): Uint8Array {
    if (this.viewsFor !== this.entry || this.leaf === NONE) this.loadViews();
    if (this.valueFor !== this.entry) {
      const t = this.tree;
      const buffer = t.arena.entryBuffers[this.entry >>> t.arena.shift]!;
      this.valueView = new Uint8Array(buffer, this.valueStart, this.valueLength);
      this.valueFor = this.entry;
    }
    return this.valueView;
  }

  /**
   * True: arena entries are written once and never move, and the memtable's chunks are not
   * reused before this iterator is closed (it holds a reference).
   */
  isValuePinned(): boolean {
    return true;
  }

  /** Drops the memtable reference (the first time); the iterator must not be used after. */
  close(): void {
    this.closed = true;
    const owner = this.owner;
    if (owner !== undefined) {
      this.owner = undefined;
      owner.unref();
    }
    this.leaf = NONE;
    this.keyView = EMPTY_BYTES;
    this.valueView = EMPTY_BYTES;
    this.viewsFor = -1;
    this.valueFor = -1;
  }

  private setPosition(leaf: number, slot: number): void {
    this.leaf = leaf;
    this.slot = slot;
    if (leaf !== NONE) this.entry = this.tree.entryAt(leaf, slot);
    this.version = this.tree.version;
  }

  /**
   * After the tree changed: the position still holds if the current entry is still in its
   * slot (entry addresses are unique; slots past a leaf's count hold stale words); else it
   * is found again by key.
   */
  private sync(): void {
    const t = this.tree;
    this.version = t.version;
    if (this.slot < t.count(this.leaf) && t.entryAt(this.leaf, this.slot) === this.entry) return;
    t.setTargetEntry(this.entry);
    t.seek(false);
    this.leaf = t.leaf;
    this.slot = t.slot;
    this.version = t.version;
  }

  private loadViews(): void {
    if (this.leaf === NONE) throw new RangeError("key()/value() on an invalid iterator");
    const t = this.tree;
    const address = this.entry;
    const index = address >>> t.arena.shift;
    const chunk = t.entryChunks[index]!;
    const ikeyLength = readVarint32(chunk, address & t.arena.mask);
    const keyStart = varintEnd;
    this.valueLength = readVarint32(chunk, keyStart + ikeyLength);
    this.valueStart = varintEnd;
    // On the chunk's buffer (offset 0): cheaper than subarray (no species lookup). The value's
    // view is made by value(), if asked for (a merge reads the keys of older versions only).
    this.keyView = new Uint8Array(t.arena.entryBuffers[index]!, keyStart, ikeyLength);
    this.viewsFor = address;
  }
}

function closedError(): ShaleError {
  return ShaleError.closed("the memtable iterator is closed");
}

function checkTarget(target: Uint8Array): void {
  if (!(target instanceof Uint8Array)) throw new TypeError("seek target must be a Uint8Array");
  if (target.length < TRAILER_SIZE) {
    throw ShaleError.invalidArgument(`seek target is not an internal key (${target.length} bytes)`);
  }
}
