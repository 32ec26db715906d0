/**
 * better-sqlite3 12 (SQLite 3.5x, a B-tree in one file) through its synchronous API: one
 * `WITHOUT ROWID` table `kv(k BLOB PRIMARY KEY, v BLOB)`, so rows live in the key's B-tree,
 * driven by prepared statements (`INSERT OR REPLACE`, `DELETE`, a plucked `SELECT v`, and
 * `iterate()` over `ORDER BY k LIMIT ?` for scans and seeks). Each put is its own
 * autocommit transaction; a batch is one `transaction()`.
 *
 * Durability: `journal_mode=WAL` with `synchronous=NORMAL` (FULL with --sync): a commit is
 * written to the WAL and reaches the OS, not the disk; the WAL is fsynced only at
 * checkpoints — as shale's default write (WAL written, not fsynced; tables synced when
 * flushed). The block cache is SQLite's page cache (`cache_size`, in KiB).
 *
 * The package ships no types, so the subset used here is declared below.
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

interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  pluck(on?: boolean): Statement;
  raw(on?: boolean): Statement;
}

interface Database {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  transaction(fn: () => void): () => void;
  close(): void;
}

type DatabaseConstructor = new (path: string) => Database;

class StatementBuilder implements BatchBuilder {
  constructor(private readonly e: BetterSqlite3Engine) {}
  put(key: Uint8Array, value: Uint8Array): void {
    this.e.put(key, value);
  }
  delete(key: Uint8Array): void {
    this.e.delete(key);
  }
  readonly deleteRange = (start: Uint8Array, end: Uint8Array): void =>
    this.e.deleteRange(start, end);
}

export class BetterSqlite3Engine implements Engine {
  readonly name = "better-sqlite3";
  private db: Database | undefined;
  private putStmt: Statement | undefined;
  private deleteStmt: Statement | undefined;
  private deleteRangeStmt: Statement | undefined;
  private getStmt: Statement | undefined;
  private scanStmt: Statement | undefined;
  private scanReverseStmt: Statement | undefined;
  private seekStmt: Statement | undefined;
  private batchOps: BatchOps | undefined;
  private runBatch: (() => void) | undefined;
  private readonly builder = new StatementBuilder(this);

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const Sqlite = createRequire(import.meta.url)("better-sqlite3") as DatabaseConstructor;
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    const db = new Sqlite(`${dir}/kv.sqlite`);
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${o.sync ? "FULL" : "NORMAL"}`);
    if (o.cacheSize >= 0) db.pragma(`cache_size = ${-Math.max(1, Math.floor(o.cacheSize / 1024))}`);
    db.exec("CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID");
    this.db = db;
    this.putStmt = db.prepare("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)");
    this.deleteStmt = db.prepare("DELETE FROM kv WHERE k = ?");
    this.deleteRangeStmt = db.prepare("DELETE FROM kv WHERE k >= ? AND k < ?");
    this.getStmt = db.prepare("SELECT v FROM kv WHERE k = ?").pluck();
    this.scanStmt = db.prepare("SELECT k, v FROM kv ORDER BY k LIMIT ?").raw();
    this.scanReverseStmt = db.prepare("SELECT k, v FROM kv ORDER BY k DESC LIMIT ?").raw();
    this.seekStmt = db.prepare("SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT ?").raw();
    this.runBatch = db.transaction(() => {
      buildBatch(this.batchOps!, this.builder);
    });
    const notes = [
      `a B-tree (WITHOUT ROWID table keyed by BLOB), journal_mode=WAL, synchronous=${o.sync ? "FULL" : "NORMAL"} (commits reach the OS; the WAL is fsynced at checkpoints); values stored uncompressed`,
      "each put is its own transaction; getMany = a loop of gets; cursor seeks = one SELECT each",
    ];
    if (o.disableWal) notes.push("--disable_wal: not applied (SQLite keeps its WAL journal)");
    if (o.bloomBits >= 0) notes.push("--bloom_bits: SQLite has no Bloom filter");
    if (o.compression !== "none") notes.push("--compression: SQLite stores pages uncompressed");
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "merge":
        return "SQLite has no merge operator";
      case "compact":
      case "waitForCompactions":
        return "a B-tree has nothing to compact";
      case "stats":
        return "better-sqlite3 has no statistics text";
      default:
        return undefined;
    }
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.putStmt!.run(key, value);
  }

  delete(key: Uint8Array): void {
    this.deleteStmt!.run(key);
  }

  merge(): void {
    throw new Error("SQLite has no merge operator");
  }

  deleteRange(start: Uint8Array, end: Uint8Array): void {
    this.deleteRangeStmt!.run(start, end);
  }

  write(ops: BatchOps): void {
    this.batchOps = ops;
    try {
      this.runBatch!();
    } finally {
      this.batchOps = undefined;
    }
  }

  get(key: Uint8Array): number {
    const v = this.getStmt!.get(key) as Uint8Array | undefined;
    return v === undefined ? -1 : v.length;
  }

  getMany(keys: Uint8Array[], tally: ReadTally): void {
    const stmt = this.getStmt!;
    for (let i = 0; i < keys.length; i++) {
      const v = stmt.get(keys[i]!) as Uint8Array | undefined;
      if (v !== undefined) {
        tally.found++;
        tally.bytes += keys[i]!.length + v.length;
      }
    }
  }

  scan(reverse: boolean, limit: number, out: ScanResult, clock: OpClock | undefined): void {
    const stmt = reverse ? this.scanReverseStmt! : this.scanStmt!;
    let n = 0;
    let bytes = 0;
    for (const row of stmt.iterate(Number.isFinite(limit) ? limit : -1)) {
      const [k, v] = row as [Uint8Array, Uint8Array];
      bytes += k.length + v.length;
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
    for (const row of this.seekStmt!.iterate(target, Math.max(1, nexts))) {
      const [k, v] = row as [Uint8Array, Uint8Array];
      if (entries === 0) exact = sameBytes(k, target);
      if (entries === nexts) break;
      bytes += k.length + v.length;
      entries++;
    }
    out.exact = exact;
    out.entries = entries;
    out.bytes = bytes;
  }

  /** A SELECT per seek: SQLite statements have no reusable cursor to reposition. */
  openCursor(): Cursor {
    return oneShotCursor(this);
  }

  compact(): Promise<void> {
    return Promise.reject(new Error("a B-tree has nothing to compact"));
  }

  waitForCompactions(): Promise<void> {
    return this.compact();
  }

  stats(): string {
    throw new Error("better-sqlite3 has no statistics text");
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }
}
