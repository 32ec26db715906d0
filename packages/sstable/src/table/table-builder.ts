/**
 * TableBuilder: writes RocksDB's block-based table, format_version 5 (2-7 on request: from 6
 * the metaindex also names the index, "rocksdb.index", every checksum carries the context
 * modifier and the footer is checksummed, footer.ts; 7 changes `rocksdb.compression`),
 * to a WritableFile, streaming: each data block is compressed and appended as soon as it is
 * full; only the index entries, the filter's key hashes and the range tombstones stay in
 * memory until `finish` — except with a zstd dictionary (`zstdMaxDictBytes`), where the first
 * data blocks are held until the dictionary is sampled from them (compression-dict.ts). RocksDB's own tools read the result (`sst_dump`), and its data,
 * index, filter and range-del blocks are byte-identical to RocksDB's for the same entries.
 *
 * File layout, in RocksDB's write order (every block is followed by its 5-byte trailer;
 * handles are absolute offsets):
 * ```
 * +--------------------------------+  offset 0
 * | data block 0      | trailer(5) |  sorted point entries, prefix-compressed (block-builder.ts),
 * | data block 1      | trailer(5) |  restart interval `blockRestartInterval`; cut by RocksDB's
 * | ...                            |  flush policy (blockSize, 10 % deviation); compressed per block;
 * |                                |  with `dataBlockIndexType: "binaryAndHash"` each ends with a
 * |                                |  hash index (data-block-hash-index.ts)
 * +--------------------------------+
 * | filter block      | trailer(5) |  full Bloom filter over user keys (filter-block.ts; omitted
 * +--------------------------------+  if bitsPerKey = 0 or no point entry)
 * | index block       | trailer(5) |  restart interval 1; one entry per data block (index-block.ts):
 * |                                |  separator (user key when no user key spans blocks) -> handle,
 * |                                |  no value lengths (format version >= 4); with `indexType:
 * |                                |  "binarySearchWithFirstKey"` each value also carries the
 * |                                |  block's first key; with `"twoLevelIndex"` index partitions
 * |                                |  then a top-level block (partitioned-index-builder.ts), and
 * |                                |  with `partitionFilters` the filter is partitions + a filter
 * |                                |  index before them (partitioned-filter-builder.ts)
 * +--------------------------------+
 * | compression dict  | trailer(5) |  raw-content zstd dictionary of the data blocks (only with
 * +--------------------------------+  zstdMaxDictBytes and zstd; compression-dict.ts)
 * | range-del block   | trailer(5) |  restart interval 1; key = start#seq,RANGEDEL, value = end
 * +--------------------------------+  (omitted when the table has no range tombstones)
 * | properties block  | trailer(5) |  "rocksdb.*" / "shale.*" name -> value, one restart point
 * +--------------------------------+  (properties.ts)
 * | metaindex block   | trailer(5) |  restart interval 1; name -> BlockHandle, sorted by name:
 * |                                |  "fullfilter.rocksdb.BuiltinBloomFilter",
 * |                                |  "rocksdb.compression_dict", "rocksdb.properties",
 * |                                |  "rocksdb.range_del"
 * +--------------------------------+
 * | footer (53 bytes)              |  checksumType, metaindex handle, index handle, padding,
 * +--------------------------------+  formatVersion, magic 0x88e241b785f4cff7 (footer.ts)
 *
 * trailer   := u8 compressionType (0 none, 1 snappy, 4 lz4, 7 zstd) ‖ fixed32 checksum over
 *              (block bytes ‖ compressionType) by checksumType (default xxHash; format.ts)
 * handle    := varint64 offset ‖ varint64 size          (size excludes the trailer)
 * ```
 * Only data blocks are compressed; filter, index, range-del, properties and metaindex blocks
 * are written uncompressed (type 0). The reader accepts any type on any block.
 *
 * Worked example (compression none, bitsPerKey 0, checksumType CRC32c): entries
 * `a#2,SET -> "x"` and `b#1,DEL -> ""` plus the tombstone `[c, e)#3` make a 989-byte file:
 * ```
 * [0, 38)     data block (33 B) + trailer
 *               00 09 01 61 01 02 00 00 00 00 00 00 78   a#2,SET -> "x"   (restart 0)
 *               00 09 00 62 00 01 00 00 00 00 00 00      b#1,DEL -> ""
 *               00 00 00 00 01 00 00 00                  restarts [0], numRestarts 1
 *               00 f1 63 7f 28                           trailer: type none, masked CRC32C
 * [38, 56)    index: 00 01 62 00 21  "b" (user key) -> (0, 33), no value length; restarts; trailer
 * [56, 82)    range-del block: 00 09 01 63 0f 03 00 00 00 00 00 00 65   c#3,RANGEDEL -> "e"
 * [82, 873)   properties block (786 B) + trailer
 * [873, 936)  metaindex: "rocksdb.properties" -> (82, 786), "rocksdb.range_del" -> (56, 21)
 * [936, 989)  footer: 01 | e9 06 3a | 26 0d | 00 x 35 | 05 00 00 00 | f7 cf f4 85 b7 41 e2 88
 * ```
 * docs/formats/sstable.md walks through every byte.
 */
