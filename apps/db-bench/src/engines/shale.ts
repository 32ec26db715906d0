/**
 * shale, through its synchronous API (every read and write is a plain call); point reads
 * through the zero-copy `getView` (the fastest-API rule), `get`'s copy in readrandomcopy.
 *
 * The iterator, compactRange and a few options are coded against the public DB API (the db
 * package's README) and looked up at run time: a build without them reports the workloads that need them
 * as n/a with the reason, and an option the build rejects as unknown is dropped with a note.
 */
import {
  type ColumnFamilyHandle,
  type DB,
  fixedPrefix,
  isShaleError,
  open,
  Statistics,
  WriteBatch,
} from "shale";
import type { OpClock } from "../op-clock.js";
import { buildBatch, tallyFound } from "./common.js";
import {
  type BatchOps,
  type Cursor,
  type Engine,
  type EngineGauges,
  type EngineOptions,
  type Feature,
  type ReaderThreadSpec,
  type ReadTally,
  type ScanResult,
  type SeekResult,
  sameBytes,
} from "./engine.js";

/** The DB iterator of the public API. */
interface DesignIterator {
  seek(target: Uint8Array): void;
  seekToFirst(): void;
  seekToLast(): void;
  valid(): boolean;
  key(): Uint8Array;
  value(): Uint8Array;
  next(): void;
  prev(): void;
  close(): void;
}

/** The parts of the public DB API that a build may not have yet. */
interface DesignExtras {
  iterator?: (options?: object) => DesignIterator;
  compactRange?: (start?: Uint8Array, end?: Uint8Array) => Promise<void>;
  /** The engine's WaitForCompact, for benchmarks. */
  waitForCompactions?: () => Promise<void>;
}

const UNKNOWN_OPTION = /unknown option "(\w+)"/;

/** A key's column family with --num_column_families=n: its number (bytes 4..7) mod n. */
function familyIndex(key: Uint8Array, n: number): number {
  return (((key[4]! << 24) | (key[5]! << 16) | (key[6]! << 8) | key[7]!) >>> 0) % n;
}

