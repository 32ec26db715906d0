/**
 * `--threads=N` (N > 1) for readrandom, readseq and seekrandom, in db_bench's meaning: N
 * threads each run the whole workload (`--reads` ops each, readseq a scan each) at once;
 * the result is their ops summed over the slowest thread's time (total ops/sec), and its
 * bytes summed. Each thread opens the database itself (reader-thread.ts), its open not
 * timed; all start together (an Atomics barrier). The engine must tell how
 * (`Engine.readerThreadSpec`: shale's worker readers, lmdb's shared environment).
 *
 * What each shale reader thread costs is its own block cache of `--cache_size` and table
 * cache (shale's README, "Readers in worker threads"): N threads hold N caches. With
 * `--shared_block_cache` the data blocks of their gets are in one cache, the database's.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { BenchResult } from "../report.js";
import type { BenchContext } from "../workloads/context.js";

/** The workloads `--threads` applies to. */
export const THREADED_WORKLOADS: ReadonlySet<string> = new Set([
  "readrandom",
  "readseq",
  "seekrandom",
]);

/** The built worker file (this module runs from dist/, or from src/ under tests). */
function threadFile(): string {
  const here = join(import.meta.dirname, "reader-thread.js");
  return existsSync(here)
    ? here
    : join(import.meta.dirname, "..", "..", "dist", "threads", "reader-thread.js");
}

interface ThreadReply {
  ok: boolean;
  result?: BenchResult;
  message?: string;
}

/** Runs `workload` on `ctx.flags.threads` reader threads; one result for all of them. */
export async function runReaderThreads(ctx: BenchContext, workload: string): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const spec = engine.readerThreadSpec!();
  const n = flags.threads;
  const barrier = new Int32Array(new SharedArrayBuffer(8));
  progress.start(`${engine.name} ${workload} (${n} threads)`);
  const replies: Promise<ThreadReply>[] = [];
  const workers: Worker[] = [];
  for (let thread = 0; thread < n; thread++) {
    const worker = new Worker(threadFile(), {
      workerData: { spec, flags, workload, thread, barrier: barrier.buffer },
      execArgv: [],
    });
    workers.push(worker);
    replies.push(
      new Promise((resolve) => {
        worker.once("message", resolve);
        worker.once("error", (e) => resolve({ ok: false, message: e.message }));
      }),
    );
  }
  let answered = false; // before the start, only a failed open answers
  for (const r of replies) void r.then(() => (answered = true));
  try {
    // Every thread opened (or one failed): start them together.
    while (Atomics.load(barrier, 0) < n && !answered) await sleep(5);
    Atomics.store(barrier, 1, 1);
    Atomics.notify(barrier, 1);
    const results = await Promise.all(replies);
    const failed = results.find((r) => !r.ok);
    if (failed !== undefined) throw new Error(`a reader thread failed: ${failed.message}`);
    let ops = 0;
    let bytes = 0;
    let seconds = 0;
    for (const { result } of results) {
      ops += result!.ops;
      bytes += result!.bytes;
      seconds = Math.max(seconds, result!.seconds);
    }
    progress.done();
    const first = results[0]!.result!;
    return {
      name: workload,
      engine: engine.name,
      ops,
      seconds,
      bytes,
      message: `${n} thread${n === 1 ? "" : "s"}; thread 0: ${first.message}`,
    };
  } finally {
    for (const w of workers) await w.terminate();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
