/**
 * A reader thread of `--threads=N` (reader-threads.ts starts N of them): opens the
 * engine's database for reading (shale: `openReader` of the writer's handle; lmdb: the
 * same environment), says it is ready, waits for the common start, runs one read workload
 * (readrandom, readseq or seekrandom: the same code as one thread, workloads/) with its
 * own random stream (`--seed` + 1000 × thread index, as db_bench seeds each thread), and
 * posts its result.
 *
 * Start barrier (`workerData.barrier`, Int32Array of 2): word 0 counts ready threads,
 * word 1 turns 1 when every thread may start.
 */
import { parentPort, workerData } from "node:worker_threads";
import { WORKLOADS } from "../benchmarks.js";
import type { Engine, ReaderThreadSpec } from "../engines/engine.js";
import { LmdbEngine } from "../engines/lmdb.js";
import type { Flags } from "../flags.js";
import { Progress } from "../report.js";
import { ShaleReaderEngine } from "./shale-reader-engine.js";

interface ThreadData {
  spec: ReaderThreadSpec;
  flags: Flags;
  workload: string;
  thread: number;
  barrier: SharedArrayBuffer;
}

const data = workerData as ThreadData;

async function openEngine(spec: ReaderThreadSpec): Promise<Engine> {
  if (spec.engine === "shale") return (await ShaleReaderEngine.open(spec)) as unknown as Engine;
  const lmdb = new LmdbEngine();
  await lmdb.open(spec.dir, spec.options);
  return lmdb;
}

async function main(): Promise<void> {
  const engine = await openEngine(data.spec);
  const barrier = new Int32Array(data.barrier);
  Atomics.add(barrier, 0, 1);
  Atomics.notify(barrier, 0);
  Atomics.wait(barrier, 1, 0);
  const flags = { ...data.flags, seed: data.flags.seed + 1000 * data.thread };
  const silent = new Progress({ write: () => true });
  const r = await WORKLOADS[data.workload]!.run({ flags, engine, progress: silent });
  await engine.close();
  parentPort!.postMessage({ ok: true, result: r });
}

main().catch((e: unknown) => {
  parentPort!.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) });
});
