/**
 * Captured data blocks: the uncompressed contents of a table's data blocks, kept by the
 * builder as it writes them (`TableBuilder.captureDataBlocks`), so that the block cache can
 * be warmed with a new table without reading, verifying and decompressing the file again
 * (RocksDB's prepopulate_block_cache inserts the blocks its builder holds in the same way).
 * A background worker hands them to the database's thread as transferable ArrayBuffers;
 * that thread only wraps and inserts them (`TableReader.prepopulateBlockCacheFrom`).
 *
 * Layout (in memory only; never on disk):
 *
 * ```
 * chunks: ArrayBuffer[]      block contents back to back, CHUNK_BYTES each (a block larger
 *                            than that gets a chunk of its own); a chunk's bytes past its
 *                            last block are unused, less than CHUNK_BYTES / 8 (a chunk with
 *                            more unused, a table's last, is cut to its used length)
 * blocks: Float64Array       per block, 4 numbers: file offset, chunk index, start in the
 *                            chunk, length (the block's contents without the 5-byte trailer)
 * ```
 *
 * e.g. two blocks of 4,000 and 3,900 bytes written at file offsets 0 and 2,105 (snappy):
 * chunks = [ArrayBuffer(7,900)] (cut), blocks = [0, 0, 0, 4000, 2105, 0, 4000, 3900].
 *
 * Chunks rather than one buffer per table: a cached block is a view into its chunk, so a
 * chunk stays alive while any of its blocks is cached; 1 MiB bounds what a few cached
 * blocks can hold on to, and a few hundred chunks per table cost little to transfer.
 * Chunks are not zeroed (bytes are read only where a block was copied), and a chunk whose
 * unused tail is under CHUNK_BYTES / 8 is handed over whole rather than copied to its used
 * length. 64 KiB chunks (under glibc's mmap threshold, so from the workers' malloc arenas)
 * were tried and measured worse: db-bench's 1M-key sequence peaked ~90 MiB higher with
 * `MALLOC_MMAP_THRESHOLD_=131072` and ~40 MiB higher without it, the freed small chunks
 * staying resident in the arenas (docs/benchmarks/2026-12-07-peak-rss-2.md).
 *
 * Thread-safety: a capture belongs to its builder's thread; what `take` returns may be
 * posted (its buffers transferred) and is then read by one thread.
 */

import { allocUninitialized } from "../block/alloc.js";

/** Bytes per chunk (see the header). */
export const CHUNK_BYTES = 1 << 20;
/** Numbers per block in `CapturedDataBlocks.blocks`. */
export const CAPTURED_STRIDE = 4;

/** A table's captured data blocks (see the header). Structured-clone friendly. */
export interface CapturedDataBlocks {
  chunks: ArrayBuffer[];
  /** Per block: file offset, chunk index, start, length (`CAPTURED_STRIDE` numbers). */
  blocks: Float64Array;
}

/** The buffers to transfer when posting `captured`. */
export function capturedTransferList(captured: CapturedDataBlocks): ArrayBuffer[] {
  const list = captured.chunks.slice();
  list.push(captured.blocks.buffer as ArrayBuffer);
  return list;
}

/** Total bytes of block contents in `captured`. */
export function capturedBytes(captured: CapturedDataBlocks): number {
  const blocks = captured.blocks;
  let n = 0;
  for (let at = 3; at < blocks.length; at += CAPTURED_STRIDE) n += blocks[at]!;
  return n;
}

/**
 * Copies data blocks as they are written, up to a budget of bytes of contents: once a block
 * does not fit the budget, it and every later block are left out (a prefix of the table is
 * captured).
 */
export class DataBlockCapture {
  private readonly chunks: ArrayBuffer[] = [];
  private chunk: Uint8Array | undefined = undefined;
  private used = 0;
  private blocks = new Float64Array(256 * CAPTURED_STRIDE);
  private count = 0;
  private remaining: number;
  private stopped = false;

  /** REQUIRES: `budget` a non-negative safe integer (checked by the builder). */
  constructor(budget: number) {
    this.remaining = budget;
  }

  /** Blocks captured so far. */
  get numBlocks(): number {
    return this.count;
  }

  /** Copies `contents` (the block written at file offset `offset`) if the budget allows. */
  add(offset: number, contents: Uint8Array): void {
    if (this.stopped) return;
    const n = contents.length;
    if (n > this.remaining) {
      this.stopped = true;
      return;
    }
    this.remaining -= n;
    let chunk = this.chunk;
    if (chunk === undefined || this.used + n > chunk.length) {
      this.closeChunk();
      // Not zeroed: bytes are read only where a block was copied.
      chunk = allocUninitialized(Math.max(CHUNK_BYTES, n));
      this.chunk = chunk;
      this.used = 0;
    }
    chunk.set(contents, this.used);
    if ((this.count + 1) * CAPTURED_STRIDE > this.blocks.length) {
      const grown = new Float64Array(this.blocks.length * 2);
      grown.set(this.blocks);
      this.blocks = grown;
    }
    const at = this.count * CAPTURED_STRIDE;
    this.blocks[at] = offset;
    this.blocks[at + 1] = this.chunks.length;
    this.blocks[at + 2] = this.used;
    this.blocks[at + 3] = n;
    this.used += n;
    this.count++;
  }

  /** The blocks captured (the capture is empty afterwards). */
  take(): CapturedDataBlocks {
    this.closeChunk();
    const out: CapturedDataBlocks = {
      chunks: this.chunks.splice(0),
      blocks: this.blocks.slice(0, this.count * CAPTURED_STRIDE),
    };
    this.count = 0;
    return out;
  }

  /**
   * Ends the open chunk: kept whole, or cut to its used length when more than
   * CHUNK_BYTES / 8 of it is unused (see the header).
   */
  private closeChunk(): void {
    const chunk = this.chunk;
    if (chunk === undefined) return;
    this.chunk = undefined;
    const used = this.used;
    if (used === 0) return;
    this.chunks.push(
      chunk.length - used > CHUNK_BYTES / 8
        ? (chunk.buffer.slice(0, used) as ArrayBuffer)
        : (chunk.buffer as ArrayBuffer),
    );
  }
}
