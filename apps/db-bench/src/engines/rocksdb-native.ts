/**
 * rocksdb-native 3 (holepunch's RocksDB binding): every call is an asynchronous batch —
 * `db.write()` collects puts/deletes/range deletions and `flush()` writes them (one
 * WriteBatch, answered from the binding's thread), `db.read()` collects gets and `flush()`
 * reads them together (a MultiGet). A put or get is therefore a one-operation batch; getMany
 * is one read batch. Iterators are streamx Readables (`db.iterator({gte, lt, reverse,
 * limit})`), read with `for await`.
 *
 * Its options cover less than RocksDB's: no block-cache size (RocksDB's default cache) and no
 * compression choice (the binding's default), no per-write sync; writes go to the WAL
 * unsynced, as shale's default does. The package ships no types, so the subset used here is
 * declared below.
 */
import { createRequire } from "node:module";
import type { OpClock } from "../op-clock.js";
import { type BatchBuilder, buildBatch, oneShotCursor } from "./common.js";
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
import { sameBytes } from "./engine.js";

interface WriteBatch {
  put(key: Uint8Array, value: Uint8Array): Promise<void>;
  delete(key: Uint8Array): Promise<void>;
  deleteRange(start: Uint8Array, end: Uint8Array): Promise<void>;
  tryPut(key: Uint8Array, value: Uint8Array): void;
  tryDelete(key: Uint8Array): void;
  tryDeleteRange(start: Uint8Array, end: Uint8Array): void;
  flush(): Promise<void>;
  destroy(): void;
}

interface ReadBatch {
  get(key: Uint8Array): Promise<Buffer | null>;
  tryFlush(): void;
  flush(): Promise<void>;
  destroy(): void;
}

interface Row {
  key: Buffer;
  value: Buffer;
}

interface RocksDB {
  ready(): Promise<void>;
  write(opts?: { autoDestroy?: boolean }): WriteBatch;
  read(opts?: { autoDestroy?: boolean }): ReadBatch;
  iterator(range: { gte?: Uint8Array; reverse?: boolean; limit?: number }): AsyncIterable<Row>;
  compactRange(start?: Uint8Array | null, end?: Uint8Array | null): Promise<void>;
  close(): Promise<void>;
}

interface RocksDBModule {
  new (path: string, opts: { columnFamily?: unknown; maxBackgroundJobs?: number }): RocksDB;
  ColumnFamily: new (name: string, opts: object) => unknown;
  BloomFilterPolicy: new (bitsPerKey: number) => unknown;
}

class TryBuilder implements BatchBuilder {
  batch: WriteBatch | undefined;
  put(key: Uint8Array, value: Uint8Array): void {
    this.batch!.tryPut(key, value);
  }
  delete(key: Uint8Array): void {
    this.batch!.tryDelete(key);
  }
  readonly deleteRange = (start: Uint8Array, end: Uint8Array): void =>
    this.batch!.tryDeleteRange(start, end);
}

export class RocksdbNativeEngine implements Engine {
  readonly name = "rocksdb-native";
  private db: RocksDB | undefined;
  private readonly builder = new TryBuilder();

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const RocksDB = createRequire(import.meta.url)("rocksdb-native") as RocksDBModule;
    const columnFamily = new RocksDB.ColumnFamily("default", {
      writeBufferSize: o.writeBufferSize,
      tableBlockSize: o.blockSize,
      filterPolicy: new RocksDB.BloomFilterPolicy(o.bloomBits >= 0 ? o.bloomBits : 10),
    });
    const db = new RocksDB(dir, { columnFamily, maxBackgroundJobs: 2 });
    await db.ready();
    this.db = db;
    const notes = [
      "every operation is an asynchronous batch (a put or get is a batch of one); getMany = one read batch",
      "block cache: RocksDB's default (the binding takes no size); compression: the binding's default",
    ];
    if (o.sync) notes.push("--sync: not available (the binding has no per-write sync)");
    if (o.disableWal) notes.push("--disable_wal: not available");
    if (o.disableAutoCompactions) notes.push("--disable_auto_compactions: not available");
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "merge":
        return "rocksdb-native has no merge operator";
      case "waitForCompactions":
        return "rocksdb-native has no call that waits for compactions";
      case "stats":
        return "rocksdb-native's statistics are a Promise (getProperty), not text at hand";
      default:
        return undefined;
    }
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    const w = this.db!.write({ autoDestroy: true });
    w.tryPut(key, value);
    return w.flush();
  }

  delete(key: Uint8Array): Promise<void> {
    const w = this.db!.write({ autoDestroy: true });
    w.tryDelete(key);
    return w.flush();
  }

  merge(): Promise<void> {
    return Promise.reject(new Error("rocksdb-native has no merge operator"));
  }

  deleteRange(start: Uint8Array, end: Uint8Array): Promise<void> {
    const w = this.db!.write({ autoDestroy: true });
    w.tryDeleteRange(start, end);
    return w.flush();
  }

  write(ops: BatchOps): Promise<void> {
    const w = this.db!.write({ autoDestroy: true });
    this.builder.batch = w;
    buildBatch(ops, this.builder);
    this.builder.batch = undefined;
    return w.flush();
  }

  async get(key: Uint8Array): Promise<number> {
    const r = this.db!.read({ autoDestroy: true });
    const p = r.get(key);
    r.tryFlush();
    const v = await p;
    return v === null ? -1 : v.length;
  }

  async getMany(keys: Uint8Array[], tally: ReadTally): Promise<void> {
    const r = this.db!.read({ autoDestroy: true });
    const ps: Promise<Buffer | null>[] = [];
    for (let i = 0; i < keys.length; i++) ps.push(r.get(keys[i]!));
    r.tryFlush();
    const values = await Promise.all(ps);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== null && v !== undefined) {
        tally.found++;
        tally.bytes += keys[i]!.length + v.length;
      }
    }
  }

  async scan(
    reverse: boolean,
    limit: number,
    out: ScanResult,
    clock: OpClock | undefined,
  ): Promise<void> {
    let n = 0;
    let bytes = 0;
    const range = Number.isFinite(limit) ? { reverse, limit } : { reverse };
    for await (const { key, value } of this.db!.iterator(range)) {
      bytes += key.length + value.length;
      if (clock !== undefined) clock.finished();
      n++;
    }
    out.entries = n;
    out.bytes = bytes;
  }

  async seekOnce(target: Uint8Array, nexts: number, out: SeekResult): Promise<void> {
    let entries = 0;
    let bytes = 0;
    let exact = false;
    for await (const { key, value } of this.db!.iterator({
      gte: target,
      limit: Math.max(1, nexts),
    })) {
      if (entries === 0) exact = sameBytes(key, target);
      if (entries === nexts) break;
      bytes += key.length + value.length;
      entries++;
    }
    out.exact = exact;
    out.entries = entries;
    out.bytes = bytes;
  }

  /** The binding's iterators cannot be repositioned: each seek is a new iterator. */
  openCursor(): Cursor {
    return oneShotCursor(this);
  }

  async compact(): Promise<void> {
    await this.db!.compactRange();
  }

  waitForCompactions(): Promise<void> {
    return Promise.reject(new Error("rocksdb-native has no call that waits for compactions"));
  }

  stats(): string {
    throw new Error("rocksdb-native's statistics are not available synchronously");
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
  }
}
