/**
 * TableReader: opens a table written by `TableBuilder` (layout in `table-builder.ts`) and
 * answers point lookups and iterators over it.
 *
 * Opening reads, in this order: the footer, the metaindex, the properties, the filter, the
 * range-deletion block and the index. Range tombstones are fragmented once, here, and the
 * `FragmentedRangeTombstoneList` is kept by the reader: a `get` never re-fragments
 * (RocksDB #4493). With a block cache, the index and filter blocks live in the cache with
 * priority "high" — pinned there while the reader is open (default), or evictable and
 * reloaded on a miss; without a cache the reader holds them.
 *
 * Data blocks are read on demand, through the block cache (priority "low") when there is
 * one, each into memory of its own, checksum-verified (unless disabled) and decompressed.
 * Cache handles are never held across calls: a block stays alive in JS as long as a view
 * into it does, so values handed out remain valid (and unchanged) after the cache evicts
 * the block.
 *
 * Thread-safety: one thread (a reader is not shared between workers).
 */
import {
  bytewiseComparator,
  type Comparator,
  type InternalIterator,
  invariants,
  KIND_FOR_SEEK,
  LookupResult,
  LookupState,
  MAX_SEQ,
  putTrailer,
  type RandomAccessFile,
  ShaleError,
  type Statistics,
  Ticker,
  TRAILER_SIZE,
  trackClosed,
  trackOpen,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import type { SharedBlockCache } from "@shale/block-cache";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import { blockMemory } from "../block/alloc.js";
import { Block } from "../block/block.js";
import type { BlockCache } from "../block/block-cache.js";
import { decodedIntoPool } from "../block/block-io.js";
import { BlockIterator } from "../block/block-iterator.js";
import { BlockSource } from "../block/block-source.js";
import { KeyOrder } from "../block/key-order.js";
import { MAX_TOUCHED_RESTARTS, touchRestartEntries } from "../block/run-scan.js";
import { compressionNameSaysCompressed } from "../compression/compression-name.js";
import { filterMayMatch, hashFilterKey } from "../filter/filter-block.js";
import {
  checkFilterPolicy,
  DEFAULT_FILTER_POLICY,
  type FilterBitsReader,
  type FilterPolicy,
} from "../filter/filter-policy.js";
import { PartitionedFilter } from "../filter/partitioned-filter.js";
import { globalSeqnoOf } from "../format/external-file.js";
import { type Footer, resolveIndexHandle } from "../format/footer.js";
import {
  type BlockHandle,
  decodeBlockHandleInto,
  IndexType,
  MetaBlockName,
  notSupportedAt,
  TableFormat,
} from "../format/format.js";
import { decodeProperties, type TableProperties } from "../format/properties.js";
import { PartitionedGet } from "../index/partitioned-get.js";
import { PartitionedIndex, PartitionMode } from "../index/partitioned-index.js";
import { PartitionedIndexIterator } from "../index/partitioned-index-iterator.js";
import type { CapturedDataBlocks } from "./captured-blocks.js";
import { GlobalSeqnoIterator } from "./global-seqno-iterator.js";
import { PartitionedTableIterator } from "./partitioned-table-iterator.js";
import { builtinPrefixExtractor, type PrefixExtractor } from "./prefix-extractor.js";
import { SLAB_DONE, SLAB_MISS, SlabGet } from "./slab-get.js";
import { TableIterator } from "./table-iterator.js";
import {
  globalSeqnoValueOffset,
  readFooter,
  readMetaindex,
  readPropertiesBlock,
  readTombstones,
} from "./table-open.js";
import { type TableVerifyResult, verifyTableBlocks } from "./table-verify.js";
import { type TableWarmResult, warmTableBlocks, warmTableFromCaptured } from "./table-warm.js";

/** A `lookup` step nothing planned: filter, index search and all. */
const PLAN_NONE = -1;
/** A `lookup` step whose key the filter ruled out (`planBatch`); steps >= 0: index entry. */
const PLAN_FILTERED = -2;

/**
 * Loads, for each planned entry `plan[0, n)` whose data block is cached in `slots`, the
 * first byte of the block's restart array, then in a second loop the first byte of each of
 * its restart entries (blocks of at most MAX_TOUCHED_RESTARTS): short loops whose loads
 * do not depend on each other across keys, so their misses overlap (see `planBatch`).
 * Returns a sum of the bytes (store it: see run-scan.ts).
 */
function touchPlannedBlocks(
  plan: Int32Array,
  n: number,
  slots: readonly (Block | undefined)[],
  count: number,
): number {
  let touched = 0;
  for (let k = 0; k < n; k++) {
    const e = plan[k]!;
    if (e < 0 || e >= count) continue;
    const block = slots[e];
    if (block !== undefined) touched += block.data[block.restartsOffset]!;
  }
  for (let k = 0; k < n; k++) {
    const e = plan[k]!;
    if (e < 0 || e >= count) continue;
    const block = slots[e];
    if (block !== undefined && block.numRestarts <= MAX_TOUCHED_RESTARTS) {
      touched += touchRestartEntries(block.data, block.restartsOffset, block.numRestarts);
    }
  }
  return touched;
}

function indexTypeName(type: number): string {
  for (const [name, value] of Object.entries(IndexType)) if (value === type) return name;
  return "unknown";
}

export interface TableReaderOptions {
  /**
   * Size of the table file in bytes (a database passes the MANIFEST's). Default: the
   * opened file's `size`.
   */
  fileSize?: number;
  /** Name reported in errors. Default: none. */
  fileName?: string;
  /** The table's file number (informational). Default: none. */
  fileNumber?: number;
  /** Order of user keys; its name must match the table's. Default: `bytewiseComparator`. */
  comparator?: Comparator;
  /**
   * Cache for data, index and filter blocks (`newBlockCache(capacity)`). Default: none (only
   * the index and filter are kept).
   */
  blockCache?: BlockCache;
  /**
   * The filter policy the table was written with (its `compatibilityName` names the filter
   * block). Default: the built-in Bloom filter (`@shale/bloom`), which also reads RocksDB's
   * legacy Bloom filters. A table whose filter is not this policy's is read without a filter.
   */
  filterPolicy?: FilterPolicy;
  /** This table's id in `blockCache`. Default: `blockCache.newId()`. */
  cacheId?: number;
  /**
   * A block cache shared across threads (`SharedBlockCache` of @shale/block-cache), for the
   * data blocks of point lookups (`get`, `multiGet`): looked up by (`fileNumber`, offset)
   * and searched in place, no `Block` object per hit; a miss reads the block and inserts it
   * there (with `fillCache`). Iterators and the index and filter still use `blockCache`.
   * Needs `fileNumber` (unique among the tables sharing the cache). Default: none.
   */
  sharedBlockCache?: SharedBlockCache;
  /** Verify block checksums on every read. Default: true. */
  verifyChecksums?: boolean;
  /** Insert blocks read into the cache. Default: true. */
  fillCache?: boolean;
  /** Keep the index and filter in `blockCache` (else the reader holds them). Default: true. */
  cacheIndexAndFilterBlocks?: boolean;
  /**
   * With `cacheIndexAndFilterBlocks`: pin the index and filter in the cache while the reader
   * is open (charged to the cache, never evicted, no cache lookup per get; RocksDB's
   * pin_l0_filter_and_index_blocks_in_cache). Unpinned, they can be evicted and are reloaded
   * on demand. Default: true.
   */
  pinIndexAndFilterBlocks?: boolean;
  /** Counters: BlockCacheHit/Miss/Add, BloomChecked/Useful, BytesRead. Default: none. */
  statistics?: Statistics;
  /**
   * The table's largest sequence number as the database's MANIFEST records it: for an
   * ingested external file whose global seqno property is 0, the global seqno
   * (format/external-file.ts `globalSeqnoOf`). Default: unknown (only the property counts).
   */
  largestSeqno?: number;
}

/** Per-call read options. */
export interface TableReadOptions {
  /** Insert blocks read into the cache. Default: the reader's `fillCache`. */
  fillCache?: boolean;
  /** Verify checksums of blocks read from the file. Default: the reader's `verifyChecksums`. */
  verifyChecksums?: boolean;
  /**
   * `newIterator` only: read ahead into, and decompress blocks not cached into, memory that
   * is reused for the next region and block and, once the iterator is closed, by the next
   * iterator opened so (a small pool per thread: block/scan-buffers.ts), instead of fresh
   * memory each time. `value()` is then valid only until the iterator moves, as the
   * InternalIterator contract says (`isValuePinned()` is false): a caller that keeps a value
   * longer copies it. For scans whose values do not outlive a step, such as a compaction's
   * inputs. Default: false (a value's bytes stay valid while referenced).
   */
  reuseScanBuffers?: boolean;
}

/** What `TableReader.multiGet` tells its caller as each key's lookup ends. */
export interface MultiGetSink {
  /**
   * `results[i]` is `done` (Found or Deleted) in this table. Copy what must outlive the next
   * block read (a Found `value` is a view into a cached block); read nothing meanwhile.
   */
  settled(i: number): void;
}

export class TableReader {
  readonly fileName: string | undefined;
  readonly fileNumber: number | undefined;
  readonly fileSize: number;
  /** The table's properties, as written by the builder. */
  readonly properties: TableProperties;
  /**
   * The sequence number every entry and range deletion is presented at (an ingested
   * external file's global seqno); 0 when the stored ones are (format/external-file.ts).
   */
  readonly globalSeqno: number;
  /**
   * File offset of the 8-byte value of the external-file global seqno property (where
   * RocksDB's `write_global_seqno` writes it); -1 when the table has none.
   */
  readonly globalSeqnoOffset: number;
  /** The table's id in the block cache (0 without a cache). */
  readonly cacheId: number;
  /** @internal */ readonly order: KeyOrder;
  /** @internal */ readonly footer: Footer;
  /** @internal Where blocks come from (file and cache). */ readonly source: BlockSource;

  private readonly stats: Statistics | undefined;
  private readonly comparator: Comparator;
  private readonly tombstoneList: FragmentedRangeTombstoneList;
  private readonly hasTombstones: boolean;
  /** The index holds user keys: no user key spans two data blocks. */
  private readonly indexKeyIsUserKey: boolean;
  private readonly filterHandle: BlockHandle | undefined;
  /** Index values carry first keys after the handle (kBinarySearchWithFirstKey). */
  private readonly indexHasFirstKey: boolean;
  /**
   * @internal A partitioned index (kTwoLevelIndexSearch, partitioned-index.ts), chosen at
   * open; undefined for a one-block index.
   */
  readonly partitioned: PartitionedIndex | undefined;
  private readonly partitionedGet: PartitionedGet | undefined;
  /** Partitioned filters (partitioned-filter.ts), instead of a full filter block. */
  private partitionedFilter: PartitionedFilter | undefined;
  /** Held index / filter (no cache, not cached, or pinned); undefined: look up per use. */
  private heldIndex: Block | undefined;
  private heldFilter: Block | undefined;
  /** The full filter, when it holds prefixes (the table was written with a prefix extractor). */
  private prefixFilterHandle: BlockHandle | undefined;
  /**
   * The prefix extractor whose prefixes the table's filter holds (its name, from the
   * properties); undefined when it has no prefix filter (none, or a partitioned filter).
   */
  readonly prefixExtractorName: string | undefined;
  /** A prefixes-only filter's built-in extractor, for point lookups (undefined: none). */
  private pointPrefixExtractor: PrefixExtractor | undefined;
  private readonly dataEnd: number;

  // Scratch state for `get` (calls are not re-entrant).
  private readonly indexIter: BlockIterator;
  private readonly dataIter: BlockIterator;
  private readonly handle: BlockHandle = { offset: 0, size: 0 };
  /** The shared cache for point lookups' data blocks, and its lookup (see the option). */
  private readonly sharedCache: SharedBlockCache | undefined;
  private readonly slabGet: SlabGet | undefined;
  /**
   * Per entry of the index (with a search aid), where the shared cache held its data block
   * when last found: slot + 1 (0: unknown) and the slot's generation then (slab-get.ts).
   */
  private slabHints: Int32Array | undefined = undefined;
  /** A block `readIntoShared` read but could not search in the shared cache. */
  private missBlock: Block | undefined = undefined;
  private readonly cursor = new Int32Array(1);
  private seekBuf = new Uint8Array(64);
  private seekView: Uint8Array = this.seekBuf.subarray(0, 0);
  /**
   * During `multiGet`: the data block the previous key's lookup ended in and its offset
   * (-1: none), so the next key in the same block reuses it without a cache lookup.
   */
  private sharedOffset = -1;
  private sharedBlock: Block | undefined = undefined;
  private sharing = false;

  // Readers of the index and filter blocks, bound once (no closure per get).
  private readonly readIndexBlock = (h: BlockHandle): Block =>
    this.source.readIndexBlock(h, this.order.bytewiseInternal);
  private readonly readFilterBlock = (h: BlockHandle): Block => this.source.readFilterBlock(h);

  private openIterators = 0;
  private closing = false;
  private closed = false;

  private constructor(file: RandomAccessFile, options: TableReaderOptions) {
    const fileSize = options.fileSize ?? file.size;
    if (typeof fileSize !== "number" || !Number.isSafeInteger(fileSize) || fileSize < 0) {
      throw new TypeError("options.fileSize must be a non-negative integer");
    }
    const filterPolicy =
      options.filterPolicy === undefined
        ? DEFAULT_FILTER_POLICY
        : checkFilterPolicy(options.filterPolicy, "options.filterPolicy");
    this.fileName = options.fileName;
    this.fileNumber = options.fileNumber;
    this.fileSize = fileSize;
    this.comparator = options.comparator ?? bytewiseComparator;
    this.order = new KeyOrder(this.comparator, true);
    const cache = options.blockCache;
    this.cacheId = options.cacheId ?? (cache !== undefined ? cache.newId() : 0);
    this.stats = options.statistics;
    this.indexIter = new BlockIterator(this.order);
    this.dataIter = new BlockIterator(this.order);
    const shared = options.sharedBlockCache;
    if (shared !== undefined && !Number.isSafeInteger(options.fileNumber)) {
      throw ShaleError.invalidArgument("options.sharedBlockCache needs options.fileNumber");
    }
    this.sharedCache = shared;
    this.slabGet = shared !== undefined ? new SlabGet(this.order) : undefined;

    this.footer = readFooter(file, fileSize, this.fileName);
    const source = new BlockSource(
      file,
      this.fileName,
      this.footer.checksumType,
      fileSize - TableFormat.FOOTER_SIZE,
      cache,
      this.cacheId,
      this.stats,
      options.verifyChecksums ?? true,
      options.fillCache ?? true,
    );
    source.filterPolicy = filterPolicy;
    source.contextChecksum = this.footer.baseContextChecksum;
    this.source = source;

    const meta = readMetaindex(source, this.footer.metaindexHandle);
    resolveIndexHandle(this.footer, meta, this.fileName);
    const propertiesHandle = meta.get(MetaBlockName.PROPERTIES);
    if (propertiesHandle === undefined) {
      const at = this.footer.metaindexHandle.offset;
      throw ShaleError.corruption("table has no properties block", this.fileName, at);
    }
    const propertiesBlock = readPropertiesBlock(source, propertiesHandle);
    this.properties = decodeProperties(
      propertiesBlock,
      this.footer.formatVersion,
      this.fileName,
      propertiesHandle.offset,
    );
    const props = this.properties;
    if (options.largestSeqno !== undefined && !Number.isSafeInteger(options.largestSeqno)) {
      throw new TypeError("options.largestSeqno must be a safe integer");
    }
    this.globalSeqno = globalSeqnoOf(props, options.largestSeqno, this.fileName);
    const seqnoAt =
      props.externalFile === undefined
        ? -1
        : globalSeqnoValueOffset(propertiesBlock, source, propertiesHandle.offset);
    this.globalSeqnoOffset = seqnoAt < 0 ? -1 : propertiesHandle.offset + seqnoAt;
    // kHashSearch is read as its binary-search index (the prefix hash blocks are skipped).
    const indexType = props.indexType;
    if (
      indexType !== IndexType.BinarySearch &&
      indexType !== IndexType.HashSearch &&
      indexType !== IndexType.TwoLevelIndexSearch &&
      indexType !== IndexType.BinarySearchWithFirstKey
    ) {
      throw notSupportedAt(
        `index type ${indexType} (${indexTypeName(indexType)}) is not supported`,
        this.fileName,
        this.footer.indexHandle.offset,
      );
    }
    this.indexKeyIsUserKey = props.indexKeyIsUserKey;
    this.indexHasFirstKey = indexType === IndexType.BinarySearchWithFirstKey;
    source.indexEncoding = {
      keyIsUserKey: props.indexKeyIsUserKey,
      valueIsDeltaEncoded: props.indexValueIsDeltaEncoded,
      hasFirstKey: this.indexHasFirstKey,
    };
    source.expectCompressed = compressionNameSaysCompressed(props.compression, props.formatVersion);
    const dictHandle = meta.get(MetaBlockName.COMPRESSION_DICT);
    if (dictHandle !== undefined) source.compressionDict = source.readRaw(dictHandle);
    if (props.comparatorName !== "" && props.comparatorName !== this.comparator.name) {
      throw ShaleError.invalidArgument(
        `table ${this.fileName ?? ""} was written with comparator ` +
          `"${this.properties.comparatorName}", not "${this.comparator.name}"`,
      );
    }
    let dataEnd = Math.min(this.footer.metaindexHandle.offset, this.footer.indexHandle.offset);
    for (const h of meta.values()) dataEnd = Math.min(dataEnd, h.offset);

    const cacheMeta = cache !== undefined && (options.cacheIndexAndFilterBlocks ?? true);
    const pin = options.pinIndexAndFilterBlocks ?? true;
    // Held (no cache / not cached / pinned) or, unpinned in the cache, undefined.
    const openMeta = (h: BlockHandle, read: (h: BlockHandle) => Block): Block | undefined => {
      if (!cacheMeta) return read(h);
      if (pin) return source.pinnedMetaBlock(h, read);
      source.metaBlock(h, read);
      return undefined;
    };
    // A filter of prefixes only (RocksDB's whole_key_filtering = false) cannot rule out a
    // whole key: the table is read as if it had no filter.
    // A table written with a prefix extractor holds the prefixes in the same full filter.
    const fullFilter = meta.get(MetaBlockName.FULL_FILTER_PREFIX + filterPolicy.compatibilityName);
    this.filterHandle = props.wholeKeyFiltering ? fullFilter : undefined;
    const extractorName = props.prefixExtractorName;
    if (extractorName !== "" && extractorName !== "nullptr" && fullFilter !== undefined) {
      this.prefixExtractorName = extractorName;
      this.prefixFilterHandle = fullFilter;
      // Prefixes only: point lookups ask the filter for the key's prefix, by the table's own
      // extractor (RocksDB's, for a built-in one it can make from the name).
      if (!props.wholeKeyFiltering)
        this.pointPrefixExtractor = builtinPrefixExtractor(extractorName);
    }
    if (fullFilter !== undefined && (this.filterHandle ?? this.prefixFilterHandle) !== undefined) {
      this.heldFilter = openMeta(fullFilter, this.readFilterBlock);
    }
    // Index and filter partitions are kept as the index and filter blocks are.
    const mode = !cacheMeta
      ? PartitionMode.Held
      : pin
        ? PartitionMode.Pinned
        : PartitionMode.Cached;
    const partitionedFilterHandle = props.wholeKeyFiltering
      ? meta.get(MetaBlockName.PARTITIONED_FILTER_PREFIX + filterPolicy.compatibilityName)
      : undefined;
    if (partitionedFilterHandle !== undefined && this.filterHandle === undefined) {
      // Its filter index is read as an index block (the same key and value forms).
      const top =
        openMeta(partitionedFilterHandle, this.readIndexBlock) ??
        source.metaBlock(partitionedFilterHandle, this.readIndexBlock);
      const off = partitionedFilterHandle.offset;
      this.partitionedFilter = new PartitionedFilter(top, off, this.order, source, mode);
      // Data blocks end before the first filter partition.
      if (this.partitionedFilter.count > 0) {
        dataEnd = Math.min(dataEnd, this.partitionedFilter.directory.offsets[0]!);
      }
    }
    const rangeDel = meta.get(MetaBlockName.RANGE_DEL);
    const tombstones = rangeDel !== undefined ? readTombstones(source, rangeDel, this.order) : [];
    if (this.globalSeqno !== 0) for (const t of tombstones) t.seq = this.globalSeqno;
    this.tombstoneList = new FragmentedRangeTombstoneList(tombstones, this.comparator);
    this.hasTombstones = !this.tombstoneList.isEmpty;
    this.heldIndex = openMeta(this.footer.indexHandle, this.readIndexBlock);
    if (indexType === IndexType.TwoLevelIndexSearch) {
      // The top level is decoded once (partitioned-index.ts); partitions load on first use.
      const top = this.heldIndex ?? source.metaBlock(this.footer.indexHandle, this.readIndexBlock);
      const at = this.footer.indexHandle.offset;
      this.partitioned = new PartitionedIndex(top, at, this.order, source, mode);
      this.partitionedGet = new PartitionedGet(this.partitioned, this, this.indexKeyIsUserKey);
      if (this.partitioned.count > 0) {
        dataEnd = Math.min(dataEnd, this.partitioned.directory.offsets[0]!);
      }
    }
    this.dataEnd = dataEnd;
  }

  /** @internal The filter partitions' handles (partitioned filters), for verification. */
  filterPartitions(): BlockHandle[] {
    const d = this.partitionedFilter?.directory;
    if (d === undefined) return [];
    return d.offsets.map((offset, i) => ({ offset, size: d.sizes[i]! }));
  }

  /**
   * Opens the table in `file`. The reader takes ownership of `file` and closes it in
   * `close()`. Throws Corruption (naming the file and the offset of the damaged block or
   * footer) for a damaged table, InvalidArgument for a comparator name mismatch.
   */
  static open(file: RandomAccessFile, options: TableReaderOptions = {}): TableReader {
    if (typeof file !== "object" || file === null || typeof file.read !== "function") {
      throw new TypeError("file must be a RandomAccessFile");
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError("options must be an object");
    }
    const reader = new TableReader(file, options);
    if (invariants) trackOpen(reader, `TableReader ${reader.fileName ?? "(unnamed)"}`);
    return reader;
  }

  private checkOpen(): void {
    if (this.closing) throw ShaleError.closed(`table reader ${this.fileName ?? ""} is closed`);
  }

  /** @internal The index block. */
  indexBlock(): Block {
    if (this.heldIndex !== undefined) return this.heldIndex;
    this.checkOpen();
    return this.source.metaBlock(this.footer.indexHandle, this.readIndexBlock);
  }

  private filterReader(): FilterBitsReader | undefined {
    // (A table with partitioned filters has no filter block: see `partitionedFilter`.)
    const handle = this.filterHandle;
    if (handle === undefined) return undefined; // none, or prefixes only
    if (this.heldFilter !== undefined) return this.heldFilter.filter;
    return this.source.metaBlock(handle, this.readFilterBlock).filter;
  }

  /** @internal Decodes the BlockHandle that is the current value of an index iterator. */
  decodeIndexValue(index: BlockIterator, out: BlockHandle): void {
    const start = index.valueOffset;
    const end = start + index.valueLength;
    const at = this.footer.indexHandle.offset;
    const pos = decodeBlockHandleInto(
      index.blockData,
      start,
      end,
      out,
      this.cursor,
      this.fileName,
      at,
    );
    // A first key may follow the handle (checked when the block was loaded).
    if (pos !== end && !this.indexHasFirstKey) {
      throw ShaleError.corruption("bad index entry", this.fileName, at);
    }
  }

  /** The table's range tombstones, fragmented once at open. Shared: do not modify. */
  rangeTombstones(): FragmentedRangeTombstoneList {
    return this.tombstoneList;
  }

  /**
   * False if the table's prefix filter proves no key of this prefix is here: `prefix` is
   * the `transform` of a key in the domain of the extractor named `prefixExtractorName`
   * (RocksDB's PrefixMayMatch). True when the table has no prefix filter.
   */
  prefixMayMatch(prefix: Uint8Array): boolean {
    this.checkOpen();
    const handle = this.prefixFilterHandle;
    if (handle === undefined) return true;
    const held = this.heldFilter;
    const filter =
      held !== undefined ? held.filter : this.source.metaBlock(handle, this.readFilterBlock).filter;
    const stats = this.stats;
    if (stats !== undefined) stats.tick(Ticker.BloomPrefixChecked);
    if (filter === undefined || filter.mayMatch(prefix)) return true;
    if (stats !== undefined) stats.tick(Ticker.BloomPrefixUseful);
    return false;
  }

  /** False if the Bloom filter proves `userKey` has no point entry here (true without a filter). */
  mayContain(userKey: Uint8Array): boolean {
    this.checkOpen();
    const partitioned = this.partitionedFilter;
    if (partitioned !== undefined) {
      return partitioned.mayMatch(userKey, this.seekKey(userKey, MAX_SEQ), undefined);
    }
    const filter = this.filterReader();
    if (filter === undefined) return this.pointPrefixMayMatch(userKey);
    return filterMayMatch(filter, userKey, undefined);
  }

  /** A prefixes-only filter's answer for `userKey` (true when it has none or cannot tell). */
  private pointPrefixMayMatch(userKey: Uint8Array): boolean {
    const e = this.pointPrefixExtractor;
    if (e === undefined || !e.inDomain(userKey)) return true;
    const held = this.heldFilter;
    const filter =
      held !== undefined
        ? held.filter
        : this.source.metaBlock(this.prefixFilterHandle!, this.readFilterBlock).filter;
    return filter === undefined || filter.mayMatch(e.transform(userKey));
  }

  private seekKey(userKey: Uint8Array, snapshotSeq: number): Uint8Array {
    const u = userKey.length;
    const n = u + TRAILER_SIZE;
    if (n > this.seekBuf.length) {
      this.seekBuf = new Uint8Array(Math.max(n, this.seekBuf.length * 2));
      this.seekView = this.seekBuf.subarray(0, n);
    } else if (this.seekView.length !== n) {
      this.seekView = this.seekBuf.subarray(0, n);
    }
    const buf = this.seekBuf;
    if (u <= 32) {
      for (let i = 0; i < u; i++) buf[i] = userKey[i]!;
    } else {
      buf.set(userKey, 0);
    }
    putTrailer(buf, u, snapshotSeq, KIND_FOR_SEEK);
    return this.seekView;
  }

  /**
   * Writes the filter hash of `userKey` to `out[0]` (lo) and `out[1]` (hi), for `get`'s
   * `keyHash`: a caller probing several tables for one key hashes it once.
   * REQUIRES: out.length >= 2.
   */
  static hashKey(userKey: Uint8Array, out: Uint32Array): void {
    hashFilterKey(userKey, out);
  }

  /**
   * Point lookup of `userKey` as seen at `snapshotSeq`, folded into `result` (see
   * `LookupResult` in `@shale/base`): first raises `result.maxCoveringSeq` with this table's
   * range tombstones, then (unless the Bloom filter rules the key out) visits the key's
   * entries newest first: a Value ends with `Found`, a Deletion/SingleDeletion or an entry
   * below `maxCoveringSeq` with `Deleted` (`seq` = the entry's seq, or the covering
   * tombstone's), a Merge operand is appended and the lookup goes on (`Merging`).
   *
   * `snapshotSeq` in [0, MAX_SEQ] (else InvalidArgument); Default: the latest (`MAX_SEQ`).
   * `result` Default: a new LookupResult; the result is returned. A result passed in
   * continues the lookup of newer layers when it is for the same key array and snapshot
   * (nothing is read if they settled it, `done`); for any other key or snapshot, or when
   * this table already folded into it, it is reset first (`LookupResult.enter`), so it
   * never reports a previous lookup's answer. `keyHash`, if given, is `userKey`'s hash as
   * `TableReader.hashKey` wrote it (Default: hashed here, when the table has a filter).
   *
   * Ownership: `result.value` and `result.operands` are views into the cached block (zero
   * copy): valid for as long as they are referenced — with a recycling block cache
   * (`newBlockCache(capacity, { recycleBlocks: true })`), `result.value` only until the next
   * read through that cache (operands are copied then); treat as read-only. No cache handle
   * is pinned (none needs releasing).
   */
  get(
    userKey: Uint8Array,
    snapshotSeq: number = MAX_SEQ,
    result: LookupResult = new LookupResult(),
    readOptions?: TableReadOptions,
    keyHash?: Uint32Array,
  ): LookupResult {
    this.checkOpen();
    if (!(snapshotSeq >= 0 && snapshotSeq <= MAX_SEQ)) {
      throw ShaleError.invalidArgument(`snapshotSeq out of range: ${snapshotSeq}`);
    }
    result.enter(this, userKey, snapshotSeq);
    if (result.done) return result;
    this.lookup(userKey, snapshotSeq, result, readOptions, keyHash, PLAN_NONE);
    return result;
  }

  /**
   * Batched point lookups (RocksDB's BlockBasedTable::MultiGet): `get` of `keys[i]` into
   * `results[i]` for each i in [from, to) whose result is not `done`, at one `snapshotSeq`.
   * REQUIRES: `keys[from..to)` ascending by the table's comparator (equal keys allowed).
   * The table is entered once: with a one-level index that has a search aid, a first pass
   * (`planBatch`) probes the filter and finds the index entry of every key; consecutive keys
   * whose lookups land in the same data block read it once (one cache lookup, one block
   * read on a miss). `hashes`, if given, holds each key's filter hash at
   * `[2i, 2i + 1]` (`TableReader.hashKey`). As each key's lookup in this table ends with
   * `done`, `sink.settled(i)` is called — before the next block is read, which may recycle
   * the memory `results[i].value` views: the sink must copy what it keeps, and read nothing
   * through the block cache. Errors as `get`.
   */
  multiGet(
    keys: readonly Uint8Array[],
    results: readonly LookupResult[],
    hashes: Uint32Array | undefined,
    from: number,
    to: number,
    snapshotSeq: number,
    readOptions: TableReadOptions | undefined,
    sink: MultiGetSink,
  ): void {
    this.checkOpen();
    if (!(snapshotSeq >= 0 && snapshotSeq <= MAX_SEQ)) {
      throw ShaleError.invalidArgument(`snapshotSeq out of range: ${snapshotSeq}`);
    }
    if (!(from >= 0 && to <= keys.length && to <= results.length)) {
      throw ShaleError.invalidArgument(`multiGet range [${from}, ${to}) out of bounds`);
    }
    const hash = this.multiHash;
    this.sharing = true;
    this.sharedOffset = -1;
    try {
      const planned = this.planBatch(keys, results, hashes, from, to, snapshotSeq);
      const plan = this.plan;
      for (let i = from; i < to; i++) {
        const r = results[i]!;
        if (r.done) continue;
        const key = keys[i]!;
        r.enter(this, key, snapshotSeq);
        if (r.done) continue;
        let keyHash: Uint32Array | undefined;
        if (hashes !== undefined) {
          hash[0] = hashes[2 * i]!;
          hash[1] = hashes[2 * i + 1]!;
          keyHash = hash;
        }
        const step = planned ? plan[i - from]! : PLAN_NONE;
        this.lookup(key, snapshotSeq, r, readOptions, keyHash, step);
        if (r.done) sink.settled(i);
      }
    } finally {
      this.sharing = false;
      this.dropShared();
    }
  }

  /** The key hash `multiGet` hands to `lookup`. */
  private readonly multiHash = new Uint32Array(2);
  /** Per key of a `multiGet` (from `from`): what `planBatch` learnt (see `PLAN_NONE`). */
  private plan = new Int32Array(16);
  /** @internal Sink of `planBatch`'s prefetching loads (run-scan.ts), kept so they run. */
  touched = 0;

  /**
   * The first pass of a `multiGet` over a one-level index with a search aid: per pending
   * key, the filter probe and the index entry (a search that gallops on from the previous
   * key's entry: the keys ascend); then, in short loops of their own, loads from each
   * cached data block the keys land in (its restart array, then its restart entries:
   * `touchPlannedBlocks`). Those loads do not depend on each other, so the CPU overlaps
   * their cache misses across several keys (the role of RocksDB's prefetches in MultiGet);
   * the second pass (`lookup`) takes the filter's answer and the entry from `plan` and
   * finds the blocks' restart lines warm.
   * Returns false (nothing planned) for other tables and for a single key.
   */
  private planBatch(
    keys: readonly Uint8Array[],
    results: readonly LookupResult[],
    hashes: Uint32Array | undefined,
    from: number,
    to: number,
    snapshotSeq: number,
  ): boolean {
    if (to - from < 2 || this.partitionedGet !== undefined) return false;
    if (this.pointPrefixExtractor !== undefined || this.globalSeqno > snapshotSeq) return false;
    const indexBlock = this.indexBlock();
    const search = indexBlock.search;
    if (search === undefined) return false;
    const filter = this.filterHandle !== undefined ? this.filterReader() : undefined;
    if (this.plan.length < to - from)
      this.plan = new Int32Array(Math.max(to - from, 2 * this.plan.length));
    const plan = this.plan;
    const slots = indexBlock.dataSlots;
    const hash = this.multiHash;
    let entry = 0;
    let touched = 0;
    for (let i = from; i < to; i++) {
      if (results[i]!.done) {
        plan[i - from] = PLAN_NONE;
        continue;
      }
      const key = keys[i]!;
      if (filter !== undefined) {
        let keyHash: Uint32Array | undefined;
        if (hashes !== undefined) {
          hash[0] = hashes[2 * i]!;
          hash[1] = hashes[2 * i + 1]!;
          keyHash = hash;
        }
        if (!filterMayMatch(filter, key, keyHash)) {
          plan[i - from] = PLAN_FILTERED;
          continue;
        }
      }
      entry = search.lowerBound(this.seekKey(key, snapshotSeq), entry);
      plan[i - from] = entry;
    }
    if (slots !== undefined) touched += touchPlannedBlocks(plan, to - from, slots, search.count);
    this.touched = touched;
    return true;
  }

  /** The data block at `offset` when the previous lookup of a `multiGet` read it. */
  private sharedBlockAt(offset: number): Block | undefined {
    return this.sharing && this.sharedOffset === offset ? this.sharedBlock : undefined;
  }

  /** Holds `block` (acquired: an eviction meanwhile cannot recycle it) for the next key. */
  private keepShared(offset: number, block: Block): void {
    if (!this.sharing) return;
    block.acquire();
    this.dropShared();
    this.sharedOffset = offset;
    this.sharedBlock = block;
  }

  private dropShared(): void {
    const held = this.sharedBlock;
    this.sharedOffset = -1;
    this.sharedBlock = undefined;
    if (held !== undefined) held.release();
  }

  private lookup(
    userKey: Uint8Array,
    snapshotSeq: number,
    result: LookupResult,
    readOptions: TableReadOptions | undefined,
    keyHash: Uint32Array | undefined,
    step: number,
  ): void {
    // Every entry of a table with a global seqno is at it: all newer than the snapshot.
    if (this.globalSeqno > snapshotSeq) return;
    if (this.hasTombstones) {
      const covering = this.tombstoneList.maxCoveringSeq(userKey, snapshotSeq);
      if (covering > result.maxCoveringSeq) result.maxCoveringSeq = covering;
    }
    const stats = this.stats;
    if (this.filterHandle !== undefined) {
      if (stats !== undefined) stats.tick(Ticker.BloomChecked);
      // A planned step already has the filter's answer.
      if (
        step === PLAN_FILTERED ||
        (step === PLAN_NONE && !filterMayMatch(this.filterReader()!, userKey, keyHash))
      ) {
        if (stats !== undefined) stats.tick(Ticker.BloomUseful);
        return;
      }
    } else if (this.pointPrefixExtractor !== undefined) {
      if (stats !== undefined) stats.tick(Ticker.BloomChecked);
      if (!this.pointPrefixMayMatch(userKey)) {
        if (stats !== undefined) stats.tick(Ticker.BloomUseful);
        return;
      }
    }
    const fillCache = readOptions?.fillCache ?? this.source.fillCache;
    const verify = readOptions?.verifyChecksums ?? this.source.verifyChecksums;
    const target = this.seekKey(userKey, snapshotSeq);
    const partitioned = this.partitionedGet;
    if (partitioned !== undefined) {
      // A partitioned index (and maybe filters), chosen at open: partitioned-get.ts.
      const filter = this.partitionedFilter;
      if (filter !== undefined) {
        if (stats !== undefined) stats.tick(Ticker.BloomChecked);
        if (!filter.mayMatch(userKey, target, keyHash)) {
          if (stats !== undefined) stats.tick(Ticker.BloomUseful);
          return;
        }
      }
      partitioned.run(target, userKey, result, fillCache, verify);
      return;
    }
    const slab = this.sharedCache;
    if (slab !== undefined) {
      this.lookupShared(slab, userKey, target, result, fillCache, verify, step);
      return;
    }
    const indexBlock = this.indexBlock();
    const indexOffset = this.footer.indexHandle.offset;
    const index = this.indexIter;
    const it = this.dataIter;
    const handle = this.handle;
    const source = this.source;
    try {
      const search = indexBlock.search;
      let block: Block | undefined;
      // Entry of the index the lookup is in; -1 once `index` is initialized and positioned.
      let entry = -1;
      if (search !== undefined) {
        // The data block's offset comes from the search aid; the index entry is decoded only
        // on a cache miss (or to go on into the next block).
        entry = step >= 0 ? step : search.lowerBound(target);
        if (entry >= search.count) return;
        handle.offset = search.blockOffset(entry);
        block = this.sharedBlockAt(handle.offset);
        if (block === undefined) {
          block = source.cachedDataBlockAt(indexBlock, entry, handle.offset);
          if (block === undefined) {
            index.init(indexBlock, this.fileName, indexOffset).seekToRestart(entry);
            this.decodeIndexValue(index, handle);
            block = source.readDataBlock(handle, fillCache, verify, indexBlock, entry);
            entry = -1;
          }
          this.keepShared(handle.offset, block);
        }
      } else {
        index.init(indexBlock, this.fileName, indexOffset).seek(target);
        if (!index.valid()) return;
        this.decodeIndexValue(index, handle);
        block = this.sharedBlockAt(handle.offset);
        if (block === undefined) {
          block = source.dataBlock(handle, fillCache, verify);
          this.keepShared(handle.offset, block);
        }
      }
      it.init(block, this.fileName, handle.offset);
      // A data block's hash index may prove the key absent from this block and the next.
      if (!it.seekForGet(target, userKey)) return;
      while (this.fold(it, userKey, result, handle.offset)) {
        // The block ended inside the lookup. The next block can hold the user key only if
        // this block's separator has that user key (separators of different user keys are
        // shortened in between) and the index keeps sequence numbers (an index of user keys
        // is written only when no user key spans two blocks): otherwise stop without
        // reading it.
        if (this.indexKeyIsUserKey) return;
        // The lookup reads on: the next key finds its block itself.
        this.dropShared();
        if (entry >= 0) index.init(indexBlock, this.fileName, indexOffset).seekToRestart(entry);
        entry = -1;
        if (this.order.compareUserKeyAt(index.keyBuf, 0, index.keyLength, userKey) !== 0) return;
        index.next();
        if (!index.valid()) return;
        this.decodeIndexValue(index, handle);
        it.init(source.dataBlock(handle, fillCache, verify), this.fileName, handle.offset);
        it.seekToFirst();
      }
    } finally {
      // Drop the blocks (an unpinned index block may leave the cache meanwhile).
      it.close();
      if (index.currentBlock !== undefined) index.close();
    }
  }

  /**
   * `lookup` through the shared block cache (`sharedBlockCache`), after the filter: the data
   * block is searched in its slab (slab-get.ts); a miss reads it, inserts it there and
   * searches it there, or folds it the classic way when it could not go in. Apart from
   * `lookup` so that the default path stays as it was compiled before.
   */
  private lookupShared(
    slab: SharedBlockCache,
    userKey: Uint8Array,
    target: Uint8Array,
    result: LookupResult,
    fillCache: boolean,
    verify: boolean,
    step: number,
  ): void {
    const indexBlock = this.indexBlock();
    const indexOffset = this.footer.indexHandle.offset;
    const index = this.indexIter;
    const it = this.dataIter;
    const handle = this.handle;
    try {
      const search = indexBlock.search;
      let block: Block | undefined;
      let code: number;
      if (search !== undefined) {
        const entry = step >= 0 ? step : search.lowerBound(target);
        if (entry >= search.count) return;
        handle.offset = search.blockOffset(entry);
        code = this.slabLookup(slab, handle.offset, target, userKey, result, indexBlock, entry);
        if (code === SLAB_DONE) return;
        index.init(indexBlock, this.fileName, indexOffset).seekToRestart(entry);
        if (code === SLAB_MISS) {
          this.decodeIndexValue(index, handle);
          code = this.readIntoShared(
            slab,
            handle,
            fillCache,
            verify,
            target,
            userKey,
            result,
            indexBlock,
            entry,
          );
        }
      } else {
        index.init(indexBlock, this.fileName, indexOffset).seek(target);
        if (!index.valid()) return;
        this.decodeIndexValue(index, handle);
        code = this.slabLookup(slab, handle.offset, target, userKey, result, undefined, -1);
        if (code === SLAB_MISS) {
          code = this.readIntoShared(
            slab,
            handle,
            fillCache,
            verify,
            target,
            userKey,
            result,
            undefined,
            -1,
          );
        }
      }
      if (code === SLAB_DONE) return;
      if (code === SLAB_MISS) {
        // Read, but not searchable in the cache: the classic fold over the block read.
        block = this.takeMissBlock()!;
        it.init(block, this.fileName, handle.offset);
        if (!it.seekForGet(target, userKey)) return;
      } else if (!this.toNextBlock(index, userKey, fillCache, verify)) {
        return; // SLAB_BLOCK_ENDED, and the next block cannot hold the key
      }
      while (this.fold(it, userKey, result, handle.offset)) {
        if (!this.toNextBlock(index, userKey, fillCache, verify)) return;
      }
    } finally {
      it.close();
      if (index.currentBlock !== undefined) index.close();
    }
  }

  /**
   * A lookup ended its data block still going on: if the index entry `index` is on keeps
   * `userKey` (the next block may hold more of its entries), positions `dataIter` at the
   * start of the next block and returns true; else false (the lookup ends).
   */
  private toNextBlock(
    index: BlockIterator,
    userKey: Uint8Array,
    fillCache: boolean,
    verify: boolean,
  ): boolean {
    if (this.indexKeyIsUserKey) return false;
    if (this.order.compareUserKeyAt(index.keyBuf, 0, index.keyLength, userKey) !== 0) return false;
    index.next();
    if (!index.valid()) return false;
    const handle = this.handle;
    this.decodeIndexValue(index, handle);
    const it = this.dataIter;
    it.init(this.source.dataBlock(handle, fillCache, verify), this.fileName, handle.offset);
    it.seekToFirst();
    return true;
  }

  /** The block `readIntoShared` read for the classic path (SLAB_MISS), handed over once. */
  private takeMissBlock(): Block | undefined {
    const block = this.missBlock;
    this.missBlock = undefined;
    return block;
  }

  /**
   * The shared cache's lookup of the data block at `offset` (slab-get.ts), of index entry
   * `entry` (-1: unknown) of `indexBlock`.
   */
  private slabLookup(
    slab: SharedBlockCache,
    offset: number,
    target: Uint8Array,
    userKey: Uint8Array,
    result: LookupResult,
    indexBlock: Block | undefined,
    entry: number,
  ): number {
    let hints: Int32Array | undefined;
    if (entry >= 0) {
      hints = this.slabHints;
      const count = indexBlock!.search!.count;
      if (hints === undefined || hints.length !== 2 * count) {
        hints = new Int32Array(2 * count);
        this.slabHints = hints;
      }
    }
    return this.slabGet!.run(
      slab,
      this.fileNumber!,
      offset,
      hints,
      entry,
      target,
      userKey,
      result,
      this.globalSeqno,
      this.order,
      this.stats,
      this.fileName,
    );
  }

  /**
   * A shared-cache miss: takes the data block at `handle` from the block cache if it is
   * there, else reads it from the file (into `blockMemory` where the codec allows); if
   * `fill`, inserts it into the shared cache and searches it there (read memory goes back to
   * the pool): SLAB_DONE or SLAB_BLOCK_ENDED. When it cannot be searched there (not inserted: `fill` false, the cache's lock held by another
   * thread, no room; or evicted at once), returns the block as a `Block` for the classic path
   * (`SLAB_MISS`, in `missBlock`).
   */
  private readIntoShared(
    slab: SharedBlockCache,
    handle: BlockHandle,
    fill: boolean,
    verify: boolean,
    target: Uint8Array,
    userKey: Uint8Array,
    result: LookupResult,
    indexBlock: Block | undefined,
    entry: number,
  ): number {
    const source = this.source;
    // In the block cache already (a flush or compaction put it there, or an iterator read
    // it): copied from there rather than read, verified and decompressed again.
    const cached = source.peekDataBlock(handle.offset);
    if (cached !== undefined) {
      if (fill && slab.insert(this.fileNumber!, handle.offset, cached.data) >= 0) {
        const code = this.slabLookup(
          slab,
          handle.offset,
          target,
          userKey,
          result,
          indexBlock,
          entry,
        );
        if (code !== SLAB_MISS) return code;
      }
      this.missBlock = cached;
      return SLAB_MISS;
    }
    const data = source.readRaw(handle, verify, true, source.compressionDict);
    const pooled = decodedIntoPool();
    if (fill && slab.insert(this.fileNumber!, handle.offset, data) >= 0) {
      if (pooled) blockMemory.give(data.buffer);
      const code = this.slabLookup(slab, handle.offset, target, userKey, result, indexBlock, entry);
      if (code !== SLAB_MISS) return code;
      // Evicted by another thread already: read it again, as a Block of its own.
      this.missBlock = source.readDataBlock(handle, false, verify);
      return SLAB_MISS;
    }
    // Pooled memory not handed back is left to the GC (the Block is not recyclable).
    this.missBlock = Block.keyValue(data, this.fileName, handle.offset);
    return SLAB_MISS;
  }

  /**
   * @internal Folds `userKey`'s entries from the position of `it` on into `result` (see
   * `get`). Returns true if the block ended with the lookup still going on (only Merge
   * operands so far).
   */
  fold(it: BlockIterator, userKey: Uint8Array, result: LookupResult, blockOffset: number): boolean {
    const order = this.order;
    for (; it.valid(); it.next()) {
      const kb = it.keyBuf;
      const t = it.keyLength - TRAILER_SIZE;
      if (order.compareUserKeyAt(kb, 0, it.keyLength, userKey) !== 0) return false;
      const seq = this.globalSeqno === 0 ? trailerSeq(kb, t) : this.globalSeqno;
      if (seq < result.maxCoveringSeq) {
        result.state = LookupState.Deleted;
        result.seq = result.maxCoveringSeq;
        return false;
      }
      const kind = kb[t]!;
      if (kind === ValueKind.Value || kind === ValueKind.BlobIndex) {
        result.state = LookupState.Found;
        // The block's bytes and the value's place in them: no view made per lookup.
        result.setValueRange(it.blockData, it.valueOffset, it.valueLength);
        result.seq = seq;
        result.blobIndex = kind === ValueKind.BlobIndex;
        return false;
      }
      if (kind === ValueKind.Merge) {
        // The lookup may read (and cache) more blocks before it ends, which can recycle this
        // one's memory: keep a copy of an operand from a recyclable block.
        result.operands.push(it.isValuePinned() ? it.value() : it.value().slice());
        result.state = LookupState.Merging;
        continue;
      }
      if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
        result.state = LookupState.Deleted;
        result.seq = seq;
        return false;
      }
      throw ShaleError.corruption(
        `unknown value kind ${kind} in a data block`,
        this.fileName,
        blockOffset,
      );
    }
    return true;
  }

  /**
   * A two-level iterator (index block -> data blocks) over the point entries, in internal-key
   * order. `key()` is a view valid until the next move; `value()` a view into the block.
   * Close it when done: `close()` of the reader waits for open iterators.
   */
  newIterator(readOptions?: TableReadOptions): InternalIterator {
    this.checkOpen();
    const fill = readOptions?.fillCache ?? this.source.fillCache;
    const verify = readOptions?.verifyChecksums ?? this.source.verifyChecksums;
    const reuse = readOptions?.reuseScanBuffers === true;
    const partitioned = this.partitioned;
    // The iterator's shape is the table's, chosen at open: one class per index kind.
    const it =
      partitioned === undefined
        ? new TableIterator(this, fill, verify, reuse)
        : new PartitionedTableIterator(this, partitioned, fill, verify, reuse);
    this.openIterators++;
    return this.globalSeqno === 0 ? it : new GlobalSeqnoIterator(it, this.globalSeqno, this.order);
  }

  /** @internal Called by an iterator's close(). */
  iteratorClosed(): void {
    this.openIterators--;
    if (this.closing && this.openIterators === 0) this.closeFile();
  }

  /**
   * Approximate file offset where entries with keys >= `internalKey` begin: the offset of the
   * data block that would hold it, or the end of the data blocks for a key past the last.
   */
  approximateOffsetOf(internalKey: Uint8Array): number {
    this.checkOpen();
    const h: BlockHandle = { offset: 0, size: 0 };
    if (this.partitioned !== undefined) {
      const walker = new PartitionedIndexIterator(this.partitioned, this.order, this.fileName);
      try {
        walker.seek(internalKey);
        if (!walker.valid()) return this.dataEnd;
        walker.handle(h);
        return h.offset;
      } finally {
        walker.close();
      }
    }
    const at = this.footer.indexHandle.offset;
    const index = new BlockIterator(this.order).init(this.indexBlock(), this.fileName, at);
    index.seek(internalKey);
    if (!index.valid()) return this.dataEnd;
    this.decodeIndexValue(index, h);
    return h.offset;
  }

  /**
   * Reads every block of the table from the file again (not from the cache) and verifies
   * its checksum: metaindex, meta blocks, index and every data block (table-verify.ts).
   * Throws Corruption naming the file and the damaged block's offset.
   */
  verifyChecksums(): TableVerifyResult {
    this.checkOpen();
    return verifyTableBlocks(this);
  }

  /**
   * Puts the table's data blocks into the block cache, in file order, while the cache has
   * free room for them (it never evicts to make room): RocksDB's prepopulate_block_cache,
   * done by reading the table back (table-warm.ts). Without a block cache it does nothing.
   * Blocks are verified as the reader's `verifyChecksums` says; a damaged one is Corruption.
   */
  prepopulateBlockCache(): TableWarmResult {
    this.checkOpen();
    return warmTableBlocks(this, this.source.verifyChecksums);
  }

  /**
   * Puts the table's data blocks into the block cache from `captured`, the blocks the
   * builder that wrote this table kept (`TableBuilder.captureDataBlocks`), while the cache
   * has free room (it never evicts): no file read, checksum or decompression (table-warm.ts).
   * Without a block cache it does nothing. REQUIRES: `captured` came from this table's
   * builder (the offsets name this file's blocks).
   */
  prepopulateBlockCacheFrom(captured: CapturedDataBlocks): TableWarmResult {
    this.checkOpen();
    return warmTableFromCaptured(this, captured);
  }

  /**
   * Closes the reader and its file. Idempotent. With iterators still open, the file is closed
   * when the last one closes; new reads fail with Closed at once. Blocks stay in the block
   * cache (see `TableCache.evict` to drop them); pinned index and filter are unpinned.
   */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    if (invariants) trackClosed(this);
    this.heldIndex = undefined;
    this.heldFilter = undefined;
    this.partitioned?.release();
    this.partitionedFilter?.release();
    this.source.releasePinned();
    if (this.openIterators === 0) this.closeFile();
  }

  private closeFile(): void {
    if (this.closed) return;
    this.closed = true;
    this.source.file.close();
  }

  /** True once `close()` was called. */
  get isClosed(): boolean {
    return this.closing;
  }
}
