/**
 * The SQLite-WASM peer (`@sqlite.org/sqlite-wasm` 3.41.2): a `WITHOUT ROWID` key-value table
 * on SQLite's OPFS VFS (`sqlite3.oo1.OpfsDb`, which needs a worker and cross-origin
 * isolation, as shale's OpfsFileSystem does), run in the bench worker with its synchronous
 * API, one prepared statement per workload:
 *
 * ```
 *   CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID
 *   fillrandom  INSERT OR REPLACE INTO kv VALUES (?, ?)         one autocommit per put
 *   readrandom  SELECT v FROM kv WHERE k = ?
 *   readseq     SELECT k, v FROM kv ORDER BY k                  stepped, rows counted
 *   seekrandom  SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT 11
 * ```
 *
 * Configured for speed, to match shale's writes without `sync`: `journal_mode=PERSIST` (this
 * VFS has no WAL mode; PERSIST is its default) and `synchronous=OFF` (no `flush()` at
 * commit); the default (normal) locking, see EXCLUSIVE below.
 * Durability: a commit is written through the OPFS handles but not flushed; SQLite's
 * documentation warns that with synchronous=OFF an operating-system crash or power loss
 * may corrupt the database. shale without `sync` writes its WAL through the handle unflushed
 * too, but a crash loses at most the unflushed tail: the log's checksums keep the rest. The module is loaded unbundled
 * from `./sqlite/` beside the worker (main.ts copies it there), since it finds its .wasm
 * and its OPFS proxy worker relative to itself.
 */
import { type BenchRequest, benchKey, randomIndexes, type WorkloadResult } from "./workloads.js";

interface Statement {
  bind(values: unknown[]): Statement;
  step(): boolean;
  reset(): Statement;
  get(index: number): unknown;
  finalize(): void;
}

interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}

interface Sqlite3 {
  version: { libVersion: string };
  oo1: { OpfsDb?: new (filename: string, flags: string) => Database };
}

const VALUE = "v".repeat(100);

/**
 * `locking_mode=EXCLUSIVE`: faster, but in this run's chromium SQLite 3.41.2's OPFS VFS failed
 * with "sqlite3 result code -1" partway through the fill with it (at put 40,845 of 100,000
 * and 16,928 of 20,000), so the bench uses SQLite's default locking.
 */
const EXCLUSIVE = false;

async function loadSqlite(): Promise<Sqlite3> {
  // A computed specifier: left alone by the bundler, loaded from the site as it is.
  const url = new URL("./sqlite/sqlite3.mjs", import.meta.url).href;
  const module = (await import(url)) as {
    default: (options: object) => Promise<Sqlite3>;
  };
  return module.default({ print: () => undefined, printErr: () => undefined });
}

export async function runSqlite(req: BenchRequest): Promise<WorkloadResult[]> {
  const sqlite3 = await loadSqlite();
  const OpfsDb = sqlite3.oo1.OpfsDb;
  if (OpfsDb === undefined) throw new Error("SQLite's OPFS VFS is not available in this worker");
  const db = new OpfsDb(`/${req.name}.sqlite3`, "ct");
  const out: WorkloadResult[] = [];
  try {
    if (EXCLUSIVE) db.exec("PRAGMA locking_mode=EXCLUSIVE");
    db.exec("PRAGMA journal_mode=PERSIST");
    db.exec("PRAGMA synchronous=OFF");
    const mode = db.prepare("PRAGMA journal_mode");
    mode.step();
    const journal = String(mode.get(0));
    mode.finalize();
    if (journal !== "persist") throw new Error(`SQLite's journal mode is ${journal}, not persist`);
    db.exec("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID");
    const put = db.prepare("INSERT OR REPLACE INTO kv VALUES (?, ?)");
    const order = randomIndexes(req.num, req.num, 7);
    let t = performance.now();
    for (let i = 0; i < req.num; i++) {
      put.bind([benchKey(order[i]!), VALUE]);
      try {
        put.step();
      } catch (err) {
        throw new Error(`fillrandom: put ${i} of ${req.num} failed: ${(err as Error).message}`);
      }
      put.reset();
    }
    put.finalize();
    out.push({
      name: "fillrandom",
      ops: req.num,
      seconds: (performance.now() - t) / 1000,
      found: req.num,
    });
    const get = db.prepare("SELECT v FROM kv WHERE k = ?");
    const reads = randomIndexes(req.reads, req.num, 11);
    t = performance.now();
    let found = 0;
    for (let i = 0; i < req.reads; i++) {
      get.bind([benchKey(reads[i]!)]);
      if (get.step()) found++;
      get.reset();
    }
    get.finalize();
    out.push({
      name: "readrandom",
      ops: req.reads,
      seconds: (performance.now() - t) / 1000,
      found,
    });
    const scan = db.prepare("SELECT k, v FROM kv ORDER BY k");
    t = performance.now();
    found = 0;
    while (scan.step()) found++;
    scan.finalize();
    out.push({ name: "readseq", ops: found, seconds: (performance.now() - t) / 1000, found });
    const seek = db.prepare("SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT 11");
    const seeks = randomIndexes(req.seeks, req.num, 13);
    t = performance.now();
    found = 0;
    for (let i = 0; i < req.seeks; i++) {
      seek.bind([benchKey(seeks[i]!)]);
      while (seek.step()) found++;
      seek.reset();
    }
    seek.finalize();
    out.push({
      name: "seekrandom",
      ops: req.seeks,
      seconds: (performance.now() - t) / 1000,
      found,
    });
  } finally {
    db.close();
  }
  return out;
}
