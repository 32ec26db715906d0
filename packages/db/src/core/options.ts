/**
 * Database options, their defaults (RocksDB's unless noted) and validation: `OPEN_OPTIONS`
 * is the table every option of `DB.open` is checked against (rules: validate.ts) — an
 * unknown name is InvalidArgument, a wrong type (null included) TypeError, a value out of
 * range InvalidArgument, each naming the option. The options of the other calls:
 * call-options.ts.
 */

import {
  bytewiseComparator,
  type Comparator,
  type FileSystem,
  NodeFileSystem,
  ShaleError,
  Statistics,
} from "@shale/base";
import { LRUCache, SharedBlockCache } from "@shale/block-cache";
import { MAX_BITS_PER_KEY, MIN_BITS_PER_KEY } from "@shale/bloom";
import {
  type Block,
  ChecksumType,
  type CompressionName,
  type DataBlockIndexTypeName,
  DEFAULT_COMPRESSION,
  FormatVersion,
  type IndexTypeName,
  newBlockCache,
  type PrefixExtractor,
  WRITTEN_COMPRESSIONS,
} from "@shale/sstable";
import { WalRecoveryMode } from "@shale/wal";
import { type CompactionFilterOption, LoadedCompactionFilter } from "./compaction-filter.js";
import {
  type CompactionStyle,
  checkStyleOptions,
  type FifoCompactionOptions,
  type RecordedCompactionStyle,
  type UniversalCompactionOptions,
} from "./compaction-style-options.js";
import { defaultBlockCacheSize } from "./default-block-cache.js";
import { checkListeners, type EventListener } from "./event-listeners.js";
import { type FilterPolicyOption, resolveFilterPolicyOption } from "./filter-policy-option.js";
import { machineMemory } from "./machine-memory.js";
import {
  DEFAULT_STRING_APPEND,
  type MergeOperator,
  resolveMergeOperator,
} from "./merge-operator.js";
import { RateLimiter, type RateLimiterOptions } from "./rate-limiter.js";
import {
  type ResolvedTransactionDBOptions,
  resolveTransactionDBOptions,
  type TransactionDBOptions,
} from "./transaction-options.js";
import { type Clock, systemClock } from "./ttl.js";
import type { ModuleExportOption } from "./user-module.js";
import { booleanRow, customRow, enumRow, integerRow, OptionTable } from "./validate.js";
import { WriteBufferManager } from "./write-buffer-manager.js";

const MERGE_OPERATOR_NAMES: readonly string[] = ["max", "uint64add", "stringappend"];

/** Block checksum types by option name (RocksDB's kCRC32c, kxxHash, kxxHash64, kXXH3). */
export const CHECKSUM_TYPES = Object.freeze({
  crc32c: ChecksumType.CRC32c,
  xxhash: ChecksumType.xxHash,
  xxhash64: ChecksumType.xxHash64,
  xxh3: ChecksumType.XXH3,
} as const);
export type ChecksumName = keyof typeof CHECKSUM_TYPES;

/** A background thread's CPU priority: the process's ("normal"), nice 10 ("low"), 19 ("idle"). */
export type CpuPriority = "normal" | "low" | "idle";

/**
 * Which new tables are read into the block cache as they are installed (RocksDB's
 * `prepopulate_block_cache`; "flushAndCompaction" is shale's own, see `DbOptions`).
 */
export type PrepopulateBlockCache = "disable" | "flushOnly" | "flushAndCompaction";

/**
 * The options of one column family (RocksDB's ColumnFamilyOptions): each family has its own
 * comparator and merge operator, memtables, table format and level shape. What is not given
 * is the database's (DbOptions) value. The comparator cannot change after the family is made.
 */
export type ColumnFamilyOptions = Pick<DbOptions, ColumnFamilyOptionName>;

/** The DbOptions a column family has its own value of. */
export const COLUMN_FAMILY_OPTION_NAMES = [
  "comparator",
  "mergeOperator",
  "compactionFilter",
  "ttl",
  "writeBufferSize",
  "maxWriteBufferNumber",
  "maxWriteBufferSizeToMaintain",
  "blockSize",
  "blockRestartInterval",
  "bloomBitsPerKey",
  "filterPolicy",
  "compression",
  "compressionPerLevel",
  "bottommostCompression",
  "zstdLevel",
  "zstdMaxDictBytes",
  "formatVersion",
  "checksum",
  "indexType",
  "partitionFilters",
  "dataBlockIndexType",
  "dataBlockHashTableUtilRatio",
  "metadataBlockSize",
  "prefixExtractor",
  "wholeKeyFiltering",
  "memtablePrefixBloomSizeRatio",
  "memtableWholeKeyFiltering",
  "prepopulateBlockCache",
  "level0FileNumCompactionTrigger",
  "level0SlowdownWritesTrigger",
  "level0StopWritesTrigger",
  "softPendingCompactionBytesLimit",
  "hardPendingCompactionBytesLimit",
  "maxBytesForLevelBase",
  "maxBytesForLevelMultiplier",
  "targetFileSizeBase",
  "disableAutoCompactions",
  "compactionStyle",
  "universal",
  "fifo",
] as const;
export type ColumnFamilyOptionName = (typeof COLUMN_FAMILY_OPTION_NAMES)[number];

