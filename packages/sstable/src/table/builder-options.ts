/**
 * TableBuilder options: their defaults and validation.
 */
import { bytewiseComparator, type Comparator, ShaleError } from "@shale/base";
import { BloomFilterPolicy } from "@shale/bloom";
import {
  checkDataBlockIndexType,
  checkHashUtilRatio,
  type DataBlockIndexTypeName,
  DEFAULT_HASH_UTIL_RATIO,
} from "../block/data-block-hash-index.js";
import {
  type CompressionName,
  compressionTypeOf,
  DEFAULT_COMPRESSION,
  DEFAULT_ZSTD_LEVEL,
} from "../compression/compression.js";
import {
  checkFilterPolicy,
  DEFAULT_FILTER_POLICY,
  type FilterBuildingContext,
  type FilterPolicy,
} from "../filter/filter-policy.js";
import {
  ChecksumType,
  FormatVersion,
  IndexType,
  isChecksumType,
  usesContextChecksum,
} from "../format/format.js";
import { checkPrefixExtractor, type PrefixExtractor } from "./prefix-extractor.js";

/** Collects user properties while a table is built (RocksDB's TablePropertiesCollector). */
export interface TablePropertiesCollector {
  /** Called for every point entry, in order. `internalKey` and `value` are views: copy to keep. */
  add(internalKey: Uint8Array, value: Uint8Array): void;
  /** Called once by `finish`; the returned names and values go into `properties.user`. */
  finish(): Record<string, string>;
}

