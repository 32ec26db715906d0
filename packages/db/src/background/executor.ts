/**
 * Where background jobs run.
 *
 * - `WorkerExecutor`: a pool of `worker_threads` (size `maxBackgroundJobs`), used when the
 *   database is on the node file system with a built-in comparator. The main thread only
 *   posts the job (a sealed memtable travels as SharedArrayBuffers, not copied) and installs
 *   the result.
 * - `InlineExecutor`: runs the job on the main thread, after the current call returns. Used
 *   for other file systems (an in-memory FileSystem cannot be shared with another thread)
 *   and custom comparators (functions cannot cross threads). A WorkerExecutor also runs a
 *   compaction inline when the merge operator is a user's object (only the built-ins cross
 *   threads, by name).
 *
 * Flushes go before compactions: an inline executor runs queued flushes first; a worker
 * pool takes the least busy worker, and the database keeps one worker's worth of room for
 * flushes by running at most `maxBackgroundJobs - 1` compactions at once (1 when the pool
 * has a single worker, which then interleaves them).
 *
 * Results can also be taken synchronously, without the event loop turning: a worker that
 * posts a result then sets the executor's `finished` cell (an Int32Array over a
 * SharedArrayBuffer: `Atomics.store` 1, `Atomics.notify`). The database reads that cell at
 * the start of every operation (one `Atomics.load`) and, when set, calls `takeFinished`,
 * which clears it and runs the callbacks of the results waiting on the ports
 * (`receiveMessageOnPort`) — so a long synchronous loop of reads or writes installs finished
 * flushes and compactions, and starts the next jobs, as the event loop would. A write that
 * must stall for a flush waits on the same cell (`drainCompleted`, `Atomics.wait`) and wakes
 * as soon as a job finishes.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from "node:worker_threads";
import { type Comparator, type FileSystem, ShaleError } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import {
  type CompactionJobResult,
  type CompactionJobSpec,
  runCompactionJob,
} from "../compaction/compaction-job.js";
import type { MergeOperator } from "../merge-operator.js";
import type { FileMetaData } from "../version-edit.js";
import type { TableWriteOptions } from "./build-table.js";
import { flushMemTable } from "./flush-job.js";
import {
  builtinComparator,
  builtinMergeOperatorName,
  type CompactMessage,
  deserializeError,
  type FlushMessage,
  type RemoveMessage,
  type ResultMessage,
  type WorkerMessage,
} from "./protocol.js";

export interface FlushRequest {
  dir: string;
  fileNumber: number;
  mem: MemTable;
  comparator: Comparator;
  table: TableWriteOptions;
  /** Live snapshot seqs when the flush was scheduled (see flush-job.ts). */
  snapshots: number[];
}

export interface CompactRequest {
  spec: CompactionJobSpec;
  comparator: Comparator;
  mergeOperator: MergeOperator | undefined;
}

export type JobCallback = (error: Error | undefined, file: FileMetaData | undefined) => void;
export type CompactCallback = (
  error: Error | undefined,
  result: CompactionJobResult | undefined,
) => void;

export interface BackgroundExecutor {
  readonly kind: "worker" | "inline";
  /** Starts a flush; `done` is called exactly once, from the event loop or `drainCompleted`. */
  flush(request: FlushRequest, done: JobCallback): void;
  /**
   * Starts a compaction; `done` is called exactly once (with a Closed error if the executor
   * closes before the job starts).
   */
  compact(request: CompactRequest, done: CompactCallback): void;
  /**
   * Deletes files (obsolete tables and WALs) — off the main thread for a worker pool, at
   * once inline. Failures are ignored (the next open removes orphans). `done` is called
   * once the files are gone.
   */
  removeFiles(paths: string[], done: () => void): void;
  /** Jobs started and not yet completed. */
  readonly pending: number;
  /**
   * Int32Array(1), non-zero once a worker posted a result that was not taken yet (read it
   * with `Atomics.load`; only a worker executor ever sets it).
   */
  readonly finished: Int32Array;
  /**
   * Runs the callbacks of the worker results already posted (never blocks, never runs a
   * job on this thread) and clears `finished`. Returns how many completed.
   */
  takeFinished(): number;
  /**
   * Blocks up to `timeoutMs` for a job to finish, then runs the callbacks of every finished
   * job (an inline executor runs the next queued job, flushes first). Returns how many
   * completed.
   */
  drainCompleted(timeoutMs: number): number;
  close(): Promise<void>;
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

interface QueuedJob {
  run(): void;
  cancel(): void;
}

export class InlineExecutor implements BackgroundExecutor {
  readonly kind = "inline";
  /** Never set: inline jobs complete on the event loop or in `drainCompleted`. */
  readonly finished = new Int32Array(new SharedArrayBuffer(4));
  private readonly fs: FileSystem;
  private readonly flushes: QueuedJob[] = [];
  private readonly compactions: QueuedJob[] = [];
  private scheduled = false;

