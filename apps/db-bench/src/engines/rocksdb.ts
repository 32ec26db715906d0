/**
 * @nxtedition/rocksdb (RocksLevel: RocksDB behind abstract-level 1) through the synchronous
 * paths its own async methods wrap: a reused chained batch written with `_writeSync` for
 * every write, `_getManySync` for reads, and iterators driven by `_seekSync`/`_nextvSync`.
 * Range deletions are RocksDB's DeleteRange (`clear({gte, lt})`). The package ships no
 * types, so the subset used here is declared below.
 */
import { createRequire } from "node:module";
import type { OpClock } from "../op-clock.js";
import { type BatchBuilder, buildBatch, deleteRangesOf, tallyFound } from "./common.js";
import type {
  BatchOps,
  Cursor,
  Engine,
  EngineGauges,
  EngineOptions,
  Feature,
  ReadTally,
  ScanResult,
  SeekResult,
} from "./engine.js";
import { sameBytes } from "./engine.js";

interface RocksBatch {
  _put(key: Uint8Array, value: Uint8Array, options: object): void;
  _del(key: Uint8Array, options: object): void;
  _merge(key: Uint8Array, value: Uint8Array, options: object): void;
  _clear(): void;
  _writeSync(options: object): void;
}

interface RocksIterator {
  _seekSync(target: Uint8Array): void;
  _nextvSync(size: number, options: object): { rows: Buffer[]; finished: boolean };
  _closeSync(): void;
}

interface RocksLevelDb {
  open(options: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
  batch(): RocksBatch;
  _getManySync(keys: Uint8Array[], options: object): (Buffer | undefined)[];
  iterator(options: Record<string, unknown>): RocksIterator;
  clear(options: Record<string, unknown>): Promise<void>;
  getProperty(name: string): string;
}

type RocksLevelClass = new (location: string, options?: object) => RocksLevelDb;

const { RocksLevel } = createRequire(import.meta.url)("@nxtedition/rocksdb") as {
  RocksLevel: RocksLevelClass;
};

const EMPTY = {};
const BUFFERS = { keyEncoding: "buffer", valueEncoding: "buffer" };
const CHUNK = 1000;

/** The reused chained batch as a BatchBuilder (no DeleteRange inside a batch). */
class RocksBatchBuilder implements BatchBuilder {
  batch: RocksBatch | undefined;
  readonly deleteRange = undefined;

  put(key: Uint8Array, value: Uint8Array): void {
    this.batch!._put(key, value, EMPTY);
  }