export interface TableBuilderOptions {
  /** Order of user keys. Default: `bytewiseComparator`. */
  comparator?: Comparator;
  /** Target uncompressed size of a data block in bytes. Default: 4096. */
  blockSize?: number;
  /** Entries between restart points in data blocks. Default: 16. */
  blockRestartInterval?: number;
  /**
   * How a data block finds a key (RocksDB's `data_block_index_type`): `"binarySearch"` over
   * its restart array; `"binaryAndHash"` also appends RocksDB's data block hash index
   * (data-block-hash-index.ts), which point lookups use instead of the binary search — a few
   * bytes per key, written only with a bytewise or reverse-bytewise comparator (RocksDB's
   * rule: keys of different bytes must never compare equal), only in blocks of at most 254
   * restart points and 64 KiB. Default: `"binarySearch"`.
   */
  dataBlockIndexType?: DataBlockIndexTypeName;
  /**
   * Keys per bucket of the data block hash index (RocksDB's `data_block_hash_table_util_ratio`),
   * a finite number > 0; lower means more buckets, fewer collisions. Default: 0.75.
   */
  dataBlockHashTableUtilRatio?: number;
  /**
   * Bloom filter bits per key; 0 writes no filter. Shorthand for
   * `filterPolicy: new BloomFilterPolicy(bitsPerKey)`; give one or the other. Default: 10.
   */
  bitsPerKey?: number;
  /**
   * The filter written over the table's user keys (filter-policy.ts), e.g. `@shale/bloom`'s
   * `BloomFilterPolicy` or your own. Default: the built-in Bloom filter at `bitsPerKey`.
   */
  filterPolicy?: FilterPolicy;
  /**
   * Where the table goes, passed to the filter policy's `newBuilder` (RocksDB's
   * `FilterBuildingContext`: `RibbonFilterPolicy` writes Bloom below its `bloomBeforeLevel`).
   * Default: unknown (treated as the bottommost level).
   */
  filterContext?: FilterBuildingContext;
  /** Data block compression ("none", "snappy", "lz4" or "zstd"). Default: "snappy" (see compression.ts). */
  compression?: CompressionName;
  /**
   * The zstd level (RocksDB's `compression_opts.level`), an integer in [-131072, 22]; used
   * when `compression` is "zstd". Default: 3 (`DEFAULT_ZSTD_LEVEL`, zstd's and RocksDB's).
   */
  zstdLevel?: number;
  /**
   * Largest zstd dictionary for the table's data blocks, in bytes (RocksDB's
   * `compression_opts.max_dict_bytes`; RocksDB's builds default to 0, @nxtedition/rocksdb
   * to 16384): sampled raw content of the table's first data blocks, stored as the
   * `rocksdb.compression_dict` meta block (compression-dict.ts). Used when `compression` is
   * "zstd". Default: 0, no dictionary.
   */
  zstdMaxDictBytes?: number;
  /**
   * Uncompressed bytes of data blocks held in memory to sample the dictionary from (RocksDB's
   * `compression_opts.max_dict_buffer_bytes`); 0: the whole table. Default: 0.
   */
  zstdMaxDictBufferBytes?: number;
  /**
   * RocksDB format_version to write, 2-7 (3 adds user-key index keys, 4 index values without
   * lengths, 5 FastLocalBloom filters, 6 context checksums and a checksummed footer, 7 the
   * compression manager's name in the properties: format.ts). 6 needs RocksDB 8.6 to read,
   * 7 RocksDB 10.4. Default: 5 (`FormatVersion.DEFAULT`), which every RocksDB since 6.6 reads.
   */
  formatVersion?: number;
  /** Block checksum type (`ChecksumType`). Default: `ChecksumType.xxHash` (`DEFAULT_CHECKSUM_TYPE`). */
  checksumType?: number;
  /**
   * The base context checksum of a format-6+ table (its footer's; format.ts): a non-zero
   * uint32, for reproducible files. Ignored before format version 6. Default: random, as
   * RocksDB picks it.
   */
  baseContextChecksum?: number;
  /** User property collectors. Default: none. */
  collectors?: readonly TablePropertiesCollector[];
  /**
   * Column family recorded in the properties (`rocksdb.column.family.id` / `.name`).
   * Default: unknown (id 0x7fffffff, no name; RocksDB's SstFileWriter's choice, which
   * RocksDB can ingest into any column family). A database passes `{ id: 0, name: "default" }`.
   */
  columnFamily?: { id: number; name: string };
  /** Merge operator name recorded in the properties. Default: "nullptr" (none). */
  mergeOperatorName?: string;
  /** Identity of the writing database, session and host (properties). Default: not recorded. */
  dbId?: string;
  dbSessionId?: string;
  dbHostId?: string;
  /** The table's file number (`rocksdb.original.file.number`). Default: not recorded. */
  fileNumber?: number;
  /**
   * The index written (RocksDB's `index_type`): `"binarySearch"` one index block;
   * `"twoLevelIndex"` a partitioned index, partitions of about `metadataBlockSize` bytes under
   * a top-level index (kTwoLevelIndexSearch); `"binarySearchWithFirstKey"` one index block
   * whose values also carry each data block's first key (kBinarySearchWithFirstKey).
   * Default: `"binarySearch"`.
   */
  indexType?: IndexTypeName;
  /**
   * Partition the filter along the index partitions (RocksDB's `partition_filters`);
   * requires `indexType: "twoLevelIndex"`. Default: false.
   */
  partitionFilters?: boolean;
  /**
   * Target size in bytes of index and filter partitions (RocksDB's `metadata_block_size`).
   * Default: 4096.
   */
  metadataBlockSize?: number;
  /**
   * Adds each key's prefix to the full filter and records the extractor's name in the
   * properties (`rocksdb.prefix.extractor.name`), as RocksDB's `prefix_extractor`
   * (prefix-extractor.ts). Not with `partitionFilters` (NotSupported). Default: none.
   */
  prefixExtractor?: PrefixExtractor;
  /**
   * Adds whole keys to the filter (RocksDB's `whole_key_filtering`); false with a
   * `prefixExtractor` makes a filter of prefixes only (point lookups then read the table).
   * Default: true.
   */
  wholeKeyFiltering?: boolean;
  /**
   * Seconds since the epoch recorded as the creation time (`rocksdb.creation.time`,
   * `rocksdb.file.creation.time`), for reproducible files. Default: the time of `finish`.
   */
  creationTime?: number;
}

