/**
 * Reading partitioned filters (metaindex "partitionedfilter." + the policy's compatibility
 * name; written by partitioned-filter-builder.ts, which draws the layout): the filter index
 * maps each partition's key to the handle of a filter partition, whose bytes are one filter
 * of the table's policy, read by the same per-filter reader as a full filter block
 * (`openFilterBlock`, through `BlockSource.readFilterBlock`).
 *
 * A point lookup probes one partition (RocksDB's `PartitionedFilterBlockReader::MayMatch`):
 * the first whose key is >= the lookup key `userKey#snapshot` (the filter index is searched
 * as the index is: the same key form), or the last partition when the key is past every
 * partition key. An empty filter index answers "may match".
 *
 * The filter index is loaded at open (through the block cache, pinned by default, like the
 * index) and its entries decoded once (partitioned-index.ts `PartitionDirectory`);
 * partitions are kept as index partitions are (`PartitionMode`): held after the first use,
 * pinned in the cache, or looked up in it on every probe.
 *
 * Not thread-safe (one reader per thread).
 */
import type { Block } from "../block/block.js";
import type { BlockSource } from "../block/block-source.js";
import type { KeyOrder } from "../block/key-order.js";
import type { BlockHandle } from "../format/format.js";
import { PartitionDirectory, PartitionMode } from "../index/partitioned-index.js";
import { filterMayMatch } from "./filter-block.js";
import type { FilterBitsReader } from "./filter-policy.js";

export class PartitionedFilter {
  readonly directory: PartitionDirectory;
  private readonly source: BlockSource;
  private readonly mode: PartitionMode;
  private readonly filters: (FilterBitsReader | undefined)[] = [];
  private readonly read: (h: BlockHandle) => Block;
  private readonly handle: BlockHandle = { offset: 0, size: 0 };

  /**
   * @param top the filter index block (loaded as an index block: the same key and value forms).
   * @param topOffset its offset in the file (for errors).
   */
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
    this.read = (h) => source.readFilterBlock(h);
    for (let i = 0; i < this.directory.count; i++) this.filters.push(undefined);
    // Held or pinned partitions are all read now, in file order (RocksDB's prefetch of
    // pinned partitions): their readers sit together in memory, which a probe of a random
    // partition finds in the CPU caches more often than readers made one by one.
    if (mode !== PartitionMode.Cached) {
      for (let i = 0; i < this.directory.count; i++) this.load(i);
    }
  }

  /** Number of filter partitions. */
  get count(): number {
    return this.directory.count;
  }

  /**
   * False only if `userKey` is certainly not in the table. `target` is the lookup's internal
   * key (`userKey#snapshot`; any seq works: partitions split between user keys or cover
   * every version of one), `keyHash` as for `filterMayMatch`.
   */
  mayMatch(userKey: Uint8Array, target: Uint8Array, keyHash: Uint32Array | undefined): boolean {
    const n = this.directory.count;
    if (n === 0) return true;
    let i = this.directory.lowerBound(target);
    if (i >= n) i = n - 1;
    const filter = this.filters[i] ?? this.load(i);
    return filterMayMatch(filter, userKey, keyHash);
  }

  private load(i: number): FilterBitsReader {
    const h = this.handle;
    h.offset = this.directory.offsets[i]!;
    h.size = this.directory.sizes[i]!;
    const source = this.source;
    switch (this.mode) {
      case PartitionMode.Cached:
        return source.metaBlock(h, this.read).filter!;
      case PartitionMode.Pinned: {
        const filter = source.pinnedMetaBlock(h, this.read).filter!;
        this.filters[i] = filter;
        return filter;
      }
      default: {
        const filter = this.read(h).filter!;
        this.filters[i] = filter;
        return filter;
      }
    }
  }

  /** Drops the partitions held (the reader closes). */
  release(): void {
    this.filters.fill(undefined);
  }
}
