/**
 * SharedBlockCache: a block cache whose bytes live in SharedArrayBuffer slabs, read and filled
 * from every thread that holds it (the writer's database and each worker reader): one copy of
 * a block for all of them. Keys are (table file number, block offset); values are the
 * block's uncompressed bytes, reached as (data, start, length) with no object per block.
 * Memory layout, in memory only: layout.ts and docs/formats/shared-block-cache.md.
 *
 * Allocation: the capacity is cut into slabs (256 KiB by default); a slab is handed to one
 * size class on first need and cut into chunks of that class's size (1 KiB up, x1.25 a class).
 * A block takes one chunk of the smallest class that fits it and is charged the chunk's size:
 * the slabs are the capacity, so it is never exceeded. A class with no free chunk takes an
 * unassigned slab, else evicts by the clock over its own chunks (a hit sets the chunk's
 * referenced bit, the clock clears it once before evicting), else — a class that has no slab
 * at all — takes the slab of the class holding most of them, evicting its blocks.
 *
 * Threads: a hit takes no lock and writes nothing shared but the referenced bit (when not
 * already set). Each slot has a generation (seqlock): odd while a block is published in it.
 * `lookup` returns the slot and leaves the generation it saw in `lookupGeneration`; the
 * caller reads the bytes and then calls `isCurrent(slot, generation)`: true means the slot
 * was not retired meanwhile, so what it read is the block's (the writer changes a slot's
 * bytes only after retiring it, and never returns it to an earlier generation). Mutations
 * (insert, evict, erase) hold a lock word taken with one compareExchange; an insert that
 * finds it held gives up (the caller keeps the block it read). A thread that dies holding
 * the lock (a worker terminated mid-insert) leaves the cache read-only for the others.
 * The generation is 32 bits: a slot retired 2^31 times between a reader's two loads would
 * fool it, far beyond any read's length.
 *
 * Memory order: the writer stores the bytes before publishing the generation with
 * `Atomics.store`; a reader validates with `Atomics.load` on x64, whose loads are not
 * reordered with each other, and with a compareExchange elsewhere (a full barrier, so the
 * byte loads before it cannot be satisfied after it).
 */
import { ShaleError } from "@shale/base";
import { addToBuckets, bucketOf, removeFromBuckets } from "./buckets.js";
import {
  CLASS_WORDS,
  ClassWord,
  CONTROL_WORDS,
  Control,
  chunkSizes,
  DEFAULT_SLAB_SIZE,
  MAX_SLAB_SHIFT,
  MIN_CHUNK,
  MIN_SLAB_SHIFT,
  type SharedBlockCacheBuffers,
  SLOT_WORDS,
  SlotWord,
  USAGE_UNIT,
} from "./layout.js";

export interface SharedBlockCacheOptions {
  /**
   * Slab size in bytes: a power of two from 4 KiB to 16 MiB, at most the capacity. The
   * largest block cached is one slab. Default: 256 KiB (4 KiB below 1 MiB of capacity).
   */
  slabSize?: number;
}

/** Counters of one `SharedBlockCache` instance (hits, misses) and of the whole cache. */
export interface SharedBlockCacheStats {
  /** Lookups that found the block, through this instance. */
  hits: number;
  /** Lookups that did not, through this instance. */
  misses: number;
  /** Blocks inserted, by every thread. */
  inserts: number;
  /** Blocks evicted to make room, by every thread. */
  evictions: number;
  /** Inserts given up (no room in a strict sense, or the lock held by another thread). */
  skipped: number;
  /** Bytes charged: the chunk sizes of the blocks held. */
  usage: number;
  /** Bytes of slabs: the capacity in use as the limit. */
  capacity: number;
}

const MAX_CAPACITY = 2 ** 31 - 2 ** 24;
const TWO_32 = 2 ** 32;
/** Validate with a plain atomic load (x64's loads keep their order), else compareExchange. */
const ORDERED_LOADS = typeof process !== "undefined" && process.arch === "x64";

