/**
 * BlockSource: where a table reader gets its blocks — the file, through the block cache when
 * there is one. Reads verify checksums (unless disabled) and decompress (see `block-io.ts`);
 * every block gets memory of its own, or is a view of an iterator's readahead region, which
 * is never reused (readahead.ts), so views into it stay valid after cache eviction — except
 * for an iterator opened with `reuseScanBuffers`, whose regions and slab are reused
 * (scan-buffers.ts) and whose values are valid until it moves.
 *
 * Cache use: data blocks are inserted unpinned with priority "low"; the index and filter go
 * in with priority "high", pinned for the reader's lifetime (handles released by
 * `releasePinned`) or unpinned and looked up on each use. Data blocks are looked up without
 * a pin (`LRUCache.get`): in JS a block stays alive as long as something references it.
 * With a recycling cache (`recycleBlocks`), data blocks read into the cache are decoded into
 * `blockMemory` and their memory is reused once they are evicted and no block iterator is in
 * them (`Block.recyclable`): no fresh ArrayBuffer per block-cache miss. With a cache made by
 * `newBlockCache` (its eviction hook calls `Block.evict`), a point lookup also keeps the data
 * block it cached in its index entry's slot (the index block's `dataSlots`) and takes it
 * from there on the next hit (`cachedDataBlockAt`).
 */
import { Histogram, type RandomAccessFile, ShaleError, type Statistics, Ticker } from "@shale/base";
import type { CacheHandle, LRUCache } from "@shale/block-cache";
import { openFilterBlock } from "../filter/filter-block.js";
import { DEFAULT_FILTER_POLICY, type FilterPolicy } from "../filter/filter-policy.js";
import { type BlockHandle, TableFormat } from "../format/format.js";
import { type IndexEncoding, normalizeIndexBlock } from "../index/index-block.js";
import { BLOCK_OVERHEAD, Block } from "./block.js";
import { recyclesBlocks, reportsEvictions } from "./block-cache.js";
import { decodeBlock, decodedIntoPool, readBlock } from "./block-io.js";
import { MAX_READAHEAD, type Readahead, SEQUENTIAL_READS_BEFORE_READAHEAD } from "./readahead.js";

export class BlockSource {
  readonly file: RandomAccessFile;
  readonly fileName: string | undefined;
  /** The footer's checksum type: how block trailers are verified. */
  readonly checksumType: number;
  /**
   * The footer's base context checksum (format version >= 6; 0 before): every block's stored
   * checksum carries the modifier of its offset (format.ts). Set at open.
   */
  contextChecksum = 0;
  readonly cache: LRUCache<Block> | undefined;
  readonly cacheId: number;
  /** Default for reads: verify block checksums. */
  readonly verifyChecksums: boolean;
  /** Default for reads: insert data blocks read into the cache. */
  readonly fillCache: boolean;
  private readonly stats: Statistics | undefined;
  /** End of the region blocks may occupy (the footer's offset). */
  private readonly limit: number;
  private readonly pinned: CacheHandle<Block>[] = [];
  /**
   * The cache recycles evicted blocks' memory (`recycleBlocks`): data blocks read into it
   * are decoded into `blockMemory` and marked `recyclable`.
   */
  private readonly recycles: boolean;
  /**
   * The cache tells every block it lets go (`reportsEvictions`): data blocks it holds are
   * also kept in their index's slots (`cachedDataBlockAt`).
   */
  private readonly slotted: boolean;
  /**
   * Blocks are probably compressed (the table's compression option): read them into a
   * reused buffer rather than memory of their own (see `readBlock`). Set at open.
   */
  expectCompressed = false;
  /** How the index block is encoded (from the properties; set at open). */
  indexEncoding: IndexEncoding = { keyIsUserKey: false, valueIsDeltaEncoded: false };
  /**
   * The table's `rocksdb.compression_dict` meta block (set by the reader at open), used for
   * its data blocks only, as RocksDB does; undefined when it has none.
   */
  compressionDict: Uint8Array | undefined = undefined;
  /** Reads the filter block (set by the reader at open). */
  filterPolicy: FilterPolicy = DEFAULT_FILTER_POLICY;

