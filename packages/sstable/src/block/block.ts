/**
 * Block: the uncompressed contents of one table block as held by the reader and the block
 * cache. Key/value blocks (data, index, metaindex, range deletions; format drawn in
 * `block-builder.ts`) carry their parsed restart array position, and index blocks of
 * bytewise tables an `IndexSearch` aid; the filter block carries its filter reader (the
 * table's `FilterPolicy`, Bloom by default).
 */
import { getFixed32, ShaleError } from "@shale/base";
import type { CacheHandle } from "@shale/block-cache";
import type { FilterBitsReader } from "../filter/filter-policy.js";
import { IndexSearch, MIN_ENTRIES_FOR_SEARCH } from "../index/index-search.js";
import { blockMemory } from "./alloc.js";

/**
 * The block footer's high bit (RocksDB's `PackIndexTypeAndNumRestarts`): set when a data
 * block carries a hash index (kDataBlockBinaryAndHash) between its restart array and the
 * footer: `buckets[numBuckets] ‖ fixed16 numBuckets` (data-block-hash-index.ts). Point
 * lookups use it (`BlockIterator.seekForGet`); seeks binary-search as in any block. Written
 * with the table option `dataBlockIndexType: "binaryAndHash"`. Part of the file format; do
 * not change.
 */
export const BLOCK_FOOTER_HASH_INDEX_BIT = 0x80000000;
/** Blocks larger than this never carry a hash index; their footer is numRestarts whole. */
export const MAX_BLOCK_SIZE_WITH_HASH_INDEX = 1 << 16;

/** Bytes charged to the block cache on top of a block's data (object overhead). */
export const BLOCK_OVERHEAD = 64;
/** @internal Bytes charged per entry of an index block with a search aid, for `dataSlots`. */
export const SLOT_BYTES = 8;

/**
 * Checks the restart array of a key/value block: numRestarts >= 1, the array fits, restart 0
 * is at 0 and the others strictly increase inside the entries. Returns the index of the
 * first bad restart point, or -1. (A function of its own, so that the loop's on-stack
 * optimization does not leave `Block.keyValue` without feedback for `new Block`: that made
 * V8 deoptimize it on every call.)
 */
function checkRestarts(data: Uint8Array, numRestarts: number, restartsOffset: number): number {
  let previous = -1;
  for (let i = 0; i < numRestarts; i++) {
    const r = getFixed32(data, restartsOffset + i * 4);
    const ok = i === 0 ? r === 0 : r > previous && r < restartsOffset;
    if (!ok) return i;
    previous = r;
  }
  return -1;
}