export interface DbOptions {
  /**
   * Options of the column families by name (`default` included): an open opens every family
   * the directory has, each with its entry here or the database's options.
   */
  columnFamilies?: Record<string, ColumnFamilyOptions>;
  /** Create the families of `columnFamilies` the directory lacks. Default: false. */
  createMissingColumnFamilies?: boolean;
  /** Create the database if the directory holds none. Default: true. */
  createIfMissing?: boolean;
  /** Fail with InvalidArgument if a database already exists. Default: false. */
  errorIfExists?: boolean;
  /** Order of user keys; persisted by name. Default: bytewise. */
  comparator?: Comparator;
  /**
   * A MergeOperator, a built-in by name ("max", "uint64add", "stringappend"), or
   * `{ module, name }`: the export `name` of a module (a file URL or specifier) that is a
   * MergeOperator object — imported at open and by the worker threads, so that compactions
   * merging with it run there (an object given as such runs its compactions on the main
   * thread). Default: none.
   */
  mergeOperator?: MergeOperator | "max" | "uint64add" | "stringappend" | ModuleExportOption;
  /**
   * RocksDB's `compaction_filter`: `{ module, name }` naming an export
   * `(key, value, { level }) => undefined | false | true | Uint8Array` that compactions (not
   * flushes) show the newest value of each key to: keep, remove, or replace it. Imported at
   * open (InvalidArgument if the module or export is missing) and in the worker threads.
   * A filter that throws fails the compaction: a background error, nothing dropped. Which
   * entries it sees: core/compaction-filter.ts. Not recorded in OPTIONS. Default: none.
   */
  compactionFilter?: CompactionFilterOption;
  /**
   * RocksDB's DBWithTTL (`DBWithTTL::Open(options, dir, &db, ttl)`): seconds a value lives.
   * Each value and merge operand is stored with the 4-byte time it was written (core/ttl.ts,
   * docs/formats/ttl.md), stripped on reads; compactions drop values older than `ttl`
   * (`get` and iterators still return an expired value until a compaction drops it, as in
   * RocksDB). 0: the timestamps are kept and nothing expires. Recorded in OPTIONS as RocksDB
   * records it (`compaction_filter_factory={id=TtlCompactionFilterFactory;...}`), and an
   * open must agree with the file: a TTL family opened without `ttl`, or a family written
   * without TTL opened with it, is InvalidArgument. Not with `transactionDB`. Default: none.
   */
  ttl?: number;
  /**
   * The clock TTL reads (RocksDB's SystemClock): `{ nowSeconds() }`, integer seconds since
   * 1970. For tests (a fake clock) and simulations. Default: the system clock.
   */
  clock?: Clock;
  /** Bytes of memtable before it is switched for a new one. Default: 64 MiB. */
  writeBufferSize?: number;
  /** Memtables (mutable + immutable) before writes stop and wait for a flush. Default: 2. */
  maxWriteBufferNumber?: number;
  /**
   * RocksDB's `max_write_buffer_size_to_maintain`: bytes of memtables (mutable, immutable and
   * flushed ones kept) to keep in memory after they are flushed, only so that optimistic
   * transactions (and pessimistic ones with a snapshot) can still decide conflicts from them
   * instead of failing with `TryAgain` after a flush. The oldest kept memtable is dropped once
   * the total without it would still reach this. Reads never look at kept memtables. 0: none
   * kept; -1: `maxWriteBufferNumber * writeBufferSize`. Default: 0.
   */
  maxWriteBufferSizeToMaintain?: number;
  /**
   * A block cache to share between databases (`newBlockCache` of @shale/sstable; pass
   * `recycleBlocks: true` to reuse evicted blocks' memory, as the default cache does).
   * Default: a new recycling one of `blockCacheSize`.
   */
  blockCache?: LRUCache<Block>;
  /**
   * Bytes of the block cache made when `blockCache` is not given. Default: sized to the
   * machine, 1/16 of the memory the process can use (its container's limit, if lower) in
   * whole MiB, at least 32 MiB and at most 1 GiB (`shale.block-cache-capacity` tells).
   */
  blockCacheSize?: number;
  /**
   * A second block cache, for the data blocks of point lookups (`get`, `getMany`), shared
   * with every worker reader of the database (`openReader(db.readerHandle())`): one copy of
   * a block for all the threads, in SharedArrayBuffer slabs (`SharedBlockCache` of
   * @shale/block-cache), searched in place with no object per hit. true: one of
   * `blockCacheSize` bytes (the default size when not given); or pass a `SharedBlockCache`
   * (one per database: its keys are file numbers). Iterators, the index and filter blocks
   * keep using `blockCache`, so the two capacities add up. The role of RocksDB's one
   * `block_cache` shared by the threads of a process. Default: false (each reader thread
   * caches its own copy of the blocks it reads).
   */
  sharedBlockCache?: boolean | SharedBlockCache;
  /**
   * RocksDB's cache_index_and_filter_blocks: true keeps each table's index and filter blocks
   * in the block cache, charged to its capacity and pinned there while the table is open,
   * so `blockCacheSize` bounds them too; false holds them in the table reader, outside the
   * cache, which then keeps data blocks only (RocksDB's default, and db_bench's). With a
   * small cache over many keys the difference is room for data: at 5M keys the index and
   * filter of the tables are ~10 MB, a third of a 32 MiB cache. Default: true.
   */
  cacheIndexAndFilterBlocks?: boolean;
  /**
   * RocksDB's `prepopulate_block_cache`: "flushOnly" puts the data blocks of each table a
   * flush writes into the block cache when the table is installed, so that reads of freshly
   * written keys find them cached instead of reading, verifying and decompressing them from
   * the file; "flushAndCompaction" (a shale value: RocksDB has none such) warms compaction
   * outputs too. The flush or compaction keeps a copy of each data block it writes (up to
   * the cache's free room when it starts), a worker thread hands the copies over without a
   * copy (transferable buffers), and installing the table inserts them: the main thread
   * reads and decompresses nothing (a table whose blocks were not kept, such as one a
   * browser's nested worker wrote, is read back once, sequentially). Warming inserts only
   * into free cache space: it never evicts, and stops at the first block that does not fit.
   * Each block inserted counts in `BlockCacheAdd`.
   * Recorded in OPTIONS as `prepopulate_block_cache` (kDisable or kFlushOnly;
   * "flushAndCompaction" as kFlushOnly, the nearest value RocksDB reads).
   * Default: "flushAndCompaction" (RocksDB's is kDisable): reads right after a load then
   * find every block cached while the data fits the cache (at 5M keys, 482,548 block-cache
   * misses of db-bench's fill, reads and overwrite go to 0) for a fill that costs the main
   * thread no measurable CPU and a peak RSS 0-10 % higher (the blocks a compaction keeps
   * until it ends); docs/benchmarks/2026-12-07-read-after-load-5m.md. "disable" for a
   * process whose writes are not read soon, or that must keep the block cache for older data.
   */
  prepopulateBlockCache?: PrepopulateBlockCache;
  /** Uncompressed bytes per data block. Default: 4096. */
  blockSize?: number;
  /**
   * Keys between restart points of the data blocks (RocksDB's `block_restart_interval`): a
   * restart stores its key whole, the keys after it only what differs from the previous
   * one; seeks binary-search the restarts, then step. Smaller: faster seeks, larger blocks.
   * An integer >= 1. Tables of every interval are read whatever this says. Default: 16.
   */
  blockRestartInterval?: number;
  /**
   * Bloom filter bits per key (0 = no filter): shorthand for
   * `filterPolicy: { type: "bloom", bitsPerKey }`. 0 or a number in [1, 100]; fractions
   * are allowed and read to the thousandth as RocksDB does (9.9 bits/key is 9900 millibits,
   * recorded as `filter_policy=bloomfilter:9.9:false`). Default: 10.
   */
  bloomBitsPerKey?: number;
  /**
   * The tables' filter, RocksDB's `NewBloomFilterPolicy(bits)` or
   * `NewRibbonFilterPolicy(bits, bloomBeforeLevel)` as data:
   * `{ type: "ribbon", bitsPerKey: 10, bloomBeforeLevel: 0 }` (see filter-policy-option.ts).
   * Give this or `bloomBitsPerKey`, not both. Default: `{ type: "bloom", bitsPerKey: 10 }`.
   */
  filterPolicy?: FilterPolicyOption;
  /**
   * RocksDB's table format_version for new tables, 2-7: 5 is read by every RocksDB since 6.6;
   * 6 checksums the footer and mixes each block's offset into its checksum (so a misplaced
   * block fails like a damaged one; RocksDB 8.6+ reads it); 7 records the compression
   * manager in the properties (RocksDB 10.4+). Tables of every version are read whatever
   * this says. Default: 5.
   */
  formatVersion?: number;
  /**
   * Block checksum of new tables: "crc32c", "xxhash" (XXH32), "xxhash64" or "xxh3"
   * (RocksDB's default). Tables of every type are read whatever this says. Default:
   * "xxhash", the fastest to verify in JS.
   */
  checksum?: ChecksumName;
  /**
   * The index of the tables written (RocksDB's `index_type`): `"binarySearch"` one index
   * block per table; `"twoLevelIndex"` a partitioned index, partitions of about
   * `metadataBlockSize` bytes under a top-level block, read partition by partition through
   * the block cache (for tables whose index is too large to keep whole);
   * `"binarySearchWithFirstKey"` one block whose entries also carry each data block's first
   * key. Tables of every type are read whatever this says. Default: "binarySearch".
   */
  indexType?: IndexTypeName;
  /**
   * Partition each table's filter along its index partitions (RocksDB's `partition_filters`);
   * requires `indexType: "twoLevelIndex"`. Default: false.
   */
  partitionFilters?: boolean;
  /**
   * How a data block of the tables written finds a key (RocksDB's `data_block_index_type`):
   * `"binarySearch"` over its restart points; `"binaryAndHash"` also appends RocksDB's data
   * block hash index, which point lookups (`get`, `getMany`) use instead of the binary
   * search (a few bytes per key; written with the bytewise and reverse-bytewise comparators
   * only, as RocksDB does). Tables of either type are read whatever this says. The OPTIONS
   * file records it as `data_block_index_type`. Default: "binarySearch".
   */
  dataBlockIndexType?: DataBlockIndexTypeName;
  /**
   * Keys per bucket of the data block hash index (RocksDB's
   * `data_block_hash_table_util_ratio`), a finite number > 0. Default: 0.75.
   */
  dataBlockHashTableUtilRatio?: number;
  /** Target bytes of index and filter partitions (RocksDB's `metadata_block_size`). Default: 4096. */
  metadataBlockSize?: number;
  /**
   * RocksDB's `prefix_extractor`: `fixedPrefix(n)`, `cappedPrefix(n)` or your own
   * `{ name, transform(key), inDomain(key) }` (@shale/sstable's prefix-extractor.ts). New
   * tables add each key's prefix to their filter and record the name
   * (`rocksdb.prefix.extractor.name`); the OPTIONS file records it (`prefix_extractor=`);
   * iterators seek by prefix (read options `prefixSameAsStart`, `totalOrderSeek`,
   * `autoPrefixMode`): a seek skips the tables whose filter has not got the seek key's
   * prefix. A database whose OPTIONS name an extractor opens with that one when none is
   * given (a built-in one; another name is InvalidArgument). Flushes and compactions with
   * your own extractor run on the main thread. Not with `partitionFilters`. Default: none.
   */
  prefixExtractor?: PrefixExtractor;
  /**
   * RocksDB's `whole_key_filtering`: the tables' filters hold whole keys (for point
   * lookups). false with a `prefixExtractor` keeps only prefixes (a smaller filter, for
   * databases read by prefix seeks); point lookups then read every table whose key range
   * holds the key. Default: true.
   */
  wholeKeyFiltering?: boolean;
  /**
   * RocksDB's `memtable_prefix_bloom_size_ratio`: a Bloom filter in each memtable of
   * `writeBufferSize * ratio` bytes over the prefixes of `prefixExtractor` (and, with
   * `memtableWholeKeyFiltering`, the whole keys), asked by gets and prefix seeks before the
   * memtable is searched. A number in [0, 1]; above 0.25 counts as 0.25. 0: no filter.
   * Needs a `prefixExtractor` or `memtableWholeKeyFiltering` (else no filter). It pays where a
   * memtable get searches the tree (any comparator but the bytewise one: a missing key about
   * 5x faster); with the bytewise comparator the memtable's hash index answers a miss in one
   * probe already and the filter costs ~30% (docs/benchmarks/2026-12-06-memtable-bloom.md).
   * Default: 0.
   */
  memtablePrefixBloomSizeRatio?: number;
  /**
   * RocksDB's `memtable_whole_key_filtering`: the memtable filter holds whole keys, and gets
   * ask it by whole key (else by prefix). Only with `memtablePrefixBloomSizeRatio` > 0.
   * Default: false.
   */
  memtableWholeKeyFiltering?: boolean;
  /**
   * Block compression of new tables: "snappy", "lz4", "zstd" or "none" (the codecs shale
   * writes; every codec RocksDB writes except bzip2 and xpress is read). Default: "snappy".
   */
  compression?: CompressionName;
  /** The zstd level of new tables (RocksDB's `compression_opts.level`), -131072..22. Default: 3. */
  zstdLevel?: number;
  /**
   * Largest zstd dictionary of a new table, in bytes (RocksDB's
   * `compression_opts.max_dict_bytes`): raw content sampled from the table's data blocks,
   * stored in it as `rocksdb.compression_dict`, in the tables written zstd (`compression`,
   * `compressionPerLevel`, `bottommostCompression`); not with `partitionFilters`. It helps
   * small blocks of similar records; a table's blocks are held in memory until it is sampled.
   * Default: 0, no dictionary.
   */
  zstdMaxDictBytes?: number;
  /**
   * RocksDB's compression_per_level: the codec of tables written into each level, index =
   * level (flushes use entry 0); a list shorter than the levels repeats its last entry, an
   * empty list means `compression` everywhere. RocksDB's advice: "none" or "lz4" for L0/L1,
   * "lz4" below, with `bottommostCompression` "zstd" for the last level.
   * How tables' levels pick their codec: compaction/output-compression.ts. Default: [].
   */
  compressionPerLevel?: CompressionName[];
  /**
   * RocksDB's bottommost_compression: the codec of compaction outputs at or below the
   * deepest non-empty level (never of flushes), over `compressionPerLevel` and
   * `compression`. Default: none given (RocksDB's kDisableCompressionOption).
   */
  bottommostCompression?: CompressionName;
  /**
   * Compress the WAL (RocksDB's `wal_compression`): "zstd" stores each record as one zstd
   * frame after a SetCompressionType record (docs/formats/log.md), which RocksDB reads; a
   * compressed WAL is read whatever this option says. Default: "none".
   */
  walCompression?: "zstd" | "none";
  /**
   * RocksDB's WAL_ttl_seconds: with a value above 0, a WAL no longer needed for recovery is
   * moved into `archive/` under the database directory instead of being deleted, and kept
   * there until it is older than this many seconds (its modification time), so the change
   * feed (`db.getUpdatesSince`) can still read it. With `walSizeLimitMb` too, both limits
   * prune. Recorded in the OPTIONS file (`WAL_ttl_seconds`). Default: 0 (no archive by age).
   */
  walTtlSeconds?: number;
  /**
   * RocksDB's WAL_size_limit_MB: with a value above 0, obsolete WALs are archived as with
   * `walTtlSeconds`, and the oldest archived ones are deleted while the archive holds more
   * than this many MiB. Recorded in the OPTIONS file (`WAL_size_limit_MB`). Default: 0 (no
   * archive by size).
   */
  walSizeLimitMb?: number;
  /**
   * RocksDB's max_total_wal_size: with more than one column family, once the live WALs hold
   * more than this many bytes of records, the families whose unflushed data is in the oldest
   * live WAL flush (flush reason "WalFull"), so it can be deleted. Without it, a family
   * written rarely keeps every WAL since its last flush: they pile up on disk and every open
   * replays them all. 0 (the default): four times the memory all memtables may take, the sum
   * over the families of `writeBufferSize * maxWriteBufferNumber` (RocksDB's rule). Recorded
   * in the OPTIONS file (`max_total_wal_size`).
   */
  maxTotalWalSize?: number;
  /**
   * RocksDB's db_write_buffer_size: bytes of memtables of all column families together. Once
   * the mutable memtables take more than 7/8 of it, or all memtables (those still being
   * flushed too) all of it while the mutable ones take half, the family whose mutable
   * memtable is the oldest is flushed (flush reason "WriteBufferManager"; with `atomicFlush`,
   * every family). Each family's `writeBufferSize` still applies. 0: no budget. Not with
   * `writeBufferManager`. Recorded in the OPTIONS file (`db_write_buffer_size`); an open
   * that gives neither option takes the recorded value. Default: 0.
   */
  dbWriteBufferSize?: number;
  /**
   * A WriteBufferManager (RocksDB's write_buffer_manager) whose budget the memtables of this
   * database count toward, shared with the other databases given it; each database flushes
   * its own families by the rule of `dbWriteBufferSize`. Closing the database releases what
   * it charged. Not with `dbWriteBufferSize`. Default: none.
   */
  writeBufferManager?: WriteBufferManager;
  /**
   * Background threads for flushes and compactions; at most `maxBackgroundJobs - 1`
   * compactions run at once (at least 1), leaving room for a flush. Default: 2.
   */
  maxBackgroundJobs?: number;
  /**
   * CPU priority of the compaction worker threads (RocksDB's
   * `Env::LowerThreadPoolCPUPriority`): "low" is nice 10, "idle" nice 19, on Linux, where a
   * thread has its own. With two background jobs or more, one worker runs the flushes at
   * the process's priority and the others the compactions, so a lowered compaction gives
   * way to the writing thread and the flush rather than preempting them; a compaction that
   * then falls behind shows as L0 slowdowns. Ignored elsewhere and with one background job
   * (its worker flushes too). Default: "normal".
   */
  compactionCpuPriority?: CpuPriority;
  /**
   * Bounds the bytes per second that flushes and compactions write (RocksDB's
   * `rate_limiter`, `NewGenericRateLimiter`): a `RateLimiter` — one object may be shared by
   * several databases, bounding their sum — or `{ bytesPerSecond, refillPeriodMicros? }` for
   * one of this database's own. Compactions wait for their tokens; flushes are charged and
   * never wait (core/rate-limiter.ts). Jobs that run on the main thread (an in-memory file
   * system, a custom comparator) are charged without waiting. Counted in the statistics
   * (`RateLimitDelayMillis`, `NumberRateLimiterDrains`) and `shale.rate-limiter-*`
   * properties. Not written to OPTIONS (RocksDB does not write it either). Default: none.
   */
  rateLimiter?: RateLimiter | RateLimiterOptions;
  /** L0 files that trigger a compaction into L1. Default: 4. */
  level0FileNumCompactionTrigger?: number;
  /**
   * L0 files at which each write is slowed down (to 16 MiB/s of written bytes, RocksDB's
   * default delayed write rate). Raised to `level0FileNumCompactionTrigger` if below it
   * and not given. Default: 20.
   */
  level0SlowdownWritesTrigger?: number;
  /**
   * L0 files at which writes stop until compaction brings L0 below it. Raised to
   * `level0SlowdownWritesTrigger` if below it and not given. Default: 36.
   */
  level0StopWritesTrigger?: number;
  /**
   * RocksDB's `soft_pending_compaction_bytes_limit`: writes slow down (as over
   * `level0SlowdownWritesTrigger`) while the estimate of bytes compaction owes
   * (`shale.estimate-pending-compaction-bytes`; 0 under universal and FIFO) is at or over
   * this. 0: off. Default: 64 GiB.
   */
  softPendingCompactionBytesLimit?: number;
  /**
   * RocksDB's `hard_pending_compaction_bytes_limit`: writes stop while that estimate is at
   * or over this. 0: off. Default: 256 GiB.
   */
  hardPendingCompactionBytesLimit?: number;
  /** Byte target of L1; level n's is this x `maxBytesForLevelMultiplier`^(n-1). Default: 256 MiB. */
  maxBytesForLevelBase?: number;
  /** Growth of the byte target from one level to the next (> 1). Default: 10. */
  maxBytesForLevelMultiplier?: number;
  /** Size at which compaction output tables are cut. Default: 64 MiB. */
  targetFileSizeBase?: number;
  /**
   * No automatic compactions (and no L0 write stalls); `db.compactRange` still works.
   * Default: false.
   */
  disableAutoCompactions?: boolean;
  /**
   * RocksDB's compaction_style: "leveled" (L0 -> L1 -> ... by level targets), "universal"
   * (sorted runs merged by size amplification and size ratio; `universal` options) or
   * "fifo" (every table in L0, the oldest deleted beyond `fifo.maxTableFilesSize` or
   * `fifo.ttl`). Recorded in the OPTIONS file; an open that does not give it takes the
   * recorded one. A tree FIFO cannot take (tables below L0) is InvalidArgument.
   * Details: core/compaction-style-options.ts. Default: the recorded style, else "leveled".
   */
  compactionStyle?: CompactionStyle;
  /** RocksDB's compaction_options_universal (see compaction-style-options.ts). Default: RocksDB's. */
  universal?: UniversalCompactionOptions;
  /** RocksDB's compaction_options_fifo and FIFO's ttl (see compaction-style-options.ts). Default: RocksDB's. */
  fifo?: FifoCompactionOptions;
  /** Most tables kept open at once. Default: 1000. */
  maxOpenFiles?: number;
  /** Statistics: `true` for a new Statistics object, or your own. Default: off (costs nothing). */
  statistics?: boolean | Statistics;
  /** How WALs are read on open (a WalRecoveryMode value or its name). Default: PointInTime. */
  walRecoveryMode?: WalRecoveryMode | keyof typeof WalRecoveryMode;
  /**
   * RocksDB's paranoid_checks: on open, every table the MANIFEST names must exist with its
   * recorded size (else Corruption naming it), and WAL damage is handled strictly by
   * `walRecoveryMode`; false skips damaged WAL records whatever the mode. See
   * paranoid-checks.ts. Default: true.
   */
  paranoidChecks?: boolean;
  /**
   * Event listeners (RocksDB's `listeners`): objects with any of `onFlushCompleted`,
   * `onCompactionCompleted`, `onTableFileDeleted`, `onBackgroundError`,
   * `onStallConditionsChanged`, called on the main thread after the event, never inside a
   * database call; one that throws is reported, never fatal (core/event-listeners.ts).
   * Anything but an array of objects of functions: TypeError. Default: none.
   */
  listeners?: readonly EventListener[];
  /**
   * RocksDB's best_efforts_recovery: when the MANIFEST is damaged or names missing tables,
   * open the newest version whose tables all exist (possibly an older one, or an empty
   * database) instead of failing with Corruption; WALs are not replayed (as in RocksDB) and
   * this open deletes no file (the damaged MANIFEST, unreplayed WALs and tables outside the
   * version stay for repair). What was left out is in the property
   * `shale.best-efforts-recovery`. Default: false (strict).
   */
  bestEffortsRecovery?: boolean;
  /**
   * RocksDB's avoid_flush_during_recovery: the memtables a WAL replay rebuilds on open stay
   * in memory instead of being written to L0 before `open` returns. The last one (not full)
   * is the mutable memtable, taking the writes that follow, as RocksDB keeps its final
   * replayed memtable; the full ones before it are handed to the background flush (oldest
   * first, as if just switched out). Their WALs stay on disk until those memtables' flushes
   * install, so a crash meanwhile replays them again. Reads see the replayed data at once
   * either way. false (RocksDB's default) flushes them during open, which then deletes the
   * old WALs. Default: true (no flush on the open path: a 64 MiB WAL opened in about half the
   * CPU, and the reads after it find the recent data in memory, not in a cold L0 table).
   */
  avoidFlushDuringRecovery?: boolean;
  /**
   * RocksDB's atomic_flush: a flush — automatic, when any column family's memtable fills, or
   * `db.flush()` / a handle's flush — switches and flushes every family holding unflushed
   * data together, and writes their new versions to the MANIFEST as one atomic group, which
   * recovery applies whole or not at all. After a crash the families' flushed data is then
   * cut at the same write, even for writes with `disableWAL`. Recorded in the OPTIONS file
   * (`atomic_flush`); an open that does not give it takes the recorded value. Default: the
   * OPTIONS file's value, else false.
   */
  atomicFlush?: boolean;
  /**
   * Open read-only (RocksDB's OpenForReadOnly; secondary/follower.ts): no LOCK, nothing
   * written or deleted, WALs replayed into memory only; works beside a writer in another
   * process. Writes, flushes and compactions throw NotSupported. Default: false.
   */
  readOnly?: boolean;
  /**
   * Open as a TransactionDB (RocksDB's): every `db.beginTransaction()` is pessimistic (per-key
   * locks, lock timeout, optional deadlock detection; txn/), and plain writes refuse keys a
   * transaction holds locked. Default: none (transactions are optimistic).
   */
  transactionDB?: TransactionDBOptions;
  /** The file system. Default: the node file system. */
  fs?: FileSystem;
}

