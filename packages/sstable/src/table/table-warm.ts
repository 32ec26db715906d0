/**
 * Warming the block cache with a whole table (RocksDB's prepopulate_block_cache, done by
 * the reader): every data block the index points at, in file order, is put into the
 * table's block cache, so that the first gets after a table is written find its blocks
 * cached instead of reading, verifying and decompressing them one by one.
 *
 * The data blocks are read the way a forward scan reads them (readahead.ts): from the third
 * block on, the file is read in regions of 8 KiB doubling to 256 KiB, and each block is
 * decoded out of its region into memory of its own. Like a scan, warming only fills free
 * space: a block goes in only if its cache shard has room for it, so a table larger than
 * the cache never pushes the working set out; warming stops at the first block that does
 * not fit. The room is judged by an estimate made before decoding (twice the stored size,
 * as a scan's, block-source.ts): a block that decompresses to more than that can evict
 * one least recently used block, and warming stops there too. Blocks already cached are left as they are. The index and filter
 * are loaded when the reader opens (and pinned there by default): nothing more to do for
 * them here.
 *
 * Cost: one sequential read of the table's data region, a checksum and (when compressed)
 * a decompression per block, one cache insert per block; on the calling thread.
 *
 * From captured blocks (`warmTableFromCaptured`): the builder that wrote the table kept each
 * data block's contents (captured-blocks.ts), so warming only wraps each one in a `Block`
 * (a view into its chunk, its restart array checked as a read's is) and inserts it: no
 * read, checksum or decompression. The same rules: free room only, stop at the first block
 * that does not fit, cached blocks left as they are.
 *
 * Thread-safety: one thread, as the reader.
 */
import { BLOCK_OVERHEAD, Block } from "../block/block.js";
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockSource } from "../block/block-source.js";
import type { KeyOrder } from "../block/key-order.js";
import { Readahead } from "../block/readahead.js";
import type { Footer } from "../format/footer.js";
import { type BlockHandle, TableFormat } from "../format/format.js";
import type { PartitionedIndex } from "../index/partitioned-index.js";
import { PartitionedIndexIterator } from "../index/partitioned-index-iterator.js";
import { CAPTURED_STRIDE, type CapturedDataBlocks } from "./captured-blocks.js";

/** The part of `TableReader` warming reads (an interface: table-reader.ts imports this file). */
export interface WarmableTable {
  readonly fileName: string | undefined;
  readonly order: KeyOrder;
  readonly footer: Footer;
  readonly source: BlockSource;
  /** A partitioned index, or undefined. */
  readonly partitioned: PartitionedIndex | undefined;
  indexBlock(): Block;
  decodeIndexValue(index: BlockIterator, out: BlockHandle): void;
}

/** What `TableReader.prepopulateBlockCache` did. */
export interface TableWarmResult {
  /** Data blocks read from the file and inserted into the block cache. */
  inserted: number;
  /** Data blocks the cache held already. */
  alreadyCached: number;
  /** True if warming stopped at a block the cache had no free room for. */
  full: boolean;
}

/**
 * Puts the table's data blocks into its block cache while there is free room (see above).
 * A table without a block cache is left as it is. Throws Corruption (with file and offset)
 * for a damaged block when `verifyChecksums`.
 */
export function warmTableBlocks(reader: WarmableTable, verifyChecksums: boolean): TableWarmResult {
  const result: TableWarmResult = { inserted: 0, alreadyCached: 0, full: false };
  const source = reader.source;
  const cache = source.cache;
  if (cache === undefined) return result;
  const id = source.cacheId;
  const ra = new Readahead();
  const h: BlockHandle = { offset: 0, size: 0 };
  // One data block: already cached, inserted, or (no room: it was only decoded, or its
  // insert evicted) the end.
  const visit = (): boolean => {
    const offset = h.offset;
    if (cache.get(id, offset) !== undefined) {
      // A cached block continues the readahead sequence, as in a scan.
      ra.follow(offset, offset + h.size + TableFormat.BLOCK_TRAILER_SIZE);
      result.alreadyCached++;
      return true;
    }
    // The charge as estimated before decoding (block-source.ts), at its largest: the first
    // blocks of the sequence are inserted without the cache's room check of a region.
    const n = h.size + TableFormat.BLOCK_TRAILER_SIZE;
    if (!cache.hasRoomFor(id, offset, 2 * n + BLOCK_OVERHEAD)) {
      result.full = true;
      return false;
    }
    const evictions = cache.evictions;
    source.readScanBlock(h, true, verifyChecksums, ra);
    if (cache.evictions !== evictions || cache.get(id, offset) === undefined) {
      result.full = true;
      return false;
    }
    result.inserted++;
    return true;
  };
  const partitioned = reader.partitioned;
  if (partitioned !== undefined) {
    const walker = new PartitionedIndexIterator(partitioned, reader.order, reader.fileName);
    try {
      for (walker.seekToFirst(); walker.valid(); walker.next()) {
        walker.handle(h);
        if (!visit()) break;
      }
    } finally {
      walker.close();
    }
    return result;
  }
  const at = reader.footer.indexHandle.offset;
  const index = new BlockIterator(reader.order).init(reader.indexBlock(), reader.fileName, at);
  for (index.seekToFirst(); index.valid(); index.next()) {
    reader.decodeIndexValue(index, h);
    if (!visit()) break;
  }
  return result;
}

/**
 * Puts the captured data blocks of the table (`captured`, from the builder that wrote it)
 * into its block cache while there is free room (see above). A table without a block cache
 * is left as it is. Throws Corruption (with file and offset) for a block whose restart
 * array is damaged, as a read of it would.
 */
export function warmTableFromCaptured(
  reader: WarmableTable,
  captured: CapturedDataBlocks,
): TableWarmResult {
  const result: TableWarmResult = { inserted: 0, alreadyCached: 0, full: false };
  const source = reader.source;
  const cache = source.cache;
  if (cache === undefined) return result;
  const id = source.cacheId;
  const blocks = captured.blocks;
  const chunks = captured.chunks;
  const file = reader.fileName;
  for (let at = 0; at + CAPTURED_STRIDE <= blocks.length; at += CAPTURED_STRIDE) {
    const offset = blocks[at]!;
    if (cache.get(id, offset) !== undefined) {
      result.alreadyCached++;
      continue;
    }
    const chunk = chunks[blocks[at + 1]!]!;
    const data = new Uint8Array(chunk, blocks[at + 2]!, blocks[at + 3]!);
    if (!source.insertWarmed(offset, Block.keyValue(data, file, offset))) {
      result.full = true;
      break;
    }
    result.inserted++;
  }
  return result;
}