  constructor(fs: FileSystem) {
    this.fs = fs;
  }

  get pending(): number {
    return this.flushes.length + this.compactions.length;
  }

  flush(request: FlushRequest, done: JobCallback): void {
    const run = () => {
      let file: FileMetaData | undefined;
      let error: Error | undefined;
      try {
        file = flushMemTable(
          this.fs,
          request.dir,
          request.fileNumber,
          request.mem,
          { ...request.table, comparator: request.comparator },
          request.snapshots,
        );
      } catch (e) {
        error = asError(e);
      }
      done(error, file);
    };
    this.flushes.push({ run, cancel: run });
    this.schedule();
  }

  compact(request: CompactRequest, done: CompactCallback): void {
    this.compactions.push({
      run: () => runCompactInline(this.fs, request, done),
      cancel: () => done(ShaleError.closed("the background executor is closed"), undefined),
    });
    this.schedule();
  }

  removeFiles(paths: string[], done: () => void): void {
    for (const path of paths) {
      try {
        this.fs.remove(path);
      } catch {
        // an orphan: removed by the next open
      }
    }
    done();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // Run what is queued now; jobs queued by their callbacks wait for the next turn.
      for (let n = this.pending; n > 0 && this.runOne(); n--);
      if (this.pending > 0) this.schedule();
    });
  }

  /** Runs the next job, flushes first. */
  private runOne(): boolean {
    const job = this.flushes.shift() ?? this.compactions.shift();
    if (job === undefined) return false;
    job.run();
    return true;
  }

  drainCompleted(_timeoutMs: number): number {
    return this.runOne() ? 1 : 0;
  }

  takeFinished(): number {
    return 0;
  }

  /** Runs the queued flushes (and those they queue); cancels queued compactions. */
  async close(): Promise<void> {
    for (let job = this.flushes.shift(); job !== undefined; job = this.flushes.shift()) job.run();
    for (let job = this.compactions.shift(); job !== undefined; job = this.compactions.shift())
      job.cancel();
  }
}

function runCompactInline(fs: FileSystem, request: CompactRequest, done: CompactCallback): void {
  let result: CompactionJobResult | undefined;
  let error: Error | undefined;
  try {
    result = runCompactionJob(fs, request.spec, request.comparator, request.mergeOperator);
  } catch (e) {
    error = asError(e);
  }
  done(error, result);
}

/**
 * Node options for worker threads: the parent's, minus `--conditions` (a test runner's
 * "source" condition would make the worker load TypeScript sources it cannot run).
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--conditions" || a === "-C") i++;
    else if (!a.startsWith("--conditions=")) out.push(a);
  }
  return out;
}

/**
 * A worker thread on `port`, with the parent's Node options where a worker accepts them:
 * options that only a process can have (e.g. `--trace-gc`) make the Worker constructor
 * throw, so then it gets none rather than failing every flush.
 */
function newWorker(port: MessagePort, finished: SharedArrayBuffer): Worker {
  const options = { workerData: { port, finished }, transferList: [port] };
  try {
    return new Worker(workerEntry(), { ...options, execArgv: workerExecArgv() });
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw e;
    return new Worker(workerEntry(), { ...options, execArgv: [] });
  }
}