export interface ResolvedOptions {
  createIfMissing: boolean;
  errorIfExists: boolean;
  comparator: Comparator;
  mergeOperator: MergeOperator | undefined;
  compactionFilter: LoadedCompactionFilter | undefined;
  /** Seconds; undefined: not a TTL family. */
  ttl: number | undefined;
  clock: Clock;
  writeBufferSize: number;
  maxWriteBufferNumber: number;
  /** Bytes (resolved: -1 became maxWriteBufferNumber * writeBufferSize). */
  maxWriteBufferSizeToMaintain: number;
  blockCache: LRUCache<Block>;
  /** The shared cache for point lookups' data blocks; undefined: none. */
  sharedBlockCache: SharedBlockCache | undefined;
  cacheIndexAndFilterBlocks: boolean;
  prepopulateBlockCache: PrepopulateBlockCache;
  blockSize: number;
  blockRestartInterval: number;
  /** Bloom bits per key of a Bloom policy; 0 for none or Ribbon. */
  bloomBitsPerKey: number;
  /** The filter policy; undefined: no filter. */
  filterPolicy: Required<FilterPolicyOption> | undefined;
  compression: CompressionName;
  formatVersion: number;
  checksum: ChecksumName;
  indexType: IndexTypeName;
  partitionFilters: boolean;
  /** As given (undefined: the OPTIONS file's, else "binarySearch"; open/recovery.ts resolves). */
  dataBlockIndexType: DataBlockIndexTypeName | undefined;
  /** As given (undefined: the OPTIONS file's, else 0.75). */
  dataBlockHashTableUtilRatio: number | undefined;
  metadataBlockSize: number;
  prefixExtractor: PrefixExtractor | undefined;
  wholeKeyFiltering: boolean;
  memtablePrefixBloomSizeRatio: number;
  memtableWholeKeyFiltering: boolean;
  /** Empty when not given. */
  compressionPerLevel: readonly CompressionName[];
  bottommostCompression: CompressionName | undefined;
  zstdLevel: number;
  zstdMaxDictBytes: number;
  walCompression: "zstd" | "none";
  walTtlSeconds: number;
  walSizeLimitMb: number;
  maxTotalWalSize: number;
  /**
   * The budget's bytes (`dbWriteBufferSize`, or the manager's); 0: none; undefined: neither
   * option given, the open takes the OPTIONS file's (open/recovery.ts).
   */
  dbWriteBufferSize: number | undefined;
  /** The manager the memtables charge (`dbWriteBufferSize` makes one); undefined: none. */
  writeBufferManager: WriteBufferManager | undefined;
  maxBackgroundJobs: number;
  compactionCpuPriority: CpuPriority;
  rateLimiter: RateLimiter | undefined;
  level0FileNumCompactionTrigger: number;
  level0SlowdownWritesTrigger: number;
  level0StopWritesTrigger: number;
  softPendingCompactionBytesLimit: number;
  hardPendingCompactionBytesLimit: number;
  maxBytesForLevelBase: number;
  maxBytesForLevelMultiplier: number;
  targetFileSizeBase: number;
  disableAutoCompactions: boolean;
  /** As given (undefined: the OPTIONS file's, else leveled); compaction-style-options.ts resolves. */
  compactionStyle: CompactionStyle | undefined;
  universal: UniversalCompactionOptions | undefined;
  fifo: FifoCompactionOptions | undefined;
  /** What the family's OPTIONS file recorded of the style (set by the open). */
  recordedCompaction?: RecordedCompactionStyle | undefined;
  maxOpenFiles: number;
  statistics: Statistics | undefined;
  walRecoveryMode: WalRecoveryMode;
  paranoidChecks: boolean;
  listeners: readonly EventListener[];
  bestEffortsRecovery: boolean;
  avoidFlushDuringRecovery: boolean;
  /** Undefined until the open resolves it from the OPTIONS file (open/recovery.ts). */
  atomicFlush: boolean | undefined;
  readOnly: boolean;
  transactionDB: ResolvedTransactionDBOptions | undefined;
  fs: FileSystem;
  columnFamilies: Readonly<Record<string, ColumnFamilyOptions>>;
  createMissingColumnFamilies: boolean;
}