import {
  assertInvariant,
  bytewiseComparator,
  type Comparator,
  InternalKeyComparator,
  invariants,
  MAX_SEQ,
  makeInternalKey,
  type RangeTombstone,
  reverseBytewiseComparator,
  ShaleError,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
  type WritableFile,
} from "@shale/base";
import { BlockBuilder } from "../block/block-builder.js";
import { lastWrittenCompression, writeBlock } from "../block/block-io.js";
import { KeyOrder } from "../block/key-order.js";
import { compressionTypeOf, rocksdbCompressionName } from "../compression/compression.js";
import { type BufferedBlock, sampleDictionary } from "../compression/compression-dict.js";
import { formatCompressionName } from "../compression/compression-name.js";
import { FilterBlockWriter } from "../filter/filter-block.js";
import { PartitionedFilterBuilder } from "../filter/partitioned-filter-builder.js";
import { encodeFooter } from "../format/footer.js";
import {
  type BlockHandle,
  type ChecksumType,
  CompressionType,
  encodeBlockHandle,
  FormatVersion,
  MetaBlockName,
  TableFormat,
} from "../format/format.js";
import {
  DEFAULT_COMPRESSION_OPTIONS,
  encodeProperties,
  type TableProperties,
} from "../format/properties.js";
import { IndexBuilder } from "../index/index-block.js";
import { PartitionedIndexBuilder } from "../index/partitioned-index-builder.js";
import {
  INDEX_TYPE_NAMES,
  type ResolvedBuilderOptions,
  resolveBuilderOptions,
  type TableBuilderOptions,
  type TablePropertiesCollector,
} from "./builder-options.js";
import { type CapturedDataBlocks, DataBlockCapture } from "./captured-blocks.js";
import type { PrefixExtractor } from "./prefix-extractor.js";

const POINT_KINDS = new Set<number>([
  ValueKind.Value,
  ValueKind.Deletion,
  ValueKind.Merge,
  ValueKind.SingleDeletion,
  ValueKind.BlobIndex,
]);

/**
 * Whether data blocks may carry a hash index under `comparator` (RocksDB writes one only when
 * its user comparator's `CanKeysWithDifferentByteContentsBeEqual` is false: keys are hashed
 * by their bytes, so equal keys must have equal bytes). True for the built-in bytewise and
 * reverse-bytewise orders, recognised by name (a name stands for one order).
 */
function hashIndexAllowed(comparator: Comparator): boolean {
  return (
    comparator.name === bytewiseComparator.name ||
    comparator.name === reverseBytewiseComparator.name
  );
}

/**
 * Builds one table. Not thread-safe; one builder per file.
 *
 * Usage: `add` point entries in increasing internal-key order, `addRangeTombstone` in any
 * order, then `finish()` (which writes everything but does not sync or close the file — the
 * caller does) or `abandon()`.
 */