  constructor(
    file: RandomAccessFile,
    fileName: string | undefined,
    checksumType: number,
    limit: number,
    cache: LRUCache<Block> | undefined,
    cacheId: number,
    stats: Statistics | undefined,
    verifyChecksums: boolean,
    fillCache: boolean,
  ) {
    this.file = file;
    this.fileName = fileName;
    this.checksumType = checksumType;
    this.limit = limit;
    this.cache = cache;
    this.cacheId = cacheId;
    this.stats = stats;
    this.verifyChecksums = verifyChecksums;
    this.fillCache = fillCache;
    this.recycles = cache !== undefined && recyclesBlocks(cache);
    this.slotted = cache !== undefined && reportsEvictions(cache);
  }

  /**
   * The uncompressed contents of the block at `handle`, read from the file; in `blockMemory`
   * where the codec allows if `pooled` (see `decodedIntoPool`).
   */
  readRaw(
    handle: BlockHandle,
    verify = this.verifyChecksums,
    pooled = false,
    dict?: Uint8Array,
  ): Uint8Array {
    const stats = this.stats;
    const t0 = stats?.timersEnabled ? stats.now() : 0;
    const data = readBlock(
      this.file,
      this.limit,
      handle,
      this.fileName,
      this.checksumType,
      verify,
      this.expectCompressed,
      pooled,
      this.contextChecksum,
      dict,
    );
    if (stats !== undefined) {
      stats.tick(Ticker.BytesRead, handle.size + TableFormat.BLOCK_TRAILER_SIZE);
      stats.recordTime(Histogram.SstReadMicros, t0, 1000);
    }
    return data;
  }

  /**
   * The block at `handle` as stored: its bytes and 5-byte trailer (compression type,
   * checksum), unchecked. Corruption for a block past the blocks' region or a short read.
   */
  readStored(handle: BlockHandle): Uint8Array {
    const n = handle.size + TableFormat.BLOCK_TRAILER_SIZE;
    if (handle.offset + n > this.limit) {
      throw ShaleError.corruption(
        `block [${handle.offset}, ${handle.offset + n}) extends past the blocks (${this.limit} bytes)`,
        this.fileName,
        handle.offset,
      );
    }
    const out = new Uint8Array(n);
    const got = this.file.read(handle.offset, n, out, 0);
    if (got !== n) {
      throw ShaleError.corruption(
        `truncated block read: ${got} of ${n} bytes`,
        this.fileName,
        handle.offset,
      );
    }
    return out;
  }

  /** Reads and parses a key/value block (no cache). */
  readKeyValueBlock(handle: BlockHandle, verify = this.verifyChecksums): Block {
    return Block.keyValue(this.readRaw(handle, verify), this.fileName, handle.offset);
  }

  /** Reads and parses a data block (no cache): with the table's compression dictionary. */
  private readUncachedDataBlock(handle: BlockHandle, verify: boolean): Block {
    const data = this.readRaw(handle, verify, false, this.compressionDict);
    return Block.keyValue(data, this.fileName, handle.offset);
  }

  /**
   * Reads and parses an index block (no cache), rewritten into the classic form when it is
   * stored with user keys or delta-encoded values (index-block.ts), with its `IndexSearch` aid when
   * `indexSearch` (internal keys with bytewise user keys) and the block has enough entries.
   */
  readIndexBlock(handle: BlockHandle, indexSearch: boolean): Block {
    const raw = this.readRaw(handle, this.verifyChecksums);
    const data = normalizeIndexBlock(raw, this.indexEncoding, this.fileName, handle.offset);
    return Block.keyValue(data, this.fileName, handle.offset, indexSearch);
  }

