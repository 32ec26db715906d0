/**
 * The memtable's InternalIterator: a position (leaf, slot) in the B+tree's doubly linked
 * leaves. An insert may shift or split the leaf under the iterator, so the position carries
 * the tree's `version`; when the tree changed and the entry is no longer in its slot, the
 * iterator finds it again by key (O(log n)) before stepping. Entries added after a
 * positioning call may or may not be seen.
 *
 * The iterator holds a reference to its memtable (`owner`), dropped by the first `close()`:
 * until then the arena's chunks are not reused, so a value view stays valid until close.
 *
 * **Steps.** A step within a leaf knows, from the leaf alone, how far the key it lands on
 * agrees with the key it left (bytewise comparator only): every key of a leaf shares the
 * leaf's first `skip` bytes, and the slices beside the entry addresses are the next four
 * bytes (btree.ts). Two slices that differ say where the user keys part (the first differing
 * bit's byte); equal slices say the first `skip + 4` bytes agree. `key()` then compares only
 * past what is known and copies only the bytes that changed into its reused array, and
 * `userKeyDiffersAt()` hands the DB iterator the answer, so neither compares the shared
 * prefix again:
 *
 * ```
 *   leaf skip 11:   "00000000000|4711|2#9"   slice "4711"
 *                   "00000000000|4711|3#4"   slice "4711" (equal: agree on 15 bytes, then
 *                                                          compare byte 15: differs there)
 *                   "00000000000|4712|0#8"   slice "4712" (differ at byte 11 + 3 = 14)
 * ```
 */
import { EMPTY_BYTES, type InternalIterator, ShaleError, TRAILER_SIZE } from "@shale/base";
import type { BTree } from "./btree.js";
import { NONE, W_COUNT, W_NEXT, W_SKIP, W_SLOTS } from "./btree-layout.js";
import { readVarint32, varintEnd } from "./entry.js";
import { giveIteratorKey, type IteratorKey, takeIteratorKey } from "./iterator-key.js";

export class MemTableIterator implements InternalIterator {
  private readonly tree: BTree;
  /** The comparator is bytewise: leaf slices order keys (see Steps above). */
  private readonly bytewise: boolean;
  /** Current leaf; NONE when not valid. */
  private leaf = NONE;
  private slot = 0;
  /** The current leaf's node chunk and the leaf's word offset in it (when valid). */
  private words: Int32Array = EMPTY_WORDS;
  private base = 0;
  /** Entry address of the current key. */
  private entry = 0;
  /** The tree's version when (leaf, slot) was last known to hold `entry`. */
  private version = 0;
  /** Where the current entry's key and value lie in its chunk, read on first access. */
  private offsetsFor = -1;
  private keyStart = 0;
  private keyLengthNow = 0;
  private valueStart = 0;
  private valueLengthNow = 0;
  /** The copy `key()` returns (pooled: iterator-key.ts); holds the key of entry `keyFor`. */
  private keyCopy: IteratorKey;
  private keyFor = -1;
  /** `keyCopy`'s view of the key held (set by the copy). */
  private keyView: Uint8Array = EMPTY_BYTES;
  /**
   * The entry the last step left (-1 after a seek), and its slot when the step stayed in the
   * leaf (-1 when it crossed to another): read by the key copy (see Steps above), so a scan
   * that reads in place pays two stores per step for it.
   */
  private stepFrom = -1;
  private stepSlot = -1;
  /** The last move was a `next()` (step hints are for forward steps only). */
  private forward = false;
  /** Set by the key copy after a step from the key held: see `userKeyDiffersAt`. */
  private diffAt = -1;
  /** The current value's view, built on first access after a move. */
  private valueView: Uint8Array = EMPTY_BYTES;
  private valueFor = -1;
  /** @internal Sink of the prefetching loads (`BTree.touchEntries`). */
  touched = 0;
  /** Whose reference this iterator holds (dropped on close); undefined once closed. */
  private owner: { unref(): void } | undefined;
  private closed = false;

  /** `owner`: the memtable whose reference (taken by the caller) `close()` drops. */
  constructor(tree: BTree, owner?: { unref(): void }) {
    this.tree = tree;
    this.bytewise = tree.bytewise;
    this.owner = owner;
    this.keyCopy = takeIteratorKey();
    this.keyView = this.keyCopy.view();
  }

  valid(): boolean {
    return this.leaf !== NONE;
  }

  seekToFirst(): void {
    if (this.closed) throw closedError();
    const t = this.tree;
    this.stepFrom = -1;
    this.setPosition(t.count(t.firstLeaf) > 0 ? t.firstLeaf : NONE, 0);
  }

  seekToLast(): void {
    if (this.closed) throw closedError();
    const t = this.tree;
    const n = t.count(t.lastLeaf);
    this.stepFrom = -1;
    this.setPosition(n > 0 ? t.lastLeaf : NONE, n - 1);
  }

