/**
 * Database options, their defaults (RocksDB's unless noted) and validation.
 */
import {
  bytewiseComparator,
  type Comparator,
  type FileSystem,
  NodeFileSystem,
  ShaleError,
  Statistics,
} from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import { type Block, type CompressionName, DEFAULT_COMPRESSION } from "@shale/sstable";
import { WalRecoveryMode } from "@shale/wal";
import { DEFAULT_STRING_APPEND } from "./background/protocol.js";
import { type MergeOperator, resolveMergeOperator } from "./merge-operator.js";

export interface DbOptions {
  /** Create the database if the directory holds none. Default: true. */
  createIfMissing?: boolean;
  /** Fail with InvalidArgument if a database already exists. Default: false. */
  errorIfExists?: boolean;
  /** Order of user keys; persisted by name. Default: bytewise. */
  comparator?: Comparator;
  /** A MergeOperator, or a built-in by name: "max", "uint64add", "stringappend". Default: none. */
  mergeOperator?: MergeOperator | "max" | "uint64add" | "stringappend";
  /** Bytes of memtable before it is switched for a new one. Default: 64 MiB. */
  writeBufferSize?: number;
  /** Memtables (mutable + immutable) before writes stop and wait for a flush. Default: 2. */
  maxWriteBufferNumber?: number;
  /** A block cache to share between databases. Default: a new one of `blockCacheSize`. */
  blockCache?: LRUCache<Block>;
  /** Bytes of the block cache made when `blockCache` is not given. Default: 32 MiB. */
  blockCacheSize?: number;
  /** Uncompressed bytes per data block. Default: 4096. */
  blockSize?: number;
  /** Bloom filter bits per key (0 = no filter). Default: 10. */
  bloomBitsPerKey?: number;
  /** Data block compression: "snappy" or "none". Default: "snappy". */
  compression?: CompressionName;
  /**
   * Background threads for flushes and compactions; at most `maxBackgroundJobs - 1`
   * compactions run at once (at least 1), leaving room for a flush. Default: 2.
   */
  maxBackgroundJobs?: number;
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
  /** Most tables kept open at once. Default: 1000. */
  maxOpenFiles?: number;
  /** Statistics: `true` for a new Statistics object, or your own. Default: off (costs nothing). */
  statistics?: boolean | Statistics;
  /** How WALs are read on open (a WalRecoveryMode value or its name). Default: PointInTime. */
  walRecoveryMode?: WalRecoveryMode | keyof typeof WalRecoveryMode;
  /** Verify more eagerly and fail on anything suspicious. Default: true. */
  paranoidChecks?: boolean;
  /**
   * RocksDB's best_efforts_recovery: when the MANIFEST is damaged or names missing tables,
   * open the newest version whose tables all exist (possibly an older one, or an empty
   * database) instead of failing with Corruption; WALs are not replayed (as in RocksDB) and
   * this open deletes no file (the damaged MANIFEST, unreplayed WALs and tables outside the
   * version stay for repair). What was left out is in the property
   * `shale.best-efforts-recovery`. Default: false (strict).
   */
  bestEffortsRecovery?: boolean;
  /** The file system. Default: the node file system. */
  fs?: FileSystem;
}

export interface ResolvedOptions {
  createIfMissing: boolean;
  errorIfExists: boolean;
  comparator: Comparator;
  mergeOperator: MergeOperator | undefined;
  writeBufferSize: number;
  maxWriteBufferNumber: number;
  blockCache: LRUCache<Block>;
  blockSize: number;
  bloomBitsPerKey: number;
  compression: CompressionName;
  maxBackgroundJobs: number;
  level0FileNumCompactionTrigger: number;
  level0SlowdownWritesTrigger: number;
  level0StopWritesTrigger: number;
  maxBytesForLevelBase: number;
  maxBytesForLevelMultiplier: number;
  targetFileSizeBase: number;
  disableAutoCompactions: boolean;
  maxOpenFiles: number;
  statistics: Statistics | undefined;
  walRecoveryMode: WalRecoveryMode;
  paranoidChecks: boolean;
  bestEffortsRecovery: boolean;
  fs: FileSystem;
}