/** The compiled worker entry (tests run from sources, so fall back to dist/). */
function workerEntry(): URL {
  const here = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL("../../dist/background/worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw ShaleError.notSupported("the background worker is not built (run the build first)");
}

interface Slot {
  worker: Worker;
  port: MessagePort;
  busy: number;
  /** Ids of the jobs this worker is running. */
  jobs: Set<number>;
}

/** How a finished worker job reaches its caller. */
interface Waiter {
  ok(m: ResultMessage & { ok: true }): void;
  fail(e: Error): void;
}

export class WorkerExecutor implements BackgroundExecutor {
  readonly kind = "worker";
  /** Set by the workers after each result they post (see the header). */
  readonly finished = new Int32Array(new SharedArrayBuffer(4));
  private readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly waiters = new Map<number, Waiter>();
  /** Compactions that cannot cross threads (a user's merge operator) run here. */
  private readonly inline: InlineExecutor;
  private nextId = 1;
  private closed = false;

  constructor(size: number, fs: FileSystem) {
    this.size = Math.max(1, size);
    this.inline = new InlineExecutor(fs);
  }

  get pending(): number {
    return this.waiters.size + this.inline.pending;
  }

  private slot(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (best === undefined || s.busy < best.busy) best = s;
    if (best !== undefined && (best.busy === 0 || this.slots.length >= this.size)) return best;
    const { port1, port2 } = new MessageChannel();
    const worker = newWorker(port2, this.finished.buffer as SharedArrayBuffer);
    const slot: Slot = { worker, port: port1, busy: 0, jobs: new Set() };
    port1.on("message", (m: WorkerMessage) => this.receive(slot, m));
    worker.on("error", (e) => this.failAll(slot, e));
    worker.unref();
    port1.unref();
    this.slots.push(slot);
    return slot;
  }

  private post(message: FlushMessage | CompactMessage | RemoveMessage, waiter: Waiter): void {
    if (this.closed) throw ShaleError.closed("the background executor is closed");
    const slot = this.slot();
    this.waiters.set(message.id, waiter);
    slot.jobs.add(message.id);
    slot.busy++;
    if (slot.busy === 1) {
      slot.worker.ref();
      slot.port.ref();
    }
    slot.port.postMessage(message);
  }

  flush(request: FlushRequest, done: JobCallback): void {
    const message: FlushMessage = {
      id: this.nextId++,
      type: "flush",
      dir: request.dir,
      fileNumber: request.fileNumber,
      comparator: request.comparator.name,
      memtable: request.mem.exportShared(),
      table: request.table,
      snapshots: request.snapshots,
    };
    this.post(message, {
      ok: (m) => done(undefined, m.type === "flush" ? m.file : undefined),
      fail: (e) => done(e, undefined),
    });
  }

  compact(request: CompactRequest, done: CompactCallback): void {
    const op = request.mergeOperator;
    const opName = op === undefined ? undefined : builtinMergeOperatorName(op);
    if (
      builtinComparator(request.comparator.name) !== request.comparator ||
      (op !== undefined && opName === undefined)
    ) {
      if (this.closed) throw ShaleError.closed("the background executor is closed");
      this.inline.compact(request, done);
      return;
    }
    const message: CompactMessage = {
      ...request.spec,
      id: this.nextId++,
      type: "compact",
      comparator: request.comparator.name,
      mergeOperator: opName,
    };
    this.post(message, {
      ok: (m) => {
        if (m.type === "compact") done(undefined, m.result);
        else done(new Error("a compaction answered as a flush"), undefined);
      },
      fail: (e) => done(e, undefined),
    });
  }

  removeFiles(paths: string[], done: () => void): void {
    if (this.closed) {
      this.inline.removeFiles(paths, done);
      return;
    }
    this.post(
      { id: this.nextId++, type: "remove", paths },
      { ok: () => done(), fail: () => done() },
    );
  }

  private receive(slot: Slot, m: WorkerMessage): void {
    if ("fatal" in m) this.failAll(slot, new Error(`the worker could not start: ${m.message}`));
    else this.complete(slot, m);
  }

  private complete(slot: Slot, m: ResultMessage): void {
    const waiter = this.waiters.get(m.id);
    if (waiter === undefined) return;
    this.waiters.delete(m.id);
    slot.jobs.delete(m.id);
    slot.busy--;
    if (slot.busy === 0) {
      slot.worker.unref();
      slot.port.unref();
    }
    if (m.ok) waiter.ok(m);
    else waiter.fail(deserializeError(m.error));
  }

  private failAll(slot: Slot, e: Error): void {
    // A crashed worker: fail every job it had (the database records a background error).
    const error = ShaleError.ioError(`background worker failed: ${e.message}`, undefined, e);
    for (const id of slot.jobs) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.fail(error);
    }
    slot.jobs.clear();
    slot.busy = 0;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
  }

  takeFinished(): number {
    // Cleared before the ports are read: a worker sets it only after posting, so a result
    // posted from now on sets it again (at worst once too often: the next take finds none).
    Atomics.store(this.finished, 0, 0);
    let n = 0;
    const slots = this.slots;
    // A callback may start a job on a new slot or drop a crashed one: index, re-read length.
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      for (
        let r = receiveMessageOnPort(slot.port);
        r !== undefined;
        r = receiveMessageOnPort(slot.port)
      ) {
        this.receive(slot, r.message as WorkerMessage);
        n++;
      }
    }
    return n;
  }

  drainCompleted(timeoutMs: number): number {
    const deadline = performance.now() + timeoutMs;
    let n = this.inline.drainCompleted(0);
    for (;;) {
      n += this.takeFinished();
      if (n > 0 || this.waiters.size === 0) return n;
      const left = deadline - performance.now();
      if (left <= 0) return n;
      // Woken by the next result (a worker notifies after setting the cell); returns at once
      // if one was posted since takeFinished cleared it.
      Atomics.wait(this.finished, 0, 0, left);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.inline.close();
    // Wait for running jobs so no table is left half-written by a terminated worker.
    while (this.waiters.size > 0) this.drainCompleted(50);
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
