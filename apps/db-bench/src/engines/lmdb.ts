/**
 * lmdb (LMDB, a copy-on-write B+tree in a memory map) through its synchronous API:
 * `putSync`/`removeSync` (each its own transaction), `getBinaryFast` (a view valid until the
 * next get), `transactionSync` for batches and `getRange` for scans and seeks. Without --sync
 * the environment is opened `noSync` (commits reach the OS, not the disk), which is what
 * shale's default write promises.
 */
import { type Database, open } from "lmdb";
import type { OpClock } from "../op-clock.js";
import { type BatchBuilder, buildBatch, oneShotCursor } from "./common.js";
import type {
  BatchOps,
  Cursor,
  Engine,
  EngineOptions,
  Feature,
  ReaderThreadSpec,
  ReadTally,
  ScanResult,
  SeekResult,
} from "./engine.js";
import { sameBytes } from "./engine.js";

type LmdbDatabase = Database<Buffer, Uint8Array>;

/** Writes inside a `transactionSync`, as a BatchBuilder. */
class TransactionBuilder implements BatchBuilder {
  db: LmdbDatabase | undefined;

  put(key: Uint8Array, value: Uint8Array): void {
    this.db!.putSync(key, value as Buffer);
  }

  delete(key: Uint8Array): void {
    this.db!.removeSync(key);
  }

  readonly deleteRange = (start: Uint8Array, end: Uint8Array): void =>
    deleteKeys(this.db!, start, end);
}

export class LmdbEngine implements Engine {
  readonly name = "lmdb";
  private db: LmdbDatabase | undefined;
  private readonly builder = new TransactionBuilder();
  private readonly counter = Buffer.alloc(8);
  private dir = "";
  private options: EngineOptions | undefined;

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    this.dir = dir;
    this.options = o;
    this.db = this.builder.db = open<Buffer, Uint8Array>({
      path: dir,
      encoding: "binary",
      keyEncoding: "binary",
      compression: false,
      noSync: !o.sync,
      overlappingSync: false,
    });
    const notes = [
      "a memory-mapped B+tree: no block cache, Bloom filter, memtable or compaction; values stored uncompressed",
      "getMany = a loop of getBinaryFast; deleteRange = one transaction deleting each key in the range",
    ];
    if (o.disableWal) notes.push("--disable_wal: LMDB has no WAL (copy-on-write pages)");
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "merge":
        return "LMDB has no merge operator";
      case "compact":
      case "waitForCompactions":
        return "a B+tree has nothing to compact";
      default:
        return undefined;
    }
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.db!.putSync(key, value as Buffer);
  }

  delete(key: Uint8Array): void {
    this.db!.removeSync(key);
  }

  merge(): void {
    throw new Error("LMDB has no merge operator");
  }

  deleteRange(start: Uint8Array, end: Uint8Array): void {
    const db = this.db!;
    db.transactionSync(() => deleteKeys(db, start, end));
  }

  write(ops: BatchOps): void {
    this.db!.transactionSync(() => {
      buildBatch(ops, this.builder);
    });
  }

  /** One `transactionSync`: reads see its writes; LMDB has one writer, so no conflicts. */
  randomTransaction(keys: readonly Uint8Array[]): number {
    const db = this.db!;
    const counter = this.counter;
    db.transactionSync(() => {
      for (let i = 0; i < keys.length; i++) {
        const v = db.getBinaryFast(keys[i]!);
        let n = 1;
        if (v !== undefined && v.length === 8)
          n +=
            (v[0]! | (v[1]! << 8) | (v[2]! << 16)) +
            v[3]! * 0x1000000 +
            (v[4]! | (v[5]! << 8)) * 4294967296;
        for (let j = 0; j < 8; j++) {
          counter[j] = n % 256;
          n = Math.floor(n / 256);
        }
        db.putSync(keys[i]!, counter);
      }
    });
    return 0;
  }

  transactionPut(key: Uint8Array, value: Uint8Array): void {
    const db = this.db!;
    db.transactionSync(() => db.putSync(key, value as Buffer));
  }

  /** lmdb-js opens the same environment in another thread of the process. */
  readerThreadSpec(): ReaderThreadSpec {
    return { engine: "lmdb", dir: this.dir, options: this.options! };
  }

  get(key: Uint8Array): number {
    const v = this.db!.getBinaryFast(key);
    return v === undefined ? -1 : v.length;
  }

  /** lmdb's copying read (readrandomcopy). */
  getCopy(key: Uint8Array): number {
    const v = this.db!.getBinary(key);
    return v === undefined ? -1 : v.length;
  }

  getMany(keys: Uint8Array[], tally: ReadTally): void {
    const db = this.db!;
    for (let i = 0; i < keys.length; i++) {
      const v = db.getBinaryFast(keys[i]!);
      if (v !== undefined) {
        tally.found++;
        tally.bytes += keys[i]!.length + v.length;
      }
    }
  }

  scan(reverse: boolean, limit: number, out: ScanResult, clock: OpClock | undefined): void {
    let n = 0;
    let bytes = 0;
    for (const { key, value } of this.db!.getRange({ reverse, limit })) {
      bytes += key.length + value.length;
      if (clock !== undefined) clock.finished();
      n++;
    }
    out.entries = n;
    out.bytes = bytes;
  }

  seekOnce(target: Uint8Array, nexts: number, out: SeekResult): void {
    let entries = 0;
    let bytes = 0;
    let exact = false;
    for (const { key, value } of this.db!.getRange({ start: target, limit: Math.max(1, nexts) })) {
      if (entries === 0) exact = sameBytes(key, target);
      if (entries === nexts) break;
      bytes += key.length + value.length;
      entries++;
    }
    out.exact = exact;
    out.entries = entries;
    out.bytes = bytes;
  }

  /** lmdb-js has no reusable cursor: each seek is a `getRange`. */
  openCursor(): Cursor {
    return oneShotCursor(this);
  }

  compact(): Promise<void> {
    return Promise.reject(new Error("a B+tree has nothing to compact"));
  }

  waitForCompactions(): Promise<void> {
    return this.compact();
  }

  stats(): string {
    return JSON.stringify(this.db!.getStats(), null, 2);
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = this.builder.db = undefined;
  }
}

function deleteKeys(db: LmdbDatabase, start: Uint8Array, end: Uint8Array): void {
  const doomed = [...db.getKeys({ start, end })];
  for (const k of doomed) db.removeSync(k);
}