const KNOWN = new Set([
  "createIfMissing",
  "errorIfExists",
  "comparator",
  "mergeOperator",
  "writeBufferSize",
  "maxWriteBufferNumber",
  "blockCache",
  "blockCacheSize",
  "blockSize",
  "bloomBitsPerKey",
  "compression",
  "maxBackgroundJobs",
  "level0FileNumCompactionTrigger",
  "level0SlowdownWritesTrigger",
  "level0StopWritesTrigger",
  "maxBytesForLevelBase",
  "maxBytesForLevelMultiplier",
  "targetFileSizeBase",
  "disableAutoCompactions",
  "maxOpenFiles",
  "statistics",
  "walRecoveryMode",
  "paranoidChecks",
  "bestEffortsRecovery",
  "fs",
]);

function bool(options: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const v = options[name];
  if (v === undefined) return fallback;
  if (typeof v !== "boolean") throw new TypeError(`options.${name} must be a boolean`);
  return v;
}

function positiveInt(
  options: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
): number {
  const v = options[name];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new TypeError(`options.${name} must be a number`);
  if (!Number.isInteger(v) || v < min)
    throw ShaleError.invalidArgument(`options.${name} must be an integer >= ${min}`);
  return v;
}

function multiplier(options: Record<string, unknown>, name: string, fallback: number): number {
  const v = options[name];
  if (v === undefined) return fallback;
  if (typeof v !== "number") throw new TypeError(`options.${name} must be a number`);
  if (!(Number.isFinite(v) && v > 1))
    throw ShaleError.invalidArgument(`options.${name} must be a finite number > 1`);
  return v;
}

/**
 * The L0 triggers, in RocksDB's order: trigger <= slowdown <= stop. A trigger left at its
 * default is raised to the one below it; two given out of order are InvalidArgument.
 */
function level0Triggers(raw: Record<string, unknown>): [number, number, number] {
  const trigger = positiveInt(raw, "level0FileNumCompactionTrigger", 4, 1);
  let slowdown = positiveInt(raw, "level0SlowdownWritesTrigger", 20, 1);
  let stop = positiveInt(raw, "level0StopWritesTrigger", 36, 1);
  if (slowdown < trigger) {
    if (raw["level0SlowdownWritesTrigger"] !== undefined)
      throw ShaleError.invalidArgument(
        "options.level0SlowdownWritesTrigger must be >= level0FileNumCompactionTrigger",
      );
    slowdown = trigger;
  }
  if (stop < slowdown) {
    if (raw["level0StopWritesTrigger"] !== undefined)
      throw ShaleError.invalidArgument(
        "options.level0StopWritesTrigger must be >= level0SlowdownWritesTrigger",
      );
    stop = slowdown;
  }
  return [trigger, slowdown, stop];
}

