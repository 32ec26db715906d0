/**
 * The partitioned (two-level) index as RocksDB 7.8.3 writes it (kTwoLevelIndexSearch,
 * `PartitionedIndexBuilder`): the index entries of the data blocks are cut into partitions
 * of about `metadataBlockSize` bytes, each an ordinary index block (index-block.ts), and a
 * top-level index block maps each partition's last separator to the partition's handle.
 *
 * ```
 * ... data blocks ‖ [filter] ‖ partition 0 ‖ trailer ‖ ... ‖ partition n-1 ‖ trailer
 *                             ‖ top-level index ‖ trailer ‖ [range-del] ‖ properties ‖ ...
 * partition i  := index block: separator(block) -> handle, one entry per data block
 * top level    := index block: last separator of partition i -> handle of partition i
 * footer index handle -> the top-level block
 * ```
 * Both levels use the same key form (user keys when no separator in any partition has the
 * next block's user key, else internal keys: one choice for the whole table, property
 * `rocksdb.index.key.is.user.key`) and the same value form (no value lengths from format
 * version 4; restart interval 1, so every value is a whole handle).
 *
 * Cutting (RocksDB's `AddIndexEntry`): before the entry of a data block that is not the
 * last is added, the current partition is closed if a cut was requested (by the partitioned
 * filter, partitioned-filter-builder.ts) or if RocksDB's block flush policy says it is full:
 * its size estimate is >= `metadataBlockSize`, or over 90 % of it and the estimate after
 * adding (the unshortened last key, the whole handle) would pass it. The last data block's
 * entry never cuts. Each cut marks the filter's partition to be cut too (`takeFilterCut`).
 *
 * Properties: `rocksdb.index.partitions` (n), `rocksdb.top-level.index.size` (top-level
 * contents, trailer excluded), `rocksdb.index.size` (every partition's contents and the
 * top level's, plus one trailer, as RocksDB counts it).
 *
 * Worked example (300 entries "key000000".. in 256-byte data blocks, format version 5,
 * metadataBlockSize 64; RocksDB writes the same, testdata/rocksdb-tables/
 * fv5-partitioned-index-only.sst): 13 partitions; partition 0 at (10152, 59) is
 * ```
 * 00 08 "key00001"  00 fa 01         separator -> data block (0, 250)
 * 00 09 "key000016" ff 01 eb 01      -> (255, 235)
 * 00 09 "key000022" ef 03 ea 01      -> (495, 234)
 * 00 00 00 00 0d 00 00 00 1c 00 00 00 03 00 00 00     restarts [0, 13, 28], count 3
 * ```
 * and the top level begins `00 09 "key000022" a8 4f 3b` (-> partition 0 at (10152, 59)),
 * `00 09 "key000047" e8 4f 3d` (-> partition 1 at (10216, 61)).
 *
 * Not thread-safe (one builder per table).
 */
import type { Comparator } from "@shale/base";
import { BlockBuilder } from "../block/block-builder.js";
import { type BlockHandle, encodeBlockHandle } from "../format/format.js";
import { IndexBuilder } from "./index-block.js";

/** One closed partition: its builder and the separator of its last entry. */
interface Partition {
  readonly builder: IndexBuilder;
  readonly lastSeparator: Uint8Array;
}

/** A finished partitioned index: the blocks to write, in order, then the top level. */
export interface PartitionedIndexBlocks {
  /** Each partition's contents (views of builder memory). */
  readonly partitions: Uint8Array[];
  /** Makes the top-level block once the partitions are written at `handles`. */
  topLevel(handles: readonly BlockHandle[]): Uint8Array;
  /** Index keys are user keys. */
  readonly keyIsUserKey: boolean;
}

export class PartitionedIndexBuilder {
  private readonly comparator: Comparator;
  private readonly formatVersion: number;
  private readonly metadataBlockSize: number;
  /** ceil(metadataBlockSize * 0.9): block_size_deviation 10. */
  private readonly deviationLimit: number;
  private readonly partitions: Partition[] = [];
  private current: IndexBuilder | undefined;
  /** The flush policy watches the current partition's block of internal keys. */
  private watchWithSeq = false;
  private currentLastSeparator: Uint8Array = new Uint8Array(0);
  /** Some partition needs internal keys: every partition and the top level use them. */
  private keyPlusSeq = false;
  private cutRequested = false;
  private filterCut = false;
  private entries = 0;