/**
 * The options of column family `name`: the database's, with the family's own from
 * `cf` (default: `options.columnFamilies[name]`) over them. Checked as DB.open checks them.
 */
export function resolveColumnFamilyOptions(
  options: ResolvedOptions,
  name: string,
  cf: ColumnFamilyOptions | undefined = options.columnFamilies[name],
): ResolvedOptions {
  if (cf === undefined) return options;
  const own = resolveOptions({
    // partitionFilters is checked against the index type the family will have.
    indexType: options.indexType,
    // maxWriteBufferSizeToMaintain -1 resolves against the family's memtable sizes.
    writeBufferSize: options.writeBufferSize,
    maxWriteBufferNumber: options.maxWriteBufferNumber,
    ...cf,
    blockCache: options.blockCache,
    sharedBlockCache: options.sharedBlockCache ?? false,
    fs: options.fs,
  } as DbOptions);
  const out: ResolvedOptions = { ...options };
  const given = cf as Record<string, unknown>;
  for (const k of COLUMN_FAMILY_OPTION_NAMES)
    if (given[k] !== undefined || k.startsWith("level0"))
      (out as unknown as Record<string, unknown>)[k] = (own as unknown as Record<string, unknown>)[
        k
      ];
  if (
    cf.level0FileNumCompactionTrigger === undefined &&
    cf.level0SlowdownWritesTrigger === undefined &&
    cf.level0StopWritesTrigger === undefined
  ) {
    out.level0FileNumCompactionTrigger = options.level0FileNumCompactionTrigger;
    out.level0SlowdownWritesTrigger = options.level0SlowdownWritesTrigger;
    out.level0StopWritesTrigger = options.level0StopWritesTrigger;
  }
  // One filter: a family's bloomBitsPerKey or filterPolicy replaces the database's both.
  if (cf.bloomBitsPerKey !== undefined || cf.filterPolicy !== undefined) {
    out.bloomBitsPerKey = own.bloomBitsPerKey;
    out.filterPolicy = own.filterPolicy;
  }
  if (out.partitionFilters && out.indexType !== "twoLevelIndex") {
    throw ShaleError.invalidArgument(
      `column family ${JSON.stringify(name)}: partitionFilters requires indexType "twoLevelIndex"; got "${out.indexType}"`,
    );
  }
  if (out.partitionFilters && out.prefixExtractor !== undefined) {
    throw ShaleError.notSupported(
      `column family ${JSON.stringify(name)}: prefixExtractor with partitionFilters is not supported`,
    );
  }
  if (out.partitionFilters && out.zstdMaxDictBytes > 0) {
    throw ShaleError.notSupported(
      `column family ${JSON.stringify(name)}: zstdMaxDictBytes with partitionFilters is not supported`,
    );
  }
  return out;
}