  /** Reads and parses a filter block (no cache). */
  readFilterBlock(handle: BlockHandle, verify = this.verifyChecksums): Block {
    const data = this.readRaw(handle, verify);
    // Never throws for the contents (an unreadable filter answers "may match"), see filter-block.ts.
    const filter = openFilterBlock(data, this.fileName, handle.offset, this.filterPolicy);
    return Block.ofFilter(data, filter);
  }

  /** True if the cache took `block`. */
  private insert(offset: number, block: Block, priority: "high" | "low"): boolean {
    const cache = this.cache!;
    const stats = this.stats;
    const evicted = stats !== undefined ? cache.evictions : 0;
    const ref = cache.insertReferenced(this.cacheId, offset, block, block.charge, priority);
    const inserted = ref !== undefined;
    // Not cached: no eviction will hand the memory back, the GC owns it.
    if (!inserted) block.recyclable = false;
    else if (this.slotted) block.cacheRef = ref;
    if (stats !== undefined) {
      if (inserted) stats.tick(Ticker.BlockCacheAdd);
      const n = cache.evictions - evicted;
      if (n > 0) stats.tick(Ticker.BlockCacheEviction, n);
    }
    return inserted;
  }

  /**
   * Caches a data block made from contents already in memory (a table just written,
   * table-warm.ts), with priority "low", only if its shard has free room for it: never
   * evicts. True if the cache holds it afterwards. REQUIRES: a cache.
   */
  insertWarmed(offset: number, block: Block): boolean {
    const cache = this.cache!;
    if (!cache.hasRoomFor(this.cacheId, offset, block.charge)) return false;
    const evictions = cache.evictions;
    return this.insert(offset, block, "low") && cache.evictions === evictions;
  }

  /** The cached block at `offset`, or undefined (a miss). REQUIRES: a cache. */
  private lookup(offset: number): Block | undefined {
    const block = this.cache!.get(this.cacheId, offset);
    if (this.stats !== undefined) {
      this.stats.tick(block === undefined ? Ticker.BlockCacheMiss : Ticker.BlockCacheHit);
    }
    return block;
  }

  /** A data block: from the cache, else read (and inserted with priority "low" if `fill`). */
  dataBlock(handle: BlockHandle, fill: boolean, verify: boolean): Block {
    if (this.cache === undefined) return this.readUncachedDataBlock(handle, verify);
    return this.lookup(handle.offset) ?? this.readDataBlock(handle, fill, verify);
  }

  /** The data block at `offset` if the cache holds it (counting a hit or a miss), else undefined. */
  cachedDataBlock(offset: number): Block | undefined {
    return this.cache === undefined ? undefined : this.lookup(offset);
  }

  /**
   * The data block at `offset` if the cache holds it, ticking no block-cache statistic: the
   * shared block cache's miss path, which ticks its own, looks here before it reads the
   * file. The cache itself still counts the lookup in its hits or misses, and a block found
   * becomes its most recently used.
   */
  peekDataBlock(offset: number): Block | undefined {
    return this.cache === undefined ? undefined : this.cache.get(this.cacheId, offset);
  }

  /**
   * `cachedDataBlock` for the data block of entry `entry` of `index` (an index block with a
   * search aid), at `offset`. With a cache that reports evictions, a block found is also kept
   * in `index.dataSlots[entry]` until it leaves the cache (`Block.evict` empties the slot),
   * and a later hit reads it from there: one array read and a `touch` of its cache entry (a
   * hit, recency) instead of hashing the key and probing the cache's table and entry before
   * the block — one dependent memory miss fewer on the way to its bytes.
   */
  cachedDataBlockAt(index: Block, entry: number, offset: number): Block | undefined {
    if (!this.slotted) return this.cachedDataBlock(offset);
    const slots = index.dataSlots;
    if (slots !== undefined) {
      const block = slots[entry];
      if (block !== undefined) {
        if (this.cache!.touch(block.cacheRef!) !== undefined) {
          if (this.stats !== undefined) this.stats.tick(Ticker.BlockCacheHit);
          return block;
        }
        // Out of the cache without its eviction reported (not expected): forget it.
        slots[entry] = undefined;
        block.slots = undefined;
      }
    }
    const block = this.lookup(offset);
    if (block !== undefined) this.place(index, entry, block);
    return block;
  }

