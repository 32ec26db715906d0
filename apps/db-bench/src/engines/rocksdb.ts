/**
 * @nxtedition/rocksdb (RocksLevel: RocksDB behind abstract-level 1) through the synchronous
 * paths its own async methods wrap: a reused chained batch written with `_writeSync` for
 * every write, `_getManySync` for reads, and iterators driven by `_seekSync`/`_nextvSync`.
 * Range deletions are RocksDB's DeleteRange (`clear({gte, lt})`). The package ships no
 * types, so the subset used here is declared below.
 */
import { createRequire } from "node:module";
import type {
  BatchOps,
  Cursor,
  Engine,
  EngineOptions,
  Feature,
  ReadTally,
  ScanResult,
  SeekResult,
} from "./engine.js";
import { DELETE, DELETE_RANGE, PUT, sameBytes } from "./engine.js";

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

export class RocksdbEngine implements Engine {
  readonly name = "rocksdb";
  private db: RocksLevelDb | undefined;
  private batch: RocksBatch | undefined;
  private writeOptions: object = EMPTY;
  private hasMerge = false;
  private readonly one: Uint8Array[] = [new Uint8Array(0)];

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const db = new RocksLevel(dir);
    const options: Record<string, unknown> = {
      cacheSize: o.cacheSize,
      blockSize: o.blockSize,
      compression: o.compression === "snappy",
    };
    const notes: string[] = [];
    if (o.bloomBits > 0) options.filterPolicy = `bloomfilter:${o.bloomBits}:false`;
    else if (o.bloomBits === 0)
      notes.push("--bloom_bits=0: the binding always builds a filter (10 bits/key)");
    if (o.mergeOperator !== undefined) options.mergeOperator = o.mergeOperator;
    await db.open(options);
    this.db = db;
    this.batch = db.batch();
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

  write(ops: BatchOps): void | Promise<void> {
    const b = this.batch!;
    const { kinds, keys, values } = ops;
    let ranges = false;
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[i]!;
      if (kind === PUT) b._put(keys[i]!, values[i]!, EMPTY);
      else if (kind === DELETE) b._del(keys[i]!, EMPTY);
      else if (kind === DELETE_RANGE) ranges = true;
    }
    this.commit(b);
    if (ranges) return this.writeRanges(ops);
  }

  /** The binding has no batch DeleteRange: ranges follow the batch. */
  private async writeRanges(ops: BatchOps): Promise<void> {
    for (let i = 0; i < ops.kinds.length; i++)
      if (ops.kinds[i] === DELETE_RANGE) await this.deleteRange(ops.keys[i]!, ops.values[i]!);
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
    const values = this.db!._getManySync(keys, EMPTY);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== undefined) {
        tally.found++;
        tally.bytes += keys[i]!.length + v.length;
      }
    }
  }

  scan(
    reverse: boolean,
    limit: number,
    out: ScanResult,
    latencies: Float64Array | undefined,
  ): void {
    const it = this.db!.iterator({ ...BUFFERS, reverse });
    let n = 0;
    let bytes = 0;
    try {
      while (n < limit) {
        const t = latencies !== undefined ? performance.now() : 0;
        const { rows, finished } = it._nextvSync(Math.min(CHUNK, limit - n), EMPTY);
        for (let i = 0; i < rows.length; i++) bytes += rows[i]!.length;
        const count = rows.length >>> 1;
        if (latencies !== undefined && count > 0)
          latencies.fill(((performance.now() - t) * 1000) / count, n, n + count);
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

  stats(): string {
    return this.db!.getProperty("rocksdb.stats");
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
    this.batch = undefined;
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
