/**
 * What classic-level and memory-level share: the abstract-level 3 API. Writes, getMany and
 * iteration are Promises (classic-level hops to the libuv thread pool); `getSync` is the one
 * synchronous read. Scans read in `nextv(1000)` chunks, seeks in one `nextv` after the seek.
 */
import type { OpClock } from "../op-clock.js";
import { type BatchBuilder, buildBatch, deleteRangesOf, tallyFound } from "./common.js";
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

export interface LevelIterator {
  seek(target: Uint8Array): void;
  nextv(size: number): Promise<[Uint8Array, Uint8Array][]>;
  close(): Promise<void>;
}

export interface LevelChainedBatch {
  put(key: Uint8Array, value: Uint8Array): unknown;
  del(key: Uint8Array): unknown;
  write(options?: { sync?: boolean }): Promise<void>;
}

export interface LevelIteratorOptions {
  gte?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/** The subset of abstract-level 3 used here. */
export interface LevelDb {
  close(): Promise<void>;
  put(key: Uint8Array, value: Uint8Array, options?: { sync?: boolean }): Promise<void>;
  del(key: Uint8Array, options?: { sync?: boolean }): Promise<void>;
  getSync(key: Uint8Array): Uint8Array | undefined;
  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  batch(): LevelChainedBatch;
  iterator(options?: LevelIteratorOptions): LevelIterator;
  clear(options: { gte: Uint8Array; lt: Uint8Array }): Promise<void>;
}

const CHUNK = 1000;

/** A chained batch as a BatchBuilder; keys go through the engine's `own`. */
class ChainedBatchBuilder implements BatchBuilder {
  batch: LevelChainedBatch | undefined;
  readonly deleteRange = undefined;

  constructor(private readonly own: (bytes: Uint8Array) => Uint8Array) {}

  put(key: Uint8Array, value: Uint8Array): void {
    this.batch!.put(this.own(key), value);
  }

  delete(key: Uint8Array): void {
    this.batch!.del(this.own(key));
  }
}

export abstract class LevelEngine implements Engine {
  abstract readonly name: string;
  protected db: LevelDb | undefined;
  protected writeOptions: { sync?: boolean } = {};
  private readonly builder = new ChainedBatchBuilder((bytes) => this.own(bytes));

  abstract open(dir: string, options: EngineOptions): Promise<string[]>;
  abstract unsupported(feature: Feature): string | undefined;
  abstract compact(): Promise<void>;
  abstract stats(): string;

  waitForCompactions(): Promise<void> {
    return Promise.reject(new Error(`${this.name} cannot wait for its compactions`));
  }

  /** Keys (and values) as the engine may keep them: memory-level must copy. */
  protected own(bytes: Uint8Array): Uint8Array {
    return bytes;
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.db!.put(this.own(key), value, this.writeOptions);
  }

  delete(key: Uint8Array): Promise<void> {
    return this.db!.del(this.own(key), this.writeOptions);
  }

  merge(_key: Uint8Array, _operand: Uint8Array): Promise<void> {
    return Promise.reject(new Error(`${this.name} has no merge`));
  }

  /** `clear({gte, lt})`: the engine walks the range and deletes each key. */
  deleteRange(start: Uint8Array, end: Uint8Array): Promise<void> {
    return this.db!.clear({ gte: this.own(start), lt: this.own(end) });
  }

  /** A chained batch; range deletions (no batch form here) follow it as `clear` calls. */
  async write(ops: BatchOps): Promise<void> {
    const b = this.db!.batch();
    this.builder.batch = b;
    const ranges = buildBatch(ops, this.builder);
    this.builder.batch = undefined;
    await b.write(this.writeOptions);
    if (ranges) await deleteRangesOf(ops, this);
  }

  get(key: Uint8Array): number {
    const v = this.db!.getSync(key);
    return v === undefined ? -1 : v.length;
  }

  async getMany(keys: Uint8Array[], tally: ReadTally): Promise<void> {
    tallyFound(keys, await this.db!.getMany(keys), tally);
  }

  async scan(
    reverse: boolean,
    limit: number,
    out: ScanResult,
    clock: OpClock | undefined,
  ): Promise<void> {
    const it = this.db!.iterator({ reverse });
    let n = 0;
    let bytes = 0;
    try {
      while (n < limit) {
        const rows = await it.nextv(Math.min(CHUNK, limit - n));
        if (rows.length === 0) break;
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!;
          bytes += row[0].length + row[1].length;
        }
        if (clock !== undefined) clock.finishedMany(rows.length);
        n += rows.length;
      }
    } finally {
      await it.close();
    }
    out.entries = n;
    out.bytes = bytes;
  }

  async seekOnce(target: Uint8Array, nexts: number, out: SeekResult): Promise<void> {
    const it = this.db!.iterator({ gte: target });
    try {
      await readRows(it, target, nexts, out);
    } finally {
      await it.close();
    }
  }

  openCursor(): Cursor {
    const it = this.db!.iterator();
    return {
      seek: (target, nexts, out) => {
        it.seek(target);
        return readRows(it, target, nexts, out);
      },
      close: () => it.close(),
    };
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
  }
}

/** After a seek: one `nextv` of max(1, nexts) rows; db_bench reads `nexts` of them. */
async function readRows(
  it: LevelIterator,
  target: Uint8Array,
  nexts: number,
  out: SeekResult,
): Promise<void> {
  const rows = await it.nextv(Math.max(1, nexts));
  out.exact = rows.length > 0 && sameBytes(rows[0]![0], target);
  const entries = Math.min(nexts, rows.length);
  let bytes = 0;
  for (let i = 0; i < entries; i++) bytes += rows[i]![0].length + rows[i]![1].length;
  out.entries = entries;
  out.bytes = bytes;
}