/** The index types a table can be written with (RocksDB's `BlockBasedTableOptions::IndexType`). */
export type IndexTypeName = "binarySearch" | "twoLevelIndex" | "binarySearchWithFirstKey";

/** Index type names and their on-disk numbers (format.ts `IndexType`). */
export const INDEX_TYPE_NAMES: Readonly<Record<IndexTypeName, number>> = {
  binarySearch: IndexType.BinarySearch,
  twoLevelIndex: IndexType.TwoLevelIndexSearch,
  binarySearchWithFirstKey: IndexType.BinarySearchWithFirstKey,
};

/** Checks an `indexType` option: TypeError for a non-string, InvalidArgument for an unknown name. */
export function checkIndexType(value: unknown, name = "indexType"): IndexTypeName {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
  if (!Object.hasOwn(INDEX_TYPE_NAMES, value)) {
    throw ShaleError.invalidArgument(
      `unknown ${name} "${value}" (binarySearch, twoLevelIndex or binarySearchWithFirstKey)`,
    );
  }
  return value as IndexTypeName;
}

function positiveInteger(
  value: number | undefined,
  fallback: number,
  name: string,
  min: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isInteger(value) || value < min) {
    throw ShaleError.invalidArgument(`${name} must be an integer >= ${min}; got ${value}`);
  }
  return value;
}

function nonNegativeInteger(value: number | undefined, name: string, max: number): number {
  if (value === undefined) return 0;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw ShaleError.invalidArgument(`${name} must be an integer in [0, ${max}]; got ${value}`);
  }
  return value;
}

/** Options with every default applied. */
export interface ResolvedBuilderOptions {
  comparator: Comparator;
  blockSize: number;
  blockRestartInterval: number;
  dataBlockIndexType: DataBlockIndexTypeName;
  dataBlockHashTableUtilRatio: number;
  bitsPerKey: number;
  /** The filter policy; undefined: no filter. */
  filterPolicy: FilterPolicy | undefined;
  filterContext: FilterBuildingContext | undefined;
  compression: CompressionName;
  zstdLevel: number;
  zstdMaxDictBytes: number;
  zstdMaxDictBufferBytes: number;
  formatVersion: number;
  checksumType: ChecksumType;
  /** Non-zero from format version 6, 0 before. */
  baseContextChecksum: number;
  collectors: readonly TablePropertiesCollector[];
  columnFamilyId: number;
  columnFamilyName: string;
  mergeOperatorName: string;
  dbId: string;
  dbSessionId: string;
  dbHostId: string;
  fileNumber: number;
  creationTime: number | undefined;
  indexType: IndexTypeName;
  partitionFilters: boolean;
  metadataBlockSize: number;
  prefixExtractor: PrefixExtractor | undefined;
  wholeKeyFiltering: boolean;
}

/**
 * The checksum type written when none is given (see `checksumType`): xxHash (XXH32), the
 * fastest to verify in JS (@shale/base's checksum.ts: 9.2 GB/s at 4 KiB against 7.3 for
 * XXH3 and 2.6 for CRC32C) and read by every RocksDB. RocksDB itself defaults to XXH3.
 */
export const DEFAULT_CHECKSUM_TYPE: ChecksumType = ChecksumType.xxHash;

/** A random non-zero uint32 (RocksDB draws the base context checksum the same way). */
function randomBaseContextChecksum(): number {
  let v = 0;
  while (v === 0) v = Math.floor(Math.random() * 0x100000000) >>> 0;
  return v;
}

function optionalString(value: string | undefined, fallback: string, name: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
  return value;
}

/**
 * Applies the defaults and checks the values: TypeError for a wrong type, InvalidArgument for
 * a bad value (blockSize, blockRestartInterval and metadataBlockSize integers >= 1,
 * bitsPerKey in [0, 100], a known compression, formatVersion 2-7, a known checksum type, a
 * non-zero uint32 baseContextChecksum, a known indexType and dataBlockIndexType, a finite
 * dataBlockHashTableUtilRatio > 0, partitionFilters only with the two-level index).
 */
