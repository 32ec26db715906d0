/**
 * What db-bench needs from an engine. Each engine is driven through its fastest fitting
 * API: a method returns a plain value when the engine has a synchronous call for it and a
 * Promise otherwise; the workload loops await only Promises, so a synchronous engine never
 * pays for an `await`.
 *
 * Keys and values handed to an engine are views of reusable buffers: an engine copies what
 * it keeps beyond the call (or beyond the returned Promise).
 */
import type { OpClock } from "../op-clock.js";

export type MaybePromise<T> = T | Promise<T>;

export interface EngineOptions {
  /** fsync every write. */
  sync: boolean;
  disableWal: boolean;
  writeBufferSize: number;
  /** shale's dbWriteBufferSize, 0 or unset: no budget (other engines ignore it). */
  dbWriteBufferSize?: number;
  statistics: boolean;
  /** Block cache bytes. */
  cacheSize: number;
  /** Bloom bits per key; -1 = the engine's default. */
  bloomBits: number;
  /** Column families the keys are spread over (engines without families ignore it: 1). */
  numColumnFamilies?: number;
  blockSize: number;
  /** 1: data blocks with RocksDB's hash index (shale); 0 or undefined: binary search only. */
  dataBlockIndexType?: number;
  /** Keys per bucket of that hash index. Default: 0.75. */
  dataBlockHashTableUtilRatio?: number;
  compression: "none" | "snappy";
  /** A built-in merge operator name, or undefined for none. */
  mergeOperator: string | undefined;
  disableAutoCompactions: boolean;
  /** shale's cacheIndexAndFilterBlocks (other engines ignore it; unset: false). */
  cacheIndexAndFilterBlocks?: boolean;
  /** shale's sharedBlockCache (other engines ignore it; unset: false). */
  sharedBlockCache?: boolean;
  /** shale's avoidFlushDuringRecovery (other engines ignore it; unset: shale's default, true). */
  avoidFlushDuringRecovery?: boolean;
  /** shale's compactionCpuPriority (other engines ignore it). */
  compactionCpuPriority?: "normal" | "low" | "idle";
  /** shale's compactionStyle (--compaction_style; other engines ignore it). */
  compactionStyle?: "leveled" | "universal" | "fifo";
  /** shale's fifo.maxTableFilesSize in bytes; 0 = the default (other engines ignore it). */
  fifoMaxTableFilesSize?: number;
  /** shale's rateLimiter bytesPerSecond, 0 or unset: none (other engines ignore it). */
  rateLimiterBytesPerSec?: number;
  /** shale's prepopulateBlockCache (other engines ignore it). */
  prepopulateBlockCache?: "disable" | "flushOnly" | "flushAndCompaction";
  /** Pessimistic transactions (shale: open with transactionDB); other engines ignore it. */
  transactionDb?: boolean;
  /** --prefix_size: a fixed prefix extractor of this many bytes (0: none; shale only). */
  prefixSize?: number;
  /** shale's memtablePrefixBloomSizeRatio / memtableWholeKeyFiltering (others ignore them). */
  memtableBloomSizeRatio?: number;
  memtableWholeKeyFiltering?: boolean;
  /** The seeks' ReadOptions prefix_same_as_start / total_order_seek (shale only). */
  prefixSameAsStart?: boolean;
  totalOrderSeek?: boolean;
}

/** Capabilities some engines lack; `Engine.unsupported` says why. */
export type Feature = "merge" | "iterator" | "compact" | "waitForCompactions" | "stats";

/** Batch operation kinds. */
export const PUT = 0;
export const DELETE = 1;
export const DELETE_RANGE = 2;

/** A reusable description of a write batch (the engine turns it into its own batch). */
export class BatchOps {
  readonly kinds: number[] = [];
  readonly keys: Uint8Array[] = [];
  /** The value, or the (exclusive) end of a DELETE_RANGE. */
  readonly values: Uint8Array[] = [];

  get length(): number {
    return this.kinds.length;
  }

  clear(): void {
    this.kinds.length = 0;
    this.keys.length = 0;
    this.values.length = 0;
  }

  /** Keys and values are kept as given: pass buffers that stay unchanged until written. */
  add(kind: number, key: Uint8Array, value: Uint8Array): void {
    this.kinds.push(kind);
    this.keys.push(key);
    this.values.push(value);
  }
}

/** Filled by `getMany`: keys found and key+value bytes read. */
export interface ReadTally {
  found: number;
  bytes: number;
}

/** Filled by seeks: whether the seek landed on the target, entries visited, bytes read. */
export interface SeekResult {
  exact: boolean;
  entries: number;
  bytes: number;
}

/** Filled by `scan`. */
export interface ScanResult {
  entries: number;
  bytes: number;
}

/** A positioned reader kept across many seeks (fillseekseq). */
export interface Cursor {
  /**
   * Positions at the first key >= target, then reads up to `nexts` entries forward
   * (db_bench: value of the current entry, then Next), filling `out`.
   */
  seek(target: Uint8Array, nexts: number, out: SeekResult): MaybePromise<void>;
  close(): MaybePromise<void>;
}

