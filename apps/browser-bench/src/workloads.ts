/**
 * The workloads, run inside a dedicated worker of the page for each engine: db_bench's
 * `fillrandom` (one put at a time), `readrandom`, `readseq` (one full scan) and `seekrandom`
 * with 10 nexts after each seek; with `rescan`, `readseq2` (a second full scan, right after
 * the first). Keys are 16 decimal digits, values 100 bytes.
 *
 * A scan's timed span is the same for every engine: it starts before the cursor is made
 * (shale's `db.iterator()`, SQLite's `prepare`, Level's `iterator()`) and ends after it is
 * closed. In the default `copy` mode each row's key and value reach the bench's code as
 * copies it owns, in each engine's API for that: shale's `for (const [k, v] of
 * db.iterator())`, SQLite's column bytes sliced out of the WASM heap (sqlite-peer.ts),
 * Level's `for await` (strings). `count` mode only steps the cursor and reads
 * nothing (SQLite still decodes the row's columns into registers; shale positions on the
 * key).
 *
 * Each engine is given in its natural API in a worker: shale's synchronous one on
 * `OpfsFileSystem`, ShaleLevel's and browser-level's promises, SQLite-WASM's prepared
 * statements (sqlite-peer.ts).
 */

/** One workload's figures. */
export interface WorkloadResult {
  name: string;
  ops: number;
  seconds: number;
  /** Entries found (reads) or visited (scans). */
  found: number;
}

/**
 * The engines: shale's synchronous API on OpfsFileSystem in the bench worker; `@shale/level`'s
 * ShaleLevel (the database in a worker of its own, behind promises: browser-level's API);
 * browser-level on IndexedDB; SQLite-WASM on its "opfs" VFS (`sqlite-wasm`) and on its
 * "opfs-sahpool" VFS (`sqlite-sahpool`).
 */
export const ENGINES = [
  "shale",
  "shale-inline",
  "shale-level",
  "browser-level",
  "sqlite-wasm",
  "sqlite-sahpool",
] as const;
export type Engine = (typeof ENGINES)[number];

/** What a bench worker is asked. */
export interface BenchRequest {
  engine: Engine;
  /** Database name (an OPFS directory or an IndexedDB database), fresh per run. */
  name: string;
  num: number;
  reads: number;
  seeks: number;
  /** After the fill (untimed): shale flushes its memtable and compacts, so reads go to tables on OPFS. */
  flush: boolean;
  /** A second full scan right after the first, timed as `readseq2` (the code then compiled). */
  rescan: boolean;
  /** What a scan does with each row (see above). */
  scan: ScanMode;
  /**
   * Each scan (`readseq`, `readseq2`) runs inside `console.profile(name)` /
   * `console.profileEnd(name)`, outside its timed span: the page's driver, listening to the
   * worker's profiler, saves the profiles (main.ts `--profile`).
   */
  profile: boolean;
}

/** `copy`: each row's key and value copied out to the bench's code; `count`: rows counted. */
export const SCAN_MODES = ["copy", "count"] as const;
export type ScanMode = (typeof SCAN_MODES)[number];

/** Bytes of a row: a 16-digit key and a 100-byte value. */
export const ROW_BYTES = 16 + 100;

/**
 * Checks what a `copy` scan read: `bytes` (the lengths of the keys and values copied) must be
 * `rows` full rows, so no engine's scan is cut short or skips its copies.
 */
export function checkScanBytes(engine: string, rows: number, bytes: number): void {
  if (bytes !== rows * ROW_BYTES)
    throw new Error(
      `${engine}: a scan copied ${bytes} bytes for ${rows} rows, not ${rows * ROW_BYTES}`,
    );
}

/** The key of index `i`: 16 decimal digits. */
export function benchKey(i: number): string {
  return String(i).padStart(16, "0");
}

/** `count` pseudo-random indexes in [0, n), repeats allowed: xorshift32 from `seed`. */
export function randomIndexes(count: number, n: number, seed: number): Uint32Array {
  const out = new Uint32Array(count);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x % n;
  }
  return out;
}

/** The median of per-round ratios `a[i] / b[i]`. */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0)
    throw new RangeError("need rounds of both, as many of each");
  const r = a.map((x, i) => x / b[i]!).sort((p, q) => p - q);
  const mid = r.length >> 1;
  return r.length % 2 === 1 ? r[mid]! : (r[mid - 1]! + r[mid]!) / 2;
}
