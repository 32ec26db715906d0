/**
 * A skiplist of arena entries ordered by internal key (RocksDB's InlineSkipList, single
 * writer): nodes are Int32 words in the arena's node chunks, entries are bytes in its entry
 * chunks (see arena.ts for addresses, entry.ts for the entry format).
 *
 * ```
 * node (height h, 2 + 2h Int32 words, at a node address):
 * +---------------+----------+---------+---------------+-----+-----------+-----------------+
 * | entry address | height h | next[0] | next[0]'s key | ... | next[h-1] | next[h-1]'s key |
 * |               |          |         | prefix        |     |           | prefix          |
 * +---------------+----------+---------+---------------+-----+-----------+-----------------+
 *   word 0          word 1     word 2    word 3                word 2h     word 2h + 1
 *
 * key prefix: the first 4 user key bytes of the node that `next[i]` points to, big-endian,
 * zero-padded, top bit flipped so that signed int32 order is byte order (bytewise
 * comparator only; 0 otherwise). Keeping it beside the pointer lets a search decide
 * "next is bigger: go down" (once per level) without touching the next node, and "next is
 * smaller: go right" without touching its entry; only keys sharing 4 bytes with the target
 * are compared in the entry.
 *
 * Nodes are allocated in three lanes by height (1, 2, >= 3; see arena.ts), so the nodes
 * that the upper levels link sit close together and stay in cache.
 *
 * head (node address 0, height 12, no entry)
 *   [3] --------------------------------------------> c#4 ---------------> 0
 *   [2] ------------------> b#9 --------------------> c#4 ---------------> 0
 *   [1] ------> a#7 ------> b#9 --------------------> c#4 ------> d#1 ---> 0
 *   [0] ------> a#7 ------> b#9 ------> b#3 --------> c#4 ------> d#1 ---> 0
 * ```
 *
 * Address 0 is the head, which no `next` points to, so 0 also means "none". Heights are
 * random with branching 4 (P(h > k) = 4^-k), capped at 12, from a seeded xorshift32.
 *
 * Searches compare nodes against a *target* held in fields (`setTarget*`), not arguments:
 * a user key (array, offset, length), its prefix, and the trailer (as seq div 2^24, seq mod
 * 2^24 and kind, all small integers). With the bytewise comparator, comparisons read the
 * arena bytes in place; other comparators get a view of the node's user key.
 */
import {
  assertInvariant,
  bytewiseComparator,
  type Comparator,
  EMPTY_BYTES,
  TRAILER_SIZE,
} from "@shale/base";
import { type Arena, NODE_LANES } from "./arena.js";
import { readVarint32, varintEnd } from "./entry.js";

export const MAX_HEIGHT = 12;
const W_ENTRY = 0;
const W_HEIGHT = 1;
/** next[i] is at word W_NEXT + 2i, its key prefix at W_NEXT + 2i + 1. */
const W_NEXT = 2;

/** Words of a node of height `h`. */
export function nodeWords(h: number): number {
  return W_NEXT + 2 * h;
}
const TWO_24 = 16777216;

/** seq div 2^24 of the trailer at `t` (< 2^29: a small integer). */
function seqHigh(b: Uint8Array, t: number): number {
  return b[t + 4]! | (b[t + 5]! << 8) | (b[t + 6]! << 16) | (b[t + 7]! << 24);
}

/** seq mod 2^24 of the trailer at `t`. */
function seqLow(b: Uint8Array, t: number): number {
  return b[t + 1]! | (b[t + 2]! << 8) | (b[t + 3]! << 16);
}

/** True when `c` orders keys bytewise (checked by identity or by its persisted name). */
export function isBytewise(c: Comparator): boolean {
  return c === bytewiseComparator || c.name === bytewiseComparator.name;
}

/** The prefix word of `key[off, off + len)`. */
export function keyPrefix(key: Uint8Array, off: number, len: number): number {
  const b0 = len > 0 ? key[off]! : 0;
  const b1 = len > 1 ? key[off + 1]! : 0;
  const b2 = len > 2 ? key[off + 2]! : 0;
  const b3 = len > 3 ? key[off + 3]! : 0;
  return ((b0 ^ 0x80) << 24) | (b1 << 16) | (b2 << 8) | b3;
}