  seek(target: Uint8Array): void {
    if (this.closed) throw closedError();
    checkTarget(target);
    this.tree.setTargetInternal(target);
    this.tree.seek(false);
    this.stepFrom = -1;
    this.setPosition(this.tree.leaf, this.tree.slot);
  }

  seekForPrev(target: Uint8Array): void {
    if (this.closed) throw closedError();
    checkTarget(target);
    this.tree.setTargetInternal(target);
    this.tree.seekBefore(true);
    this.stepFrom = -1;
    this.setPosition(this.tree.leaf, this.tree.slot);
  }

  next(): void {
    if (this.leaf === NONE) throw new RangeError("next() on an invalid iterator");
    const t = this.tree;
    if (this.version !== t.version) this.sync();
    const words = this.words;
    const b = this.base;
    const slot = this.slot + 1;
    this.stepFrom = this.entry;
    this.forward = true;
    if (slot < words[b + W_COUNT]!) {
      // Within the leaf: the tree has not changed since the position was set (or synced).
      this.stepSlot = slot - 1;
      this.slot = slot;
      this.entry = words[b + W_SLOTS + 2 * slot + 1]!;
    } else {
      const leaf = words[b + W_NEXT]!;
      if (leaf !== NONE) this.touched = t.touchEntries(leaf);
      this.stepSlot = -1;
      this.setPosition(leaf, 0);
    }
  }

  prev(): void {
    if (this.leaf === NONE) throw new RangeError("prev() on an invalid iterator");
    const t = this.tree;
    if (this.version !== t.version) this.sync();
    this.stepFrom = this.entry;
    this.forward = false;
    const slot = this.slot;
    if (slot > 0) {
      this.stepSlot = slot;
      this.setPosition(this.leaf, slot - 1);
    } else {
      const leaf = t.prevLeaf(this.leaf);
      if (leaf !== NONE) this.touched = t.touchEntries(leaf);
      this.stepSlot = -1;
      this.setPosition(leaf, leaf === NONE ? 0 : t.count(leaf) - 1);
    }
  }

  /**
   * The internal key: a copy in the iterator's own array (one view per key length, reused:
   * no allocation per entry), valid until the iterator moves, as a block iterator's.
   * `entryBytes()` and `keyOffset()` give it in place. REQUIRES: valid().
   */
  key(): Uint8Array {
    if (this.keyFor !== this.entry || this.leaf === NONE) this.copyKey();
    return this.keyView;
  }

  /**
   * After `next()`: where the current user key first differs from the one the iterator
   * left, or the user key's length when the two are equal; -1 when not known (after any other
   * move, or when `key()` was not read before the step). See InternalIterator. REQUIRES: valid().
   */
  userKeyDiffersAt(): number {
    if (!this.forward || this.stepFrom === -1) return -1;
    if (this.keyFor !== this.entry || this.leaf === NONE) this.copyKey();
    return this.diffAt;
  }

  /** The value: a view into the arena, valid while the memtable lives. REQUIRES: valid(). */
  value(): Uint8Array {
    if (this.valueFor !== this.entry || this.leaf === NONE) {
      if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
      const t = this.tree;
      const buffer = t.arena.entryBuffers[this.entry >>> t.arena.shift]!;
      this.valueView = new Uint8Array(buffer, this.valueStart, this.valueLengthNow);
      this.valueFor = this.entry;
    }
    return this.valueView;
  }

  // ---- allocation-free access ----------------------------------------------------------
  //
  // The current entry's bytes in place: `entryBytes()` is the arena chunk that holds it (one
  // array per chunk, not per entry), and the offsets say where the internal key and the
  // value lie in it. A scan through these makes no object per entry.
  //
  //   entryBytes(): ... | varint32 | user key | trailer (8) | varint32 | value | ...
  //                                 ^ keyOffset()                      ^ valueOffset()
  //                                 \___ keyLength() ____/              \_ valueLength()

  /**
   * The arena chunk holding the current entry (the same array for every entry of the chunk;
   * its bytes never change while the memtable lives). REQUIRES: valid().
   */
  entryBytes(): Uint8Array {
    if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
    return this.tree.entryChunks[this.entry >>> this.tree.arena.shift]!;
  }

  /** Where the internal key starts in `entryBytes()`. REQUIRES: valid(). */
  keyOffset(): number {
    if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
    return this.keyStart;
  }

  /** Length of the internal key (user key + 8-byte trailer). REQUIRES: valid(). */
  keyLength(): number {
    if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
    return this.keyLengthNow;
  }

  /** Where the value starts in `entryBytes()`. REQUIRES: valid(). */
  valueOffset(): number {
    if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
    return this.valueStart;
  }

