/**
 * The body of a background worker thread (loaded by worker.ts): runs the flush and
 * compaction jobs posted by the database and answers on its port. Uses the node file
 * system directly (the database only sends jobs here when it runs on NodeFileSystem).
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type FileSystem, NodeFileSystem } from "@shale/base";
import { MemTable } from "@shale/memtable";
import { revivePrefixExtractor } from "../compaction/build-table.js";
import { runCompactionJob } from "../compaction/compaction-job.js";
import { type CompactionFilterFunction, loadCompactionFilter } from "../core/compaction-filter.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { loadMergeOperator } from "../core/module-options.js";
import { RateLimiter, RateLimiterAccount } from "../core/rate-limiter.js";
import { fixedClock, ttlMergeOperator } from "../core/ttl.js";
import type { ModuleExportRef } from "../core/user-module.js";
import { flushMemTable } from "../flush/flush-job.js";
import {
  builtinComparator,
  builtinMergeOperator,
  type CompactMessage,
  type JobMessage,
  type ResultMessage,
  serializeError,
} from "./protocol.js";
import { rateLimitedFileSystem } from "./rate-limited-fs.js";

const data = workerData as
  | {
      port: MessagePort;
      finished?: SharedArrayBuffer;
      nice?: number;
      /** The database's rate limiter (core/rate-limiter.ts) and its account, if it has one. */
      rateLimiter?: SharedArrayBuffer;
      rateAccount?: SharedArrayBuffer;
    }
  | undefined;
const port = data?.port ?? parentPort;
if (port === null) throw new Error("the shale worker must run in a worker thread");
/** The executor's `finished` cell: set after each reply, so the database takes it synchronously. */
const finished = data?.finished !== undefined ? new Int32Array(data.finished) : undefined;
const fs = new NodeFileSystem();
/**
 * What flushes and compactions write with: through the rate limiter when there is one —
 * compactions sleep for their tokens, flushes are charged and never wait (rate-limiter.ts).
 */
const limiter =
  data?.rateLimiter === undefined ? undefined : RateLimiter.fromShared(data.rateLimiter);
const account =
  data?.rateAccount === undefined ? undefined : new RateLimiterAccount(data.rateAccount);
const flushFs: FileSystem =
  limiter === undefined ? fs : rateLimitedFileSystem(fs, limiter, "high", account);
const compactFs: FileSystem =
  limiter === undefined ? fs : rateLimitedFileSystem(fs, limiter, "low", account);
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

function run(job: JobMessage): ResultMessage {
  if (job.type === "remove") {
    for (const path of job.paths) removeQuietly(path);
    return { id: job.id, ok: true, type: "remove" };
  }
  const comparator = builtinComparator(job.comparator);
  if (comparator === undefined)
    throw new Error(`comparator ${job.comparator} cannot run in a worker`);
  if (job.type === "flush") {
    const mem = MemTable.fromShared(job.memtable, { comparator });
    const table = { ...revivePrefixExtractor(job.table), comparator };
    const file = flushMemTable(flushFs, job.dir, job.fileNumber, mem, table, job.snapshots);
    return { id: job.id, ok: true, type: "flush", file };
  }
  let mergeOperator: MergeOperator | undefined;
  const ref = job.mergeOperator;
  if (ref !== undefined) {
    mergeOperator =
      typeof ref === "string" ? builtinMergeOperator(ref) : mergeOperators.get(refKey(ref));
    if (mergeOperator === undefined)
      throw new Error(`merge operator ${JSON.stringify(ref)} cannot run in a worker`);
    // A TTL family's operator, wrapped with the clock reading the job carries.
    if (job.filter?.ttl !== undefined)
      mergeOperator = ttlMergeOperator(mergeOperator, fixedClock(job.filter.now));
  }
  const user = job.filter?.user;
  const filter = user === undefined ? undefined : filters.get(refKey(user));
  const spec =
    job.table.prefixExtractor === undefined
      ? job
      : { ...job, table: revivePrefixExtractor(job.table) };
  const result = runCompactionJob(compactFs, spec, comparator, mergeOperator, filter);
  return { id: job.id, ok: true, type: "compact", result };
}

/** User code loaded from modules (core/user-module.ts), by `module#name`. */
const mergeOperators = new Map<string, MergeOperator>();
const filters = new Map<string, CompactionFilterFunction>();
const refKey = (ref: ModuleExportRef) => `${ref.module}#${ref.name}`;

/**
 * Imports the modules a compaction names that this worker has not loaded yet; undefined
 * when there are none (the job runs at once).
 */
function loadModules(job: CompactMessage): Promise<void> | undefined {
  const pending: Promise<void>[] = [];
  const op = job.mergeOperator;
  if (typeof op === "object" && !mergeOperators.has(refKey(op)))
    pending.push(
      loadMergeOperator(op, "mergeOperator").then((m) => {
        mergeOperators.set(refKey(op), m);
      }),
    );
  const user = job.filter?.user;
  if (user !== undefined && !filters.has(refKey(user)))
    pending.push(
      loadCompactionFilter(user, "compactionFilter").then((f) => {
        filters.set(refKey(user), f.filter);
      }),
    );
  return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
}

/** Removes a file; one that is already gone is fine, other failures are left to the next open. */
function removeQuietly(path: string): void {
  try {
    fs.remove(path);
  } catch {
    // an orphan: removed by the next open
  }
}

function runAndReply(job: JobMessage): void {
  let reply: ResultMessage;
  try {
    reply = run(job);
  } catch (e) {
    reply = { id: job.id, ok: false, error: serializeError(e) };
  }
  post(reply);
}

function post(reply: ResultMessage): void {
  port!.postMessage(reply);
  if (finished !== undefined) {
    Atomics.store(finished, 0, 1);
    Atomics.notify(finished, 0);
  }
}

port.on("message", (job: JobMessage) => {
  const loading = job.type === "compact" ? loadModules(job) : undefined;
  if (loading === undefined) {
    runAndReply(job);
    return;
  }
  loading.then(
    () => runAndReply(job),
    (e: unknown) => post({ id: job.id, ok: false, error: serializeError(e) }),
  );
});
