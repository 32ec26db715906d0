/**
 * TableBuilder options: their defaults and validation.
 */
import { bytewiseComparator, type Comparator, ShaleError } from "@shale/base";
import { BloomFilterPolicy } from "@shale/bloom";
import {
  type CompressionName,
  compressionTypeOf,
  DEFAULT_COMPRESSION,
  DEFAULT_ZSTD_LEVEL,
} from "./compression.js";
import { checkFilterPolicy, DEFAULT_FILTER_POLICY, type FilterPolicy } from "./filter-policy.js";
import { ChecksumType, FormatVersion, isChecksumType } from "./format.js";

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
   * Bloom filter bits per key; 0 writes no filter. Shorthand for
   * `filterPolicy: new BloomFilterPolicy(bitsPerKey)`; give one or the other. Default: 10.
   */
  bitsPerKey?: number;
  /**
   * The filter written over the table's user keys (filter-policy.ts), e.g. `@shale/bloom`'s
   * `BloomFilterPolicy` or your own. Default: the built-in Bloom filter at `bitsPerKey`.
   */
  filterPolicy?: FilterPolicy;
  /** Data block compression ("none", "snappy" or "zstd"). Default: "snappy" (see compression.ts). */
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
   * RocksDB format_version to write, 2-5 (3 adds user-key index keys, 4 index values without
   * lengths). Default: 5 (`FormatVersion.LATEST`).
   */
  formatVersion?: number;
  /** Block checksum type (`ChecksumType`). Default: `ChecksumType.CRC32c`. */
  checksumType?: number;
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
   * Seconds since the epoch recorded as the creation time (`rocksdb.creation.time`,
   * `rocksdb.file.creation.time`), for reproducible files. Default: the time of `finish`.
   */
  creationTime?: number;
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
  bitsPerKey: number;
  /** The filter policy; undefined: no filter. */
  filterPolicy: FilterPolicy | undefined;
  compression: CompressionName;
  zstdLevel: number;
  zstdMaxDictBytes: number;
  zstdMaxDictBufferBytes: number;
  formatVersion: number;
  checksumType: ChecksumType;
  collectors: readonly TablePropertiesCollector[];
  columnFamilyId: number;
  columnFamilyName: string;
  mergeOperatorName: string;
  dbId: string;
  dbSessionId: string;
  dbHostId: string;
  fileNumber: number;
  creationTime: number | undefined;
}

/** The checksum type written when none is given (see `checksumType`). */
export const DEFAULT_CHECKSUM_TYPE: ChecksumType = ChecksumType.xxHash;

function optionalString(value: string | undefined, fallback: string, name: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
  return value;
}

/**
 * Applies the defaults and checks the values: TypeError for a wrong type, InvalidArgument for
 * a bad value (blockSize and blockRestartInterval integers >= 1, bitsPerKey in [0, 100], a
 * known compression, formatVersion 2-5, a known checksum type).
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
  const formatVersion = options.formatVersion ?? FormatVersion.LATEST;
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
    bitsPerKey,
    filterPolicy,
    compression,
    zstdLevel,
    zstdMaxDictBytes: nonNegativeInteger(options.zstdMaxDictBytes, "zstdMaxDictBytes", 2 ** 31 - 1),
    zstdMaxDictBufferBytes: nonNegativeInteger(
      options.zstdMaxDictBufferBytes,
      "zstdMaxDictBufferBytes",
      Number.MAX_SAFE_INTEGER,
    ),
    formatVersion,
    checksumType,
    collectors: options.collectors ?? [],
    columnFamilyId: cf?.id ?? 0x7fffffff,
    columnFamilyName: cf?.name ?? "",
    mergeOperatorName: optionalString(options.mergeOperatorName, "nullptr", "mergeOperatorName"),
    dbId: optionalString(options.dbId, "", "dbId"),
    dbSessionId: optionalString(options.dbSessionId, "", "dbSessionId"),
    dbHostId: optionalString(options.dbHostId, "", "dbHostId"),
    fileNumber,
    creationTime: options.creationTime,
  };
}
