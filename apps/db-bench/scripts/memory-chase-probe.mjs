// What a dependent cache miss costs when several threads miss at once, and whether it
// matters that they miss in one copy of the data or each in its own (Linux only). Each of N
// worker threads follows a random cycle through a 64 MiB Int32Array (`j = a[j]`, STEPS
// loads, each waiting for the last), started together; `own`: each thread has its own
// array, `shared`: all follow one SharedArrayBuffer, each from another point of the cycle
// (thread i skips 8M × i steps first). Prints each thread's CPU ms for the chase
// (/proc/thread-self/stat). Compare `own 1`, `own 2` and `shared 2`, alternated.
//
//   node scripts/memory-chase-probe.mjs own|shared N
import { readFileSync } from "node:fs";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const WORDS = 1 << 24; // 64 MiB of Int32
const STEPS = 2e7;
const SKIP = 8e6;

function threadCpuMs() {
  const s = readFileSync("/proc/thread-self/stat", "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Fills `a` with one random cycle through all its indexes (Sattolo's shuffle, seeded). */
function randomCycle(a) {
  for (let i = 0; i < a.length; i++) a[i] = i;
  let s = 12345;
  for (let i = a.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const k = s % i;
    const t = a[i];
    a[i] = a[k];
    a[k] = t;
  }
}

if (isMainThread) {
  const [mode, n] = [process.argv[2], Number(process.argv[3] ?? 1)];
  if (mode !== "own" && mode !== "shared") {
    console.error("usage: memory-chase-probe.mjs own|shared N");
    process.exit(2);
  }
  const shared = new Int32Array(new SharedArrayBuffer(WORDS * 4));
  if (mode === "shared") randomCycle(shared);
  const barrier = new Int32Array(new SharedArrayBuffer(8));
  const done = [];
  for (let i = 0; i < n; i++) {
    const w = new Worker(new URL(import.meta.url), {
      workerData: { mode, shared: shared.buffer, barrier: barrier.buffer, n, index: i },
    });
    done.push(new Promise((resolve) => w.once("message", resolve)));
  }
  console.log(mode, n, "CPU ms per thread:", (await Promise.all(done)).join(" "));
} else {
  const { mode, shared, barrier, n, index } = workerData;
  let a = new Int32Array(shared);
  if (mode === "own") {
    a = new Int32Array(WORDS);
    randomCycle(a);
  }
  let j = 0;
  for (let i = 0; i < SKIP * index; i++) j = a[j];
  const ready = new Int32Array(barrier);
  Atomics.add(ready, 0, 1);
  while (Atomics.load(ready, 0) < n) {} // start together
  const c0 = threadCpuMs();
  for (let i = 0; i < STEPS; i++) j = a[j];
  const ms = threadCpuMs() - c0;
  parentPort.postMessage(j < 0 ? -1 : ms);
}