export class SkipList {
  readonly arena: Arena;
  readonly head: number;
  maxHeight: number;
  readonly user: Comparator;
  readonly bytewise: boolean;
  // The arena's chunk arrays (the same, growing, array objects) and address geometry,
  // copied here so the hot paths take one load fewer.
  private readonly nodeChunks: Int32Array[];
  private readonly nodeShift: number;
  private readonly nodeMask: number;
  private readonly entryChunks: Uint8Array[];
  private readonly shift: number;
  private readonly mask: number;
  /** Predecessors of the last insert position on every level (the splice). */
  private readonly prevNodes = new Int32Array(MAX_HEIGHT);
  /** True once prevNodes brackets some key on every level below maxHeight. */
  private spliceValid = false;
  private rnd = 0x2545f491;
  // The search target.
  private tKey: Uint8Array = EMPTY_BYTES;
  private tOff = 0;
  private tLen = 0;
  private tPrefix = 0;
  /** Target trailer as three small integers: seq div 2^24, seq mod 2^24, kind. */
  private tSeqHigh = 0;
  private tSeqLow = 0;
  private tKind = 0;
  /** `tKey[tOff, tOff + tLen)` as a view, for non-bytewise comparators. */
  private tUser: Uint8Array = EMPTY_BYTES;

  /** A new list with a fresh head node, or (head given) a list reopened from shared chunks. */
  constructor(arena: Arena, user: Comparator, head = -1, maxHeight = 1) {
    this.arena = arena;
    this.user = user;
    this.bytewise = isBytewise(user);
    this.nodeChunks = arena.nodeChunks;
    this.nodeShift = arena.nodeShift;
    this.nodeMask = arena.nodeMask;
    this.entryChunks = arena.entryChunks;
    this.shift = arena.shift;
    this.mask = arena.mask;
    if (head < 0) {
      head = arena.allocateNode(nodeWords(MAX_HEIGHT), NODE_LANES - 1);
      arena.nodeChunks[head >>> arena.nodeShift]![(head & arena.nodeMask) + W_HEIGHT] = MAX_HEIGHT;
    }
    this.head = head;
    this.maxHeight = maxHeight;
  }

  // ---- node accessors -------------------------------------------------------------------

  /** `next[level]` of `node` (0 = none). */
  next(node: number, level: number): number {
    return this.nodeChunks[node >>> this.nodeShift]![(node & this.nodeMask) + W_NEXT + 2 * level]!;
  }

  /** The entry address of `node`. */
  entryOf(node: number): number {
    return this.nodeChunks[node >>> this.nodeShift]![(node & this.nodeMask) + W_ENTRY]!;
  }

  /** The height of `node`. */
  heightOf(node: number): number {
    return this.nodeChunks[node >>> this.nodeShift]![(node & this.nodeMask) + W_HEIGHT]!;
  }

  // ---- targets --------------------------------------------------------------------------

  /** Target = `userKey` with trailer (seq, kind). */
  setTargetUser(userKey: Uint8Array, seq: number, kind: number): void {
    const high = Math.floor(seq / TWO_24);
    this.setTarget(userKey, 0, userKey.length, high, seq - high * TWO_24, kind);
  }

  /** Target = the internal key `ikey` (REQUIRES: ikey.length >= 8). */
  setTargetInternal(ikey: Uint8Array): void {
    const t = ikey.length - TRAILER_SIZE;
    this.setTarget(ikey, 0, t, seqHigh(ikey, t), seqLow(ikey, t), ikey[t]!);
  }

  /** Target = the internal key of `node`'s entry. */
  setTargetNode(node: number): void {
    const address = this.entryOf(node);
    const chunk = this.entryChunks[address >>> this.shift]!;
    const pos = address & this.mask;
    const ikeyLength = readVarint32(chunk, pos);
    const start = varintEnd;
    const t = start + ikeyLength - TRAILER_SIZE;
    this.setTarget(chunk, start, t - start, seqHigh(chunk, t), seqLow(chunk, t), chunk[t]!);
  }

  private setTarget(
    key: Uint8Array,
    off: number,
    len: number,
    high: number,
    low: number,
    kind: number,
  ): void {
    this.tKey = key;
    this.tOff = off;
    this.tLen = len;
    this.tSeqHigh = high;
    this.tSeqLow = low;
    this.tKind = kind;
    if (this.bytewise) {
      this.tPrefix = keyPrefix(key, off, len);
    } else {
      this.tUser = off === 0 && len === key.length ? key : key.subarray(off, off + len);
    }
  }

  // ---- comparisons ----------------------------------------------------------------------

  /**
   * Sign of (the node `next[level]` of a node whose words are `words`, with `slot` the index
   * of that pointer) - (target), settled by the stored key prefix when it can be.
   */
  private compareNext(words: Int32Array, slot: number, next: number): number {
    if (this.bytewise) {
      const p = words[slot + 1]!;
      const tp = this.tPrefix;
      if (p !== tp) return p < tp ? -1 : 1;
    }
    return this.compareNode(next);
  }

