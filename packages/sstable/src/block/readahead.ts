/**
 * Readahead for table iterators (RocksDB's automatic iterator readahead): after two data
 * blocks visited one right after the other, an iterator reads 8 KiB ahead in one call,
 * doubling per refill up to 256 KiB; the blocks it then needs are served from that region
 * without a system call or memory of their own each.
 *
 *   blocks visited   b0 (file)   b1 (file, sequential #1)   b2 (file, sequential #2: region
 *                    [b2, b2 + 8 KiB) read)   b3 .. (from the region)   bk past it (region
 *                    [bk, bk + 16 KiB) read) ...
 *   a seek elsewhere (a block that is not the last one's neighbour) starts the count again
 *   at 8 KiB.
 *
 * The sequence counts every block the iterator moves to, from the block cache or not (as
 * RocksDB's BlockPrefetcher, which sees every block before the cache does): a scan over
 * blocks of which some are cached keeps reading ahead across them. (Counting only blocks
 * read from the file made every cache hit restart the sequence, and the next miss a small
 * read: 267 reads instead of 12 for a full scan of 404 blocks with every third one cached.)
 *
 * Backward scans read ahead too, in the other direction: after two blocks each right
 * before the last, the region is the window ending at the block's end, `size` bytes long
 * (or down to the start of the file), growing the same way.
 *
 *   blocks visited   b9 (file)   b8 (file, #1)   b7 (file, #2: region [b7end - 8 KiB, b7end))
 *                    b6 .. (from the region)   bk before it (region [bkend - 16 KiB, bkend)) ...
 *
 * (RocksDB 7.8 reads ahead only forward; a reverse scan there issues one read per block,
 * as shale's did: 404 reads for the table above, 13 now.) A window's first block is
 * usually cut, and read again, whole, by the next window: one block per region read twice.
 *
 * Each region is fresh memory that is never reused, so values stay valid for as long as they
 * are referenced — unless the iterator was opened with `reuseScanBuffers` (a compaction's
 * inputs, a DB iterator's tables): then every region is read into the same buffer of
 * `scanBuffers` and every block not cached is decompressed into another (scan-buffers.ts),
 * both handed back when the iterator closes, and values are valid until the iterator moves.
 *
 * A block served from a region is inserted into the block cache only into free space (a scan
 * longer than the cache would otherwise evict the working set and pay an allocation, an
 * insert and an eviction per block for blocks it reads once; cold readseq of 1M entries
 * through a 32 MiB cache: ~1100 ns/entry CPU when every block went in, ~700 when none did),
 * copied into memory of its own so the cache never keeps a region alive (nor sees a reused
 * region rewritten). So a scan still warms a cache that has room, and with
 * `fillCache: false` nothing goes in. Blocks not cached are views of the region (no copy, no
 * allocation per block), or, when compressed, decompressed into a `BlockSlab` (one
 * allocation per 256 KiB of blocks; none once the iterator holds its reused slab buffer).
 */

/** First readahead size (RocksDB's initial_auto_readahead_size). */
export const INITIAL_READAHEAD = 8 * 1024;
/** Largest readahead size (RocksDB's max_auto_readahead_size). */
export const MAX_READAHEAD = 256 * 1024;
/** Sequential blocks visited (same direction) before reading ahead starts. */
export const SEQUENTIAL_READS_BEFORE_READAHEAD = 2;

import { allocUninitialized, BlockSlab } from "./alloc.js";
import { ReusedSlab, SCAN_BUFFER_SIZE, type ScanBufferPool } from "./scan-buffers.js";

const EMPTY = new Uint8Array(0);

/** One iterator's readahead state (see above). */
export class Readahead {
  /** The bytes read ahead: file bytes [regionStart, regionStart + region.length). */
  region: Uint8Array = EMPTY;
  regionStart = 0;
  /** File offsets of the last block the iterator visited: [lastStart, lastEnd) (-1: none). */
  lastStart = -1;
  lastEnd = -1;
  /** Direction of the sequence: 1 forward, -1 backward, 0 none yet. */
  direction = 0;
  /** Blocks visited in a row, each the neighbour of the one before in `direction`. */
  sequentialBlocks = 0;
  /** Bytes the next refill reads (at least the block it is for). */
  size = INITIAL_READAHEAD;
  /** Memory for the decompressed blocks of regions that are not cached (created on use). */
  slab: BlockSlab | undefined = undefined;
  /**
   * Where regions and the slab take their memory when the iterator reuses it
   * (`reuseScanBuffers`, see scan-buffers.ts); undefined: fresh memory for each.
   */
  pool: ScanBufferPool | undefined = undefined;
  /** The pool's buffer regions are read into (reuse only; taken on the first region). */
  private regionBuffer: ArrayBuffer | undefined = undefined;

  /** Whether the region holds file bytes [offset, offset + n). */
  covers(offset: number, n: number): boolean {
    return offset >= this.regionStart && offset + n <= this.regionStart + this.region.length;
  }

  /**
   * Notes that the iterator moved to the block at file bytes [offset, end), whether it comes
   * from the cache, the region or the file: continues the sequence when the block is the
   * last one's neighbour in the sequence's direction, else starts it again (and the
   * readahead size with it).
   */
  follow(offset: number, end: number): void {
    const direction = offset === this.lastEnd ? 1 : end === this.lastStart ? -1 : 0;
    if (direction !== 0 && direction === this.direction) {
      this.sequentialBlocks++;
    } else {
      this.sequentialBlocks = direction === 0 ? 0 : 1;
      this.direction = direction;
      this.size = INITIAL_READAHEAD;
    }
    this.lastStart = offset;
    this.lastEnd = end;
  }

  /** Forgets the region and the sequence (e.g. the iterator moved to another table). */
  reset(): void {
    this.region = EMPTY;
    this.regionStart = 0;
    this.lastStart = -1;
    this.lastEnd = -1;
    this.direction = 0;
    this.sequentialBlocks = 0;
    this.size = INITIAL_READAHEAD;
  }

  /** The slab for decompressed blocks not cached (see `BlockSlab`, `ReusedSlab`). */
  blockSlab(): BlockSlab {
    if (this.slab === undefined)
      this.slab = this.pool === undefined ? new BlockSlab() : new ReusedSlab(this.pool);
    return this.slab;
  }

  /**
   * Memory (not zeroed) for a new region of `length` bytes: a view of the pool's buffer
   * when reusing and it is large enough, else fresh memory. The previous region's bytes are
   * overwritten when reusing: REQUIRES that nothing reads them any more.
   */
  regionMemory(length: number): Uint8Array {
    const pool = this.pool;
    if (pool === undefined || length > SCAN_BUFFER_SIZE) return allocUninitialized(length);
    let b = this.regionBuffer;
    if (b === undefined) {
      b = pool.take();
      this.regionBuffer = b;
    }
    return new Uint8Array(b, 0, length);
  }

  /**
   * Forgets the region, the sequence and the slab, and gives the buffers taken from the
   * pool back (the iterator closed: nothing reads its blocks any more); no pool afterwards.
   */
  releaseMemory(): void {
    this.reset();
    const slab = this.slab;
    if (slab instanceof ReusedSlab) slab.release();
    this.slab = undefined;
    const b = this.regionBuffer;
    if (b !== undefined) {
      this.regionBuffer = undefined;
      this.pool!.give(b);
    }
    this.pool = undefined;
  }
}