  /** Keeps `block`, cached for entry `entry` of the index block `index`, in that entry's slot. */
  private place(index: Block, entry: number, block: Block): void {
    if (block.cacheRef === undefined) return; // not in a cache that reports evictions
    const slots = index.dataSlotArray();
    const previous = block.slots;
    // A block moves when its index block was reloaded or its table reopened.
    if (previous !== undefined && previous[block.slot] === block) previous[block.slot] = undefined;
    block.slots = slots;
    block.slot = entry;
    slots[entry] = block;
  }

  /**
   * A data block for an iterator: from the cache, else as `readScanBlock`. Either way the
   * block continues (or restarts) `ra`'s sequence (see readahead.ts): a cached block counts.
   */
  scanDataBlock(handle: BlockHandle, fill: boolean, verify: boolean, ra: Readahead): Block {
    const offset = handle.offset;
    ra.follow(offset, offset + handle.size + TableFormat.BLOCK_TRAILER_SIZE);
    if (this.cache !== undefined) {
      const block = this.lookup(offset);
      if (block !== undefined) return block;
    }
    return this.readFollowedBlock(handle, fill, verify, ra);
  }

  /**
   * A data block for an iterator after a cache miss (the block continues or restarts `ra`'s
   * sequence): as `readFollowedBlock`.
   */
  readScanBlock(handle: BlockHandle, fill: boolean, verify: boolean, ra: Readahead): Block {
    const offset = handle.offset;
    ra.follow(offset, offset + handle.size + TableFormat.BLOCK_TRAILER_SIZE);
    return this.readFollowedBlock(handle, fill, verify, ra);
  }

  /**
   * A data block `ra` has followed, not in the cache: from `ra`'s region if it holds the
   * block, else read ahead (or behind, scanning backward) into a new region when this is the
   * iterator's third sequential block, else read as `readDataBlock`. A block from a region
   * is inserted into the cache (copied out of the region) if `fill` and the cache has room
   * for it without evicting. See readahead.ts.
   */
  private readFollowedBlock(
    handle: BlockHandle,
    fill: boolean,
    verify: boolean,
    ra: Readahead,
  ): Block {
    const offset = handle.offset;
    const n = handle.size + TableFormat.BLOCK_TRAILER_SIZE;
    if (!ra.covers(offset, n)) {
      if (ra.sequentialBlocks < SEQUENTIAL_READS_BEFORE_READAHEAD || offset + n > this.limit) {
        return this.readDataBlock(handle, fill, verify);
      }
      if (ra.direction > 0) {
        this.readAhead(ra, offset, Math.min(Math.max(ra.size, n), this.limit - offset));
      } else {
        const length = Math.min(Math.max(ra.size, n), offset + n);
        this.readAhead(ra, offset + n - length, length);
      }
    }
    // Blocks read ahead only fill free cache space: a scan longer than the cache must not
    // churn it (evicting the working set, copying and freeing every block). Free space in
    // the block's shard (the total can be below capacity with that shard full), for a charge
    // estimated before decoding (as `Block.charge`): twice the stored size when compressed.
    // A cached block gets memory of its own (a view would keep the whole region or slab
    // alive).
    const cache = this.cache;
    const charge = (this.expectCompressed ? 2 * n : n) + BLOCK_OVERHEAD;
    const fillCache = fill && cache?.hasRoomFor(this.cacheId, offset, charge) === true;
    // An int32 (a Smi): the handle's offset is a double (varint64), and a double here would
    // deoptimize decodeBlock and the checksum below it, optimized by gets for small ints.
    const pos = (offset - ra.regionStart) | 0;
    const slab = fillCache ? undefined : ra.blockSlab();
    const data = decodeBlock(
      ra.region,
      pos,
      handle,
      this.fileName,
      this.checksumType,
      verify,
      !fillCache,
      slab,
      fillCache && this.recycles,
      this.contextChecksum,
      this.compressionDict,
    );
    const pooled = decodedIntoPool();
    const block = Block.keyValue(data, this.fileName, offset);
    if (fillCache) {
      block.recyclable = pooled;
      this.insert(offset, block, "low");
    }
    return block;
  }

