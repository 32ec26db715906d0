/**
 * Partitioned filters as RocksDB 7.8.3 writes them (`partition_filters`,
 * `PartitionedFilterBlockBuilder`): the table's filter is cut into partitions, each an
 * ordinary filter (the policy's bits, as a full filter block holds them), and a filter index
 * block maps each partition's key to its handle. They need the partitioned index
 * (partitioned-index-builder.ts), whose cuts they follow.
 *
 * ```
 * ... data blocks ‖ filter partition 0 ‖ trailer ‖ ... ‖ filter partition n-1 ‖ trailer
 *                 ‖ filter index ‖ trailer ‖ index partitions ‖ top-level index ‖ ...
 * filter partition i := the policy's filter bytes over the user keys of its data blocks
 * filter index       := index block: partition key -> handle of filter partition i
 * metaindex          : "partitionedfilter." + policy.compatibilityName -> filter index
 * ```
 * The filter index has the index's key and value forms (user keys when the index has them,
 * no value lengths from format version 4). A partition's key is the index separator of the
 * last data block whose keys it holds: the partition is closed when the first key of the
 * following block arrives after the index cut its own partition (RocksDB's
 * `MaybeCutAFilterBlock`), so a filter partition covers its index partition's blocks plus
 * the block that came before the cut was made, and its key is >= every key in it.
 *
 * Cutting: the filter asks the index for a cut (`requestPartitionCut`) when its partition
 * has `keysPerPartition` keys: `ApproximateNumEntries(ceil(metadataBlockSize * 0.9))` of the
 * policy's builder (for the built-in Bloom filter, RocksDB's FastLocalBloom formula below;
 * a policy's builder may say with `approximateNumEntries`). Every point entry counts, even a
 * repeated user key (RocksDB counts `AddKey` calls; the bits dedupe equal hashes).
 *
 * Properties: `rocksdb.filter.size` = every partition's bytes plus the filter index's
 * (trailers excluded); `rocksdb.num.filter_entries` = keys added over all partitions.
 *
 * Worked example: keysPerPartition at the default 4096 bytes and 10 bits per key is
 * floor(8000 * ((3687 - 5) & ~63) / 10000) = floor(8000 * 3648 / 10000) = 2918; at
 * metadataBlockSize 128, floor(8000 * ((116 - 5) & ~63) / 10000) = 51. RocksDB's
 * testdata/rocksdb-tables/fv5-partitioned.sst (300 entries, 256-byte data blocks, 128-byte
 * partitions, user-key index) has 7 filter partitions; the first, at (9758, 133), holds two
 * 64-byte lines and ends `ff 00 06 00 00` (6 probes at 10 bits per key), and the filter
 * index begins `00 09 "key000056" 9e 4c 85 01` (-> (9758, 133)). shale writes that table
 * byte for byte.
 *
 * Not thread-safe (one builder per table).
 */
import { BlockBuilder } from "../block/block-builder.js";
import { type BlockHandle, encodeBlockHandle } from "../format/format.js";
import type { PartitionedIndexBuilder } from "../index/partitioned-index-builder.js";
import type { FilterBitsBuilder, FilterBuildingContext, FilterPolicy } from "./filter-policy.js";

/** FastLocalBloom's metadata bytes at the end of a filter. */
const BLOOM_METADATA_LENGTH = 5;

/**
 * RocksDB's FastLocalBloomBitsBuilder::ApproximateNumEntries: how many keys a filter of
 * `bytes` holds at `bitsPerKey` (whole 64-byte lines after the metadata).
 */
export function bloomApproximateNumEntries(bytes: number, bitsPerKey: number): number {
  const millibits = Math.floor(bitsPerKey * 1000 + 0.500001);
  const usable = bytes >= BLOOM_METADATA_LENGTH ? bytes - BLOOM_METADATA_LENGTH : 0;
  const lines = Math.floor(Math.min(usable, 0xffffffc0) / 64) * 64;
  return Math.floor((8000 * lines) / millibits);
}