export class Block {
  /**
   * The block contents (trailer excluded). Its own memory, never shared with another block.
   * Reused only if `recyclable`: then, once the block is out of its (recycling) cache and no
   * iterator is on it, the memory goes back to `blockMemory` for another block. Otherwise
   * views into it stay valid as long as they are referenced.
   */
  readonly data: Uint8Array;
  /**
   * @internal `data.buffer` and `data.byteOffset`, read once: views of values are made with
   * `new Uint8Array(buffer, byteOffset + offset, length)`, which is cheaper than `subarray`,
   * and reading a typed array's `buffer` each time would cost as much as the view.
   */
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  /** Key/value blocks: offset of the restart array (= end of the entries). Filter blocks: -1. */
  readonly restartsOffset: number;
  /** Key/value blocks: number of restart points (>= 1). Filter blocks: 0. */
  readonly numRestarts: number;
  /** Data blocks with a hash index: its number of buckets (>= 1). Otherwise 0. */
  readonly hashBuckets: number;
  /** Data blocks with a hash index: the offset of its buckets (after the restart array). */
  readonly hashOffset: number;
  /** Filter blocks: the filter reader over the block's bytes. */
  readonly filter: FilterBitsReader | undefined;
  /** @internal Index blocks of bytewise tables (enough entries, one per restart): the search aid. */
  readonly search: IndexSearch | undefined;
  /**
   * @internal True while the block's memory came from `blockMemory` and has not gone back:
   * it will be recycled when it is both evicted from the cache and free of iterators.
   * Cleared when a recycling insert fails (the GC owns the memory then) and at recycling.
   */
  recyclable = false;
  /**
   * @internal The cache's reference to this block's entry (`LRUCache.insertReferenced`) while
   * it is in a cache that reports evictions (`reportsEvictions`): a hit through a slot is
   * counted with `touch(cacheRef)`. Cleared by `evict`.
   */
  cacheRef: CacheHandle<Block> | undefined = undefined;
  /**
   * @internal The slot array (`dataSlots` of its table's index block) and index that hold
   * this data block, if any: `evict` empties the slot, so a slot never outlives the block's
   * cache entry (a recycled block's memory is another block's then).
   */
  slots: (Block | undefined)[] | undefined = undefined;
  slot = 0;
  /**
   * @internal Index blocks with a search aid: per entry i, the data block a reader cached for
   * it, while it stays in that cache (block-source.ts, `cachedDataBlockAt`), so that a hit
   * reads it here instead of hashing its offset into the cache. Allocated on the first block
   * placed (`dataSlotArray`); charged with the block, `SLOT_BYTES` an entry, from the start.
   */
  dataSlots: (Block | undefined)[] | undefined = undefined;
  /** @internal Block iterators positioned in the block (`acquire` / `release`). */
  private users = 0;
  /** @internal Evicted from its cache while `users` > 0: recycled at the last release. */
  private evicted = false;

  private constructor(
    data: Uint8Array,
    restartsOffset: number,
    numRestarts: number,
    filter: FilterBitsReader | undefined,
    search: IndexSearch | undefined,
    hashBuckets: number,
  ) {
    this.data = data;
    this.buffer = data.buffer;
    this.byteOffset = data.byteOffset;
    this.restartsOffset = restartsOffset;
    this.numRestarts = numRestarts;
    this.hashBuckets = hashBuckets;
    this.hashOffset = restartsOffset + numRestarts * 4;
    this.filter = filter;
    this.search = search;
  }

  /**
   * What the block costs in a block cache, in bytes (a recyclable block: its buffer's
   * capacity; an index block: its search aid and data-block slots too).
   */
  get charge(): number {
    const search = this.search;
    const extra = search !== undefined ? search.byteSize + SLOT_BYTES * search.count : 0;
    const bytes = this.recyclable ? this.buffer.byteLength : this.data.length;
    return bytes + BLOCK_OVERHEAD + extra;
  }

  /** @internal A block iterator is positioned in the block (it must `release` it once). */
  acquire(): void {
    this.users++;
  }

  /** @internal The iterator that acquired the block left it. */
  release(): void {
    if (--this.users === 0 && this.evicted) this.recycle();
  }

  /**
   * @internal The block left its cache (the eviction hook of `newBlockCache`'s caches): its
   * slot is emptied, and a recyclable block's memory goes back to `blockMemory` now, or at
   * its last `release`.
   */
  evict(): void {
    this.cacheRef = undefined;
    const slots = this.slots;
    if (slots !== undefined) {
      if (slots[this.slot] === this) slots[this.slot] = undefined;
      this.slots = undefined;
    }
    if (!this.recyclable) return;
    if (this.users === 0) this.recycle();
    else this.evicted = true;
  }

  private recycle(): void {
    this.recyclable = false;
    this.evicted = false;
    blockMemory.give(this.buffer);
  }

  /** @internal `dataSlots`, allocated (every slot empty) on the first call. REQUIRES: `search`. */
  dataSlotArray(): (Block | undefined)[] {
    let slots = this.dataSlots;
    if (slots === undefined) {
      // Filled by push: a packed array, whatever its length (`new Array(n)` is holey, and
      // past ~100k elements a dictionary).
      slots = [];
      const n = this.search!.count;
      for (let i = 0; i < n; i++) slots.push(undefined);
      this.dataSlots = slots;
    }
    return slots;
  }