  /** Fills `ra` with a new region: file bytes [start, start + length); then doubles `ra.size`. */
  private readAhead(ra: Readahead, start: number, length: number): void {
    const region = ra.regionMemory(length);
    const stats = this.stats;
    const t0 = stats?.timersEnabled ? stats.now() : 0;
    const got = this.file.read(start, length, region, 0);
    if (got !== length) {
      throw ShaleError.corruption(
        `truncated read ahead: ${got} of ${length} bytes`,
        this.fileName,
        start,
      );
    }
    if (stats !== undefined) {
      stats.tick(Ticker.BytesRead, length);
      stats.recordTime(Histogram.SstReadMicros, t0, 1000);
    }
    ra.region = region;
    ra.regionStart = start;
    ra.size = Math.min(ra.size * 2, MAX_READAHEAD);
  }

  /**
   * Reads a data block from the file, inserting it into the cache (priority "low") if there
   * is one and `fill`. Use after `cachedDataBlock` missed; after `cachedDataBlockAt` missed,
   * pass its `index` and `entry`, so that the block cached goes in its slot.
   */
  readDataBlock(
    handle: BlockHandle,
    fill: boolean,
    verify: boolean,
    index?: Block,
    entry = 0,
  ): Block {
    if (!fill || this.cache === undefined) return this.readUncachedDataBlock(handle, verify);
    const recycles = this.recycles;
    const data = this.readRaw(handle, verify, recycles, this.compressionDict);
    const pooled = recycles && decodedIntoPool();
    const block = Block.keyValue(data, this.fileName, handle.offset);
    block.recyclable = pooled;
    this.insert(handle.offset, block, "low");
    if (index !== undefined) this.place(index, entry, block);
    return block;
  }

  /**
   * An index or filter block kept in the cache unpinned: looked up, else read with `read`
   * and inserted with priority "high". REQUIRES: a cache.
   */
  metaBlock(handle: BlockHandle, read: (handle: BlockHandle) => Block): Block {
    let block = this.lookup(handle.offset);
    if (block === undefined) {
      block = read(handle);
      this.insert(handle.offset, block, "high");
    }
    return block;
  }

  /**
   * An index or filter block at open, kept in the cache and pinned until `releasePinned`:
   * found in the cache (a reopened table), else read with `read` and inserted with priority
   * "high". A strict cache with no room leaves the block uncached (the caller holds it).
   * REQUIRES: a cache.
   */
  pinnedMetaBlock(handle: BlockHandle, read: (handle: BlockHandle) => Block): Block {
    const cache = this.cache!;
    const found = cache.lookup(this.cacheId, handle.offset);
    if (this.stats !== undefined) {
      this.stats.tick(found !== undefined ? Ticker.BlockCacheHit : Ticker.BlockCacheMiss);
    }
    if (found !== undefined) {
      this.pinned.push(found);
      return found.value;
    }
    const block = read(handle);
    const evicted = this.stats !== undefined ? cache.evictions : 0;
    try {
      this.pinned.push(cache.insert(this.cacheId, handle.offset, block, block.charge, "high"));
      if (this.stats !== undefined) {
        this.stats.tick(Ticker.BlockCacheAdd);
        const n = cache.evictions - evicted;
        if (n > 0) this.stats.tick(Ticker.BlockCacheEviction, n);
      }
    } catch (e) {
      if (!(ShaleError.isInstance(e) && e.code === "Incomplete")) throw e;
    }
    return block;
  }

  /** Releases the handles pinned by `pinnedMetaBlock`. Idempotent. */
  releasePinned(): void {
    for (const h of this.pinned) this.cache!.release(h);
    this.pinned.length = 0;
  }
}