export class TableBuilder {
  private readonly file: WritableFile;
  private readonly icmp: InternalKeyComparator;
  private readonly order: KeyOrder;
  private readonly comparator: Comparator;
  private readonly blockSize: number;
  /** ceil(blockSize * 0.9): RocksDB's block_size_deviation (10) limit. */
  private readonly blockSizeDeviationLimit: number;
  private readonly compressionType: CompressionType;
  private readonly zstdLevel: number;
  /** RocksDB's max_dict_bytes (0: no dictionary) and the buffer limit (0: the whole table). */
  private readonly maxDictBytes: number;
  private readonly maxDictBufferBytes: number;
  /** Data blocks held back for the dictionary (compression-dict.ts); undefined once written. */
  private buffered: BufferedBlock[] | undefined;
  private bufferedBytes = 0;
  /** The next key added is the separator bound of the last buffered block. */
  private bufferedAwaitsNext = false;
  /** The data blocks' dictionary, once sampled (undefined: none). */
  private dict: Uint8Array | undefined;
  private readonly formatVersion: number;
  private readonly checksumType: ChecksumType;
  /** The footer's base context checksum (format version >= 6; 0 before). */
  private readonly baseContextChecksum: number;
  /** Compression types of the blocks written (format version 7's `rocksdb.compression`). */
  private readonly compressionTypesUsed = new Set<number>();
  private readonly collectors: readonly TablePropertiesCollector[];
  private readonly recorded: ResolvedBuilderOptions;
  /** Prefixes go into the (full) filter too; builder-options.ts refuses partitioned ones. */
  private readonly prefixExtractor: PrefixExtractor | undefined;
  private readonly wholeKeyFiltering: boolean;

  private readonly dataBlock: BlockBuilder;
  /** A partitioned index (`indexType: "twoLevelIndex"`, partitioned-index-builder.ts) or one block. */
  private readonly index: IndexBuilder | PartitionedIndexBuilder;
  private readonly filter: FilterBlockWriter | PartitionedFilterBuilder | undefined;
  /** First key of the open data block and of the pending one (kBinarySearchWithFirstKey). */
  private readonly firstKeys: boolean;
  private blockFirstKey: Uint8Array | undefined = undefined;
  private pendingFirstKey: Uint8Array | undefined = undefined;
  /** Hashes in the filter block (`rocksdb.num.filter_entries`), set by finish. */
  private filterEntries = 0;
  private readonly tombstones: RangeTombstone[] = [];
  /** Copies of the data blocks written, when asked (`captureDataBlocks`). */
  private capture: DataBlockCapture | undefined = undefined;

  private offset: number;
  private state: "open" | "finished" | "abandoned" | "failed" = "open";
  private lastKey = new Uint8Array(64);
  private lastKeyLength = 0;
  private pendingIndexEntry = false;
  private readonly pendingHandle: BlockHandle = { offset: 0, size: 0 };

  private entries = 0;
  private numDeletions = 0;
  private numMergeOperands = 0;
  private rawKeySize = 0;
  private rawValueSize = 0;
  private dataSize = 0;
  private numDataBlocks = 0;
  private smallestSeq = MAX_SEQ;
  private largestSeq = 0;
  private firstKey: Uint8Array | undefined = undefined;

  /**
   * @param file where the table is appended, from its current end (normally a new, empty
   *   file). The builder appends; it never flushes, syncs or closes the file.
   */
  constructor(file: WritableFile, options: TableBuilderOptions = {}) {
    if (typeof file !== "object" || file === null || typeof file.append !== "function") {
      throw new TypeError("file must be a WritableFile");
    }
    this.file = file;
    this.offset = file.size;
    const o = resolveBuilderOptions(options);
    this.comparator = o.comparator;
    this.icmp = new InternalKeyComparator(o.comparator);
    this.order = new KeyOrder(o.comparator, true);
    this.blockSize = o.blockSize;
    this.blockSizeDeviationLimit = Math.floor((o.blockSize * 90 + 99) / 100);
    this.dataBlock = new BlockBuilder(
      o.blockRestartInterval,
      true,
      o.dataBlockIndexType === "binaryAndHash" && hashIndexAllowed(o.comparator)
        ? o.dataBlockHashTableUtilRatio
        : undefined,
    );
    this.firstKeys = o.indexType === "binarySearchWithFirstKey";
    if (o.indexType === "twoLevelIndex") {
      const index = new PartitionedIndexBuilder(o.comparator, o.formatVersion, o.metadataBlockSize);
      this.index = index;
      this.filter =
        o.filterPolicy === undefined
          ? undefined
          : o.partitionFilters
            ? new PartitionedFilterBuilder(
                o.filterPolicy,
                index,
                o.formatVersion,
                o.metadataBlockSize,
                o.filterContext,
              )
            : new FilterBlockWriter(o.filterPolicy, o.filterContext);
    } else {
      this.index = new IndexBuilder(o.comparator, o.formatVersion, this.firstKeys);
      this.filter =
        o.filterPolicy !== undefined
          ? new FilterBlockWriter(o.filterPolicy, o.filterContext)
          : undefined;
    }
    this.compressionType = compressionTypeOf(o.compression);
    this.zstdLevel = o.zstdLevel;
    this.maxDictBytes = this.compressionType === CompressionType.ZSTD ? o.zstdMaxDictBytes : 0;
    this.maxDictBufferBytes = o.zstdMaxDictBufferBytes;
    if (this.maxDictBytes > 0) this.buffered = [];
    this.formatVersion = o.formatVersion;
    this.checksumType = o.checksumType;
    this.baseContextChecksum = o.baseContextChecksum;
    this.collectors = o.collectors;
    this.recorded = o;
    this.prefixExtractor = o.prefixExtractor;
    this.wholeKeyFiltering = o.wholeKeyFiltering;
  }