export class SharedBlockCache {
  /** The smallest capacity `create` takes: one slab of the smallest size (4 KiB). */
  static readonly MIN_CAPACITY = 1 << MIN_SLAB_SHIFT;
  /** The bytes of every slab: a block is `data[start, start + length)`. */
  readonly data: Uint8Array;
  /** The generation `lookup` saw for the slot it returned (pass it to `isCurrent`). */
  lookupGeneration = 0;
  /** The block's byte offset in `data`, for the slot `lookup` returned. */
  lookupStart = 0;
  /** The block's length, for the slot `lookup` returned. */
  lookupLength = 0;
  private readonly control: Int32Array;
  private readonly slabClass: Int32Array;
  private readonly slots: Int32Array;
  private readonly buckets: Int32Array;
  private readonly bufferSet: SharedBlockCacheBuffers;
  private readonly mask: number;
  private readonly slabShift: number;
  private readonly numSlabs: number;
  private readonly chunksPerSlab: number;
  private readonly chunks: number[];
  private hitCount = 0;
  private missCount = 0;

  private constructor(buffers: SharedBlockCacheBuffers) {
    this.bufferSet = buffers;
    this.control = new Int32Array(buffers.control);
    this.slabClass = new Int32Array(buffers.slabClass);
    this.slots = new Int32Array(buffers.slots);
    this.buckets = new Int32Array(buffers.buckets);
    this.data = new Uint8Array(buffers.data);
    this.mask = this.buckets.length - 1;
    this.slabShift = this.control[Control.SLAB_SHIFT]!;
    this.numSlabs = this.control[Control.NUM_SLABS]!;
    this.chunksPerSlab = (1 << this.slabShift) / MIN_CHUNK;
    const classes = this.control[Control.NUM_CLASSES]!;
    this.chunks = [];
    for (let c = 0; c < classes; c++) {
      this.chunks.push(this.control[Control.CLASS_BASE + c * CLASS_WORDS + ClassWord.CHUNK]!);
    }
  }

  /**
   * A new cache of `capacity` bytes of slabs (rounded down to whole slabs; at least one).
   * Its slot and bucket arrays take about 5 % more on top (40 bytes per KiB of slabs).
   * InvalidArgument for a capacity below one slab or above 2 GiB - 16 MiB, or a bad slab size.
   */
  static create(capacity: number, options: SharedBlockCacheOptions = {}): SharedBlockCache {
    if (typeof capacity !== "number" || !Number.isInteger(capacity)) {
      throw new TypeError("SharedBlockCache capacity must be an integer number of bytes");
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError("SharedBlockCache options must be an object");
    }
    for (const key of Object.keys(options)) {
      if (key !== "slabSize") throw ShaleError.invalidArgument(`unknown option ${key}`);
    }
    const slabSize = options.slabSize ?? (capacity < 1 << 20 ? 1 << 12 : DEFAULT_SLAB_SIZE);
    if (typeof slabSize !== "number") throw new TypeError("slabSize must be a number");
    const slabShift = Math.log2(slabSize);
    if (!Number.isInteger(slabShift) || slabShift < MIN_SLAB_SHIFT || slabShift > MAX_SLAB_SHIFT) {
      throw ShaleError.invalidArgument(
        `slabSize must be a power of two from 4 KiB to 16 MiB: ${slabSize}`,
      );
    }
    if (capacity < slabSize || capacity > MAX_CAPACITY) {
      throw ShaleError.invalidArgument(
        `SharedBlockCache capacity must be from one slab (${slabSize}) to ${MAX_CAPACITY} bytes: ${capacity}`,
      );
    }
    const numSlabs = Math.floor(capacity / slabSize);
    const numSlots = numSlabs * (slabSize / MIN_CHUNK);
    let bucketBits = 1;
    while (1 << bucketBits < 2 * numSlots) bucketBits++;
    const sizes = chunkSizes(slabSize);
    const buffers: SharedBlockCacheBuffers = {
      control: new SharedArrayBuffer(CONTROL_WORDS * 4),
      slabClass: new SharedArrayBuffer(numSlabs * 4),
      slots: new SharedArrayBuffer(numSlots * SLOT_WORDS * 4),
      buckets: new SharedArrayBuffer((1 << bucketBits) * 4),
      data: new SharedArrayBuffer(numSlabs * slabSize),
    };
    const control = new Int32Array(buffers.control);
    control[Control.NUM_SLABS] = numSlabs;
    control[Control.SLAB_SHIFT] = slabShift;
    control[Control.NUM_CLASSES] = sizes.length;
    control[Control.BUCKET_BITS] = bucketBits;
    for (let c = 0; c < sizes.length; c++) {
      control[Control.CLASS_BASE + c * CLASS_WORDS + ClassWord.CHUNK] = sizes[c]!;
    }
    return new SharedBlockCache(buffers);
  }

