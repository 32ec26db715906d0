// Where a reader thread's time goes (Linux only): opens the shale database DIR (filled by
// db-bench, e.g. `--benchmarks=fillrandom,waitforcompaction`), then reads READS random keys
// of db-bench's readrandom with `getView`, PASSES times, on the main thread (`main`) or on
// N worker readers (`workers N`: `openReader` of `db.readerHandle()`, started together).
// Each reader prints its ops/sec, its own thread's CPU (/proc/thread-self/stat, 10 ms
// ticks), its GC pauses (PerformanceObserver "gc": count and ms) and, with STATS=1, its
// block-cache and memtable counters; the last line gives the CPU every other thread of the
// process (V8's compiler and GC helpers, the main thread when idle) used while they read.
// Run after `pnpm build`; combine with `perf record -k CLOCK_MONOTONIC` (each reader prints
// its window's CLOCK_MONOTONIC seconds), `--trace-gc` or `--trace-opt --trace-deopt`.
//
//   node scripts/reader-threads-probe.mjs DIR main|workers [N] [READS]   (PASSES=2 STATS=1)
import { readdirSync, readFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { open, openReader, Statistics } from "shale";
import { FastRandom, KeyGenerator, Stream } from "../dist/generators.js";

const NUM = Number(process.env.NUM ?? 1_000_000);
const PASSES = Number(process.env.PASSES ?? 1);
const SEED = 301; // db-bench's default --seed; thread i adds 1000 × i, as db-bench does

/** CPU ms of the calling thread (utime + stime). */
function threadCpuMs() {
  const s = readFileSync("/proc/thread-self/stat", "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** CPU ms of every thread of the process, by thread id. */
function everyThreadCpuMs() {
  const out = new Map();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const s = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
      out.set(tid, (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return out;
}

function statistics() {
  return process.env.STATS === "1" ? new Statistics({ level: "except-timers" }) : undefined;
}

async function pass(read, seed, reads, label, stats) {
  let gcMs = 0;
  let gcCount = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      gcCount++;
    }
  });
  gc.observe({ entryTypes: ["gc"] });
  const keys = new KeyGenerator(16, { keySize: 16, prefixSize: 0, keysPerPrefix: 0, num: NUM });
  const rnd = new FastRandom(seed + Stream.read);
  const from = process.hrtime.bigint();
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  let found = 0;
  for (let i = 0; i < reads; i++) if (read(keys.key(rnd.uniform(NUM))) !== undefined) found++;
  const ms = performance.now() - t0;
  const cpuMs = threadCpuMs() - cpu0;
  const to = process.hrtime.bigint();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the last gc entries
  gc.disconnect();
  const counters = {};
  if (stats !== undefined)
    for (const [k, v] of Object.entries(stats.tickersSnapshot()))
      if (v !== 0 && /BlockCache|Memtable/.test(k)) counters[k] = v;
  return {
    label,
    window: [Number(from) / 1e9, Number(to) / 1e9],
    opsPerSec: Math.round((reads / ms) * 1000),
    cpuMs,
    gcCount,
    gcMs: Math.round(gcMs),
    found,
    counters,
  };
}

async function onMain(dir, mode, n, reads) {
  const stats = statistics();
  const db = await open(dir, {
    cacheIndexAndFilterBlocks: false,
    ...(stats ? { statistics: stats } : {}),
  });
  let before = everyThreadCpuMs();
  const results = [];
  const readers = new Set();
  if (mode === "main") {
    readers.add(String(process.pid));
    for (let p = 0; p < PASSES; p++)
      results.push(await pass((k) => db.getView(k), SEED, reads, `main pass ${p}`, stats));
  } else {
    const handle = db.readerHandle();
    const barrier = new Int32Array(new SharedArrayBuffer(8));
    const workers = [];
    const replies = [];
    for (let i = 0; i < n; i++) {
      const w = new Worker(new URL(import.meta.url), {
        workerData: { handle, i, reads, barrier: barrier.buffer },
      });
      workers.push(w);
      replies.push(new Promise((resolve) => w.once("message", resolve)));
    }
    while (Atomics.load(barrier, 0) < n) await new Promise((resolve) => setTimeout(resolve, 5));
    before = everyThreadCpuMs();
    Atomics.store(barrier, 1, 1);
    Atomics.notify(barrier, 1);
    for (const r of await Promise.all(replies)) {
      readers.add(r.tid);
      results.push(...r.passes);
    }
    for (const w of workers) await w.terminate();
  }
  let others = 0;
  for (const [tid, ms] of everyThreadCpuMs())
    if (!readers.has(tid)) others += ms - (before.get(tid) ?? 0);
  for (const r of results) console.log(JSON.stringify(r));
  console.log(JSON.stringify({ otherThreadsCpuMs: others }));
  await db.close();
}

async function onWorker() {
  const { handle, i, reads, barrier: shared } = workerData;
  const stats = statistics();
  const reader = await openReader(handle, {
    cacheIndexAndFilterBlocks: false,
    ...(stats ? { statistics: stats } : {}),
  });
  const barrier = new Int32Array(shared);
  Atomics.add(barrier, 0, 1);
  Atomics.wait(barrier, 1, 0);
  const passes = [];
  for (let p = 0; p < PASSES; p++)
    passes.push(
      await pass((k) => reader.getView(k), SEED + 1000 * i, reads, `worker ${i} pass ${p}`, stats),
    );
  const tid = readFileSync("/proc/thread-self/stat", "utf8").split(" ")[0];
  await reader.close();
  parentPort.postMessage({ tid, passes });
}

if (isMainThread) {
  const [dir, mode, n, reads] = process.argv.slice(2);
  if (dir === undefined || (mode !== "main" && mode !== "workers")) {
    console.error("usage: reader-threads-probe.mjs DIR main|workers [N] [READS]");
    process.exit(2);
  }
  await onMain(dir, mode, Number(n ?? 1), Number(reads ?? NUM));
} else {
  await onWorker();
}