  /** True if the block holds no entries (key/value blocks). */
  get isEmpty(): boolean {
    return this.restartsOffset <= 0;
  }

  /** The offset of restart point `i`. REQUIRES: 0 <= i < numRestarts. */
  restartPoint(i: number): number {
    return getFixed32(this.data, this.restartsOffset + i * 4);
  }

  /**
   * Parses a key/value block, checking the restart array: numRestarts >= 1, the array fits,
   * and restart offsets are strictly increasing and inside the entries. With `indexSearch`
   * (index blocks of internal keys with bytewise user keys) and at least
   * `MIN_ENTRIES_FOR_SEARCH` restarts, also builds the block's `IndexSearch`, which checks
   * every entry. Throws Corruption naming `file` and `blockOffset` (the block's offset in
   * the file) otherwise.
   */
  static keyValue(
    data: Uint8Array,
    file: string | undefined,
    blockOffset: number,
    indexSearch = false,
  ): Block {
    const size = data.length;
    if (size < 4) {
      throw ShaleError.corruption(
        `bad block: ${size} bytes is too short for a block`,
        file,
        blockOffset,
      );
    }
    let numRestarts = getFixed32(data, size - 4);
    // The entries (and the restart array) end here: before the footer, or before a data
    // block hash index (the footer's high bit, only in blocks up to 64 KiB).
    let entriesEnd = size - 4;
    let hashBuckets = 0;
    if (numRestarts >= BLOCK_FOOTER_HASH_INDEX_BIT && size <= MAX_BLOCK_SIZE_WITH_HASH_INDEX) {
      numRestarts -= BLOCK_FOOTER_HASH_INDEX_BIT;
      hashBuckets = size >= 6 ? data[size - 6]! | (data[size - 5]! << 8) : 0;
      entriesEnd = size - 6 - hashBuckets;
      if (hashBuckets === 0 || entriesEnd < 0) {
        throw ShaleError.corruption("bad block: bad data block hash index", file, blockOffset);
      }
    }
    const maxRestarts = Math.floor(entriesEnd / 4);
    if (numRestarts < 1 || numRestarts > maxRestarts) {
      throw ShaleError.corruption(`bad block: bad restart count ${numRestarts}`, file, blockOffset);
    }
    const restartsOffset = entriesEnd - numRestarts * 4;
    const bad = checkRestarts(data, numRestarts, restartsOffset);
    if (bad >= 0) {
      const r = getFixed32(data, restartsOffset + bad * 4);
      throw ShaleError.corruption(`bad block: bad restart point ${bad}: ${r}`, file, blockOffset);
    }
    const aid =
      indexSearch && numRestarts >= MIN_ENTRIES_FOR_SEARCH && restartsOffset > 0
        ? IndexSearch.build(data, restartsOffset, numRestarts, file, blockOffset)
        : undefined;
    return new Block(data, restartsOffset, numRestarts, undefined, aid, hashBuckets);
  }

  /** Wraps a filter block. */
  static ofFilter(data: Uint8Array, filter: FilterBitsReader): Block {
    return new Block(data, -1, 0, filter, undefined, 0);
  }

  /**
   * A key/value block over a private copy of this one's bytes (invariants mode: an iterator
   * reads its own copy and overwrites it with `mangle()` when it is done with it, so a view
   * kept past its lifetime reads garbage instead of stale truth).
   */
  privateCopy(): Block {
    return new Block(
      this.data.slice(),
      this.restartsOffset,
      this.numRestarts,
      undefined,
      this.search,
      this.hashBuckets,
    );
  }

  /** Overwrites the block's bytes with 0xcc (Pebble's Mangle). Only on a private copy. */
  mangle(): void {
    this.data.fill(MANGLED_BYTE);
  }
}

/** What a mangled block's bytes read as. */
export const MANGLED_BYTE = 0xcc;