  /** The cache whose `buffers()` another thread passed here (structured clone). */
  static attach(buffers: SharedBlockCacheBuffers): SharedBlockCache {
    if (typeof buffers !== "object" || buffers === null) {
      throw new TypeError("SharedBlockCache.attach takes the buffers of a cache");
    }
    for (const name of ["control", "slabClass", "slots", "buckets", "data"] as const) {
      if (!(buffers[name] instanceof SharedArrayBuffer)) {
        throw new TypeError(`SharedBlockCache.attach: ${name} must be a SharedArrayBuffer`);
      }
    }
    if (buffers.control.byteLength !== CONTROL_WORDS * 4) {
      throw ShaleError.invalidArgument("SharedBlockCache.attach: not a shared block cache");
    }
    return new SharedBlockCache(buffers);
  }

  /** The buffers to hand another thread (`attach` there). */
  buffers(): SharedBlockCacheBuffers {
    return this.bufferSet;
  }

  /** The largest block the cache takes (one slab). */
  get maxBlockSize(): number {
    return 1 << this.slabShift;
  }

  /**
   * The slot holding the block (file, offset), or -1. On a hit, `lookupGeneration`,
   * `lookupStart` and `lookupLength` describe it: read `data[start, start + length)`, then
   * check `isCurrent(slot, lookupGeneration)` before trusting what was read.
   */
  lookup(file: number, offset: number): number {
    const slot = this.find(file, offset | 0, (offset / TWO_32) | 0);
    if (slot >= 0) {
      const ref = slot * SLOT_WORDS + SlotWord.REF;
      if (this.slots[ref] === 0) this.slots[ref] = 1;
      this.hitCount++;
    } else {
      this.missCount++;
    }
    return slot;
  }

  /**
   * `lookup` of the block a caller found earlier in `slot` at `generation` (its own record of
   * where a block went, e.g. per index entry): true, with `lookupStart` and `lookupLength`
   * set, if the slot still holds it; false (the caller then calls `lookup`) if not. Counts
   * a hit only when true. REQUIRES: `slot` is one `lookup` or `insert` returned.
   */
  lookupAt(slot: number, generation: number): boolean {
    const slots = this.slots;
    const s = slot * SLOT_WORDS;
    if (Atomics.load(slots, s + SlotWord.GEN) !== generation) return false;
    const start = slots[s + SlotWord.START]!;
    const length = slots[s + SlotWord.LENGTH]!;
    if (!this.isCurrent(slot, generation)) return false;
    if (slots[s + SlotWord.REF] === 0) slots[s + SlotWord.REF] = 1;
    this.lookupGeneration = generation;
    this.lookupStart = start;
    this.lookupLength = length;
    this.hitCount++;
    return true;
  }

