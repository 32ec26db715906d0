/**
 * Scan buffers: fixed-size memory that table iterators opened with `reuseScanBuffers` read
 * ahead into and decompress their blocks into, handed back when the iterator closes and
 * taken again by the next one, instead of a fresh ArrayBuffer per readahead region and per
 * 256 KiB of decompressed blocks (readahead.ts).
 *
 * Why: a compaction reads every byte of its inputs through table iterators; with fresh
 * memory per region it allocated one 256 KiB buffer per 256 KiB read and another per
 * 256 KiB decompressed, so a job's large allocations grew with its input. Buffers of 128 KiB
 * and more come from glibc's mmap, and freeing one raises glibc's mmap threshold, after which
 * freed memory stays in the process: a worker's transient buffers became resident memory.
 * With the pool a job allocates at most two buffers per input iterator open at once (one
 * region, one slab), whatever the number of tables, and the next job reuses them.
 *
 * ```
 *   iterator over table 1:   take() -> region buffer R, take() -> slab buffer S
 *                            region refills read into R again; each block decompresses
 *                            into S at offset 0 (the iterator is in one block at a time)
 *   close():                 give(R), give(S)
 *   iterator over table 2:   take() -> S, take() -> R   (no allocation)
 * ```
 *
 * The price is the views' lifetime: a block's bytes are rewritten when the iterator moves
 * to another block or region, and when it closes (the next iterator reuses them). Such an
 * iterator says `isValuePinned()` false, and a caller that keeps a value across a move must
 * copy it (the compaction iterator's merge operands do: compaction-iterator.ts in @shale/db).
 *
 * In invariants mode a buffer given back is overwritten with 0xcc, so a view kept past its
 * lifetime reads garbage rather than stale truth. Single-threaded: one pool per isolate
 * (`scanBuffers`); a worker thread has its own.
 */
import { invariants } from "@shale/base";
import { allocUninitialized, BlockSlab } from "./alloc.js";

/** Bytes of one scan buffer: the largest readahead region (readahead.ts's MAX_READAHEAD). */
export const SCAN_BUFFER_SIZE = 256 * 1024;

/** Free buffers kept by `scanBuffers`: 16 (4 MiB); more are left to the GC. */
const MAX_FREE = 16;

/** A free list of `SCAN_BUFFER_SIZE`-byte buffers (see the header). */
export class ScanBufferPool {
  private readonly free: ArrayBuffer[] = [];
  private readonly maxFree: number;
  /** Counters (tests, benches): buffers allocated, reused, given back. */
  allocated = 0;
  reused = 0;
  returned = 0;

  /** `maxFree`: free buffers kept at most. */
  constructor(maxFree = MAX_FREE) {
    this.maxFree = maxFree;
  }

  /** Free buffers held now. */
  get freeCount(): number {
    return this.free.length;
  }

  /** A buffer of `SCAN_BUFFER_SIZE` bytes, NOT zeroed: a free one, else a new one. */
  take(): ArrayBuffer {
    const b = this.free.pop();
    if (b !== undefined) {
      this.reused++;
      return b;
    }
    this.allocated++;
    return allocUninitialized(SCAN_BUFFER_SIZE).buffer as ArrayBuffer;
  }

  /**
   * Hands back a buffer `take` returned. REQUIRES: nothing reads it any more. Kept while
   * fewer than `maxFree` are free, else left to the GC.
   */
  give(buffer: ArrayBuffer): void {
    this.returned++;
    if (invariants) new Uint8Array(buffer).fill(0xcc);
    if (this.free.length < this.maxFree) this.free.push(buffer);
  }
}

/** The isolate's scan buffers (see ScanBufferPool). */
export const scanBuffers = new ScanBufferPool();

/**
 * A `BlockSlab` over one scan buffer, for an iterator that is in one block at a time: every
 * block is decompressed at offset 0 of the same buffer (a block larger than the buffer gets
 * memory of its own). `release` gives the buffer back.
 */
export class ReusedSlab extends BlockSlab {
  private owned: ArrayBuffer | undefined = undefined;
  private readonly pool: ScanBufferPool;

  constructor(pool: ScanBufferPool) {
    super();
    this.pool = pool;
  }

  override reserve(n: number): void {
    this.pos = 0;
    if (n > SCAN_BUFFER_SIZE) {
      this.buf = allocUninitialized(n);
      return;
    }
    let owned = this.owned;
    if (owned === undefined) {
      owned = this.pool.take();
      this.owned = owned;
    }
    if (this.buf.buffer !== owned) this.buf = new Uint8Array(owned);
  }

  /** Gives the buffer back to the pool (the slab then holds none). */
  release(): void {
    const owned = this.owned;
    this.buf = new Uint8Array(0);
    this.pos = 0;
    if (owned === undefined) return;
    this.owned = undefined;
    this.pool.give(owned);
  }
}