/** `bloomBitsPerKey` and `filterPolicy` resolved (InvalidArgument when both are given). */
function resolvedFilter(o: DbOptions): Pick<ResolvedOptions, "bloomBitsPerKey" | "filterPolicy"> {
  if (o.filterPolicy === undefined) {
    const bits = o.bloomBitsPerKey ?? 10;
    return {
      bloomBitsPerKey: bits,
      filterPolicy: bits > 0 ? { type: "bloom", bitsPerKey: bits, bloomBeforeLevel: 0 } : undefined,
    };
  }
  if (o.bloomBitsPerKey !== undefined) {
    throw ShaleError.invalidArgument("give filterPolicy or bloomBitsPerKey, not both");
  }
  const policy = resolveFilterPolicyOption(o.filterPolicy);
  return { bloomBitsPerKey: policy.type === "bloom" ? policy.bitsPerKey : 0, filterPolicy: policy };
}

/** The FileSystem methods an `options.fs` must have. */
const FILE_SYSTEM_METHODS = [
  "openWritable",
  "openRandomAccess",
  "openSequential",
  "readFile",
  "writeFile",
  "exists",
  "fileSize",
  "rename",
  "remove",
  "truncate",
  "list",
  "mkdir",
  "syncDir",
  "lock",
] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** Own names of WalRecoveryMode ("toString" and other inherited names are not modes). */
const WAL_MODE_NAMES = Object.keys(WalRecoveryMode);
const WAL_MODE_VALUES: readonly number[] = Object.values(WalRecoveryMode);