  /** `lookup` without the counters and the referenced bit. */
  private find(file: number, lo: number, hi: number): number {
    const buckets = this.buckets;
    const slots = this.slots;
    const mask = this.mask;
    let b = bucketOf(file, lo, hi, mask);
    for (let probes = 0; probes <= mask; probes++) {
      const v = buckets[b]!;
      if (v === 0) break;
      const s = (v - 1) * SLOT_WORDS;
      const gen = Atomics.load(slots, s + SlotWord.GEN);
      if (
        (gen & 1) === 1 &&
        slots[s + SlotWord.FILE] === file &&
        slots[s + SlotWord.OFFSET_LO] === lo &&
        slots[s + SlotWord.OFFSET_HI] === hi
      ) {
        const start = slots[s + SlotWord.START]!;
        const length = slots[s + SlotWord.LENGTH]!;
        if (this.isCurrent(v - 1, gen)) {
          this.lookupGeneration = gen;
          this.lookupStart = start;
          this.lookupLength = length;
          return v - 1;
        }
      }
      b = (b + 1) & mask;
    }
    return -1;
  }

  /**
   * True if `slot` still holds the block it held at `generation` (from `lookup`): every byte
   * read from it since that lookup is the block's.
   */
  isCurrent(slot: number, generation: number): boolean {
    const at = slot * SLOT_WORDS + SlotWord.GEN;
    return ORDERED_LOADS
      ? Atomics.load(this.slots, at) === generation
      : Atomics.compareExchange(this.slots, at, generation, generation) === generation;
  }

  /**
   * Copies `bytes[from, from + length)` into the cache as the block (file, offset); the slot
   * it went to, or -1 if it did not (larger than a slab, empty, a file number outside
   * [0, 2^31), the lock held by another thread, or no chunk to be had). A block already
   * cached is left as it is (its slot is returned). Evicts other blocks to make room.
   */
  insert(file: number, offset: number, bytes: Uint8Array, from = 0, length = bytes.length): number {
    if (length <= 0 || length > 1 << this.slabShift || !(file >= 0 && file <= 0x7fffffff)) {
      return -1;
    }
    if (!(offset >= 0 && offset <= Number.MAX_SAFE_INTEGER)) {
      throw ShaleError.invalidArgument(`block offset out of range: ${offset}`);
    }
    if (from < 0 || from + length > bytes.length) {
      throw ShaleError.invalidArgument(`range [${from}, ${from + length}) outside the bytes`);
    }
    const control = this.control;
    if (Atomics.compareExchange(control, Control.LOCK, 0, 1) !== 0) {
      Atomics.add(control, Control.SKIPPED, 1);
      return -1;
    }
    try {
      const found = this.find(file, offset | 0, (offset / TWO_32) | 0);
      if (found >= 0) return found;
      const c = this.classOf(length);
      const slot = this.allocate(c);
      if (slot < 0) {
        Atomics.add(control, Control.SKIPPED, 1);
        return -1;
      }
      const slots = this.slots;
      const s = slot * SLOT_WORDS;
      const start = slots[s + SlotWord.START]!;
      this.data.set(bytes.subarray(from, from + length), start);
      slots[s + SlotWord.FILE] = file;
      slots[s + SlotWord.OFFSET_LO] = offset | 0;
      slots[s + SlotWord.OFFSET_HI] = (offset / TWO_32) | 0;
      slots[s + SlotWord.LENGTH] = length;
      slots[s + SlotWord.REF] = 0;
      Atomics.add(slots, s + SlotWord.GEN, 1); // publish: odd
      addToBuckets(this.buckets, slots, slot);
      control[Control.USAGE_UNITS] = control[Control.USAGE_UNITS]! + this.chunks[c]! / USAGE_UNIT;
      control[Control.INSERTS] = control[Control.INSERTS]! + 1;
      return slot;
    } finally {
      Atomics.store(control, Control.LOCK, 0);
    }
  }

