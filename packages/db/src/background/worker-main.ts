/**
 * The body of a background worker thread (loaded by worker.ts): the Node.js transport of
 * the background jobs (job-runner.ts). It takes job messages from its port, runs them on
 * the node file system (the database only sends jobs here when it runs on NodeFileSystem)
 * and answers on the port, then sets the executor's `finished` cell.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { NodeFileSystem } from "@shale/base";
import { JobRunner, type SharedRateLimit, serveJobs } from "./job-runner.js";
import { type JobMessage, type ResultMessage, transferListOf } from "./protocol.js";

const data = workerData as
  | ({
      port: MessagePort;
      finished?: SharedArrayBuffer;
      nice?: number;
    } & SharedRateLimit)
  | undefined;
const port = data?.port ?? parentPort;
if (port === null) throw new Error("the shale worker must run in a worker thread");
/** The executor's `finished` cell: set after each reply, so the database takes it synchronously. */
const finished = data?.finished !== undefined ? new Int32Array(data.finished) : undefined;
/** Jobs on the node file system, through the database's rate limiter when it has one. */
const runner = new JobRunner(new NodeFileSystem(), data ?? {}, true);
if (data?.nice !== undefined && data.nice > 0) lowerThreadPriority(data.nice);

/**
 * Gives this thread (only) the nice value `nice`, on Linux, where a thread has its own:
 * `setpriority(PRIO_PROCESS, tid)` on the thread's id (`/proc/thread-self`) changes that
 * thread alone (RocksDB's `Env::LowerThreadPoolCPUPriority` does the same). Elsewhere (a
 * pid there means the whole process), or if it fails, the thread keeps the process's.
 */
function lowerThreadPriority(nice: number): void {
  if (process.platform !== "linux") return;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) setPriority(tid, nice);
  } catch {
    // best effort: the compactions run at the normal priority
  }
}

function post(reply: ResultMessage): void {
  // Captured blocks move to the database's thread without a copy.
  port!.postMessage(reply, transferListOf(reply));
  if (finished !== undefined) {
    Atomics.store(finished, 0, 1);
    Atomics.notify(finished, 0);
  }
}

const take = serveJobs(runner, post);
port.on("message", (job: JobMessage) => take(job));