export function resolveBuilderOptions(options: TableBuilderOptions): ResolvedBuilderOptions {
  if (typeof options !== "object" || options === null)
    throw new TypeError("options must be an object");
  const bitsPerKey = options.bitsPerKey ?? 10;
  if (typeof bitsPerKey !== "number") throw new TypeError("bitsPerKey must be a number");
  if (!(bitsPerKey >= 0 && bitsPerKey <= 100)) {
    throw ShaleError.invalidArgument(`bitsPerKey must be in [0, 100]; got ${bitsPerKey}`);
  }
  let filterPolicy: FilterPolicy | undefined;
  if (options.filterPolicy !== undefined) {
    if (options.bitsPerKey !== undefined) {
      throw ShaleError.invalidArgument(
        "give filterPolicy or bitsPerKey (the Bloom shorthand), not both",
      );
    }
    filterPolicy = checkFilterPolicy(options.filterPolicy);
  } else if (bitsPerKey > 0) {
    filterPolicy = bitsPerKey === 10 ? DEFAULT_FILTER_POLICY : new BloomFilterPolicy(bitsPerKey);
  }
  const compression = options.compression ?? DEFAULT_COMPRESSION;
  compressionTypeOf(compression);
  const zstdLevel = options.zstdLevel ?? DEFAULT_ZSTD_LEVEL;
  if (typeof zstdLevel !== "number") throw new TypeError("zstdLevel must be a number");
  if (!Number.isInteger(zstdLevel) || zstdLevel < -131072 || zstdLevel > 22) {
    throw ShaleError.invalidArgument(
      `zstdLevel must be an integer in [-131072, 22]; got ${zstdLevel}`,
    );
  }
  const formatVersion = options.formatVersion ?? FormatVersion.DEFAULT;
  if (typeof formatVersion !== "number") throw new TypeError("formatVersion must be a number");
  if (
    !Number.isInteger(formatVersion) ||
    formatVersion < FormatVersion.MIN_READ ||
    formatVersion > FormatVersion.LATEST
  ) {
    throw ShaleError.invalidArgument(
      `unsupported formatVersion ${formatVersion} (supported: ${FormatVersion.MIN_READ}-${FormatVersion.LATEST})`,
    );
  }
  const checksumType = options.checksumType ?? DEFAULT_CHECKSUM_TYPE;
  if (typeof checksumType !== "number") throw new TypeError("checksumType must be a number");
  if (!isChecksumType(checksumType)) {
    throw ShaleError.invalidArgument(`unknown checksumType ${checksumType} (0-4)`);
  }
  const base = options.baseContextChecksum;
  if (base !== undefined) {
    if (typeof base !== "number") throw new TypeError("baseContextChecksum must be a number");
    if (!Number.isInteger(base) || base <= 0 || base > 0xffffffff) {
      throw ShaleError.invalidArgument(
        `baseContextChecksum must be a non-zero uint32; got ${base}`,
      );
    }
  }
  const baseContextChecksum = usesContextChecksum(formatVersion)
    ? (base ?? randomBaseContextChecksum())
    : 0;
  const cf = options.columnFamily;
  if (cf !== undefined) {
    if (typeof cf !== "object" || cf === null)
      throw new TypeError("columnFamily must be an object");
    if (typeof cf.name !== "string") throw new TypeError("columnFamily.name must be a string");
    if (!Number.isInteger(cf.id) || cf.id < 0 || cf.id > 0x7fffffff) {
      throw ShaleError.invalidArgument(`columnFamily.id must be in [0, 2^31 - 1]; got ${cf.id}`);
    }
  }
  const creationTime = options.creationTime;
  if (creationTime !== undefined) {
    if (typeof creationTime !== "number") throw new TypeError("creationTime must be a number");
    if (!Number.isSafeInteger(creationTime) || creationTime < 0) {
      throw ShaleError.invalidArgument(
        `creationTime must be a non-negative integer; got ${creationTime}`,
      );
    }
  }
  const indexType = checkIndexType(options.indexType ?? "binarySearch");
  const partitionFilters = options.partitionFilters ?? false;
  if (typeof partitionFilters !== "boolean")
    throw new TypeError("partitionFilters must be a boolean");
  if (partitionFilters && indexType !== "twoLevelIndex") {
    throw ShaleError.invalidArgument(
      `partitionFilters requires indexType "twoLevelIndex"; got "${indexType}"`,
    );
  }
  const zstdMaxDictBytes = nonNegativeInteger(
    options.zstdMaxDictBytes,
    "zstdMaxDictBytes",
    2 ** 31 - 1,
  );
  // A dictionary holds data blocks back while their keys reach the filter; partitioned
  // filters cut along index entries, which would then lag the filter's keys.
  if (
    partitionFilters &&
    filterPolicy !== undefined &&
    compression === "zstd" &&
    zstdMaxDictBytes > 0
  ) {
    throw ShaleError.notSupported(
      "zstdMaxDictBytes with partitionFilters is not supported (use a full filter or no dictionary)",
    );
  }
  const prefixExtractor =
    options.prefixExtractor === undefined
      ? undefined
      : checkPrefixExtractor(options.prefixExtractor, "prefixExtractor");
  const wholeKeyFiltering = options.wholeKeyFiltering ?? true;
  if (typeof wholeKeyFiltering !== "boolean")
    throw new TypeError("wholeKeyFiltering must be a boolean");
  if (prefixExtractor !== undefined && partitionFilters && filterPolicy !== undefined) {
    throw ShaleError.notSupported(
      "prefixExtractor with partitionFilters is not supported (use a full filter)",
    );
  }
  const fileNumber = options.fileNumber ?? 0;
  if (typeof fileNumber !== "number") throw new TypeError("fileNumber must be a number");
  if (!Number.isSafeInteger(fileNumber) || fileNumber < 0) {
    throw ShaleError.invalidArgument(
      `fileNumber must be a non-negative integer; got ${fileNumber}`,
    );
  }
  return {
    comparator: options.comparator ?? bytewiseComparator,
    blockSize: positiveInteger(options.blockSize, 4096, "blockSize", 1),
    blockRestartInterval: positiveInteger(
      options.blockRestartInterval,
      16,
      "blockRestartInterval",
      1,
    ),
    dataBlockIndexType: checkDataBlockIndexType(options.dataBlockIndexType ?? "binarySearch"),
    dataBlockHashTableUtilRatio: checkHashUtilRatio(
      options.dataBlockHashTableUtilRatio ?? DEFAULT_HASH_UTIL_RATIO,
    ),
    bitsPerKey,
    filterPolicy,
    filterContext: options.filterContext,
    compression,
    zstdLevel,
    zstdMaxDictBytes,
    zstdMaxDictBufferBytes: nonNegativeInteger(
      options.zstdMaxDictBufferBytes,
      "zstdMaxDictBufferBytes",
      Number.MAX_SAFE_INTEGER,
    ),
    formatVersion,
    checksumType,
    baseContextChecksum,
    collectors: options.collectors ?? [],
    columnFamilyId: cf?.id ?? 0x7fffffff,
    columnFamilyName: cf?.name ?? "",
    mergeOperatorName: optionalString(options.mergeOperatorName, "nullptr", "mergeOperatorName"),
    dbId: optionalString(options.dbId, "", "dbId"),
    dbSessionId: optionalString(options.dbSessionId, "", "dbSessionId"),
    dbHostId: optionalString(options.dbHostId, "", "dbHostId"),
    fileNumber,
    creationTime: options.creationTime,
    indexType,
    partitionFilters,
    metadataBlockSize: positiveInteger(options.metadataBlockSize, 4096, "metadataBlockSize", 1),
    prefixExtractor,
    wholeKeyFiltering,
  };
}