  /** Point entries added so far. */
  get numEntries(): number {
    return this.entries;
  }

  /** Bytes the file would have if finished now, roughly (written bytes + the open data block). */
  get estimatedFileSize(): number {
    return (
      this.offset +
      this.bufferedBytes +
      (this.dataBlock.empty ? 0 : this.dataBlock.currentSizeEstimate)
    );
  }

  /**
   * Keeps a copy of each data block's contents from now on, up to `budgetBytes` in all
   * (captured-blocks.ts): what a block cache can be warmed with once the table is written,
   * without reading it back. Call before the first `add`; `takeCapturedDataBlocks` after
   * `finish`. Throws TypeError for a budget that is not a non-negative safe integer,
   * InvalidArgument once entries were added.
   */
  captureDataBlocks(budgetBytes: number): void {
    if (typeof budgetBytes !== "number" || !Number.isSafeInteger(budgetBytes) || budgetBytes < 0) {
      throw new TypeError(`capture budget must be a non-negative integer, got ${budgetBytes}`);
    }
    this.checkOpen();
    if (this.entries > 0 || this.numDataBlocks > 0) {
      throw ShaleError.invalidArgument("captureDataBlocks must come before the first add");
    }
    this.capture = new DataBlockCapture(budgetBytes);
  }

  /**
   * The data blocks captured (`captureDataBlocks`), or undefined when none were asked for.
   * Hands them over: a second call returns undefined.
   */
  takeCapturedDataBlocks(): CapturedDataBlocks | undefined {
    const capture = this.capture;
    this.capture = undefined;
    return capture?.take();
  }

  private checkOpen(): void {
    if (this.state !== "open") throw ShaleError.invalidArgument(`table builder is ${this.state}`);
  }

  /** After a failed write the file's contents are undefined: refuse further calls. */
  private fail(_error: unknown): void {
    this.state = "failed";
  }

  /**
   * Adds a point entry. REQUIRES: `internalKey` sorts after every key added before (by the
   * internal-key order of `comparator`); out-of-order or duplicate keys are rejected with
   * InvalidArgument, as are range deletions (use `addRangeTombstone`) and unknown kinds.
   * Both arrays are copied (into the block being built); the caller may reuse them.
   */
  add(internalKey: Uint8Array, value: Uint8Array): void {
    this.checkOpen();
    if (!(internalKey instanceof Uint8Array))
      throw new TypeError("internalKey must be a Uint8Array");
    if (!(value instanceof Uint8Array)) throw new TypeError("value must be a Uint8Array");
    const keyLength = internalKey.length;
    if (keyLength < TRAILER_SIZE) {
      throw ShaleError.invalidArgument(`internal key shorter than ${TRAILER_SIZE} bytes`);
    }
    const kind = internalKey[keyLength - TRAILER_SIZE]!;
    if (!POINT_KINDS.has(kind)) {
      throw ShaleError.invalidArgument(
        `cannot add an entry of kind ${kind} (range deletions go to addRangeTombstone)`,
      );
    }
    const hasPrevious = this.entries > 0;
    const last = this.lastKey;
    if (hasPrevious && this.order.compareAt(last, 0, this.lastKeyLength, internalKey) >= 0) {
      throw ShaleError.invalidArgument("keys must be added in increasing internal-key order");
    }
    try {
      this.addOrdered(internalKey, value, hasPrevious);
    } catch (e) {
      this.fail(e);
      throw e;
    }
  }

