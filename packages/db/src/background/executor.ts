/**
 * Where background jobs run.
 *
 * - `WorkerExecutor`: a pool of `worker_threads` (size `maxBackgroundJobs`), used when the
 *   database is on the node file system with a built-in comparator. The main thread only
 *   posts the job (a sealed memtable travels as SharedArrayBuffers, not copied) and installs
 *   the result.
 * - `InlineExecutor`: runs the job on the main thread, after the current call returns. Used
 *   for other file systems (an in-memory FileSystem cannot be shared with another thread)
 *   and custom comparators (functions cannot cross threads).
 *
 * Results can also be taken synchronously (`drainCompleted`) — a write that must stall for
 * a flush waits on the worker without returning to the event loop.
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
import type { FileMetaData } from "../version-edit.js";
import type { TableWriteOptions } from "./build-table.js";
import { flushMemTable } from "./flush-job.js";
import {
  deserializeError,
  type FlushMessage,
  type ResultMessage,
  type WorkerMessage,
} from "./protocol.js";

export interface FlushRequest {
  dir: string;
  fileNumber: number;
  mem: MemTable;
  comparator: Comparator;
  table: TableWriteOptions;
}

export type JobCallback = (error: Error | undefined, file: FileMetaData | undefined) => void;

export interface BackgroundExecutor {
  readonly kind: "worker" | "inline";
  /** Starts a flush; `done` is called exactly once, from the event loop or `drainCompleted`. */
  flush(request: FlushRequest, done: JobCallback): void;
  /** Jobs started and not yet completed. */
  readonly pending: number;
  /**
   * Blocks up to `timeoutMs` for a job to finish, then runs the callbacks of every finished
   * job. Returns how many completed.
   */
  drainCompleted(timeoutMs: number): number;
  close(): Promise<void>;
}

export class InlineExecutor implements BackgroundExecutor {
  readonly kind = "inline";
  private readonly fs: FileSystem;
  private queue: { request: FlushRequest; done: JobCallback }[] = [];
  private scheduled = false;

  constructor(fs: FileSystem) {
    this.fs = fs;
  }

  get pending(): number {
    return this.queue.length;
  }

  flush(request: FlushRequest, done: JobCallback): void {
    this.queue.push({ request, done });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.drainCompleted(0);
      });
    }
  }

  drainCompleted(_timeoutMs: number): number {
    let n = 0;
    while (this.queue.length > 0) {
      const { request, done } = this.queue.shift()!;
      let file: FileMetaData | undefined;
      let error: Error | undefined;
      try {
        file = flushMemTable(this.fs, request.dir, request.fileNumber, request.mem, {
          ...request.table,
          comparator: request.comparator,
        });
      } catch (e) {
        error = e instanceof Error ? e : new Error(String(e));
      }
      n++;
      done(error, file);
    }
    return n;
  }

  async close(): Promise<void> {
    this.drainCompleted(0);
  }
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

export class WorkerExecutor implements BackgroundExecutor {
  readonly kind = "worker";
  private readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly callbacks = new Map<number, JobCallback>();
  private nextId = 1;
  private closed = false;

  constructor(size: number) {
    this.size = Math.max(1, size);
  }

  get pending(): number {
    return this.callbacks.size;
  }

  private slot(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (best === undefined || s.busy < best.busy) best = s;
    if (best !== undefined && (best.busy === 0 || this.slots.length >= this.size)) return best;
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(workerEntry(), {
      workerData: { port: port2 },
      transferList: [port2],
      execArgv: workerExecArgv(),
    });
    const slot: Slot = { worker, port: port1, busy: 0, jobs: new Set() };
    port1.on("message", (m: WorkerMessage) => this.receive(slot, m));
    worker.on("error", (e) => this.failAll(slot, e));
    worker.unref();
    port1.unref();
    this.slots.push(slot);
    return slot;
  }

  flush(request: FlushRequest, done: JobCallback): void {
    if (this.closed) throw ShaleError.closed("the background executor is closed");
    const id = this.nextId++;
    const slot = this.slot();
    const message: FlushMessage = {
      id,
      type: "flush",
      dir: request.dir,
      fileNumber: request.fileNumber,
      comparator: request.comparator.name,
      memtable: request.mem.exportShared(),
      table: request.table,
    };
    this.callbacks.set(id, done);
    slot.jobs.add(id);
    slot.busy++;
    if (slot.busy === 1) {
      slot.worker.ref();
      slot.port.ref();
    }
    slot.port.postMessage(message);
  }

  private receive(slot: Slot, m: WorkerMessage): void {
    if ("fatal" in m) this.failAll(slot, new Error(`the worker could not start: ${m.message}`));
    else this.complete(slot, m);
  }

  private complete(slot: Slot, m: ResultMessage): void {
    const done = this.callbacks.get(m.id);
    if (done === undefined) return;
    this.callbacks.delete(m.id);
    slot.jobs.delete(m.id);
    slot.busy--;
    if (slot.busy === 0) {
      slot.worker.unref();
      slot.port.unref();
    }
    if (m.ok) done(undefined, m.file);
    else done(deserializeError(m.error), undefined);
  }

  private failAll(slot: Slot, e: Error): void {
    // A crashed worker: fail every job it had (the database records a background error).
    const error = ShaleError.ioError(`background worker failed: ${e.message}`, undefined, e);
    for (const id of slot.jobs) {
      const done = this.callbacks.get(id);
      this.callbacks.delete(id);
      done?.(error, undefined);
    }
    slot.jobs.clear();
    slot.busy = 0;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
  }

  drainCompleted(timeoutMs: number): number {
    const deadline = performance.now() + timeoutMs;
    let n = 0;
    for (;;) {
      for (const slot of this.slots) {
        for (
          let r = receiveMessageOnPort(slot.port);
          r !== undefined;
          r = receiveMessageOnPort(slot.port)
        ) {
          this.receive(slot, r.message as WorkerMessage);
          n++;
        }
      }
      if (n > 0 || this.callbacks.size === 0 || performance.now() >= deadline) return n;
      Atomics.wait(sleeper, 0, 0, 1); // sleep 1 ms and poll again
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // Wait for running jobs so no table is left half-written by a terminated worker.
    while (this.callbacks.size > 0) this.drainCompleted(50);
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
