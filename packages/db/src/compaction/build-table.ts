/**
 * Writes one table file from sorted internal entries and range tombstones: the shared core
 * of flush (flush-job.ts) and compaction outputs, run in a worker thread or inline. The
 * file is synced and closed before `finish` returns; on failure it is removed. The caller
 * makes it visible through a MANIFEST edit.
 */
import {
  bytewiseComparator,
  type Comparator,
  type FileSystem,
  ShaleError,
  TRAILER_SIZE,
  ValueKind,
  type WritableFile,
} from "@shale/base";
import {
  builtinPrefixExtractor,
  capturedBytes,
  isBuiltinPrefixExtractor,
  type PrefixExtractor,
  TableBuilder,
  type TableBuilderOptions,
} from "@shale/sstable";
import { decodeBlobIndex } from "../blob/blob-format.js";
import { tableFileName } from "../core/filenames.js";
import {
  type FilterPolicyOption,
  type RibbonTableFilter,
  ribbonPolicyOf,
} from "../core/filter-policy-option.js";
import { CHECKSUM_TYPES, type ChecksumName } from "../core/options.js";
import { rocksdbMergeOperatorName } from "../core/options-file.js";
import { attachCapturedBlocks } from "../read/table-warming.js";
import type { FileMetaData } from "../version/version-edit.js";
import { flushCompression } from "./output-compression.js";

/** Table options that cross to a worker (structured-clone friendly: no functions). */
export interface TableWriteOptions {
  blockSize: number;
  blockRestartInterval: number;
  /** Bloom bits per key (0: none), unless `filter` says Ribbon. */
  bitsPerKey: number;
  /** A Ribbon policy, made into a `RibbonFilterPolicy` where the table is written. */
  filter?: RibbonTableFilter;
  /** A flush's codec; a compaction's spec replaces it with its output level's. */
  compression: NonNullable<TableBuilderOptions["compression"]>;
  /** RocksDB format_version, 2-7. */
  formatVersion: number;
  /** Block checksum type (`ChecksumType`). */
  checksumType: number;
  indexType: NonNullable<TableBuilderOptions["indexType"]>;
  partitionFilters: boolean;
  dataBlockIndexType: NonNullable<TableBuilderOptions["dataBlockIndexType"]>;
  dataBlockHashTableUtilRatio: number;
  metadataBlockSize: number;
  zstdLevel: number;
  /** 0: no dictionary. */
  zstdMaxDictBytes: number;
  /**
   * The family's prefix extractor. A built-in one crosses to a worker as data and is
   * rebuilt there by name (`revivePrefixExtractor`); a user one keeps the job on the main
   * thread.
   */
  prefixExtractor?: PrefixExtractor;
  wholeKeyFiltering: boolean;
  /** Recorded in every table's properties, under RocksDB's `rocksdb.*` names. */
  columnFamily: { id: number; name: string };
  mergeOperatorName: string;
  dbId: string;
  dbSessionId: string;
  /**
   * Bytes of data-block contents the job keeps (`TableBuilder.captureDataBlocks`) so that
   * its tables warm the block cache when installed without being read back
   * (`prepopulateBlockCache`, read/table-warming.ts); shared by every table the job writes.
   * 0 or absent: none.
   */
  captureBlocks?: number;
}

/** What a job may still capture (`TableWriteOptions.captureBlocks`), shared by its tables. */
export interface CaptureBudget {
  remaining: number;
}

/** The capture budget of a job's table options, or undefined when it captures nothing. */
export function captureBudgetOf(options: { captureBlocks?: number }): CaptureBudget | undefined {
  const n = options.captureBlocks;
  return n !== undefined && n > 0 ? { remaining: n } : undefined;
}

/** Who writes the tables: the database's id (IDENTITY) and this open's session id. */
export interface TableIdentity {
  dbId: string;
  dbSessionId: string;
}

/**
 * The table options of a column family's options (default: the `default` family, which
 * RocksDB records as id 0, "default"); the codec is a flush's (output-compression.ts).
 * RocksDB's repair and ingestion place a table by the family its properties name.
 */