  private addOrdered(key: Uint8Array, value: Uint8Array, hasPrevious: boolean): void {
    const keyLength = key.length;
    const userLength = keyLength - TRAILER_SIZE;
    // RocksDB's FlushBlockBySizePolicy, asked before the entry goes in: the block is full
    // at blockSize, or almost full (past 90 %) when this entry would take it over.
    const block = this.dataBlock;
    if (!block.empty) {
      const size = block.currentSizeEstimate;
      if (
        size >= this.blockSize ||
        (size > this.blockSizeDeviationLimit &&
          block.estimateSizeAfter(keyLength, value.length) > this.blockSize)
      ) {
        this.flushDataBlock();
      }
    }
    if (this.pendingIndexEntry) {
      const last = this.lastKey.subarray(0, this.lastKeyLength);
      const separator = this.index.add(last, key, this.pendingHandle, this.pendingFirstKey);
      if (invariants) {
        assertInvariant(
          this.icmp.compare(last, separator) <= 0,
          "separator below the block's last key",
        );
        assertInvariant(
          this.icmp.compare(separator, key) < 0,
          "separator not below the next block's first key",
        );
      }
      this.pendingIndexEntry = false;
    } else if (this.bufferedAwaitsNext) {
      this.buffered![this.buffered!.length - 1]!.next = key.slice();
      this.bufferedAwaitsNext = false;
    }
    const filter = this.filter;
    if (filter !== undefined) {
      const sameUser =
        hasPrevious &&
        this.order.compareUserKeys(this.lastKey, this.lastKeyLength, key, keyLength) === 0;
      const extractor = this.prefixExtractor;
      if (extractor === undefined) filter.add(key.subarray(0, userLength), sameUser);
      else
        (filter as FilterBlockWriter).addWithPrefix(
          key.subarray(0, userLength),
          sameUser,
          extractor,
          this.wholeKeyFiltering,
        );
    }
    if (this.firstKeys && block.empty) this.blockFirstKey = key.slice();
    this.dataBlock.add(key, value);
    if (keyLength > this.lastKey.length)
      this.lastKey = new Uint8Array(Math.max(keyLength, this.lastKey.length * 2));
    this.lastKey.set(key);
    this.lastKeyLength = keyLength;
    if (!hasPrevious) this.firstKey = key.slice();

    this.entries++;
    const kind = key[userLength]!;
    if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) this.numDeletions++;
    else if (kind === ValueKind.Merge) this.numMergeOperands++;
    this.rawKeySize += keyLength;
    this.rawValueSize += value.length;
    const seq = trailerSeq(key, userLength);
    if (seq < this.smallestSeq) this.smallestSeq = seq;
    if (seq > this.largestSeq) this.largestSeq = seq;
    const collectors = this.collectors;
    for (let i = 0; i < collectors.length; i++) collectors[i]!.add(key, value);
  }

  private flushDataBlock(): void {
    if (this.dataBlock.empty) return;
    const raw = this.dataBlock.finish();
    const buffered = this.buffered;
    if (buffered !== undefined) {
      buffered.push({
        raw: raw.slice(),
        last: this.lastKey.slice(0, this.lastKeyLength),
        first: this.blockFirstKey,
        next: undefined,
      });
      this.bufferedBytes += raw.length;
      this.dataBlock.reset();
      this.bufferedAwaitsNext = true;
      if (this.maxDictBufferBytes !== 0 && this.bufferedBytes > this.maxDictBufferBytes) {
        this.writeBuffered();
      }
      return;
    }
    this.writeDataBlock(raw, this.blockFirstKey);
    this.dataBlock.reset();
  }

  /**
   * Writes a data block (with the dictionary, if any) whose first key is `firstKey`; its index
   * entry is then pending.
   */
  private writeDataBlock(raw: Uint8Array, firstKey: Uint8Array | undefined): void {
    const handle = this.writeRaw(raw, this.compressionType, this.dict);
    this.capture?.add(handle.offset, raw);
    this.dataSize += handle.size + TableFormat.BLOCK_TRAILER_SIZE;
    this.numDataBlocks++;
    this.pendingHandle.offset = handle.offset;
    this.pendingHandle.size = handle.size;
    this.pendingIndexEntry = true;
    this.pendingFirstKey = firstKey;
  }

  /**
   * Leaves the buffered state: samples the dictionary from the held-back blocks, then writes
   * them with it, each with its index entry (the last one's stays pending when the key after
   * it is not known yet).
   */
  private writeBuffered(): void {
    const blocks = this.buffered!;
    this.buffered = undefined;
    this.bufferedBytes = 0;
    this.bufferedAwaitsNext = false;
    if (blocks.length === 0) return;
    const dict = sampleDictionary(blocks, this.maxDictBytes);
    this.dict = dict.length > 0 ? dict : undefined;
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i]!;
      this.writeDataBlock(block.raw, block.first);
      if (block.next !== undefined) {
        this.index.add(block.last, block.next, this.pendingHandle, block.first);
        this.pendingIndexEntry = false;
      }
    }
  }

  private writeRaw(raw: Uint8Array, type: CompressionType, dict?: Uint8Array): BlockHandle {
    const handle = writeBlock(
      this.file,
      this.offset,
      raw,
      type,
      this.checksumType,
      this.baseContextChecksum,
      dict,
      this.zstdLevel,
    );
    if (type !== CompressionType.None) this.compressionTypesUsed.add(lastWrittenCompression());
    this.offset += handle.size + TableFormat.BLOCK_TRAILER_SIZE;
    return handle;
  }

  /**
   * Adds a range tombstone `[start, end)@seq`: deletes the keys k with start <= k < end
   * (user-key order) and a seq below `seq`. Any order; stored sorted in the range-deletion
   * block. Empty ranges (start == end) are ignored; start > end is InvalidArgument.
   * `start` and `end` are copied.
   */
  addRangeTombstone(start: Uint8Array, end: Uint8Array, seq: number): void {
    this.checkOpen();
    if (!(start instanceof Uint8Array) || !(end instanceof Uint8Array)) {
      throw new TypeError("range tombstone bounds must be Uint8Arrays");
    }
    if (typeof seq !== "number") throw new TypeError("seq must be a number");
    if (!(Number.isInteger(seq) && seq >= 0 && seq <= MAX_SEQ)) {
      throw ShaleError.invalidArgument(`sequence number out of range: ${seq}`);
    }
    const c = this.comparator.compare(start, end);
    if (c > 0) throw ShaleError.invalidArgument("range tombstone start sorts after its end");
    if (c === 0) return;
    this.tombstones.push({ start: start.slice(), end: end.slice(), seq });
  }

  /**
   * Writes the open data block, the filter, range-deletion, properties, metaindex and index
   * blocks and the footer, and returns the table's properties. Does not sync or close the
   * file. After it, the builder accepts no more calls.
   */
  finish(): TableProperties {
    this.checkOpen();
    try {
      return this.finishBlocks();
    } catch (e) {
      this.fail(e);
      throw e;
    }
  }

  private finishBlocks(): TableProperties {
    this.flushDataBlock();
    if (this.buffered !== undefined) this.writeBuffered();
    if (this.pendingIndexEntry) {
      // The last block's index key is its last key (RocksDB's kShortenSeparators).
      this.index.add(
        this.lastKey.subarray(0, this.lastKeyLength),
        undefined,
        this.pendingHandle,
        this.pendingFirstKey,
      );
      this.pendingIndexEntry = false;
    }
    // RocksDB's order: filter, index, range deletions, properties, metaindex, footer.
    const meta: [string, BlockHandle][] = [];
    // The filter block (filter-block.ts): none when no point key was added, as RocksDB.
    this.filterEntries = this.filter?.numEntries ?? 0;
    const filterSize = this.writeFilter(meta);
    const index = this.writeIndex();
    const indexHandle = index.handle;
    // From format version 6 the metaindex holds the index handle (footer.ts).
    if (this.formatVersion >= FormatVersion.V6) meta.push([MetaBlockName.INDEX, indexHandle]);
    if (this.dict !== undefined) {
      meta.push([MetaBlockName.COMPRESSION_DICT, this.writeRaw(this.dict, CompressionType.None)]);
    }
    const tombstones = this.sortedTombstones();
    if (tombstones.length > 0) {
      const block = new BlockBuilder(1);
      for (const t of tombstones)
        block.add(makeInternalKey(t.start, t.seq, ValueKind.RangeDeletion), t.end);
      meta.push([MetaBlockName.RANGE_DEL, this.writeRaw(block.finish(), CompressionType.None)]);
    }
    const properties = this.buildProperties(
      tombstones,
      filterSize,
      index.size + TableFormat.BLOCK_TRAILER_SIZE,
      index.keyIsUserKey,
      index.partitions,
      index.topLevelSize,
    );
    meta.push([
      MetaBlockName.PROPERTIES,
      this.writeRaw(encodeProperties(properties), CompressionType.None),
    ]);

    meta.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const metaindex = new BlockBuilder(1);
    const encoder = new TextEncoder();
    for (const [name, handle] of meta)
      metaindex.add(encoder.encode(name), encodeBlockHandle(handle));
    const metaindexHandle = this.writeRaw(metaindex.finish(), CompressionType.None);
    const footer = encodeFooter(
      {
        checksumType: this.checksumType,
        metaindexHandle,
        indexHandle,
        formatVersion: this.formatVersion,
        baseContextChecksum: this.baseContextChecksum,
      },
      this.offset,
    );
    this.file.append(footer, 0, footer.length);
    this.offset += footer.length;
    this.state = "finished";
    return properties;
  }

  /**
   * Writes the filter (a full filter block, or the partitions and their filter index) and
   * adds its metaindex entry; returns `rocksdb.filter.size` (0 without a filter).
   */
  private writeFilter(meta: [string, BlockHandle][]): number {
    const filter = this.filter;
    if (filter === undefined) return 0;
    if (filter instanceof FilterBlockWriter) {
      const contents = filter.finish();
      if (contents === undefined) return 0;
      const handle = this.writeRaw(contents, CompressionType.None);
      meta.push([MetaBlockName.FULL_FILTER_PREFIX + filter.policy.compatibilityName, handle]);
      return handle.size;
    }
    const blocks = filter.finish();
    if (blocks === undefined) return 0;
    let size = 0;
    const handles = blocks.partitions.map((p) => {
      size += p.length;
      return this.writeRaw(p, CompressionType.None);
    });
    const top = blocks.filterIndex(handles);
    const handle = this.writeRaw(top, CompressionType.None);
    meta.push([MetaBlockName.PARTITIONED_FILTER_PREFIX + filter.policy.compatibilityName, handle]);
    return size + top.length;
  }

  /**
   * Writes the index: one block, or the partitions then the top level (the footer's index
   * handle). `size` counts contents only (RocksDB's index size before its one trailer).
   */
  private writeIndex(): {
    handle: BlockHandle;
    size: number;
    keyIsUserKey: boolean;
    partitions: number;
    topLevelSize: number;
  } {
    const index = this.index;
    if (index instanceof IndexBuilder) {
      const { contents, keyIsUserKey } = index.finish();
      const handle = this.writeRaw(contents, CompressionType.None);
      return { handle, size: handle.size, keyIsUserKey, partitions: 0, topLevelSize: 0 };
    }
    const blocks = index.finish();
    let size = 0;
    const handles = blocks.partitions.map((p) => {
      size += p.length;
      return this.writeRaw(p, CompressionType.None);
    });
    const top = blocks.topLevel(handles);
    const handle = this.writeRaw(top, CompressionType.None);
    return {
      handle,
      size: size + top.length,
      keyIsUserKey: blocks.keyIsUserKey,
      partitions: handles.length,
      topLevelSize: top.length,
    };
  }

  private sortedTombstones(): RangeTombstone[] {
    const cmp = this.comparator;
    return this.tombstones.sort(
      (a, b) => cmp.compare(a.start, b.start) || b.seq - a.seq || cmp.compare(a.end, b.end),
    );
  }

  private buildProperties(
    tombstones: RangeTombstone[],
    filterSize: number,
    indexSize: number,
    indexKeyIsUserKey: boolean,
    indexPartitions: number,
    topLevelIndexSize: number,
  ): TableProperties {
    let smallestSeq = this.smallestSeq;
    let largestSeq = this.largestSeq;
    let smallestKey: Uint8Array | undefined = this.firstKey;
    let largestKey: Uint8Array | undefined =
      this.entries > 0 ? this.lastKey.slice(0, this.lastKeyLength) : undefined;
    let rawKeySize = this.rawKeySize;
    let rawValueSize = this.rawValueSize;
    for (const t of tombstones) {
      rawKeySize += t.start.length + TRAILER_SIZE;
      rawValueSize += t.end.length;
      if (t.seq < smallestSeq) smallestSeq = t.seq;
      if (t.seq > largestSeq) largestSeq = t.seq;
      const lo = makeInternalKey(t.start, t.seq, ValueKind.RangeDeletion);
      if (smallestKey === undefined || this.icmp.compare(lo, smallestKey) < 0) smallestKey = lo;
      const hi = makeInternalKey(t.end, MAX_SEQ, ValueKind.RangeDeletion);
      if (largestKey === undefined || this.icmp.compare(hi, largestKey) > 0) largestKey = hi;
    }
    const user: Record<string, string> = {};
    for (const c of this.collectors) Object.assign(user, c.finish());
    const o = this.recorded;
    const now = o.creationTime ?? Math.floor(Date.now() / 1000);
    const props: TableProperties = {
      formatVersion: this.formatVersion,
      numEntries: this.entries,
      numDeletions: this.numDeletions,
      numMergeOperands: this.numMergeOperands,
      numRangeDeletions: tombstones.length,
      rawKeySize,
      rawValueSize,
      dataSize: this.dataSize,
      indexSize,
      filterSize,
      numDataBlocks: this.numDataBlocks,
      numFilterEntries: this.filterEntries,
      smallestSeq: smallestKey === undefined ? 0 : smallestSeq,
      largestSeq,
      comparatorName: this.comparator.name,
      mergeOperatorName: o.mergeOperatorName,
      filterPolicy: filterSize > 0 ? this.filter!.policy.name : "",
      compression:
        this.formatVersion >= FormatVersion.V7
          ? formatCompressionName(
              this.compressionType !== CompressionType.None,
              this.compressionTypesUsed,
            )
          : rocksdbCompressionName(this.compressionType),
      compressionOptions:
        this.compressionType === CompressionType.ZSTD
          ? DEFAULT_COMPRESSION_OPTIONS.replace("level=32767", `level=${this.zstdLevel}`)
              .replace("max_dict_bytes=0", `max_dict_bytes=${this.maxDictBytes}`)
              .replace(
                "max_dict_buffer_bytes=0",
                `max_dict_buffer_bytes=${this.maxDictBufferBytes}`,
              )
          : DEFAULT_COMPRESSION_OPTIONS,
      prefixExtractorName: o.prefixExtractor?.name ?? "nullptr",
      propertyCollectors: "[]",
      columnFamilyId: o.columnFamilyId,
      columnFamilyName: o.columnFamilyName,
      wholeKeyFiltering: o.wholeKeyFiltering,
      indexKeyIsUserKey,
      indexValueIsDeltaEncoded: this.formatVersion >= FormatVersion.V4,
      indexType: INDEX_TYPE_NAMES[o.indexType],
      indexPartitions,
      topLevelIndexSize,
      creationTime: now,
      oldestKeyTime: 0,
      fileCreationTime: now,
      originalFileNumber: o.fileNumber,
      dbId: o.dbId,
      dbSessionId: o.dbSessionId,
      dbHostId: o.dbHostId,
      user,
    };
    if (smallestKey !== undefined) props.smallestKey = smallestKey;
    if (largestKey !== undefined) props.largestKey = largestKey;
    return props;
  }

  /** Gives up on the table: nothing more is written. The caller removes the file. */
  abandon(): void {
    this.checkOpen();
    this.state = "abandoned";
  }
}
