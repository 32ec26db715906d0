/**
 * The SQLite-WASM peers (`@sqlite.org/sqlite-wasm` 3.51.1): a `WITHOUT ROWID` key-value
 * table, run in the bench worker with SQLite's synchronous API, one prepared statement per
 * workload, on one of SQLite's two OPFS VFSes (both need a worker; the first also
 * cross-origin isolation, as shale's OpfsFileSystem does):
 *
 * ```
 *   sqlite-wasm     "opfs"          sqlite3.oo1.OpfsDb: each file operation goes through
 *                                   SQLite's async proxy worker (SharedArrayBuffer + Atomics)
 *   sqlite-sahpool  "opfs-sahpool"  installOpfsSAHPoolVfs().OpfsSAHPoolDb: a pool of sync
 *                                   access handles opened up front and held by this worker
 *                                   (no proxy, no locks: one connection per pool)
 *
 *   CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID
 *   fillrandom  INSERT OR REPLACE INTO kv VALUES (?, ?)         one autocommit per put
 *   readrandom  SELECT v FROM kv WHERE k = ?
 *   readseq     SELECT k, v FROM kv ORDER BY k                  stepped; each row's k and v
 *               copied out of the WASM heap as Uint8Arrays (sqlite3_column_blob/_bytes and
 *               one slice: its cheapest copy), or only counted with --scan=count (prepared
 *               in the timed span, as shale's iterator is created in it)
 *   seekrandom  SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT 11
 * ```
 *
 * Configured for speed, to match shale's writes without `sync`: `journal_mode=PERSIST`
 * (the rollback journal kept between commits; WAL mode needs shared memory, which neither
 * VFS provides, or `locking_mode=EXCLUSIVE`, not run here) and `synchronous=OFF` (no xSync at commit, so neither VFS calls `flush()` on its handles);
 * the "opfs" VFS with SQLite's default (normal) locking.
 * Durability, both: a commit is written through the OPFS handles but not flushed; SQLite's
 * documentation warns that with synchronous=OFF an operating-system crash or power loss
 * may corrupt the database. shale without `sync` writes its WAL through the handle unflushed
 * too, but a crash loses at most the unflushed tail: the log's checksums keep the rest.
 * The module is loaded unbundled from `./sqlite/` beside the worker (main.ts copies it
 * there), since it finds its .wasm and its OPFS proxy worker relative to itself.
 */
import {
  type BenchRequest,
  benchKey,
  checkScanBytes,
  randomIndexes,
  type WorkloadResult,
} from "./workloads.js";

interface Statement {
  bind(values: unknown[]): Statement;
  step(): boolean;
  reset(): Statement;
  get(index: number): unknown;
  /** The `sqlite3_stmt*` in the WASM heap. */
  readonly pointer: number;
  finalize(): void;
}

interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}

interface Sqlite3 {
  version: { libVersion: string };
  capi: {
    sqlite3_column_bytes(stmt: number, column: number): number;
    sqlite3_column_blob(stmt: number, column: number): number;
  };
  wasm: { heap8u(): Uint8Array };
  oo1: { OpfsDb?: new (filename: string, flags: string) => Database };
  installOpfsSAHPoolVfs(options: {
    name: string;
    directory: string;
    clearOnInit: boolean;
    initialCapacity: number;
  }): Promise<{ OpfsSAHPoolDb: new (filename: string) => Database }>;
}

const VALUE = "v".repeat(100);

async function loadSqlite(): Promise<Sqlite3> {
  // A computed specifier: left alone by the bundler, loaded from the site as it is.
  const url = new URL("./sqlite/sqlite3.mjs", import.meta.url).href;
  const module = (await import(url)) as {
    default: (options: object) => Promise<Sqlite3>;
  };
  return module.default({ print: () => undefined, printErr: () => undefined });
}

/** The database of `req` on the VFS its engine names: "opfs" or "opfs-sahpool". */
async function openDatabase(sqlite3: Sqlite3, req: BenchRequest): Promise<Database> {
  if (req.engine === "sqlite-sahpool") {
    // A pool of its own per run (a pool's directory is held by one worker at a time);
    // 6 handles: the database, its journal, and room for temporary files.
    const pool = await sqlite3.installOpfsSAHPoolVfs({
      name: `sahpool-${req.name}`,
      directory: `/${req.name}-sahpool`,
      clearOnInit: true,
      initialCapacity: 6,
    });
    return new pool.OpfsSAHPoolDb(`/${req.name}.sqlite3`);
  }
  const OpfsDb = sqlite3.oo1.OpfsDb;
  if (OpfsDb === undefined) throw new Error("SQLite's OPFS VFS is not available in this worker");
  return new OpfsDb(`/${req.name}.sqlite3`, "ct");
}

/**
 * A copy of column `i` of the current row: its bytes sliced out of the WASM heap (one copy;
 * `Stmt.get(i, SQLITE_BLOB)` makes two, and a string decodes UTF-8).
 */
function columnCopy(sqlite3: Sqlite3, stmt: Statement, i: number): Uint8Array {
  const n = sqlite3.capi.sqlite3_column_bytes(stmt.pointer, i);
  const at = sqlite3.capi.sqlite3_column_blob(stmt.pointer, i);
  return sqlite3.wasm.heap8u().slice(at, at + n);
}

export async function runSqlite(req: BenchRequest): Promise<WorkloadResult[]> {
  const sqlite3 = await loadSqlite();
  const db = await openDatabase(sqlite3, req);
  const out: WorkloadResult[] = [];
  try {
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
    // A turn of the event loop first, untimed: the driver enables the worker's profiler then.
    if (req.profile) await new Promise((r) => setTimeout(r, 200));
    for (const name of req.rescan ? ["readseq", "readseq2"] : ["readseq"]) {
      if (req.profile) console.profile(name);
      t = performance.now();
      const scan = db.prepare("SELECT k, v FROM kv ORDER BY k");
      found = 0;
      let bytes = 0;
      if (req.scan === "copy") {
        while (scan.step()) {
          found++;
          bytes += columnCopy(sqlite3, scan, 0).length + columnCopy(sqlite3, scan, 1).length;
        }
      } else {
        while (scan.step()) found++;
      }
      scan.finalize();
      const seconds = (performance.now() - t) / 1000;
      if (req.profile) console.profileEnd(name);
      if (req.scan === "copy") checkScanBytes(req.engine, found, bytes);
      out.push({ name, ops: found, seconds, found });
    }
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