  /** Sign of (internal key of `node`) - (target). REQUIRES: node is not the head. */
  compareNode(node: number): number {
    const address = this.nodeChunks[node >>> this.nodeShift]![(node & this.nodeMask) + W_ENTRY]!;
    const chunk = this.entryChunks[address >>> this.shift]!;
    let pos = address & this.mask;
    let ikeyLength = chunk[pos]!;
    if (ikeyLength < 0x80) pos++;
    else {
      ikeyLength = readVarint32(chunk, pos);
      pos = varintEnd;
    }
    const userLength = ikeyLength - TRAILER_SIZE;
    const r = this.compareUserKeyAt(chunk, pos, userLength);
    if (r !== 0) return r;
    // Trailers sort descending: a larger seq (then kind) comes first.
    const t = pos + userLength;
    const high = seqHigh(chunk, t);
    if (high !== this.tSeqHigh) return high > this.tSeqHigh ? -1 : 1;
    const low = seqLow(chunk, t);
    if (low !== this.tSeqLow) return low > this.tSeqLow ? -1 : 1;
    const kind = chunk[t]!;
    if (kind !== this.tKind) return kind > this.tKind ? -1 : 1;
    return 0;
  }

  /** Sign of `chunk[pos, pos + len)` - target user key, by the user comparator. */
  compareUserKeyAt(chunk: Uint8Array, pos: number, len: number): number {
    if (!this.bytewise) return this.user.compare(chunk.subarray(pos, pos + len), this.tUser);
    const key = this.tKey;
    const off = this.tOff - pos;
    const tLen = this.tLen;
    const n = len < tLen ? len : tLen;
    const end = pos + n;
    for (let i = pos; i < end; i++) {
      const d = chunk[i]! - key[i + off]!;
      if (d !== 0) return d;
    }
    return len - tLen;
  }

  // ---- searches -------------------------------------------------------------------------

  /** The first node >= target, or 0. */
  findGreaterOrEqual(): number {
    const chunks = this.nodeChunks;
    let x = this.head;
    let level = this.maxHeight - 1;
    let lastBigger = -1;
    for (;;) {
      const words = chunks[x >>> this.nodeShift]!;
      const slot = (x & this.nodeMask) + W_NEXT + 2 * level;
      const next = words[slot]!;
      if (next !== 0 && next !== lastBigger && this.compareNext(words, slot, next) < 0) {
        x = next;
      } else {
        if (level === 0) return next;
        lastBigger = next;
        level--;
      }
    }
  }

  /** The last node < target (`orEqual`: <= target), or 0 (the head) when there is none. */
  findLessThan(orEqual: boolean): number {
    const chunks = this.nodeChunks;
    const limit = orEqual ? 1 : 0;
    let x = this.head;
    let level = this.maxHeight - 1;
    let lastBigger = -1;
    for (;;) {
      const words = chunks[x >>> this.nodeShift]!;
      const slot = (x & this.nodeMask) + W_NEXT + 2 * level;
      const next = words[slot]!;
      if (next !== 0 && next !== lastBigger && this.compareNext(words, slot, next) < limit) {
        x = next;
      } else {
        if (level === 0) return x;
        lastBigger = next;
        level--;
      }
    }
  }

  /** The last node, or 0 when the list is empty. */
  findLast(): number {
    let x = this.head;
    let level = this.maxHeight - 1;
    for (;;) {
      const next = this.next(x, level);
      if (next !== 0) {
        x = next;
      } else {
        if (level === 0) return x;
        level--;
      }
    }
  }

  // ---- insertion ------------------------------------------------------------------------

  /**
   * Finds where the target goes and remembers the predecessors for `insert`. Returns false
   * (and remembers nothing useful) when a node equal to the target exists.
   *
   * The predecessors of the last insert or search are kept as a *splice* (RocksDB's
   * InlineSkipList::Splice): if they still bracket the target on level 0 — prev[0] < target
   * < prev[0].next[0] — they bracket it on every level, because no node lies between prev[0]
   * and the target, and the search is skipped. Sequential inserts cost two comparisons.
   */
  prepareInsert(): boolean {
    if (this.spliceValid) {
      const p = this.prevNodes[0]!;
      if (p === this.head || this.compareNode(p) < 0) {
        const words = this.nodeChunks[p >>> this.nodeShift]!;
        const slot = (p & this.nodeMask) + W_NEXT;
        const next = words[slot]!;
        const cmp = next === 0 ? 1 : this.compareNext(words, slot, next);
        if (cmp !== 0) {
          if (cmp > 0) return true;
        } else return false;
      }
    }
    return this.search();
  }