/** RocksDB's keys_per_partition_ for a filter policy and a metadata block size. */
export function keysPerFilterPartition(
  policy: FilterPolicy,
  metadataBlockSize: number,
  context?: FilterBuildingContext,
): number {
  const partitionSize = Math.max(1, Math.floor((metadataBlockSize * 90 + 99) / 100));
  const probe = policy.newBuilder(context);
  const bitsPerKey = (policy as { bitsPerKey?: unknown }).bitsPerKey;
  const approximate = (bytes: number): number =>
    probe.approximateNumEntries !== undefined
      ? probe.approximateNumEntries(bytes)
      : typeof bitsPerKey === "number"
        ? bloomApproximateNumEntries(bytes, bitsPerKey)
        : bytes;
  let keys = approximate(partitionSize);
  if (keys >= 1) return keys;
  // Below the filter's minimum size: grow the size until it holds a key.
  let larger = Math.max(partitionSize + 4, 16);
  for (;;) {
    keys = approximate(larger);
    if (keys >= 1) return keys;
    larger += Math.floor(larger / 4);
    if (larger > 100000) return partitionSize;
  }
}

interface FilterPartition {
  readonly key: Uint8Array;
  readonly contents: Uint8Array;
}

/** What the table builder writes: the partitions in order, then the filter index. */
export interface PartitionedFilterBlocks {
  readonly partitions: Uint8Array[];
  /** The filter index once the partitions are written at `handles`. */
  filterIndex(handles: readonly BlockHandle[]): Uint8Array;
}

export class PartitionedFilterBuilder {
  /** The policy writing the partitions (its names go into the metaindex and properties). */
  readonly policy: FilterPolicy;
  private readonly index: PartitionedIndexBuilder;
  private readonly formatVersion: number;
  private readonly keysPerPartition: number;
  private builder: FilterBitsBuilder;
  private keysInPartition = 0;
  private entriesBuilt = 0;
  private readonly partitions: FilterPartition[] = [];
  private readonly context: FilterBuildingContext | undefined;

  constructor(
    policy: FilterPolicy,
    index: PartitionedIndexBuilder,
    formatVersion: number,
    metadataBlockSize: number,
    context?: FilterBuildingContext,
  ) {
    this.policy = policy;
    this.context = context;
    this.index = index;
    this.formatVersion = formatVersion;
    this.keysPerPartition = keysPerFilterPartition(policy, metadataBlockSize, context);
    this.builder = policy.newBuilder(context);
  }

  /** Hashes in all partitions so far (`rocksdb.num.filter_entries`). */
  get numEntries(): number {
    return this.entriesBuilt + this.builder.numEntries;
  }

  /**
   * Adds the user key of the next point entry (a view, not kept), after the index saw the
   * entry's block boundary. `repeated`: the same user key as the previous entry (counted for
   * the cut, not added to the bits again).
   */
  add(userKey: Uint8Array, repeated: boolean): void {
    this.maybeCut();
    // A fresh partition takes the key even when repeated: RocksDB's bits builder dedupes
    // only consecutive equal hashes within one filter.
    if (!repeated || this.builder.numEntries === 0) this.builder.addKey(userKey);
    this.keysInPartition++;
  }

  private maybeCut(): void {
    if (this.keysInPartition === this.keysPerPartition) this.index.requestPartitionCut();
    if (!this.index.takeFilterCut()) return;
    this.closePartition();
  }

  private closePartition(): void {
    const builder = this.builder;
    this.entriesBuilt += builder.numEntries;
    // A partition with no key still gets its (empty) filter, as RocksDB's.
    this.partitions.push({ key: this.index.partitionKey.slice(), contents: builder.finish() });
    this.builder = this.policy.newBuilder(this.context);
    this.keysInPartition = 0;
  }

  /**
   * Closes the last partition (REQUIRES: the index got its last entry). Undefined when no
   * key was added: the table has no filter.
   */
  finish(): PartitionedFilterBlocks | undefined {
    this.maybeCut();
    if (this.partitions.length === 0 || this.numEntries === 0) return undefined;
    const keys = this.partitions.map((p) => p.key);
    const userKeys = !this.index.separatorIsKeyPlusSeq;
    const valueLengths = this.formatVersion < 4;
    return {
      partitions: this.partitions.map((p) => p.contents),
      filterIndex(handles: readonly BlockHandle[]): Uint8Array {
        const block = new BlockBuilder(1, valueLengths);
        for (let i = 0; i < handles.length; i++) {
          const key = keys[i]!;
          block.add(
            userKeys ? key.subarray(0, key.length - 8) : key,
            encodeBlockHandle(handles[i]!),
          );
        }
        return block.finish();
      },
    };
  }
}