  delete(key: Uint8Array): void {
    this.batch!._del(key, EMPTY);
  }
}

export class RocksdbEngine implements Engine {
  readonly name = "rocksdb";
  private db: RocksLevelDb | undefined;
  private batch: RocksBatch | undefined;
  private writeOptions: object = EMPTY;
  private hasMerge = false;
  private readonly one: Uint8Array[] = [new Uint8Array(0)];
  private readonly builder = new RocksBatchBuilder();

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const db = new RocksLevel(dir);
    const options: Record<string, unknown> = {
      blockSize: o.blockSize,
      compression: o.compression === "snappy",
    };
    if (o.cacheSize >= 0) options.cacheSize = o.cacheSize;
    const notes: string[] = [];
    if (o.bloomBits > 0) options.filterPolicy = `bloomfilter:${o.bloomBits}:false`;
    else if (o.bloomBits === 0)
      notes.push("--bloom_bits=0: the binding always builds a filter (10 bits/key)");
    if (o.mergeOperator !== undefined) options.mergeOperator = o.mergeOperator;
    await db.open(options);
    this.db = db;
    this.batch = this.builder.batch = db.batch();
    this.writeOptions = o.sync ? { sync: true } : EMPTY;
    this.hasMerge = o.mergeOperator !== undefined;
    if (o.compression === "snappy")
      notes.push("compression: the binding's zstd (it offers on/off only)");
    notes.push("write_buffer_size: the binding keeps RocksDB's 64 MiB default");
    if (o.disableWal) notes.push("--disable_wal: the binding cannot skip the WAL");
    if (o.disableAutoCompactions)
      notes.push("--disable_auto_compactions: not exposed by the binding");
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "compact":
        return "the binding does not expose CompactRange";
      case "waitForCompactions":
        return "the binding does not expose WaitForCompact";
      case "merge":
        return this.hasMerge ? undefined : "opened without --merge_operator";
      default:
        return undefined;
    }
  }

  put(key: Uint8Array, value: Uint8Array): void {
    const b = this.batch!;
    b._put(key, value, EMPTY);
    this.commit(b);
  }

  delete(key: Uint8Array): void {
    const b = this.batch!;
    b._del(key, EMPTY);
    this.commit(b);
  }

  merge(key: Uint8Array, operand: Uint8Array): void {
    const b = this.batch!;
    b._merge(key, operand, EMPTY);
    this.commit(b);
  }

  deleteRange(start: Uint8Array, end: Uint8Array): Promise<void> {
    return this.db!.clear({ gte: start, lt: end, keyEncoding: "buffer" });
  }

  /** The binding has no batch DeleteRange: ranges follow the batch. */
  write(ops: BatchOps): void | Promise<void> {
    const ranges = buildBatch(ops, this.builder);
    this.commit(this.batch!);
    if (ranges) return deleteRangesOf(ops, this);
  }

  private commit(b: RocksBatch): void {
    try {
      b._writeSync(this.writeOptions);
    } finally {
      b._clear();
    }
  }

  get(key: Uint8Array): number {
    this.one[0] = key;
    const v = this.db!._getManySync(this.one, EMPTY)[0];
    return v === undefined ? -1 : v.length;
  }

  getMany(keys: Uint8Array[], tally: ReadTally): void {
    tallyFound(keys, this.db!._getManySync(keys, EMPTY), tally);
  }

  scan(reverse: boolean, limit: number, out: ScanResult, clock: OpClock | undefined): void {
    const it = this.db!.iterator({ ...BUFFERS, reverse });
    let n = 0;
    let bytes = 0;
    try {
      while (n < limit) {
        const { rows, finished } = it._nextvSync(Math.min(CHUNK, limit - n), EMPTY);
        for (let i = 0; i < rows.length; i++) bytes += rows[i]!.length;
        const count = rows.length >>> 1;
        if (clock !== undefined) clock.finishedMany(count);
        n += count;
        if (finished || count === 0) break;
      }
    } finally {
      it._closeSync();
    }
    out.entries = n;
    out.bytes = bytes;
  }

  seekOnce(target: Uint8Array, nexts: number, out: SeekResult): void {
    const it = this.db!.iterator(BUFFERS);
    try {
      seekAndRead(it, target, nexts, out);
    } finally {
      it._closeSync();
    }
  }

  openCursor(): Cursor {
    const it = this.db!.iterator(BUFFERS);
    return {
      seek: (target, nexts, out) => seekAndRead(it, target, nexts, out),
      close: () => it._closeSync(),
    };
  }

  compact(): Promise<void> {
    return Promise.reject(new Error("the binding does not expose CompactRange"));
  }

  waitForCompactions(): Promise<void> {
    return Promise.reject(new Error("the binding does not expose WaitForCompact"));
  }

  stats(): string {
    return this.db!.getProperty("rocksdb.stats");
  }

  gauges(): EngineGauges {
    const g: EngineGauges = {};
    const n = (name: string) => {
      try {
        const v = Number(this.db!.getProperty(name));
        return Number.isFinite(v) ? v : undefined;
      } catch {
        return undefined;
      }
    };
    const l0 = n("rocksdb.num-files-at-level0");
    if (l0 !== undefined) g.l0Files = l0;
    const imm = n("rocksdb.num-immutable-mem-table");
    if (imm !== undefined) g.immutableMemtables = imm;
    return g;
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
    this.batch = this.builder.batch = undefined;
  }
}

function seekAndRead(it: RocksIterator, target: Uint8Array, nexts: number, out: SeekResult): void {
  it._seekSync(target);
  const { rows } = it._nextvSync(Math.max(1, nexts), EMPTY);
  out.exact = rows.length > 0 && sameBytes(rows[0]!, target);
  const entries = Math.min(nexts, rows.length >>> 1);
  let bytes = 0;
  for (let i = 0; i < 2 * entries; i++) bytes += rows[i]!.length;
  out.entries = entries;
  out.bytes = bytes;
}
