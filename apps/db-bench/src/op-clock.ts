/**
 * Per-op timing, as db_bench's `Stats::FinishedOps`: each op's time is the gap between its
 * end and the end of the op before it (the first: since the clock started), so whatever the
 * loop does between ops counts too. It feeds `--histogram` (every gap, in microseconds) and
 * `--max_pause` (the longest gap, in milliseconds).
 *
 * The longest gap is the longest the JavaScript thread was away from the benchmark loop: an
 * engine that answers synchronously (shale, lmdb, the rocksdb binding's sync paths) blocks
 * the thread for its whole call, so a flush or compaction step taken on the main thread
 * shows up here. (`perf_hooks.monitorEventLoopDelay` cannot see it: a synchronous loop never
 * lets its timer run.) For an engine answering through Promises, the gap also holds the wait
 * for its thread pool: an upper bound of the pause.
 *
 * Cost: one `performance.now()` (~60 ns on the reference machine) per op, so it runs only
 * when one of the two flags asks for it.
 *
 * With `SHALE_TRACE_PAUSES=<ms>` in the environment, every gap of at least that many ms is
 * printed to stderr as `[db-bench gap] t=<start> ms <gap> ms`, on the clock shale's own pause
 * trace uses (packages/db/src/core/pause-trace.ts), so each long gap lines up with the
 * engine's steps inside it. On Linux each such line also says where the main thread was
 * meanwhile, from /proc/thread-self/schedstat (read every 1024 ops and at each long gap, so
 * the figures cover the gap and at most 1024 ops before it): `on-cpu` (running: the
 * engine's work, GC, system calls), `runnable` (ready but not running: the machine's other
 * threads had the cores) and the rest, `blocked` (sleeping: a wait, I/O).
 */
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

/** Gaps at least this long are printed (SHALE_TRACE_PAUSES, ms); Infinity = none. */
const TRACE_GAP_MS = ((): number => {
  const ms = Number(process.env.SHALE_TRACE_PAUSES ?? "");
  return Number.isFinite(ms) && ms > 0 ? ms : Number.POSITIVE_INFINITY;
})();

/** On-cpu and runnable ns of the main thread at the last sample, and when it was taken (ms). */
const sched = { cpu: 0, wait: 0, at: 0, ops: 0, ok: true };

function readSched(): [number, number] | undefined {
  if (!sched.ok) return undefined;
  try {
    const f = readFileSync("/proc/thread-self/schedstat", "latin1").split(" ");
    return [Number(f[0]), Number(f[1])];
  } catch {
    sched.ok = false;
    return undefined;
  }
}

function sampleSched(now: number): void {
  const s = readSched();
  if (s === undefined) return;
  sched.cpu = s[0];
  sched.wait = s[1];
  sched.at = now;
}

function traceGap(start: number, gap: number, now: number): void {
  let where = "";
  const s = readSched();
  if (s !== undefined && sched.at > 0) {
    const window = now - sched.at;
    const cpu = (s[0] - sched.cpu) / 1e6;
    const wait = (s[1] - sched.wait) / 1e6;
    where = ` (over the last ${window.toFixed(1)} ms: on-cpu ${cpu.toFixed(1)}, runnable ${wait.toFixed(1)}, blocked ${Math.max(0, window - cpu - wait).toFixed(1)})`;
    sched.cpu = s[0];
    sched.wait = s[1];
    sched.at = now;
  }
  console.error(`[db-bench gap] t=${start.toFixed(1)} ms ${gap.toFixed(1)} ms${where}`);
}

export class OpClock {
  /** Microseconds of each finished op, with --histogram (filled from the start). */
  readonly latencies: Float64Array | undefined;
  /** Entries of `latencies` filled so far. */
  recorded = 0;
  /** The longest gap so far, in milliseconds. */
  maxGapMs = 0;
  private last: number;

  constructor(latencies: Float64Array | undefined) {
    this.latencies = latencies;
    this.last = performance.now();
  }

  /** Starts the next gap now (after untimed work). */
  restart(): void {
    this.last = performance.now();
  }

  /** One op finished. */
  finished(): void {
    const now = performance.now();
    const gap = now - this.last;
    if (TRACE_GAP_MS !== Number.POSITIVE_INFINITY) {
      if (gap >= TRACE_GAP_MS) traceGap(this.last, gap, now);
      else if ((++sched.ops & 1023) === 0) sampleSched(now);
    }
    this.last = now;
    if (gap > this.maxGapMs) this.maxGapMs = gap;
    const l = this.latencies;
    if (l !== undefined && this.recorded < l.length) l[this.recorded++] = gap * 1000;
  }

  /**
   * `n` ops finished together (a batched read): the histogram gets the gap spread evenly
   * over them; the pause is the whole gap (the thread was away for all of it).
   */
  finishedMany(n: number): void {
    if (n <= 0) return;
    const now = performance.now();
    const gap = now - this.last;
    if (gap >= TRACE_GAP_MS) traceGap(this.last, gap, now);
    this.last = now;
    if (gap > this.maxGapMs) this.maxGapMs = gap;
    const l = this.latencies;
    if (l !== undefined) {
      const end = Math.min(l.length, this.recorded + n);
      l.fill((gap * 1000) / n, this.recorded, end);
      this.recorded = end;
    }
  }

  /** The filled part of `latencies`. */
  histogramInput(): Float64Array | undefined {
    return this.latencies?.subarray(0, this.recorded);
  }
}

/** Milliseconds between event-loop delay samples while awaiting. */
export const EVENT_LOOP_RESOLUTION_MS = 1;

/**
 * Runs `work` (which awaits: a compaction, a wait for background jobs) and returns the
 * longest time the event loop went without running a timer meanwhile, in milliseconds —
 * the longest main-thread pause, as `perf_hooks.monitorEventLoopDelay` measures it (each
 * sample includes the 1 ms sampling interval, so an idle loop reads ~1 ms).
 *
 * The monitor records the gap between consecutive timer runs; its first run only arms it,
 * so the loop is given one interval to arm before `work` starts and one after it ends, for
 * the last (possibly delayed) sample to land. Those few milliseconds are not part of the
 * returned duration.
 */
export async function eventLoopPauses(
  work: () => Promise<void>,
): Promise<{ seconds: number; maxPauseMs: number }> {
  const monitor = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  monitor.enable();
  try {
    await sleep(3 * EVENT_LOOP_RESOLUTION_MS);
    const t0 = performance.now();
    await work();
    const seconds = (performance.now() - t0) / 1000;
    await sleep(3 * EVENT_LOOP_RESOLUTION_MS);
    return { seconds, maxPauseMs: monitor.count > 0 ? monitor.max / 1e6 : 0 };
  } finally {
    monitor.disable();
  }
}