/**
 * An engine's internals at one moment, sampled over time by --report (report/sampler.ts).
 * A field an engine cannot tell is left out, and its chart has no series for that engine.
 */
export interface EngineGauges {
  /** Tables in level 0. */
  l0Files?: number;
  /** Immutable memtables waiting for a flush. */
  immutableMemtables?: number;
  /** Bytes compactions read plus wrote, since the engine opened (cumulative). */
  compactionBytes?: number;
  /** Microseconds writes spent stalled or slowed down, since the engine opened (cumulative). */
  stallMicros?: number;
}

export interface Engine {
  readonly name: string;
  /** True when the engine spreads keys over `numColumnFamilies` column families. */
  readonly columnFamilies?: boolean;
  /** Opens (creating) a database in `dir`; returns notes on options it cannot apply. */
  open(dir: string, options: EngineOptions): Promise<string[]>;
  /** Why `feature` is not available, or undefined when it is. */
  unsupported(feature: Feature): string | undefined;
  put(key: Uint8Array, value: Uint8Array): MaybePromise<void>;
  delete(key: Uint8Array): MaybePromise<void>;
  /** REQUIRES: unsupported("merge") === undefined. */
  merge(key: Uint8Array, operand: Uint8Array): MaybePromise<void>;
  /** Removes every key in [start, end). */
  deleteRange(start: Uint8Array, end: Uint8Array): MaybePromise<void>;
  /** Writes the batch (atomically where the engine can). */
  write(batch: BatchOps): MaybePromise<void>;
  /**
   * The length of the value of `key`, or -1 when it is absent — through the engine's fastest
   * read: a zero-copy view where the engine has one (shale's `getView`, lmdb's
   * `getBinaryFast`).
   */
  get(key: Uint8Array): MaybePromise<number>;
  /**
   * The same through the engine's copying read, when its fastest one is a view (shale's
   * `get`, lmdb's `getBinary`): benchmark `readrandomcopy` (seed 002's copy-vs-view pair).
   * Absent: `get` already copies, and readrandomcopy uses it.
   */
  getCopy?(key: Uint8Array): MaybePromise<number>;
  /**
   * One read-modify-write transaction (db_bench's randomtransaction): reads each key for
   * update (a key may repeat), writes back its 8-byte little-endian counter + 1 (absent:
   * 0 + 1), commits; a conflict runs it again. Returns the number of re-runs. Absent: the
   * engine has no transactions.
   */
  randomTransaction?(keys: readonly Uint8Array[]): MaybePromise<number>;
  /** A transaction of one put (filltransaction). Absent: the engine has no transactions. */
  transactionPut?(key: Uint8Array, value: Uint8Array): MaybePromise<void>;
  /** Looks up distinct key buffers together; adds to `tally`. */
  getMany(keys: Uint8Array[], tally: ReadTally): MaybePromise<void>;
  /**
   * Reads up to `limit` entries from the first (or, `reverse`, the last) key, filling `out`;
   * with a `clock`, tells it when each entry was read (`finished`, or `finishedMany` for a
   * chunk read at once). REQUIRES: unsupported("iterator") === undefined.
   */
  scan(
    reverse: boolean,
    limit: number,
    out: ScanResult,
    clock: OpClock | undefined,
  ): MaybePromise<void>;
  /** A new iterator, one seek and `nexts` reads, then closed (db_bench seekrandom). */
  seekOnce(target: Uint8Array, nexts: number, out: SeekResult): MaybePromise<void>;
  /** REQUIRES: unsupported("iterator") === undefined. */
  openCursor(): MaybePromise<Cursor>;
  /** Compacts the whole key space. REQUIRES: unsupported("compact") === undefined. */
  compact(): Promise<void>;
  /**
   * Resolves once no flush or compaction is running or due (RocksDB's WaitForCompact).
   * REQUIRES: unsupported("waitForCompactions") === undefined.
   */
  waitForCompactions(): Promise<void>;
  /** The engine's statistics as text. REQUIRES: unsupported("stats") === undefined. */
  stats(): string;
  /** Its internals now, for --report; absent for engines that tell none (lmdb, memory-level). */
  gauges?(): EngineGauges;
  /**
   * Table files per level now (index = level, trailing empty levels left out), for
   * --tree_shape; absent for engines without levels (lmdb, memory-level).
   */
  filesPerLevel?(): number[];
  /**
   * What a reader thread needs to open this database beside this engine (--threads > 1,
   * threads/reader-threads.ts); absent for engines that cannot be read from another thread.
   */
  readerThreadSpec?(): ReaderThreadSpec;
  close(): Promise<void>;
}

/** How a worker thread opens an engine's database for reading (structured-cloneable). */
export type ReaderThreadSpec =
  | {
      readonly engine: "shale";
      /** `db.readerHandle()`. */
      readonly handle: unknown;
      /** Bytes of the reader's own block cache (-1: shale's default). */
      readonly cacheSize: number;
      readonly cacheIndexAndFilterBlocks: boolean;
      readonly seekOptions: { prefixSameAsStart?: boolean; totalOrderSeek?: boolean };
    }
  | { readonly engine: "lmdb"; readonly dir: string; readonly options: EngineOptions };

/** True when `a` and `b` hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