  /**
   * Removes the block (file, offset) if cached; true if it was. Waits for no one: false as
   * well when another thread holds the lock.
   */
  erase(file: number, offset: number): boolean {
    const control = this.control;
    if (Atomics.compareExchange(control, Control.LOCK, 0, 1) !== 0) return false;
    try {
      const slot = this.find(file, offset | 0, (offset / TWO_32) | 0);
      if (slot < 0) return false;
      const c = this.slabClass[Math.floor(slot / this.chunksPerSlab)]! - 1;
      this.retire(slot, c);
      this.pushFree(c, slot);
      return true;
    } finally {
      Atomics.store(control, Control.LOCK, 0);
    }
  }

  stats(): SharedBlockCacheStats {
    const control = this.control;
    return {
      hits: this.hitCount,
      misses: this.missCount,
      inserts: Atomics.load(control, Control.INSERTS),
      evictions: Atomics.load(control, Control.EVICTIONS),
      skipped: Atomics.load(control, Control.SKIPPED),
      usage: Atomics.load(control, Control.USAGE_UNITS) * USAGE_UNIT,
      capacity: this.numSlabs << this.slabShift,
    };
  }

  /** The smallest class whose chunks hold `length` bytes. */
  private classOf(length: number): number {
    const chunks = this.chunks;
    let c = 0;
    while (chunks[c]! < length) c++;
    return c;
  }

  private classWord(c: number, word: number): number {
    return Control.CLASS_BASE + c * CLASS_WORDS + word;
  }

  /** A free slot of class `c` (its GEN even, out of the buckets), or -1. REQUIRES: the lock. */
  private allocate(c: number): number {
    const control = this.control;
    const head = control[this.classWord(c, ClassWord.FREE_HEAD)]!;
    if (head !== 0) {
      control[this.classWord(c, ClassWord.FREE_HEAD)] =
        this.slots[(head - 1) * SLOT_WORDS + SlotWord.NEXT]!;
      return head - 1;
    }
    if (control[Control.SLABS_ASSIGNED]! < this.numSlabs) {
      this.assignSlab(control[Control.SLABS_ASSIGNED]!, c);
      control[Control.SLABS_ASSIGNED] = control[Control.SLABS_ASSIGNED]! + 1;
      return this.allocate(c);
    }
    if (control[this.classWord(c, ClassWord.SLABS)]! > 0) return this.evictByClock(c);
    return this.stealSlab(c) ? this.allocate(c) : -1;
  }

  /** Gives slab `slab` to class `c`: its chunks go on the class's free list. */
  private assignSlab(slab: number, c: number): void {
    const chunk = this.chunks[c]!;
    const count = Math.floor((1 << this.slabShift) / chunk);
    const slots = this.slots;
    this.slabClass[slab] = c + 1;
    this.control[this.classWord(c, ClassWord.SLABS)] =
      this.control[this.classWord(c, ClassWord.SLABS)]! + 1;
    for (let i = count - 1; i >= 0; i--) {
      const slot = slab * this.chunksPerSlab + i;
      slots[slot * SLOT_WORDS + SlotWord.START] = (slab << this.slabShift) + i * chunk;
      this.pushFree(c, slot);
    }
    this.control[this.classWord(c, ClassWord.HAND)] = slab * this.chunksPerSlab;
  }

  private pushFree(c: number, slot: number): void {
    const word = this.classWord(c, ClassWord.FREE_HEAD);
    this.slots[slot * SLOT_WORDS + SlotWord.NEXT] = this.control[word]!;
    this.control[word] = slot + 1;
  }

  /** Unpublishes `slot` (class `c`): GEN even, out of the buckets, its charge returned. */
  private retire(slot: number, c: number): void {
    removeFromBuckets(this.buckets, this.slots, slot);
    Atomics.add(this.slots, slot * SLOT_WORDS + SlotWord.GEN, 1);
    const control = this.control;
    control[Control.USAGE_UNITS] = control[Control.USAGE_UNITS]! - this.chunks[c]! / USAGE_UNIT;
  }