/**
 * The open options, one row each (rules: validate.ts). Defaults and cross-option rules are
 * in `resolveOptions`.
 */
export const OPEN_OPTIONS = new OptionTable("options", [
  booleanRow("createIfMissing"),
  booleanRow("errorIfExists"),
  customRow(
    "comparator",
    "a Comparator (an object with compare() and a string name)",
    (v) => isObject(v) && typeof v["compare"] === "function" && typeof v["name"] === "string",
  ),
  customRow(
    "compactionFilter",
    "an object { module: a file URL or specifier, name: the export }",
    (v) => v instanceof LoadedCompactionFilter,
  ),
  integerRow("ttl", 0, 2 ** 31 - 1),
  customRow(
    "clock",
    "a clock (an object with nowSeconds())",
    (v) => isObject(v) && typeof v["nowSeconds"] === "function",
  ),
  customRow(
    "mergeOperator",
    'a MergeOperator, "max", "uint64add", "stringappend" or { module, name }',
    (v) =>
      typeof v === "string" ||
      (isObject(v) && typeof v["fullMerge"] === "function" && typeof v["name"] === "string"),
    (v: unknown) =>
      typeof v !== "string" || MERGE_OPERATOR_NAMES.includes(v)
        ? undefined
        : `is an unknown merge operator (built-ins: ${MERGE_OPERATOR_NAMES.join(", ")})`,
  ),
  integerRow("writeBufferSize", 64 * 1024),
  integerRow("maxWriteBufferNumber", 2),
  integerRow("maxWriteBufferSizeToMaintain", -1),
  customRow("blockCache", "an LRUCache from @shale/block-cache", (v) => v instanceof LRUCache),
  integerRow("blockCacheSize", 0),
  customRow(
    "sharedBlockCache",
    "a boolean or a SharedBlockCache from @shale/block-cache",
    (v) => typeof v === "boolean" || v instanceof SharedBlockCache,
  ),
  booleanRow("cacheIndexAndFilterBlocks"),
  enumRow("prepopulateBlockCache", ["disable", "flushOnly", "flushAndCompaction"]),
  integerRow("blockSize", 256, 2 ** 31 - 1),
  integerRow("blockRestartInterval", 1, 2 ** 31 - 1),
  customRow(
    "bloomBitsPerKey",
    "a number",
    (v) => typeof v === "number",
    (v: number) =>
      v === 0 || (v >= MIN_BITS_PER_KEY && v <= MAX_BITS_PER_KEY)
        ? undefined
        : `must be 0 (no filter) or a number in [${MIN_BITS_PER_KEY}, ${MAX_BITS_PER_KEY}] (fractions allowed, read to 1/1000)`,
  ),
  customRow(
    "filterPolicy",
    'an object { type: "bloom" | "ribbon", bitsPerKey?, bloomBeforeLevel? }',
    isObject,
  ),
  integerRow("formatVersion", FormatVersion.MIN_READ, FormatVersion.LATEST),
  enumRow("checksum", Object.keys(CHECKSUM_TYPES)),
  enumRow("indexType", ["binarySearch", "twoLevelIndex", "binarySearchWithFirstKey"]),
  booleanRow("partitionFilters"),
  enumRow("dataBlockIndexType", ["binarySearch", "binaryAndHash"]),
  customRow(
    "dataBlockHashTableUtilRatio",
    "a number",
    (v) => typeof v === "number",
    (v: number) => (v > 0 && Number.isFinite(v) ? undefined : "must be a finite number > 0"),
  ),
  integerRow("metadataBlockSize", 1, 2 ** 31 - 1),
  customRow(
    "prefixExtractor",
    "a prefix extractor (fixedPrefix(n), cappedPrefix(n), or { name, transform(key), inDomain(key) })",
    (v) =>
      isObject(v) &&
      typeof v["name"] === "string" &&
      typeof v["transform"] === "function" &&
      typeof v["inDomain"] === "function",
    (v: PrefixExtractor) =>
      v.name === "" || v.name === "nullptr" ? 'must have a name (not "" or "nullptr")' : undefined,
  ),
  booleanRow("wholeKeyFiltering"),
  customRow(
    "memtablePrefixBloomSizeRatio",
    "a number",
    (v) => typeof v === "number",
    (v: number) => (v >= 0 && v <= 1 ? undefined : "must be a number in [0, 1]"),
  ),
  booleanRow("memtableWholeKeyFiltering"),
  enumRow("compression", WRITTEN_COMPRESSIONS),
  customRow(
    "compressionPerLevel",
    "an array of compression names (strings)",
    (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
    (v: readonly string[]) => {
      const bad = v.findIndex((x) => !(WRITTEN_COMPRESSIONS as readonly string[]).includes(x));
      return bad < 0
        ? undefined
        : `entry [${bad}] is ${JSON.stringify(v[bad])}, not a compression shale writes (${WRITTEN_COMPRESSIONS.map((x) => `"${x}"`).join(", ")})`;
    },
  ),
  enumRow("bottommostCompression", WRITTEN_COMPRESSIONS),
  integerRow("zstdLevel", -131072, 22),
  integerRow("zstdMaxDictBytes", 0, 2 ** 31 - 1),
  enumRow("walCompression", ["zstd", "none"]),
  integerRow("walTtlSeconds", 0),
  integerRow("walSizeLimitMb", 0),
  integerRow("maxTotalWalSize", 0),
  integerRow("dbWriteBufferSize", 0),
  customRow("writeBufferManager", "a WriteBufferManager", (v) => v instanceof WriteBufferManager),
  integerRow("maxBackgroundJobs", 1, 256),
  enumRow("compactionCpuPriority", ["normal", "low", "idle"]),
  customRow(
    "rateLimiter",
    "a RateLimiter or an object { bytesPerSecond: number, refillPeriodMicros?: number }",
    (v) =>
      v instanceof RateLimiter ||
      (isObject(v) &&
        typeof v["bytesPerSecond"] === "number" &&
        (v["refillPeriodMicros"] === undefined || typeof v["refillPeriodMicros"] === "number")),
    (v: RateLimiter | RateLimiterOptions) => {
      if (v instanceof RateLimiter) return undefined;
      for (const k of Object.keys(v))
        if (k !== "bytesPerSecond" && k !== "refillPeriodMicros" && k !== "clock")
          return `.${k} is an unknown option (rateLimiter takes bytesPerSecond, refillPeriodMicros)`;
      const ok = (n: number | undefined) => n === undefined || (Number.isFinite(n) && n > 0);
      if (!ok(v.bytesPerSecond)) return ".bytesPerSecond must be a finite number > 0";
      if (!ok(v.refillPeriodMicros)) return ".refillPeriodMicros must be a finite number > 0";
      return undefined;
    },
  ),
  integerRow("level0FileNumCompactionTrigger", 1),
  integerRow("level0SlowdownWritesTrigger", 1),
  integerRow("level0StopWritesTrigger", 1),
  integerRow("softPendingCompactionBytesLimit", 0),
  integerRow("hardPendingCompactionBytesLimit", 0),
  integerRow("maxBytesForLevelBase", 1),
  customRow(
    "maxBytesForLevelMultiplier",
    "a number",
    (v) => typeof v === "number",
    (v: number) => (Number.isFinite(v) && v > 1 ? undefined : "must be a finite number > 1"),
  ),
  integerRow("targetFileSizeBase", 1),
  booleanRow("disableAutoCompactions"),
  enumRow("compactionStyle", ["leveled", "universal", "fifo"]),
  customRow(
    "universal",
    "an object of universal compaction options",
    (v) => isObject(v) && !Array.isArray(v),
    (v: unknown) => {
      checkStyleOptions("universal", v);
      return undefined;
    },
  ),
  customRow(
    "fifo",
    "an object of FIFO compaction options",
    (v) => isObject(v) && !Array.isArray(v),
    (v: unknown) => {
      checkStyleOptions("fifo", v);
      return undefined;
    },
  ),
  integerRow("maxOpenFiles", 16),
  customRow(
    "statistics",
    "a boolean or a Statistics",
    (v) => typeof v === "boolean" || v instanceof Statistics,
  ),
  customRow(
    "listeners",
    "an array of objects whose onFlushCompleted, onCompactionCompleted, onTableFileDeleted, onBackgroundError, onStallConditionsChanged are functions",
    (v) => {
      try {
        checkListeners(v);
        return true;
      } catch {
        return false;
      }
    },
  ),
  customRow(
    "walRecoveryMode",
    `a WalRecoveryMode value or name (${WAL_MODE_NAMES.join(", ")})`,
    (v) => typeof v === "number" || typeof v === "string",
    (v: number | string) =>
      (typeof v === "string" ? WAL_MODE_NAMES.includes(v) : WAL_MODE_VALUES.includes(v))
        ? undefined
        : `must be one of ${WAL_MODE_NAMES.map((n) => `${n} (${WalRecoveryMode[n as keyof typeof WalRecoveryMode]})`).join(", ")}`,
  ),
  booleanRow("paranoidChecks"),
  booleanRow("bestEffortsRecovery"),
  booleanRow("avoidFlushDuringRecovery"),
  booleanRow("atomicFlush"),
  booleanRow("readOnly"),
  customRow("transactionDB", "an object", (v) => typeof v === "object" && v !== null),
  customRow(
    "columnFamilies",
    "an object of column family name -> options",
    (v) => isObject(v),
    (v: Record<string, unknown>) => {
      for (const [name, o] of Object.entries(v)) {
        if (!isObject(o)) return `["${name}"] must be an object`;
        for (const k of Object.keys(o))
          if (!(COLUMN_FAMILY_OPTION_NAMES as readonly string[]).includes(k))
            return `["${name}"].${k} is not a column family option`;
      }
      return undefined;
    },
  ),
  booleanRow("createMissingColumnFamilies"),
  customRow(
    "fs",
    "a FileSystem (from @shale/base, or an object with its methods)",
    (v) => isObject(v) && FILE_SYSTEM_METHODS.every((m) => typeof v[m] === "function"),
  ),
]);

/**
 * The L0 triggers, in RocksDB's order: trigger <= slowdown <= stop. A trigger left at its
 * default is raised to the one below it; two given out of order are InvalidArgument.
 */
function level0Triggers(options: DbOptions): [number, number, number] {
  const trigger = options.level0FileNumCompactionTrigger ?? 4;
  let slowdown = options.level0SlowdownWritesTrigger ?? 20;
  let stop = options.level0StopWritesTrigger ?? 36;
  if (slowdown < trigger) {
    if (options.level0SlowdownWritesTrigger !== undefined)
      throw ShaleError.invalidArgument(
        "options.level0SlowdownWritesTrigger must be >= level0FileNumCompactionTrigger",
      );
    slowdown = trigger;
  }
  if (stop < slowdown) {
    if (options.level0StopWritesTrigger !== undefined)
      throw ShaleError.invalidArgument(
        "options.level0StopWritesTrigger must be >= level0SlowdownWritesTrigger",
      );
    stop = slowdown;
  }
  return [trigger, slowdown, stop];
}

/** Validates `options` (OPEN_OPTIONS) and fills in the defaults. */
export function resolveOptions(options: DbOptions = {}): ResolvedOptions {
  OPEN_OPTIONS.check(options);
  const o = options;
  const statistics =
    o.statistics === true ? new Statistics() : o.statistics === false ? undefined : o.statistics;
  const m = o.walRecoveryMode;
  const walRecoveryMode =
    m === undefined ? WalRecoveryMode.PointInTime : typeof m === "string" ? WalRecoveryMode[m] : m;
  const [trigger, slowdown, stop] = level0Triggers(o);
  const indexType = o.indexType ?? "binarySearch";
  const minShared = SharedBlockCache.MIN_CAPACITY;
  if (
    o.sharedBlockCache === true &&
    o.blockCacheSize !== undefined &&
    o.blockCacheSize < minShared
  ) {
    throw ShaleError.invalidArgument(
      `options.sharedBlockCache true makes a cache of blockCacheSize bytes, at least ${minShared}: got ${o.blockCacheSize} (pass sharedBlockCache false for no shared cache)`,
    );
  }
  if (o.partitionFilters === true && indexType !== "twoLevelIndex") {
    throw ShaleError.invalidArgument(
      `options.partitionFilters requires options.indexType "twoLevelIndex"; got "${indexType}"`,
    );
  }
  if (o.partitionFilters === true && o.prefixExtractor !== undefined) {
    throw ShaleError.notSupported(
      "options.prefixExtractor with options.partitionFilters is not supported (prefix filters are written into full filters)",
    );
  }
  if (o.dbWriteBufferSize !== undefined && o.writeBufferManager !== undefined)
    throw ShaleError.invalidArgument(
      "give options.dbWriteBufferSize or options.writeBufferManager, not both",
    );
  if (o.ttl !== undefined && o.transactionDB !== undefined)
    throw ShaleError.notSupported("options.ttl with options.transactionDB is not supported");
  if (o.partitionFilters === true && (o.zstdMaxDictBytes ?? 0) > 0) {
    throw ShaleError.notSupported(
      "options.zstdMaxDictBytes with options.partitionFilters is not supported (a dictionary holds data blocks back from the filter partitions)",
    );
  }
  return {
    createIfMissing: o.createIfMissing ?? true,
    errorIfExists: o.errorIfExists ?? false,
    comparator: o.comparator ?? bytewiseComparator,
    mergeOperator:
      o.mergeOperator === "stringappend"
        ? DEFAULT_STRING_APPEND
        : resolveMergeOperator(o.mergeOperator as MergeOperator | string | undefined),
    compactionFilter: o.compactionFilter as LoadedCompactionFilter | undefined,
    ttl: o.ttl,
    clock: o.clock ?? systemClock,
    writeBufferSize: o.writeBufferSize ?? 64 * 1024 * 1024,
    maxWriteBufferNumber: o.maxWriteBufferNumber ?? 2,
    maxWriteBufferSizeToMaintain:
      o.maxWriteBufferSizeToMaintain === -1
        ? (o.maxWriteBufferNumber ?? 2) * (o.writeBufferSize ?? 64 * 1024 * 1024)
        : (o.maxWriteBufferSizeToMaintain ?? 0),
    blockCache:
      o.blockCache ??
      newBlockCache(o.blockCacheSize ?? defaultBlockCacheSize(machineMemory()), {
        recycleBlocks: true,
      }),
    sharedBlockCache:
      o.sharedBlockCache === true
        ? SharedBlockCache.create(o.blockCacheSize ?? defaultBlockCacheSize(machineMemory()))
        : o.sharedBlockCache === false
          ? undefined
          : o.sharedBlockCache,
    cacheIndexAndFilterBlocks: o.cacheIndexAndFilterBlocks ?? true,
    prepopulateBlockCache: o.prepopulateBlockCache ?? "flushAndCompaction",
    blockSize: o.blockSize ?? 4096,
    blockRestartInterval: o.blockRestartInterval ?? 16,
    ...resolvedFilter(o),
    compression: o.compression ?? DEFAULT_COMPRESSION,
    formatVersion: o.formatVersion ?? FormatVersion.DEFAULT,
    checksum: o.checksum ?? "xxhash",
    indexType,
    partitionFilters: o.partitionFilters ?? false,
    dataBlockIndexType: o.dataBlockIndexType,
    dataBlockHashTableUtilRatio: o.dataBlockHashTableUtilRatio,
    metadataBlockSize: o.metadataBlockSize ?? 4096,
    prefixExtractor: o.prefixExtractor,
    wholeKeyFiltering: o.wholeKeyFiltering ?? true,
    memtablePrefixBloomSizeRatio: o.memtablePrefixBloomSizeRatio ?? 0,
    memtableWholeKeyFiltering: o.memtableWholeKeyFiltering ?? false,
    compressionPerLevel: Object.freeze([...(o.compressionPerLevel ?? [])]),
    bottommostCompression: o.bottommostCompression,
    zstdLevel: o.zstdLevel ?? 3,
    zstdMaxDictBytes: o.zstdMaxDictBytes ?? 0,
    walCompression: o.walCompression ?? "none",
    walTtlSeconds: o.walTtlSeconds ?? 0,
    walSizeLimitMb: o.walSizeLimitMb ?? 0,
    maxTotalWalSize: o.maxTotalWalSize ?? 0,
    dbWriteBufferSize: o.writeBufferManager?.bufferSize ?? o.dbWriteBufferSize,
    writeBufferManager:
      o.writeBufferManager ??
      (o.dbWriteBufferSize !== undefined && o.dbWriteBufferSize > 0
        ? new WriteBufferManager(o.dbWriteBufferSize)
        : undefined),
    maxBackgroundJobs: o.maxBackgroundJobs ?? 2,
    compactionCpuPriority: o.compactionCpuPriority ?? "normal",
    rateLimiter:
      o.rateLimiter === undefined || o.rateLimiter instanceof RateLimiter
        ? o.rateLimiter
        : new RateLimiter(o.rateLimiter),
    level0FileNumCompactionTrigger: trigger,
    level0SlowdownWritesTrigger: slowdown,
    level0StopWritesTrigger: stop,
    softPendingCompactionBytesLimit: o.softPendingCompactionBytesLimit ?? 64 * 2 ** 30,
    hardPendingCompactionBytesLimit: o.hardPendingCompactionBytesLimit ?? 256 * 2 ** 30,
    maxBytesForLevelBase: o.maxBytesForLevelBase ?? 256 * 1024 * 1024,
    maxBytesForLevelMultiplier: o.maxBytesForLevelMultiplier ?? 10,
    targetFileSizeBase: o.targetFileSizeBase ?? 64 * 1024 * 1024,
    disableAutoCompactions: o.disableAutoCompactions ?? false,
    compactionStyle: o.compactionStyle,
    universal: o.universal === undefined ? undefined : { ...o.universal },
    fifo: o.fifo === undefined ? undefined : { ...o.fifo },
    maxOpenFiles: o.maxOpenFiles ?? 1000,
    statistics,
    walRecoveryMode,
    paranoidChecks: o.paranoidChecks ?? true,
    listeners: o.listeners ?? [],
    bestEffortsRecovery: o.bestEffortsRecovery ?? false,
    avoidFlushDuringRecovery: o.avoidFlushDuringRecovery ?? true,
    atomicFlush: o.atomicFlush,
    readOnly: o.readOnly ?? false,
    columnFamilies: o.columnFamilies ?? {},
    createMissingColumnFamilies: o.createMissingColumnFamilies ?? false,
    transactionDB:
      o.transactionDB === undefined ? undefined : resolveTransactionDBOptions(o.transactionDB),
    fs: o.fs ?? new NodeFileSystem(),
  };
}

export type { FlushOptions, IteratorOptions, ReadOptions, WriteOptions } from "./call-options.js";