export function tableWriteOptions(
  options: {
    blockSize: number;
    blockRestartInterval: number;
    bloomBitsPerKey: number;
    filterPolicy?: Required<FilterPolicyOption> | undefined;
    compression: TableWriteOptions["compression"];
    formatVersion: number;
    checksum: ChecksumName;
    indexType: TableWriteOptions["indexType"];
    partitionFilters: boolean;
    dataBlockIndexType?: TableWriteOptions["dataBlockIndexType"] | undefined;
    dataBlockHashTableUtilRatio?: number | undefined;
    metadataBlockSize: number;
    compressionPerLevel: readonly TableWriteOptions["compression"][];
    bottommostCompression: TableWriteOptions["compression"] | undefined;
    zstdLevel: number;
    zstdMaxDictBytes: number;
    prefixExtractor?: PrefixExtractor | undefined;
    wholeKeyFiltering?: boolean;
    mergeOperator?: { readonly name: string } | undefined;
  },
  identity: TableIdentity,
  columnFamily: { readonly id: number; readonly name: string } = { id: 0, name: "default" },
): TableWriteOptions {
  return {
    blockSize: options.blockSize,
    blockRestartInterval: options.blockRestartInterval,
    bitsPerKey: options.bloomBitsPerKey,
    ...(options.filterPolicy?.type === "ribbon"
      ? {
          filter: {
            type: "ribbon" as const,
            bitsPerKey: options.filterPolicy.bitsPerKey,
            bloomBeforeLevel: options.filterPolicy.bloomBeforeLevel,
          },
        }
      : {}),
    compression: flushCompression(options),
    formatVersion: options.formatVersion,
    checksumType: CHECKSUM_TYPES[options.checksum],
    indexType: options.indexType,
    partitionFilters: options.partitionFilters,
    dataBlockIndexType: options.dataBlockIndexType ?? "binarySearch",
    dataBlockHashTableUtilRatio: options.dataBlockHashTableUtilRatio ?? 0.75,
    metadataBlockSize: options.metadataBlockSize,
    zstdLevel: options.zstdLevel,
    zstdMaxDictBytes: options.zstdMaxDictBytes,
    ...(options.prefixExtractor !== undefined ? { prefixExtractor: options.prefixExtractor } : {}),
    wholeKeyFiltering: options.wholeKeyFiltering ?? true,
    columnFamily: { id: columnFamily.id, name: columnFamily.name },
    mergeOperatorName:
      options.mergeOperator === undefined
        ? "nullptr"
        : rocksdbMergeOperatorName(options.mergeOperator.name),
    dbId: identity.dbId,
    dbSessionId: identity.dbSessionId,
  };
}

/**
 * Whether a job writing tables with `table` can run in a worker thread: its prefix extractor
 * (if any) is a built-in one, rebuilt there from its name.
 */
export function prefixExtractorCrossesThreads(table: TableWriteOptions): boolean {
  const e = table.prefixExtractor;
  return e === undefined || isBuiltinPrefixExtractor(e);
}

/**
 * In a worker: `table` with its prefix extractor rebuilt from its name (a structured clone
 * keeps the built-in extractor's fields, not its methods).
 */
export function revivePrefixExtractor(table: TableWriteOptions): TableWriteOptions {
  const e = table.prefixExtractor;
  if (e === undefined) return table;
  const revived = builtinPrefixExtractor(e.name);
  if (revived === undefined) throw new Error(`prefix extractor ${e.name} cannot run in a worker`);
  return { ...table, prefixExtractor: revived };
}

/**
 * Builder options with a Ribbon `filter` (plain data, as it crosses to workers) made into
 * its `filterPolicy` (which replaces the Bloom `bitsPerKey`).
 */
function withFilterPolicy(
  options: TableBuilderOptions & { filter?: RibbonTableFilter; captureBlocks?: number },
  fileNumber: number,
): TableBuilderOptions {
  const { filter, captureBlocks: _capture, ...rest } = options;
  if (filter === undefined) return { ...rest, fileNumber };
  const { bitsPerKey: _bloomBits, ...noBits } = rest;
  return { ...noBits, fileNumber, filterPolicy: ribbonPolicyOf(filter) };
}

/**
 * A DB session id as RocksDB makes them: 20 characters of base 36 (digits and upper-case
 * letters), new for every open. Recorded in the tables the session writes.
 */
export function newDbSessionId(): string {
  const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let id = "";
  for (let i = 0; i < 20; i++) id += digits[Math.floor(Math.random() * 36)];
  return id;
}

/**
 * One table file being written: the shared core of flush and compaction outputs. `finish()`
 * syncs and closes it and returns its metadata; `abandon()` (or a failed finish) removes it.
 * With a capture budget, the data blocks written (as much of them as the budget allows) go
 * with the metadata to the table's warming (`attachCapturedBlocks`, read/table-warming.ts).
 */