  /** Length of the value. REQUIRES: valid(). */
  valueLength(): number {
    if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
    return this.valueLengthNow;
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
    const first = !this.closed;
    this.closed = true;
    const owner = this.owner;
    if (owner !== undefined) {
      this.owner = undefined;
      owner.unref();
    }
    this.leaf = NONE;
    if (first) giveIteratorKey(this.keyCopy);
    this.keyView = EMPTY_BYTES;
    this.valueView = EMPTY_BYTES;
    this.offsetsFor = -1;
    this.keyFor = -1;
    this.valueFor = -1;
    this.stepFrom = -1;
  }

  private setPosition(leaf: number, slot: number): void {
    const t = this.tree;
    this.leaf = leaf;
    this.slot = slot;
    if (leaf !== NONE) {
      const words = t.nodeChunks[leaf >>> t.arena.nodeShift]!;
      const b = leaf & t.arena.nodeMask;
      this.words = words;
      this.base = b;
      this.entry = words[b + W_SLOTS + 2 * slot + 1]!;
    }
    this.version = t.version;
  }

  /**
   * Copies the current internal key into `keyCopy`. When it holds the key the last step
   * left, only the bytes from the first that differs are copied, and that byte is found
   * from what the step knew; it is kept for `userKeyDiffersAt` (the user key's length when
   * the user keys are equal, -1 when one is a prefix of the other).
   */
  private copyKey(): void {
    if (this.offsetsFor !== this.entry || this.leaf === NONE) this.loadOffsets();
    const n = this.keyLengthNow;
    const t = this.tree;
    const chunk = t.entryChunks[this.entry >>> t.arena.shift]!;
    const start = this.keyStart;
    const copy = this.keyCopy;
    let bytes = copy.bytes;
    let at = 0;
    this.diffAt = -1;
    if (this.keyFor === this.stepFrom && this.stepFrom !== -1) {
      const user = n - TRAILER_SIZE;
      const held = copy.length - TRAILER_SIZE;
      const shorter = user < held ? user : held;
      // Known to agree: the leaf's skip and, when the slices are equal, the 4 bytes after it;
      // slices that differ give the byte itself (clamped: a shorter key's slice is padded).
      let differs = false;
      if (this.stepSlot >= 0 && this.bytewise && this.version === t.version) {
        const words = this.words;
        const b = this.base;
        const x = words[b + W_SLOTS + 2 * this.stepSlot]! ^ words[b + W_SLOTS + 2 * this.slot]!;
        at = words[b + W_SKIP]! + (x !== 0 ? Math.clz32(x) >>> 3 : 4);
        differs = x !== 0;
        if (at > shorter) at = shorter;
      }
      if (!differs) while (at < shorter && bytes[at] === chunk[start + at]) at++;
      this.diffAt = at < shorter ? at : user === held ? user : -1;
    }
    let grown = false;
    if (n > bytes.length) {
      copy.grow(n, at);
      bytes = copy.bytes;
      grown = true;
    }
    if (n - at <= 32) for (let i = at; i < n; i++) bytes[i] = chunk[start + i]!;
    else bytes.set(chunk.subarray(start + at, start + n), at);
    if (copy.length !== n || grown) {
      copy.length = n;
      this.keyView = copy.view();
    }
    this.keyFor = this.entry;
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
    this.setPosition(t.leaf, t.slot);
  }

  private loadOffsets(): void {
    if (this.leaf === NONE) throw new RangeError("key()/value() on an invalid iterator");
    const t = this.tree;
    const address = this.entry;
    const chunk = t.entryChunks[address >>> t.arena.shift]!;
    // Lengths under 128 are one byte: read in line (a call costs more than the decoding in
    // code not yet compiled, the first scan's).
    const p = address & t.arena.mask;
    let ikeyLength = chunk[p]!;
    let keyStart = p + 1;
    if (ikeyLength >= 0x80) {
      ikeyLength = readVarint32(chunk, p);
      keyStart = varintEnd;
    }
    const q = keyStart + ikeyLength;
    let valueLength = chunk[q]!;
    let valueStart = q + 1;
    if (valueLength >= 0x80) {
      valueLength = readVarint32(chunk, q);
      valueStart = varintEnd;
    }
    this.keyStart = keyStart;
    this.keyLengthNow = ikeyLength;
    this.valueStart = valueStart;
    this.valueLengthNow = valueLength;
    this.offsetsFor = address;
  }
}

const EMPTY_WORDS = new Int32Array(0);

function closedError(): ShaleError {
  return ShaleError.closed("the memtable iterator is closed");
}

function checkTarget(target: Uint8Array): void {
  if (!(target instanceof Uint8Array)) throw new TypeError("seek target must be a Uint8Array");
  if (target.length < TRAILER_SIZE) {
    throw ShaleError.invalidArgument(`seek target is not an internal key (${target.length} bytes)`);
  }
}
