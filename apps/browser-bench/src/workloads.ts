/**
 * The workloads, run inside a dedicated worker of the page for each engine: db_bench's
 * `fillrandom` (one put at a time), `readrandom`, `readseq` (one full scan) and `seekrandom`
 * with 10 nexts after each seek; with `rescan`, `readseq2` (a second full scan, right after
 * the first). Keys are 16 decimal digits, values 100 bytes.
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