  /** The full search behind prepareInsert: fills prevNodes[0 .. maxHeight-1]. */
  private search(): boolean {
    const prev = this.prevNodes;
    let x = this.head;
    let level = this.maxHeight - 1;
    let lastBigger = -1;
    let lastCmp = 1;
    this.spliceValid = true;
    for (;;) {
      const words = this.nodeChunks[x >>> this.nodeShift]!;
      const slot = (x & this.nodeMask) + W_NEXT + 2 * level;
      const next = words[slot]!;
      let cmp = 1;
      if (next !== 0) cmp = next === lastBigger ? lastCmp : this.compareNext(words, slot, next);
      if (cmp < 0) {
        x = next;
      } else {
        prev[level] = x;
        if (level === 0) return next === 0 || cmp !== 0;
        lastBigger = next;
        lastCmp = cmp;
        level--;
      }
    }
  }

  private randomHeight(): number {
    let s = this.rnd;
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    this.rnd = s;
    let h = 1;
    while (h < MAX_HEIGHT && (s & 3) === 0) {
      h++;
      s >>>= 2;
    }
    return h;
  }

  /**
   * Links a new node for the entry at `entryAddress` after the predecessors found by the
   * last successful `prepareInsert` (nothing may be inserted in between). `prefix` is the
   * prefix word of the entry's user key (ignored unless bytewise).
   */
  insert(entryAddress: number, prefix: number): number {
    const a = this.arena;
    const prev = this.prevNodes;
    const height = this.randomHeight();
    if (height > this.maxHeight) {
      for (let i = this.maxHeight; i < height; i++) prev[i] = this.head;
      this.maxHeight = height;
    }
    if (!this.bytewise) prefix = 0;
    const node = a.allocateNode(
      nodeWords(height),
      height <= NODE_LANES ? height - 1 : NODE_LANES - 1,
    );
    const words = this.nodeChunks[node >>> this.nodeShift]!;
    const w = node & this.nodeMask;
    words[w + W_ENTRY] = entryAddress;
    words[w + W_HEIGHT] = height;
    for (let i = 0; i < height; i++) {
      const p = prev[i]!;
      const pw = this.nodeChunks[p >>> this.nodeShift]!;
      const slot = (p & this.nodeMask) + W_NEXT + 2 * i;
      const own = w + W_NEXT + 2 * i;
      words[own] = pw[slot]!;
      words[own + 1] = pw[slot + 1]!;
      pw[slot] = node;
      pw[slot + 1] = prefix;
      prev[i] = node; // the splice for a key just after this one
    }
    return node;
  }

  /**
   * Asserts that `node` sorts strictly between its neighbours on every level and that the
   * key prefixes stored beside the pointers to and from it are right.
   */
  checkNeighbours(node: number): void {
    const height = this.heightOf(node);
    assertInvariant(height >= 1 && height <= this.maxHeight, "skiplist node height out of range");
    this.setTargetNode(node);
    const ownPrefix = this.bytewise ? this.tPrefix : 0;
    for (let level = 0; level < height; level++) {
      const next = this.next(node, level);
      const slot = (node & this.nodeMask) + W_NEXT + 2 * level;
      const storedNextPrefix = this.nodeChunks[node >>> this.nodeShift]![slot + 1]!;
      assertInvariant(
        next === 0 ? storedNextPrefix === 0 : storedNextPrefix === this.prefixOf(next),
        "skiplist: wrong key prefix stored beside a next pointer",
      );
      assertInvariant(
        next === 0 || this.compareNode(next) > 0,
        "skiplist: next node is not larger",
      );
    }
    const before = this.findLessThan(false);
    assertInvariant(this.next(before, 0) === node, "skiplist: node not reachable at level 0");
    const beforeSlot = (before & this.nodeMask) + W_NEXT;
    assertInvariant(
      this.nodeChunks[before >>> this.nodeShift]![beforeSlot + 1] === ownPrefix,
      "skiplist: wrong key prefix stored beside the pointer to a node",
    );
  }

  /** The key prefix word of `node`'s user key (0 unless bytewise). */
  prefixOf(node: number): number {
    if (!this.bytewise) return 0;
    const address = this.entryOf(node);
    const chunk = this.entryChunks[address >>> this.shift]!;
    const ikeyLength = readVarint32(chunk, address & this.mask);
    return keyPrefix(chunk, varintEnd, ikeyLength - TRAILER_SIZE);
  }
}