export function resolveOptions(options: DbOptions = {}): ResolvedOptions {
  if (typeof options !== "object" || options === null)
    throw new TypeError("options must be an object");
  const raw = options as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key)) throw ShaleError.invalidArgument(`unknown option "${key}"`);
  }
  const comparator = options.comparator ?? bytewiseComparator;
  if (typeof comparator.compare !== "function" || typeof comparator.name !== "string") {
    throw new TypeError("options.comparator must implement Comparator");
  }
  let statistics: Statistics | undefined;
  if (options.statistics === true) statistics = new Statistics();
  else if (options.statistics instanceof Statistics) statistics = options.statistics;
  else if (options.statistics !== undefined && options.statistics !== false) {
    throw new TypeError("options.statistics must be a boolean or a Statistics");
  }
  let mode: WalRecoveryMode = WalRecoveryMode.PointInTime;
  const m = options.walRecoveryMode;
  if (typeof m === "string") {
    if (!(m in WalRecoveryMode)) throw ShaleError.invalidArgument(`unknown walRecoveryMode "${m}"`);
    mode = WalRecoveryMode[m];
  } else if (typeof m === "number") {
    if (!Object.values(WalRecoveryMode).includes(m))
      throw ShaleError.invalidArgument(`unknown walRecoveryMode ${m}`);
    mode = m;
  }
  const compression = options.compression ?? DEFAULT_COMPRESSION;
  if (compression !== "snappy" && compression !== "none") {
    throw ShaleError.invalidArgument(
      `unknown compression "${String(compression)}" (use "snappy" or "none")`,
    );
  }
  if (options.blockCache !== undefined && !(options.blockCache instanceof LRUCache)) {
    throw new TypeError("options.blockCache must be an LRUCache from @shale/block-cache");
  }
  const [trigger, slowdown, stop] = level0Triggers(raw);
  const blockCache =
    options.blockCache ??
    new LRUCache<Block>({ capacity: positiveInt(raw, "blockCacheSize", 32 * 1024 * 1024, 0) });
  return {
    createIfMissing: bool(raw, "createIfMissing", true),
    errorIfExists: bool(raw, "errorIfExists", false),
    comparator,
    mergeOperator:
      options.mergeOperator === "stringappend"
        ? DEFAULT_STRING_APPEND
        : resolveMergeOperator(options.mergeOperator),
    writeBufferSize: positiveInt(raw, "writeBufferSize", 64 * 1024 * 1024, 64 * 1024),
    maxWriteBufferNumber: positiveInt(raw, "maxWriteBufferNumber", 2, 2),
    blockCache,
    blockSize: positiveInt(raw, "blockSize", 4096, 256),
    bloomBitsPerKey: positiveInt(raw, "bloomBitsPerKey", 10, 0),
    compression,
    maxBackgroundJobs: positiveInt(raw, "maxBackgroundJobs", 2, 1),
    level0FileNumCompactionTrigger: trigger,
    level0SlowdownWritesTrigger: slowdown,
    level0StopWritesTrigger: stop,
    maxBytesForLevelBase: positiveInt(raw, "maxBytesForLevelBase", 256 * 1024 * 1024, 1),
    maxBytesForLevelMultiplier: multiplier(raw, "maxBytesForLevelMultiplier", 10),
    targetFileSizeBase: positiveInt(raw, "targetFileSizeBase", 64 * 1024 * 1024, 1),
    disableAutoCompactions: bool(raw, "disableAutoCompactions", false),
    maxOpenFiles: positiveInt(raw, "maxOpenFiles", 1000, 16),
    statistics,
    walRecoveryMode: mode,
    paranoidChecks: bool(raw, "paranoidChecks", true),
    bestEffortsRecovery: bool(raw, "bestEffortsRecovery", false),
    fs: options.fs ?? new NodeFileSystem(),
  };
}

export interface WriteOptions {
  /** fsync the WAL before returning (survives a power cut). Default: false (survives a process crash). */
  sync?: boolean;
  /** Skip the WAL: the write is lost if the process dies before a flush. Default: false. */
  disableWAL?: boolean;
}

export interface ReadOptions {
  /** Read as of this snapshot. Default: the latest state. */
  snapshot?: { readonly seq: number };
  /** Put blocks read into the block cache. Default: true. */
  fillCache?: boolean;
  /** Verify block checksums. Default: true. */
  verifyChecksums?: boolean;
}

/** Read options of `db.iterator()`. */
export interface IteratorOptions extends ReadOptions {
  /** Inclusive lower bound on keys. Default: none. */
  lowerBound?: Uint8Array | string;
  /** Exclusive upper bound on keys. Default: none. */
  upperBound?: Uint8Array | string;
  /** The iterable protocol walks from the last key backwards. Default: false. */
  reverse?: boolean;
}
