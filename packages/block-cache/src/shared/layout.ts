/**
 * The memory layout of `SharedBlockCache` (shared-block-cache.ts): four SharedArrayBuffers
 * that every thread holding the cache maps the same way. In memory only, never written to a
 * file; the word positions below are what the threads agree on, so they change only together
 * with the code that reads them (every thread of a process runs the same code).
 * Long form: docs/formats/shared-block-cache.md.
 *
 * ```
 * control  Int32Array[CONTROL_WORDS]
 *   [0] LOCK             0 free, 1 held: mutations (insert, evict, erase) take it with one
 *                        compareExchange 0 -> 1 and never wait for it (a thread that finds
 *                        it held does not insert; the block is then only in its hands)
 *   [1] SLABS_ASSIGNED   slabs handed to a size class so far (<= numSlabs)
 *   [2] USAGE_UNITS      sum of the chunk sizes of the blocks held, in 64-byte units
 *   [3] INSERTS  [4] EVICTIONS  [5] SKIPPED (inserts that found no room or the lock held)
 *   [6] NUM_SLABS  [7] SLAB_SHIFT (log2 slab size)  [8] NUM_CLASSES  [9] BUCKET_BITS
 *   [16 + 4c ...] per size class c: FREE_HEAD (slot + 1, 0 = none), HAND (the clock's slot),
 *                 SLABS (slabs of the class), CHUNK (chunk bytes)
 * slabClass Int32Array[numSlabs]   class + 1 of each slab, 0 unassigned
 * slots    Int32Array[numSlabs * chunksPerSlab * SLOT_WORDS], slot s at s * SLOT_WORDS:
 *   GEN      even: free (no block), odd: a block is published in the slot. Only the lock
 *            holder changes it, by one: +1 publishes, +1 again retires. A reader loads it,
 *            reads the slot and the bytes, and loads it again: equal means nothing it read
 *            was rewritten meanwhile (a seqlock); it never goes back to an earlier value.
 *   FILE     table file number        OFFSET_LO, OFFSET_HI   block offset in the file
 *   LENGTH   block bytes              START                  byte offset in `data`
 *   REF      the clock's referenced bit (readers set it on a hit)
 *   NEXT     free-list link (slot + 1), lock holder only
 * buckets  Int32Array[2^bucketBits]  open addressing, linear probing on hash(file, offset):
 *          slot + 1, 0 empty; removals shift later entries back (a concurrent reader may
 *          then miss an entry that is there: it reads the block itself)
 * data     Uint8Array[numSlabs << slabShift]  the blocks' bytes; a slab holds chunks of its
 *          class's size, chunk i of slab b is slot b * chunksPerSlab + i
 * ```
 *
 * Worked example: slab size 4 KiB, capacity 8 KiB, a 700-byte block of file 12 at offset
 * 8192. Its class is the 1 KiB one (the smallest chunk >= 700): slab 0 goes to that class
 * (slabClass[0] = class + 1), its 4 chunks are slots 0..3 (chunksPerSlab = 4 with 1 KiB the
 * smallest chunk); the block takes slot 0: bytes at data[0, 700), FILE 12, OFFSET_LO 8192,
 * LENGTH 700, START 0, GEN 0 -> 1, and bucket hash(12, 8192) holds 1.
 */

/** Words of the control array. */
export const CONTROL_WORDS = 16 + 4 * 32;

export const Control = {
  LOCK: 0,
  SLABS_ASSIGNED: 1,
  USAGE_UNITS: 2,
  INSERTS: 3,
  EVICTIONS: 4,
  SKIPPED: 5,
  NUM_SLABS: 6,
  SLAB_SHIFT: 7,
  NUM_CLASSES: 8,
  BUCKET_BITS: 9,
  CLASS_BASE: 16,
} as const;

/** Words per size class, from `Control.CLASS_BASE`. */
export const ClassWord = { FREE_HEAD: 0, HAND: 1, SLABS: 2, CHUNK: 3 } as const;
export const CLASS_WORDS = 4;

export const SlotWord = {
  GEN: 0,
  FILE: 1,
  OFFSET_LO: 2,
  OFFSET_HI: 3,
  LENGTH: 4,
  START: 5,
  REF: 6,
  NEXT: 7,
} as const;
/** Words per slot (32 bytes: two slots per 64-byte cache line). */
export const SLOT_WORDS = 8;

/** `Control.USAGE_UNITS` counts bytes in units of this size (every chunk size is a multiple). */
export const USAGE_UNIT = 64;
/** The smallest chunk: blocks of up to this many bytes take one. */
export const MIN_CHUNK = 1024;
/** Chunk sizes grow by this factor from class to class (rounded up to 64 bytes). */
export const CLASS_GROWTH = 1.25;
/** Default slab size (bytes). */
export const DEFAULT_SLAB_SIZE = 256 * 1024;
export const MIN_SLAB_SHIFT = 12;
export const MAX_SLAB_SHIFT = 24;

/**
 * The chunk sizes of a cache whose slabs are `slabSize` bytes: MIN_CHUNK, then each
 * CLASS_GROWTH times the last (rounded up to 64), ending with `slabSize` itself (at most 32
 * classes).
 */
export function chunkSizes(slabSize: number): number[] {
  const sizes: number[] = [];
  let size = MIN_CHUNK;
  while (size < slabSize && sizes.length < 31) {
    sizes.push(size);
    size = Math.ceil((size * CLASS_GROWTH) / 64) * 64;
  }
  sizes.push(slabSize);
  return sizes;
}

/** The buffers of a shared block cache: structured-cloneable (postMessage, workerData). */
export interface SharedBlockCacheBuffers {
  readonly control: SharedArrayBuffer;
  readonly slabClass: SharedArrayBuffer;
  readonly slots: SharedArrayBuffer;
  readonly buckets: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
}