  /**
   * Evicts a block of class `c` by the clock and returns its slot (every chunk of the class
   * is in use). REQUIRES: the lock, a slab of class `c`.
   */
  private evictByClock(c: number): number {
    const slots = this.slots;
    const perSlab = this.chunksPerSlab;
    const count = Math.floor((1 << this.slabShift) / this.chunks[c]!);
    const handWord = this.classWord(c, ClassWord.HAND);
    let hand = this.control[handWord]!;
    for (;;) {
      const s = hand * SLOT_WORDS;
      const held = (slots[s + SlotWord.GEN]! & 1) === 1;
      if (held && slots[s + SlotWord.REF] === 0) {
        this.control[handWord] = this.nextOfClass(hand, c, count, perSlab);
        this.retire(hand, c);
        this.control[Control.EVICTIONS] = this.control[Control.EVICTIONS]! + 1;
        return hand;
      }
      if (held) slots[s + SlotWord.REF] = 0;
      hand = this.nextOfClass(hand, c, count, perSlab);
    }
  }

  /** The slot after `slot` among the chunks of class `c`'s slabs (wrapping). */
  private nextOfClass(slot: number, c: number, count: number, perSlab: number): number {
    let slab = Math.floor(slot / perSlab);
    const i = slot - slab * perSlab + 1;
    if (i < count) return slot + 1;
    const slabClass = this.slabClass;
    do slab = slab + 1 === this.numSlabs ? 0 : slab + 1;
    while (slabClass[slab] !== c + 1);
    return slab * perSlab;
  }

  /**
   * Takes a slab from the class that has the most (evicting its blocks) and gives it to
   * class `c`, which has none. False if no class has a slab to spare.
   */
  private stealSlab(c: number): boolean {
    const control = this.control;
    let donor = -1;
    let most = 0;
    for (let d = 0; d < this.chunks.length; d++) {
      const n = control[this.classWord(d, ClassWord.SLABS)]!;
      if (d !== c && n > most) {
        most = n;
        donor = d;
      }
    }
    if (donor < 0) return false;
    const slabClass = this.slabClass;
    let slab = 0;
    while (slabClass[slab] !== donor + 1) slab++;
    const perSlab = this.chunksPerSlab;
    const count = Math.floor((1 << this.slabShift) / this.chunks[donor]!);
    const slots = this.slots;
    const first = slab * perSlab;
    for (let slot = first; slot < first + count; slot++) {
      if ((slots[slot * SLOT_WORDS + SlotWord.GEN]! & 1) === 1) {
        this.retire(slot, donor);
        control[Control.EVICTIONS] = control[Control.EVICTIONS]! + 1;
      }
    }
    // Rebuild the donor's free list without the slab's chunks.
    const headWord = this.classWord(donor, ClassWord.FREE_HEAD);
    let head = control[headWord]!;
    control[headWord] = 0;
    const kept: number[] = [];
    while (head !== 0) {
      if (head - 1 < first || head - 1 >= first + perSlab) kept.push(head - 1);
      head = slots[(head - 1) * SLOT_WORDS + SlotWord.NEXT]!;
    }
    for (let i = kept.length - 1; i >= 0; i--) this.pushFree(donor, kept[i]!);
    control[this.classWord(donor, ClassWord.SLABS)] =
      control[this.classWord(donor, ClassWord.SLABS)]! - 1;
    if (control[this.classWord(donor, ClassWord.SLABS)]! > 0) {
      const hand = control[this.classWord(donor, ClassWord.HAND)]!;
      if (hand >= first && hand < first + perSlab) {
        slabClass[slab] = 0; // so the walk skips it
        control[this.classWord(donor, ClassWord.HAND)] = this.nextOfClass(
          first + count - 1,
          donor,
          count,
          perSlab,
        );
      }
    }
    this.assignSlab(slab, c);
    return true;
  }
}