export class ShaleEngine implements Engine {
  readonly name = "shale";
  readonly columnFamilies = true;
  private db: DB | undefined;
  /**
   * --num_column_families > 1: the families keys go to (index 0 is default); scans and seeks
   * read the default family. Empty with one family.
   */
  private families: ColumnFamilyHandle[] = [];
  /** Batch operations into each key's family. */
  private readonly familyBatch = {
    engine: this as ShaleEngine,
    put(key: Uint8Array, value: Uint8Array): void {
      const e = this.engine;
      e.batch.put(key, value, e.families[familyIndex(key, e.families.length)]);
    },
    delete(key: Uint8Array): void {
      const e = this.engine;
      e.batch.delete(key, e.families[familyIndex(key, e.families.length)]);
    },
    deleteRange(start: Uint8Array, end: Uint8Array): void {
      const e = this.engine;
      for (const f of e.families) e.batch.deleteRange(start, end, f);
    },
  };
  private extras: DesignExtras = {};
  /** Read options of seekOnce and openCursor's iterators. */
  private seekOptions: { prefixSameAsStart?: boolean; totalOrderSeek?: boolean } = {};
  private writeOptions: { sync: boolean; disableWAL: boolean } = { sync: false, disableWAL: false };
  private readonly batch = new WriteBatch();
  /** --cache_size and --cache_index_and_filter_blocks, for reader threads. */
  private cacheSize = -1;
  private cacheIndexAndFilterBlocks = false;
  /** --transaction_db: transactions are pessimistic (their calls return promises). */
  private pessimistic = false;
  /** The counter a transaction writes (put copies it). */
  private readonly counter = new Uint8Array(8);
  /** One Statistics for every open of this engine, so --statistics covers the whole run. */
  private statistics: Statistics | undefined;

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const notes: string[] = [];
    this.writeOptions = { sync: o.sync, disableWAL: o.disableWal };
    const options: Record<string, unknown> = {
      writeBufferSize: o.writeBufferSize,
      blockSize: o.blockSize,
      compression: o.compression,
    };
    if (o.cacheSize >= 0) options.blockCacheSize = o.cacheSize;
    this.cacheSize = o.cacheSize;
    this.cacheIndexAndFilterBlocks = o.cacheIndexAndFilterBlocks ?? false;
    // db_bench's default: index and filter held outside the cache (RocksDB's own default too).
    options.cacheIndexAndFilterBlocks = o.cacheIndexAndFilterBlocks ?? false;
    // The worker readers (--threads) take it from the database's reader handle.
    if (o.sharedBlockCache === true) options.sharedBlockCache = true;
    if (o.avoidFlushDuringRecovery === false) options.avoidFlushDuringRecovery = false;
    if (o.bloomBits >= 0) options.bloomBitsPerKey = o.bloomBits;
    if (o.dataBlockIndexType === 1) {
      options.dataBlockIndexType = "binaryAndHash";
      options.dataBlockHashTableUtilRatio = o.dataBlockHashTableUtilRatio ?? 0.75;
    }
    if (o.statistics) {
      this.statistics ??= new Statistics();
      options.statistics = this.statistics;
    }
    if (o.mergeOperator !== undefined) options.mergeOperator = o.mergeOperator;
    if (o.disableAutoCompactions) options.disableAutoCompactions = true;
    if (o.compactionCpuPriority !== undefined && o.compactionCpuPriority !== "normal")
      options.compactionCpuPriority = o.compactionCpuPriority;
    if (o.compactionStyle !== undefined && o.compactionStyle !== "leveled")
      options.compactionStyle = o.compactionStyle;
    if (o.compactionStyle === "fifo" && (o.fifoMaxTableFilesSize ?? 0) > 0)
      options.fifo = { maxTableFilesSize: o.fifoMaxTableFilesSize };
    if (o.rateLimiterBytesPerSec !== undefined && o.rateLimiterBytesPerSec > 0)
      options.rateLimiter = { bytesPerSecond: o.rateLimiterBytesPerSec };
    if (o.prepopulateBlockCache !== undefined && o.prepopulateBlockCache !== "disable")
      options.prepopulateBlockCache = o.prepopulateBlockCache;
    if ((o.dbWriteBufferSize ?? 0) > 0) options.dbWriteBufferSize = o.dbWriteBufferSize;
    const families = o.numColumnFamilies ?? 1;
    if (families > 1) {
      const named: Record<string, object> = {};
      for (let i = 1; i < families; i++) named[`cf${i}`] = {};
      options.columnFamilies = named;
      options.createMissingColumnFamilies = true;
    }
    if ((o.prefixSize ?? 0) > 0) options.prefixExtractor = fixedPrefix(o.prefixSize!);
    if ((o.memtableBloomSizeRatio ?? 0) > 0)
      options.memtablePrefixBloomSizeRatio = o.memtableBloomSizeRatio!;
    if (o.memtableWholeKeyFiltering === true) options.memtableWholeKeyFiltering = true;
    // The seeks' read options (db_bench's seekrandom: total_order_seek, prefix_same_as_start).
    this.seekOptions = {};
    if (o.prefixSameAsStart === true) this.seekOptions.prefixSameAsStart = true;
    if (o.totalOrderSeek === true) this.seekOptions.totalOrderSeek = true;
    this.pessimistic = o.transactionDb === true;
    if (this.pessimistic) options.transactionDB = {};
    for (;;) {
      try {
        this.db = await open(dir, options);
        break;
      } catch (e) {
        // An option this build does not know yet: drop it, say so.
        const m = e instanceof Error ? UNKNOWN_OPTION.exec(e.message) : null;
        if (m === null || !(m[1]! in options)) throw e;
        notes.push(`option ${m[1]} is not supported by this shale build; ignored`);
        delete options[m[1]!];
      }
    }
    this.extras = this.db as unknown as DesignExtras;
    this.families = [];
    if (families > 1) {
      this.families.push(this.db!.columnFamily("default"));
      for (let i = 1; i < families; i++) this.families.push(this.db!.columnFamily(`cf${i}`));
    }
    if (o.cacheSize < 0) {
      const bytes = Number(this.db!.getProperty("shale.block-cache-capacity"));
      notes.push(`--cache_size=-1: shale's default block cache, ${bytes / 1048576} MiB here`);
    }
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "iterator":
        return typeof this.extras.iterator === "function"
          ? undefined
          : "db.iterator() is not in this shale build yet";
      case "compact":
        return typeof this.extras.compactRange === "function"
          ? undefined
          : "db.compactRange() is not in this shale build yet";
      case "waitForCompactions":
        return typeof this.extras.waitForCompactions === "function"
          ? undefined
          : "db.waitForCompactions() is not in this shale build";
      default:
        return undefined;
    }
  }

  /** The family handle of `key` for a transaction (undefined: default, with one family). */
  private familyOf(key: Uint8Array): ColumnFamilyHandle | undefined {
    const f = this.families;
    return f.length === 0 ? undefined : f[familyIndex(key, f.length)];
  }

  /** The family `key` goes to (the database itself with one family). */
  private storeOf(key: Uint8Array): DB | ColumnFamilyHandle {
    const f = this.families;
    return f.length === 0 ? this.db! : f[familyIndex(key, f.length)]!;
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.storeOf(key).put(key, value, this.writeOptions);
  }

  delete(key: Uint8Array): void {
    this.storeOf(key).delete(key, this.writeOptions);
  }

  merge(key: Uint8Array, operand: Uint8Array): void {
    this.storeOf(key).merge(key, operand, this.writeOptions);
  }

  /** With several families, in each of them (a range spans every family's keys). */
  deleteRange(start: Uint8Array, end: Uint8Array): void {
    if (this.families.length === 0) this.db!.deleteRange(start, end, this.writeOptions);
    else for (const f of this.families) f.deleteRange(start, end, this.writeOptions);
  }

  write(ops: BatchOps): void {
    const b = this.batch.clear();
    if (this.families.length === 0) buildBatch(ops, b);
    else buildBatch(ops, this.familyBatch);
    this.db!.write(b, this.writeOptions);
  }

  randomTransaction(keys: readonly Uint8Array[]): number | Promise<number> {
    if (this.pessimistic) return this.pessimisticTransaction(keys);
    const db = this.db!;
    for (let retries = 0; ; retries++) {
      const txn = db.beginTransaction();
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const family = this.familyOf(key);
        const v = txn.getForUpdate(key, family) as Uint8Array | undefined;
        txn.put(key, this.increment(v), family);
      }
      try {
        txn.commit(this.writeOptions);
        return retries;
      } catch (e) {
        if (!isShaleError(e, "Busy") && !isShaleError(e, "TryAgain")) throw e;
      }
    }
  }

  private async pessimisticTransaction(keys: readonly Uint8Array[]): Promise<number> {
    const db = this.db!;
    for (let retries = 0; ; retries++) {
      const txn = db.beginTransaction();
      try {
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const family = this.familyOf(key);
          const v = await txn.getForUpdate(key, family);
          await txn.put(key, this.increment(v), family);
        }
        txn.commit(this.writeOptions);
        return retries;
      } catch (e) {
        if (txn.isActive) txn.rollback();
        if (!isShaleError(e, "Busy") && !isShaleError(e, "TryAgain")) throw e;
      }
    }
  }

  /** The 8-byte little-endian counter in `v` (absent: 0) plus one, in `this.counter`. */
  private increment(v: Uint8Array | undefined): Uint8Array {
    const c = this.counter;
    let n = 1;
    if (v !== undefined && v.length === 8)
      n +=
        (v[0]! | (v[1]! << 8) | (v[2]! << 16)) +
        v[3]! * 0x1000000 +
        (v[4]! | (v[5]! << 8)) * 4294967296;
    let x = n;
    for (let i = 0; i < 8; i++) {
      c[i] = x % 256;
      x = Math.floor(x / 256);
    }
    return c;
  }

  transactionPut(key: Uint8Array, value: Uint8Array): void | Promise<void> {
    if (this.pessimistic) return this.pessimisticPut(key, value);
    const txn = this.db!.beginTransaction();
    txn.put(key, value, this.familyOf(key));
    txn.commit(this.writeOptions);
  }

  private async pessimisticPut(key: Uint8Array, value: Uint8Array): Promise<void> {
    const txn = this.db!.beginTransaction();
    await txn.put(key, value, this.familyOf(key));
    txn.commit(this.writeOptions);
  }

  /** The zero-copy read (seed 002; as lmdb's engine uses getBinaryFast). */
  get(key: Uint8Array): number {
    const v = this.storeOf(key).getView(key);
    return v === undefined ? -1 : v.length;
  }

  /** A reader in another thread: `db.readerHandle()` and this engine's cache size. */
  readerThreadSpec(): ReaderThreadSpec {
    return {
      engine: "shale",
      handle: this.db!.readerHandle(),
      cacheSize: this.cacheSize,
      cacheIndexAndFilterBlocks: this.cacheIndexAndFilterBlocks,
      seekOptions: this.seekOptions,
    };
  }

  /** The safe read: a copy the caller owns (readrandomcopy). */
  getCopy(key: Uint8Array): number {
    const v = this.storeOf(key).get(key);
    return v === undefined ? -1 : v.length;
  }

  getMany(keys: Uint8Array[], tally: ReadTally): void {
    if (this.families.length === 0) {
      tallyFound(keys, this.db!.getMany(keys), tally);
      return;
    }
    const values = new Array<Uint8Array | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) values[i] = this.storeOf(keys[i]!).getView(keys[i]!);
    tallyFound(keys, values, tally);
  }

  scan(reverse: boolean, limit: number, out: ScanResult, clock: OpClock | undefined): void {
    const it = this.extras.iterator!.call(this.db);
    let n = 0;
    let bytes = 0;
    if (reverse) it.seekToLast();
    else it.seekToFirst();
    while (n < limit && it.valid()) {
      bytes += it.key().length + it.value().length;
      if (reverse) it.prev();
      else it.next();
      if (clock !== undefined) clock.finished();
      n++;
    }
    it.close();
    out.entries = n;
    out.bytes = bytes;
  }

  seekOnce(target: Uint8Array, nexts: number, out: SeekResult): void {
    const it = this.extras.iterator!.call(this.db, this.seekOptions);
    seekAndRead(it, target, nexts, out);
    it.close();
  }

  openCursor(): Cursor {
    const it = this.extras.iterator!.call(this.db, this.seekOptions);
    return {
      seek: (target, nexts, out) => seekAndRead(it, target, nexts, out),
      close: () => it.close(),
    };
  }

  async compact(): Promise<void> {
    await this.extras.compactRange!.call(this.db);
  }

  async waitForCompactions(): Promise<void> {
    await this.extras.waitForCompactions!.call(this.db);
  }

  stats(): string {
    return this.db!.getProperty("shale.stats") ?? "";
  }

  gauges(): EngineGauges {
    const db = this.db!;
    const n = (name: string) => Number(db.getProperty(name) ?? Number.NaN);
    const g: EngineGauges = {
      l0Files: n("shale.num-files-at-level0"),
      immutableMemtables: n("shale.num-immutable-mem-table"),
      compactionBytes: n("shale.compact-read-bytes") + n("shale.compact-write-bytes"),
      stallMicros: n("shale.stall-micros"),
    };
    for (const [k, v] of Object.entries(g))
      if (!Number.isFinite(v)) delete g[k as keyof EngineGauges];
    return g;
  }

  filesPerLevel(): number[] {
    const db = this.db!;
    const out: number[] = [];
    for (let level = 0; ; level++) {
      const v = db.getProperty(`shale.num-files-at-level${level}`);
      if (v === undefined) break;
      out.push(Number(v));
    }
    while (out.length > 1 && out[out.length - 1] === 0) out.pop();
    return out;
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
  }
}

function seekAndRead(it: DesignIterator, target: Uint8Array, nexts: number, out: SeekResult): void {
  it.seek(target);
  out.exact = it.valid() && sameBytes(it.key(), target);
  let entries = 0;
  let bytes = 0;
  for (let j = 0; j < nexts && it.valid(); j++) {
    bytes += it.key().length + it.value().length;
    it.next();
    entries++;
  }
  out.entries = entries;
  out.bytes = bytes;
}