export class TableFile {
  readonly number: number;
  readonly path: string;
  private readonly fs: FileSystem;
  private readonly file: WritableFile;
  private readonly builder: TableBuilder;
  private readonly user: Comparator;
  private readonly capture: CaptureBudget | undefined;
  private ranges = 0;
  private done = false;
  /** The lowest blob file a BlobIndex entry added points into (0: none). */
  private oldestBlobFile = 0;

  constructor(
    fs: FileSystem,
    dir: string,
    fileNumber: number,
    builderOptions: TableBuilderOptions & { filter?: RibbonTableFilter; captureBlocks?: number },
    capture: CaptureBudget | undefined = captureBudgetOf(builderOptions),
  ) {
    this.fs = fs;
    this.capture = capture;
    this.number = fileNumber;
    this.path = tableFileName(dir, fileNumber);
    this.file = fs.openWritable(this.path, { bufferSize: 256 * 1024 });
    try {
      this.builder = new TableBuilder(this.file, withFilterPolicy(builderOptions, fileNumber));
      if (capture !== undefined && capture.remaining > 0)
        this.builder.captureDataBlocks(capture.remaining);
    } catch (e) {
      this.abandon();
      throw e;
    }
    this.user = builderOptions.comparator ?? bytewiseComparator;
  }

  /** REQUIRES: keys in increasing internal-key order. Copies both. */
  add(key: Uint8Array, value: Uint8Array): void {
    // A blob index links the table to its blob file (RocksDB's oldest_blob_file_number): the
    // MANIFEST keeps a blob file only while some table links to it or to an older one.
    if (key[key.length - TRAILER_SIZE] === ValueKind.BlobIndex) {
      const n = decodeBlobIndex(value, this.path).fileNumber;
      if (this.oldestBlobFile === 0 || n < this.oldestBlobFile) this.oldestBlobFile = n;
    }
    this.builder.add(key, value);
  }

  /** Adds `[start, end)@seq`; an empty range (start >= end) is skipped. */
  addRangeTombstone(start: Uint8Array, end: Uint8Array, seq: number): void {
    if (this.user.compare(start, end) >= 0) return; // an empty range deletes nothing
    this.builder.addRangeTombstone(start, end, seq);
    this.ranges++;
  }

  get numEntries(): number {
    return this.builder.numEntries;
  }

  get estimatedFileSize(): number {
    return this.builder.estimatedFileSize;
  }

  /**
   * Finishes, syncs and closes the table and returns its metadata, or undefined when it
   * holds nothing (the file is removed). On failure the file is removed and the error thrown.
   */
  finish(): FileMetaData | undefined {
    let ok = false;
    try {
      if (this.builder.numEntries === 0 && this.ranges === 0) {
        this.builder.abandon();
        this.abandon();
        ok = true;
        return undefined;
      }
      const props = this.builder.finish();
      this.file.sync();
      this.file.close();
      this.done = true;
      if (props.smallestKey === undefined || props.largestKey === undefined) {
        throw ShaleError.corruption("a finished table has no key range", this.path);
      }
      ok = true;
      const meta: FileMetaData = {
        number: this.number,
        size: this.fs.fileSize(this.path),
        smallest: props.smallestKey,
        largest: props.largestKey,
        smallestSeq: props.smallestSeq,
        largestSeq: props.largestSeq,
        // RocksDB's file_creation_time (seconds): FIFO's ttl reads it.
        fileCreationTime: props.fileCreationTime,
      };
      const file: FileMetaData =
        this.oldestBlobFile === 0 ? meta : { ...meta, oldestBlobFileNumber: this.oldestBlobFile };
      const blocks = this.builder.takeCapturedDataBlocks();
      if (blocks !== undefined && this.capture !== undefined) {
        this.capture.remaining -= capturedBytes(blocks);
        if (blocks.blocks.length > 0) attachCapturedBlocks(file, blocks);
      }
      return file;
    } finally {
      if (!ok) this.abandon();
    }
  }

  /** Gives up: closes and removes the file. Never throws. */
  abandon(): void {
    if (!this.done) {
      this.done = true;
      try {
        this.file.close();
      } catch {
        // already failing; keep the first error
      }
    }
    try {
      if (this.fs.exists(this.path)) this.fs.remove(this.path);
    } catch {
      // left for the orphan sweep at the next open
    }
  }
}