  constructor(comparator: Comparator, formatVersion: number, metadataBlockSize: number) {
    this.comparator = comparator;
    this.formatVersion = formatVersion;
    this.metadataBlockSize = metadataBlockSize;
    this.deviationLimit = Math.floor((metadataBlockSize * 90 + 99) / 100);
  }

  /** Number of index entries (data blocks) added. */
  get numEntries(): number {
    return this.entries;
  }

  /** The partitioned filter asks for a cut at the next data block boundary. */
  requestPartitionCut(): void {
    this.cutRequested = true;
  }

  /** True once per index cut: the filter closes its partition too (RocksDB's ShouldCutFilterBlock). */
  takeFilterCut(): boolean {
    if (!this.filterCut) return false;
    this.filterCut = false;
    return true;
  }

  /** The separator of the last entry added: the key of the filter partition being closed. */
  get partitionKey(): Uint8Array {
    return this.currentLastSeparator;
  }

  /** Whether the index keeps sequence numbers (decided for every partition). */
  get separatorIsKeyPlusSeq(): boolean {
    return this.keyPlusSeq;
  }

  private newPartition(): IndexBuilder {
    const builder = new IndexBuilder(this.comparator, this.formatVersion);
    if (this.keyPlusSeq) builder.useKeyPlusSeq();
    this.watchWithSeq = builder.separatorIsKeyPlusSeq;
    this.cutRequested = false;
    this.current = builder;
    return builder;
  }

  /** RocksDB's FlushBlockBySizePolicy::Update on the watched block of the current partition. */
  private full(current: IndexBuilder, keyLength: number, handle: BlockHandle): boolean {
    const block: BlockBuilder = this.watchWithSeq ? current.withSeq : current.withoutSeq;
    if (block.empty) return false;
    const size = block.currentSizeEstimate;
    if (size >= this.metadataBlockSize) return true;
    if (size <= this.deviationLimit) return false;
    const valueLength = encodeBlockHandle(handle).length;
    return block.estimateSizeAfter(keyLength, valueLength) > this.metadataBlockSize;
  }

  /**
   * Adds the entry of the data block at `handle` (as `IndexBuilder.add`): `lastKey` its last
   * internal key, `nextKey` the next block's first (undefined for the last block). Returns
   * the separator.
   */
  add(
    lastKey: Uint8Array,
    nextKey: Uint8Array | undefined,
    handle: BlockHandle,
    _firstKey?: Uint8Array,
  ): Uint8Array {
    let current = this.current;
    if (nextKey !== undefined && current !== undefined) {
      if (this.cutRequested || this.full(current, lastKey.length, handle)) {
        this.partitions.push({ builder: current, lastSeparator: this.currentLastSeparator });
        this.filterCut = true;
        current = undefined;
      }
    }
    if (current === undefined) current = this.newPartition();
    const separator = current.add(lastKey, nextKey, handle);
    this.currentLastSeparator = separator === lastKey ? lastKey.slice() : separator;
    if (!this.keyPlusSeq && current.separatorIsKeyPlusSeq) {
      this.keyPlusSeq = true;
      this.watchWithSeq = true;
    }
    if (nextKey === undefined) {
      this.partitions.push({ builder: current, lastSeparator: this.currentLastSeparator });
      this.current = undefined;
      this.filterCut = true;
    }
    this.entries++;
    return separator;
  }

  /**
   * Closes the index (REQUIRES: the last entry was added with no `nextKey`, or none was).
   * The partitions' contents, and the top level to make once their handles are known.
   */
  finish(): PartitionedIndexBlocks {
    const keyPlusSeq = this.keyPlusSeq;
    const partitions = this.partitions.map((p) => {
      if (keyPlusSeq) p.builder.useKeyPlusSeq();
      return p.builder.finish().contents;
    });
    const lastSeparators = this.partitions.map((p) => p.lastSeparator);
    const valueLengths = this.formatVersion < 4;
    return {
      partitions,
      keyIsUserKey: !keyPlusSeq,
      topLevel(handles: readonly BlockHandle[]): Uint8Array {
        const top = new BlockBuilder(1, valueLengths);
        for (let i = 0; i < handles.length; i++) {
          const key = lastSeparators[i]!;
          top.add(
            keyPlusSeq ? key : key.subarray(0, key.length - 8),
            encodeBlockHandle(handles[i]!),
          );
        }
        return top.finish();
      },
    };
  }
}
