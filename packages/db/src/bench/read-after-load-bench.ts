/**
 * read-after-load-bench: random point reads right after a load, the way db-bench's
 * `fillrandom,overwrite,readrandom` reads (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/read-after-load-bench.js --num=2000000
 *     [--reads=300000] [--options='{"prepopulateBlockCache":"flushOnly"}'] [--dir=DIR]
 *     [--profile=FILE] [--loads=2]
 *
 * Fills a fresh database on disk with `num` random 16-byte keys (xorshift32, with
 * replacement; 100-byte values, half compressible), then `num` more (the overwrite; `--loads=1`
 * leaves it out, as db-bench's `fillrandom,readrandom`), and then
 * times four passes of `reads` `getView`s of random keys: `read1` right after the load (the
 * background compactions the load started may still run), `read2` right after it, `read3`
 * after `waitForCompactions`, `read4` after a close and a reopen (an empty block cache, the
 * files in the OS page cache). Each pass prints µs per get, the keys found, the tree at its
 * start and end, the process's CPU time (every thread) over wall time, its block cache
 * misses and data blocks read from files (counts that do not depend on the machine's load),
 * the gets answered by L0 tables, whether a compaction ran during it, and the main thread's
 * CPU time per get (Linux: /proc; the part of the pass that is the reads' own work, whatever
 * the machine's load); the last line is the figures as JSON.
 * `--profile` writes a V8 CPU profile of `read1` alone (inspector, 200 µs sampling). The
 * database opens with `cacheIndexAndFilterBlocks: false` (db-bench's default), snappy,
 * statistics on, and `--options` on top.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import * as inspector from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Histogram, Statistics, Ticker } from "@shale/base";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import { decimalKeys, xorshift } from "./bench-keys.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "1000000"));
const READS = Number(arg("reads", "300000"));
const DIR = arg("dir", join(tmpdir(), `shale-read-after-load-${process.pid}`));
const PROFILE = arg("profile", "");
const EXTRA = JSON.parse(arg("options", "{}")) as DbOptions;
const LOADS = Number(arg("loads", "2"));

const rand = xorshift(301);
const keyOf = decimalKeys();

function tree(db: DB): string {
  const levels: string[] = [];
  for (let l = 0; l < 7; l++) {
    const n = db.getProperty(`shale.num-files-at-level${l}`);
    if (n !== undefined && n !== "0") levels.push(`L${l}=${n}`);
  }
  return levels.join(" ");
}

const statistics = new Statistics();
/** Block cache misses of each pass (steadier than time on a loaded machine). */
const misses: number[] = [];

/**
 * CPU milliseconds of this (the main) thread, from Linux's /proc (clock ticks of 10 ms: read
 * over passes of seconds); NaN elsewhere. The process's total counts the workers too.
 */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Main-thread CPU µs per get of each pass (steadier than wall time on a loaded machine). */
const cpuPerGet: number[] = [];

function readPass(db: DB, label: string): number {
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs();
  const misses0 = statistics.getTicker(Ticker.BlockCacheMiss);
  const reads0 = statistics.histogram(Histogram.SstReadMicros).count;
  const l00 = statistics.getTicker(Ticker.GetHitL0);
  const compactions0 = statistics.getTicker(Ticker.CompactionCount);
  const before = tree(db);
  let found = 0;
  for (let i = 0; i < READS; i++) if (db.getView(keyOf(rand(NUM))) !== undefined) found++;
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const mainMs = mainThreadCpuMs() - main0;
  cpuPerGet.push((mainMs * 1000) / READS);
  const us = (ms * 1000) / READS;
  const share = (cpu.user + cpu.system) / 1000 / ms;
  misses.push(statistics.getTicker(Ticker.BlockCacheMiss) - misses0);
  const blockReads = statistics.histogram(Histogram.SstReadMicros).count - reads0;
  const fromL0 = statistics.getTicker(Ticker.GetHitL0) - l00;
  const compactions = statistics.getTicker(Ticker.CompactionCount) - compactions0;
  console.log(
    `${label}: ${us.toFixed(2)} us/op found=${found} tree=${before} -> ${tree(db)} cpu/wall=${share.toFixed(2)} main-cpu=${((mainMs * 1000) / READS).toFixed(2)} us/op misses=${misses[misses.length - 1]} blockReads=${blockReads} hitsL0=${fromL0} compactionsEnded=${compactions}`,
  );
  return us;
}

rmSync(DIR, { recursive: true, force: true });
const options: DbOptions = {
  cacheIndexAndFilterBlocks: false,
  compression: "snappy",
  statistics,
  ...EXTRA,
};
let db = await DB.open(DIR, options);
const value = new Uint8Array(100);
for (let j = 0; j < 50; j++) value[j] = (j * 37) & 255;
const t0 = performance.now();
const fillCpu0 = mainThreadCpuMs();
for (let pass = 0; pass < LOADS; pass++) {
  for (let i = 0; i < NUM; i++) {
    value[0] = i & 255;
    db.put(keyOf(rand(NUM)), value);
  }
}
const fill = performance.now() - t0;
const fillMainCpu = mainThreadCpuMs() - fillCpu0;
console.log(
  `load ${(fill / 1000).toFixed(1)} s (main thread cpu ${(fillMainCpu / 1000).toFixed(1)} s) tree=${tree(db)}`,
);
// The inspector's connection class, named through a constant (as get-alloc-bench.ts does).
const CONNECTION = `S${"es"}sion` as const;
const Connection = inspector[CONNECTION];
let profiler: InstanceType<typeof Connection> | undefined;
if (PROFILE !== "") {
  profiler = new Connection();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 200 });
  await profiler.post("Profiler.start");
}
const r1 = readPass(db, "read1");
if (profiler !== undefined) {
  const { profile } = await profiler.post("Profiler.stop");
  writeFileSync(PROFILE, JSON.stringify(profile));
}
const r2 = readPass(db, "read2");
await db.waitForCompactions();
const r3 = readPass(db, "read3-after-wait");
await db.close();
db = await DB.open(DIR, options);
const r4 = readPass(db, "read4-after-reopen");
await db.close();
rmSync(DIR, { recursive: true, force: true });
console.log(JSON.stringify({ r1, r2, r3, r4, fill, fillMainCpu, misses, cpuPerGet }));
