/**
 * shale, through its synchronous API (every read and write is a plain call); point reads
 * through the zero-copy `getView` (the fastest-API rule), `get`'s copy in readrandomcopy.
 *
 * The iterator, compactRange and a few options are coded against /work/shared/DESIGN.md's
 * API and looked up at run time: a build without them reports the workloads that need them
 * as n/a with the reason, and an option the build rejects as unknown is dropped with a note.
 */
import { type DB, isShaleError, open, Statistics, WriteBatch } from "shale";
import type { OpClock } from "../op-clock.js";
import { buildBatch, tallyFound } from "./common.js";
import {
  type BatchOps,
  type Cursor,
  type Engine,
  type EngineGauges,
  type EngineOptions,
  type Feature,
  type ReadTally,
  type ScanResult,
  type SeekResult,
  sameBytes,
} from "./engine.js";

/** DESIGN.md's DB iterator. */
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

/** The parts of DESIGN.md's DB API that a build may not have yet. */
interface DesignExtras {
  iterator?: (options?: object) => DesignIterator;
  compactRange?: (start?: Uint8Array, end?: Uint8Array) => Promise<void>;
  /** Not in DESIGN.md's API: the engine's internal WaitForCompact, for benchmarks. */
  waitForCompactions?: () => Promise<void>;
}

const UNKNOWN_OPTION = /unknown option "(\w+)"/;

export class ShaleEngine implements Engine {
  readonly name = "shale";
  private db: DB | undefined;
  private extras: DesignExtras = {};
  private writeOptions: { sync: boolean; disableWAL: boolean } = { sync: false, disableWAL: false };
  private readonly batch = new WriteBatch();
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
    // db_bench's default: index and filter held outside the cache (RocksDB's own default too).
    options.cacheIndexAndFilterBlocks = o.cacheIndexAndFilterBlocks ?? false;
    if (o.bloomBits >= 0) options.bloomBitsPerKey = o.bloomBits;
    if (o.statistics) {
      this.statistics ??= new Statistics();
      options.statistics = this.statistics;
    }
    if (o.mergeOperator !== undefined) options.mergeOperator = o.mergeOperator;
    if (o.disableAutoCompactions) options.disableAutoCompactions = true;
    if (o.compactionCpuPriority !== undefined && o.compactionCpuPriority !== "normal")
      options.compactionCpuPriority = o.compactionCpuPriority;
    this.pessimistic = o.transactionDb === true;
    if (this.pessimistic) options.transactionDB = {};
    for (;;) {
      try {
        this.db = await open(dir, options);
        break;
      } catch (e) {
        // An option of DESIGN.md that this build does not know yet: drop it, say so.
        const m = e instanceof Error ? UNKNOWN_OPTION.exec(e.message) : null;
        if (m === null || !(m[1]! in options)) throw e;
        notes.push(`option ${m[1]} is not supported by this shale build; ignored`);
        delete options[m[1]!];
      }
    }
    this.extras = this.db as unknown as DesignExtras;
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

  put(key: Uint8Array, value: Uint8Array): void {
    this.db!.put(key, value, this.writeOptions);
  }

  delete(key: Uint8Array): void {
    this.db!.delete(key, this.writeOptions);
  }

  merge(key: Uint8Array, operand: Uint8Array): void {
    this.db!.merge(key, operand, this.writeOptions);
  }

  deleteRange(start: Uint8Array, end: Uint8Array): void {
    this.db!.deleteRange(start, end, this.writeOptions);
  }

  write(ops: BatchOps): void {
    const b = this.batch.clear();
    buildBatch(ops, b);
    this.db!.write(b, this.writeOptions);
  }

  randomTransaction(keys: readonly Uint8Array[]): number | Promise<number> {
    if (this.pessimistic) return this.pessimisticTransaction(keys);
    const db = this.db!;
    for (let retries = 0; ; retries++) {
      const txn = db.beginTransaction();
      for (let i = 0; i < keys.length; i++) {
        const v = txn.getForUpdate(keys[i]!) as Uint8Array | undefined;
        txn.put(keys[i]!, this.increment(v));
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
          const v = await txn.getForUpdate(keys[i]!);
          await txn.put(keys[i]!, this.increment(v));
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
    txn.put(key, value);
    txn.commit(this.writeOptions);
  }

  private async pessimisticPut(key: Uint8Array, value: Uint8Array): Promise<void> {
    const txn = this.db!.beginTransaction();
    await txn.put(key, value);
    txn.commit(this.writeOptions);
  }

  /** The zero-copy read (seed 002; as lmdb's engine uses getBinaryFast). */
  get(key: Uint8Array): number {
    const v = this.db!.getView(key);
    return v === undefined ? -1 : v.length;
  }

  /** The safe read: a copy the caller owns (readrandomcopy). */
  getCopy(key: Uint8Array): number {
    const v = this.db!.get(key);
    return v === undefined ? -1 : v.length;
  }

  getMany(keys: Uint8Array[], tally: ReadTally): void {
    tallyFound(keys, this.db!.getMany(keys), tally);
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
    const it = this.extras.iterator!.call(this.db);
    seekAndRead(it, target, nexts, out);
    it.close();
  }

  openCursor(): Cursor {
    const it = this.extras.iterator!.call(this.db);
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
