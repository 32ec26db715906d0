/**
 * Reading a partitioned (two-level) index (kTwoLevelIndexSearch; written by
 * partitioned-index-builder.ts, which draws the layout): the footer's index handle points at
 * the top-level index block, whose entries map each partition's last separator to the
 * partition's handle; each partition is an index block of data-block handles.
 *
 * At open the top-level block is loaded like a one-block index (through the block cache,
 * pinned by default; rewritten into the classic form, with its `IndexSearch` aid when large
 * enough) and its entries decoded once into arrays: partition i's last key, offset and size.
 * Partitions are index blocks too, read on first use through the block cache with priority
 * "high": pinned there while the reader is open and held in `blocks[i]` (default; RocksDB
 * pins them with the top level), or looked up in the cache on every use (unpinned), or held
 * by the reader (no cache). A partition carries its own search aid and data-block slots.
 *
 * A seek (`lowerBound`) picks the first partition whose last key is >= the target (the
 * top-level search aid or a binary search over the decoded keys), then searches that
 * partition: one more small search than a one-block index.
 *
 * Not thread-safe (one reader per thread).
 */
import { ShaleError } from "@shale/base";
import type { Block } from "../block/block.js";
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockSource } from "../block/block-source.js";
import type { KeyOrder } from "../block/key-order.js";
import { type BlockHandle, decodeBlockHandleInto } from "../format/format.js";
import type { IndexSearch } from "./index-search.js";

/** How partitions are kept (the reader's cache options). */
export const PartitionMode = {
  /** Read on first use and held by the reader (no cache, or index blocks not cached). */
  Held: 0,
  /** Read on first use through the cache, pinned there and held (pinIndexAndFilterBlocks). */
  Pinned: 1,
  /** Looked up in the cache on every use, read and inserted on a miss. */
  Cached: 2,
} as const;
export type PartitionMode = (typeof PartitionMode)[keyof typeof PartitionMode];

/**
 * The entries of a top-level block (a partitioned index or filter's): each partition's last
 * key (an internal key in the classic form) and handle. Corruption naming `file` and
 * `blockOffset` for an entry whose value is not exactly a handle.
 */
export class PartitionDirectory {
  readonly count: number;
  readonly keys: Uint8Array[] = [];
  readonly offsets: number[] = [];
  readonly sizes: number[] = [];
  private readonly order: KeyOrder;
  private readonly search: IndexSearch | undefined;

  constructor(top: Block, order: KeyOrder, file: string | undefined, blockOffset: number) {
    this.order = order;
    const it = new BlockIterator(order).init(top, file, blockOffset);
    const h: BlockHandle = { offset: 0, size: 0 };
    const cursor = new Int32Array(1);
    try {
      for (it.seekToFirst(); it.valid(); it.next()) {
        const start = it.valueOffset;
        const end = start + it.valueLength;
        const pos = decodeBlockHandleInto(it.blockData, start, end, h, cursor, file, blockOffset);
        if (pos !== end) {
          throw ShaleError.corruption("bad top-level index entry", file, blockOffset);
        }
        this.keys.push(it.key().slice());
        this.offsets.push(h.offset);
        this.sizes.push(h.size);
      }
    } finally {
      it.close();
    }
    this.count = this.keys.length;
    // The search aid's entries are the block's restart points: usable when one per entry.
    const search = order.bytewiseInternal ? top.search : undefined;
    this.search = search !== undefined && search.count === this.count ? search : undefined;
  }

  /** The first partition whose last key is >= `target` (an internal key), or `count`. */
  lowerBound(target: Uint8Array): number {
    const search = this.search;
    if (search !== undefined) return search.lowerBound(target);
    const keys = this.keys;
    const order = this.order;
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (order.compare(keys[mid]!, target) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

export class PartitionedIndex {
  /** The top level: partition i's last separator and handle. */
  readonly directory: PartitionDirectory;
  private readonly source: BlockSource;
  private readonly mode: PartitionMode;
  /** Partitions held (modes Held and Pinned), by position in the top level. */
  private readonly blocks: (Block | undefined)[] = [];
  private readonly read: (h: BlockHandle) => Block;
  private readonly handle: BlockHandle = { offset: 0, size: 0 };

  constructor(
    top: Block,
    topOffset: number,
    order: KeyOrder,
    source: BlockSource,
    mode: PartitionMode,
  ) {
    this.directory = new PartitionDirectory(top, order, source.fileName, topOffset);
    this.source = source;
    this.mode = mode;
    const indexSearch = order.bytewiseInternal;
    this.read = (h) => source.readIndexBlock(h, indexSearch);
    for (let i = 0; i < this.directory.count; i++) this.blocks.push(undefined);
    // Held or pinned partitions are all read now (RocksDB prefetches pinned partitions).
    if (mode !== PartitionMode.Cached) {
      for (let i = 0; i < this.directory.count; i++) this.load(i);
    }
  }

  /** Number of partitions. */
  get count(): number {
    return this.directory.count;
  }

  /** The first partition whose last key is >= `target`, or `count` (the target is past the table). */
  lowerBound(target: Uint8Array): number {
    return this.directory.lowerBound(target);
  }

  /** Offset in the file of partition `i` (for errors). REQUIRES: 0 <= i < count. */
  offsetOf(i: number): number {
    return this.directory.offsets[i]!;
  }

  /**
   * Partition `i`'s block: held, or from the cache, else read from the file (checksum
   * verified, Corruption naming the file and the partition's offset). REQUIRES: 0 <= i < count.
   */
  partition(i: number): Block {
    const held = this.blocks[i];
    if (held !== undefined) return held;
    return this.load(i);
  }

  private load(i: number): Block {
    const h = this.handle;
    h.offset = this.directory.offsets[i]!;
    h.size = this.directory.sizes[i]!;
    const source = this.source;
    switch (this.mode) {
      case PartitionMode.Cached:
        return source.metaBlock(h, this.read);
      case PartitionMode.Pinned: {
        const block = source.pinnedMetaBlock(h, this.read);
        this.blocks[i] = block;
        return block;
      }
      default: {
        const block = this.read(h);
        this.blocks[i] = block;
        return block;
      }
    }
  }

  /** Drops the partitions held (the reader closes; pinned handles are released by the source). */
  release(): void {
    this.blocks.fill(undefined);
  }
}

/**
 * Decodes the handle that is the current value of `index`, an iterator over an index block
 * at `blockOffset` (Corruption naming it for a bad value). With `firstKey`, the value may go
 * on after the handle (kBinarySearchWithFirstKey: the block's first key, checked at load).
 */
export function decodeIndexHandle(
  index: BlockIterator,
  out: BlockHandle,
  cursor: Int32Array,
  file: string | undefined,
  blockOffset: number,
  firstKey: boolean,
): void {
  const start = index.valueOffset;
  const end = start + index.valueLength;
  const pos = decodeBlockHandleInto(index.blockData, start, end, out, cursor, file, blockOffset);
  if (pos !== end && !firstKey) throw ShaleError.corruption("bad index entry", file, blockOffset);
}
