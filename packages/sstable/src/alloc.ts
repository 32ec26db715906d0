/**
 * Block memory. In V8 every ArrayBuffer costs about 1 µs plus 0.3 ns per byte (allocation,
 * zeroing, sweeping; measured with 4 KiB buffers: ~3 µs each, as much as reading the block),
 * so the read path avoids the zeroing where every byte is overwritten anyway.
 */
import { NodeBuffer } from "@shale/base";

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
