/**
 * Block memory. In V8 every ArrayBuffer costs about 1 µs plus 0.3 ns per byte (allocation,
 * zeroing, sweeping; measured with 4 KiB buffers: ~3 µs each, as much as reading the block),
 * so the read path avoids the zeroing where every byte is overwritten anyway.
 */
import { invariants, NodeBuffer } from "@shale/base";

/**
 * A fresh array of `n` bytes over its own ArrayBuffer (never pooled), NOT zeroed.
 * REQUIRES: the caller overwrites every byte before anything can read it (or drops it).
 */
export function allocUninitialized(n: number): Uint8Array {
  // Without Node's Buffer (a browser) the bytes are zeroed: correct, only slower.
  if (NodeBuffer === undefined) return new Uint8Array(n);
  return new Uint8Array(NodeBuffer.allocUnsafeSlow(n).buffer, 0, n);
}

/** Bytes of one `BlockSlab` buffer. */
const SLAB_SIZE = 256 * 1024;

/**
 * Memory for blocks that many share: consecutive blocks are carved out of one buffer of
 * `SLAB_SIZE` bytes, each a view of it, and a full buffer is left to the views (never
 * reused), so every block's bytes stay valid as long as they are referenced. One allocation
 * instead of one per block (~1 µs each in V8, as much as decompressing a sixth of a 4 KiB
 * block). For blocks that are NOT cached: a cached view would keep its whole buffer alive.
 */
export class BlockSlab {
  /** The current buffer; `take` writes at `pos`. */
  buf: Uint8Array = new Uint8Array(0);
  pos = 0;

  /**
   * Makes room for `n` bytes at `buf[pos, pos + n)` (a fresh buffer if the current one lacks
   * it; a block over a quarter of a slab gets one of its own size).
   */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.buf = allocUninitialized(n > SLAB_SIZE >>> 2 ? n : SLAB_SIZE);
    this.pos = 0;
  }

  /** The view of `buf[pos, pos + n)` after `reserve(n)`; moves `pos` past it. */
  take(n: number): Uint8Array {
    const b = this.buf;
    const view = new Uint8Array(b.buffer, b.byteOffset + this.pos, n);
    this.pos += n;
    return view;
  }
}

/** Pooled buffers come in sizes that are multiples of 2^POOL_SHIFT bytes. */
const POOL_SHIFT = 8;
const POOL_GRAIN = 1 << POOL_SHIFT;
/** Blocks larger than this get memory of their own, never pooled. */
export const MAX_POOLED_BLOCK = 64 * 1024;
/** The pool keeps at most this many bytes of free buffers; more are left to the GC. */
const MAX_POOL_FREE_BYTES = 4 * 1024 * 1024;

/**
 * Block memory that is handed back and reused: the buffers of cached data blocks evicted from
 * a recycling block cache (`newBlockCache(capacity, { recycleBlocks: true })`) return here
 * and the next blocks read are decompressed into them, instead of each read paying a fresh
 * ArrayBuffer (~1.3 µs for 4 KiB here, plus its sweeping) and each eviction leaving one to
 * the GC.
 *
 * Buffers come in capacities rounded up to `POOL_GRAIN` bytes; `take(n)` reuses a free
 * buffer of exactly n's capacity, else allocates one. At most `MAX_POOL_FREE_BYTES` of free
 * buffers are kept. Single-threaded: one pool per isolate (`blockMemory`).
 *
 * REQUIRES of `give`: nothing can read the buffer any more — the block is out of the cache
 * and no iterator is on it (`Block.release`), and its views' lifetimes have ended (see
 * `recycleBlocks` for the contract a recycling cache gives views).
 */
export class BlockMemoryPool {
  /** free[c]: free buffers of capacity c * POOL_GRAIN. */
  private readonly free: ArrayBuffer[][] = [];
  private freeBytes = 0;
  /** Counters (tests): buffers reused, freshly allocated, given back. */
  reused = 0;
  allocated = 0;
  returned = 0;

  constructor() {
    for (let c = 0; c <= MAX_POOLED_BLOCK >>> POOL_SHIFT; c++) this.free.push([]);
  }

  /**
   * A view of `n` bytes (NOT zeroed) at the start of a pooled buffer of capacity `n` rounded
   * up to `POOL_GRAIN`. REQUIRES: 0 < n <= MAX_POOLED_BLOCK; the caller overwrites every byte.
   */
  take(n: number): Uint8Array {
    const c = (n + POOL_GRAIN - 1) >>> POOL_SHIFT;
    const list = this.free[c]!;
    const b = list.pop();
    if (b !== undefined) {
      this.freeBytes -= b.byteLength;
      this.reused++;
      return new Uint8Array(b, 0, n);
    }
    this.allocated++;
    const fresh = allocUninitialized(c << POOL_SHIFT);
    return new Uint8Array(fresh.buffer, 0, n);
  }

  /**
   * Hands back a buffer `take` returned (see the class REQUIRES). Kept for reuse while the
   * pool holds less than `MAX_POOL_FREE_BYTES`, else left to the GC. In invariants mode
   * the bytes are overwritten with 0xcc first, so a view kept past its lifetime reads
   * garbage rather than stale truth.
   */
  give(buffer: ArrayBufferLike): void {
    const size = buffer.byteLength;
    const c = size >>> POOL_SHIFT;
    this.returned++;
    if (invariants) new Uint8Array(buffer).fill(0xcc);
    if (
      this.freeBytes + size > MAX_POOL_FREE_BYTES ||
      c << POOL_SHIFT !== size ||
      c > MAX_POOLED_BLOCK >>> POOL_SHIFT
    ) {
      return;
    }
    this.free[c]!.push(buffer as ArrayBuffer);
    this.freeBytes += size;
  }
}

/** The isolate's block memory pool (see BlockMemoryPool). */
export const blockMemory = new BlockMemoryPool();
