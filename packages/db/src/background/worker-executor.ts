/**
 * `WorkerExecutor`: background jobs on a pool of `worker_threads` (see executor.ts for the
 * contract and when the database uses it). Node.js, Deno and Bun only: a browser bundle
 * loads worker-executor.browser.ts in its place (package.json `"browser"` field), so the
 * in-memory path never imports `node:worker_threads`.
 *
 * Finding the worker file. The worker is spawned with the literal
 * `new Worker(new URL("./worker.js", import.meta.url), ...)`, the pattern webpack documents
 * for worker_threads (it bundles the worker as its own chunk; not tested here). esbuild and
 * Vite's SSR build leave the URL alone: it then names `worker.js` beside the bundle, so
 * bundle the worker as a second entry point of that name (`esbuild app.ts
 * worker=shale/worker --bundle --outdir=out ...`; Vite: `rollupOptions.input: { app,
 * worker: "shale/worker" }`, `entryFileNames: "[name].js"`) — tooling/bundle.test.ts.
 * Before spawning, a `file:` URL is checked (an error inside the worker would only arrive
 * later, as an event). A missing worker file — a single-file bundle, e.g. esbuild
 * `--bundle` or `bun build --compile` without the second entry point — does not fail the
 * database: that job and every later one run on this thread (the inline executor), with
 * one process warning naming the path it looked for and the faster set-up. Tests run from
 * sources, where the built worker is in dist/.
 *
 * Waiting for jobs. `close()` waits for running jobs so no table is left half-written; it
 * turns the event loop between checks, so a result reaches it either way: taken from the
 * ports (`receiveMessageOnPort`) or delivered as an event — and so does a worker's 'error'
 * event (a worker that died), which a purely synchronous wait never saw.
 *
 * A worker that never starts. A worker can die before its script runs (a failing preload
 * such as `--import`, an option Node refuses only in the new thread): its 'error' event needs
 * the event loop, which a writer stalled in a synchronous wait does not turn, so the writer
 * waited forever. Each worker has a start cell: the worker's first statement claims it
 * (0 -> 1, worker.ts) before it takes any job. A synchronous wait that finds a busy worker
 * unstarted `WORKER_START_TIMEOUT_MS` after its spawn claims the cell for the executor
 * (0 -> 2): from then on that worker runs nothing even if it starts late (it sees 2 and
 * exits), and its jobs, with every later one, run on this thread (the inline executor), with
 * a process warning. The same happens when an unstarted worker's 'error' event arrives. A
 * worker that had started and then failed fails its jobs, as before (a background error).
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
  type WorkerOptions,
} from "node:worker_threads";
import { type FileSystem, ShaleError } from "@shale/base";
import type { CpuPriority } from "../core/options.js";
import {
  type BackgroundExecutor,
  type BackgroundRateLimit,
  type CompactCallback,
  type CompactRequest,
  type FlushRequest,
  InlineExecutor,
  type JobCallback,
  settleRateLimit,
} from "./executor.js";
import {
  compactMessage,
  compactWaiter,
  flushMessage,
  flushWaiter,
  type Waiter,
} from "./job-messages.js";
import {
  type CompactMessage,
  deserializeError,
  type FlushMessage,
  type RemoveMessage,
  type ResultMessage,
  type WorkerMessage,
} from "./protocol.js";
import { workerExecArgv } from "./worker-exec-argv.js";

/** The URL this module was loaded from; a CommonJS bundle has no `import.meta.url`. */
function moduleUrl(): string {
  const url: string | undefined = import.meta.url;
  if (typeof url === "string" && url !== "") return url;
  if (typeof __filename === "string") return pathToFileURL(__filename).href;
  throw ShaleError.notSupported(
    "cannot locate the background worker: import.meta.url is undefined (a CommonJS bundle?); " +
      "bundle as ESM with worker.js beside the bundle",
  );
}

/**
 * Where the worker must be, checked before spawning: `worker.js` beside this module (the
 * built package, or a bundle with the worker beside it), else the built one in dist/
 * (tests run from src/). `undefined` when the literal URL is right (or not a file); the
 * URL made from `__filename` in a CommonJS bundle.
 */
function workerFallback(): URL | undefined {
  // Not the literal `new URL("./worker.js", import.meta.url)`: bundlers would take this
  // existence check for a second worker (or asset) reference.
  const name = "worker.js";
  const here = new URL(`./${name}`, moduleUrl());
  // A CommonJS bundle: no import.meta.url for the literal below, `here` came from __filename.
  const esm = typeof import.meta.url === "string" && import.meta.url !== "";
  if (here.protocol !== "file:" || existsSync(fileURLToPath(here))) return esm ? undefined : here;
  const built = new URL(`../../dist/background/${name}`, moduleUrl());
  if (
    /\/src\/background\/[^/]*$/.test(new URL(moduleUrl()).pathname) &&
    existsSync(fileURLToPath(built))
  )
    return built;
  throw ShaleError.notSupported(
    `the background worker ${fileURLToPath(here)} is missing: a bundle needs the worker ` +
      "beside it as worker.js (esbuild: add the entry point worker=shale/worker, or " +
      "worker=@shale/db/worker); an unbundled install needs its dist/ (reinstall shale)",
  );
}

/**
 * A worker thread on `port`, with the parent's Node options where a worker accepts them:
 * options that only a process can have (e.g. `--trace-gc`) make the Worker constructor
 * throw, so then it gets none rather than failing every flush.
 */
function newWorker(
  port: MessagePort,
  finished: SharedArrayBuffer,
  started: SharedArrayBuffer,
  nice: number,
  rate: BackgroundRateLimit | undefined,
): Worker {
  const fallback = workerFallback();
  const spawn = (execArgv: string[]): Worker => {
    const options: WorkerOptions = {
      workerData: {
        port,
        finished,
        started,
        nice,
        ...(rate === undefined
          ? {}
          : { rateLimiter: rate.limiter.buffer, rateAccount: rate.account.buffer }),
      },
      transferList: [port],
      execArgv,
    };
    if (fallback !== undefined) return new Worker(fallback, options);
    return new Worker(new URL("./worker.js", import.meta.url), options);
  };
  try {
    return spawn(workerExecArgv());
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw e;
    return spawn([]);
  }
}

/** Says once per executor that background jobs run on the main thread from now on. */
function warnNoWorkers(cause: Error): void {
  const p = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process;
  p?.emitWarning?.(
    `shale: a background worker could not start (${cause.message}); flushes and compactions run on the main thread from now on`,
    { type: "ShaleWarning", code: "SHALE_NO_WORKERS" },
  );
}

/**
 * Which jobs a worker takes: with two workers or more, one runs the flushes (a writer may be
 * waiting for them) and the others the compactions, at a lower CPU priority (see
 * `compactionNice`); a single worker runs everything.
 */
/** Nice values of the CPU priorities (RocksDB's CpuPriority: kNormal 0, kLow 10, kIdle 19). */
const NICE: Readonly<Record<CpuPriority, number>> = Object.freeze({ normal: 0, low: 10, idle: 19 });

const Lane = Object.freeze({ Flush: 0, Compaction: 1, Any: 2 } as const);
type Lane = (typeof Lane)[keyof typeof Lane];

interface Slot {
  lane: Lane;
  worker: Worker;
  port: MessagePort;
  busy: number;
  /** Ids of the jobs this worker is running. */
  jobs: Set<number>;
  /** The start cell (see the header): 0 not started, 1 started, 2 given up by the executor. */
  started: Int32Array;
  /** `performance.now()` at the spawn. */
  spawnedAt: number;
}

/** How long a busy worker may take to start before a synchronous wait gives up on it. */
export const WORKER_START_TIMEOUT_MS = 5000;
const NOT_STARTED = 0;
const GIVEN_UP = 2;

export class WorkerExecutor implements BackgroundExecutor {
  readonly kind = "worker";
  /** Set by the workers after each result they post (see the header). */
  readonly finished = new Int32Array(new SharedArrayBuffer(4));
  private readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly waiters = new Map<number, Waiter>();
  /**
   * Compactions that cannot cross threads (a user's merge operator object; one given as
   * `{ module, name }` crosses, as compaction filters do) run here.
   */
  private readonly inline: InlineExecutor;
  private nextId = 1;
  private closed = false;
  /** Resolves `close()`'s wait as soon as a job completes (set only while it waits). */
  private idle: (() => void) | undefined;
  /** Set once a worker never started: every job runs on this thread from then on. */
  private noWorkers = false;

  /** The nice value compaction workers take (0: the process's own priority). */
  private readonly compactionNice: number;

  /** The rate limiter the workers' writes go through (rate-limited-fs.ts), if any. */
  private readonly rate: BackgroundRateLimit | undefined;

  constructor(
    size: number,
    fs: FileSystem,
    compactionPriority: CpuPriority = "normal",
    rate?: BackgroundRateLimit,
  ) {
    this.size = Math.max(1, size);
    this.inline = new InlineExecutor(fs, rate);
    this.rate = rate;
    this.compactionNice = NICE[compactionPriority];
  }

  get pending(): number {
    return this.waiters.size + this.inline.pending;
  }

  /**
   * The least busy worker of `lane` (a new one while it has fewer than its share of the
   * pool and none is idle): the flush lane has one worker, the compaction lane the rest;
   * with a pool of one, its worker is in every lane. Removals (`Lane.Any`) take the least
   * busy worker of either.
   */
  private slot(lane: Lane): Slot {
    const shared = this.size === 1;
    const inLane = (s: Slot) => shared || lane === Lane.Any || s.lane === lane;
    let best: Slot | undefined;
    let count = 0;
    for (const s of this.slots) {
      if (!inLane(s)) continue;
      count++;
      if (best === undefined || s.busy < best.busy) best = s;
    }
    const own: Lane = shared ? Lane.Any : lane === Lane.Any ? Lane.Flush : lane;
    const share = shared ? 1 : own === Lane.Flush ? 1 : this.size - 1;
    if (lane === Lane.Any && best !== undefined) return best;
    if (best !== undefined && (best.busy === 0 || count >= share)) return best;
    const nice = own === Lane.Compaction ? this.compactionNice : 0;
    const { port1, port2 } = new MessageChannel();
    const started = new SharedArrayBuffer(4);
    const worker = newWorker(
      port2,
      this.finished.buffer as SharedArrayBuffer,
      started,
      nice,
      this.rate,
    );
    const slot: Slot = {
      lane: own,
      worker,
      port: port1,
      busy: 0,
      jobs: new Set(),
      started: new Int32Array(started),
      spawnedAt: performance.now(),
    };
    port1.on("message", (m: WorkerMessage) => this.receive(slot, m));
    worker.on("error", (e) => this.failAll(slot, e));
    worker.unref();
    port1.unref();
    this.slots.push(slot);
    return slot;
  }

  private post(
    message: FlushMessage | CompactMessage | RemoveMessage,
    lane: Lane,
    waiter: Waiter,
  ): void {
    if (this.closed) throw ShaleError.closed("the background executor is closed");
    let slot: Slot;
    try {
      slot = this.slot(lane);
    } catch (e) {
      // No worker file to spawn (see the header): this thread runs the jobs from now on.
      if (!ShaleError.isInstance(e) || e.code !== "NotSupported") throw e;
      this.noWorkers = true;
      warnNoWorkers(e);
      waiter.inline();
      return;
    }
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
    const message = this.noWorkers ? undefined : flushMessage(this.nextId, request);
    if (message === undefined) {
      this.inline.flush(request, done);
      return;
    }
    this.nextId++;
    this.post(message, Lane.Flush, flushWaiter(request, done, this.inline));
  }

  compact(request: CompactRequest, done: CompactCallback): void {
    const message = this.noWorkers ? undefined : compactMessage(this.nextId, request);
    if (message === undefined) {
      if (this.closed) throw ShaleError.closed("the background executor is closed");
      this.inline.compact(request, done);
      return;
    }
    this.nextId++;
    this.post(message, Lane.Compaction, compactWaiter(request, done, this.inline));
  }

  removeFiles(paths: string[], done: () => void): void {
    if (this.closed || this.noWorkers) {
      this.inline.removeFiles(paths, done);
      return;
    }
    this.post({ id: this.nextId++, type: "remove", paths }, Lane.Any, {
      ok: () => done(),
      fail: () => done(),
      inline: () => this.inline.removeFiles(paths, done),
    });
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
    settleRateLimit(this.rate);
    if (m.ok) waiter.ok(m);
    else waiter.fail(deserializeError(m.error));
    this.idle?.();
  }

  /** A worker's 'error' event or fatal message: it died, or never started (see the header). */
  private failAll(slot: Slot, e: Error): void {
    if (Atomics.compareExchange(slot.started, 0, NOT_STARTED, GIVEN_UP) === NOT_STARTED) {
      this.abandon(slot, e);
      return;
    }
    const jobs = this.drop(slot);
    // A crashed worker: fail every job it had (the database records a background error).
    const error = ShaleError.ioError(`background worker failed: ${e.message}`, undefined, e);
    for (const id of jobs) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.fail(error);
    }
    this.idle?.();
  }

  /**
   * A worker whose start cell the executor claimed (it never runs a job): its jobs, and
   * every later one, run on this thread.
   */
  private abandon(slot: Slot, cause: Error): void {
    const jobs = this.drop(slot);
    if (!this.noWorkers) {
      this.noWorkers = true;
      warnNoWorkers(cause);
    }
    for (const id of jobs) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.inline();
    }
    this.idle?.();
  }

  /** Removes a slot and terminates its worker; returns the ids of the jobs it had. */
  private drop(slot: Slot): number[] {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    const jobs = [...slot.jobs];
    slot.jobs.clear();
    slot.busy = 0;
    void slot.worker.terminate();
    return jobs;
  }

  /** Gives up on busy workers still unstarted WORKER_START_TIMEOUT_MS after their spawn. */
  private checkStarts(): void {
    const now = performance.now();
    const slots = this.slots;
    for (let i = slots.length - 1; i >= 0; i--) {
      const slot = slots[i]!;
      if (
        slot.jobs.size > 0 &&
        now - slot.spawnedAt > WORKER_START_TIMEOUT_MS &&
        Atomics.compareExchange(slot.started, 0, NOT_STARTED, GIVEN_UP) === NOT_STARTED
      ) {
        this.abandon(
          slot,
          new Error(`it had not started ${WORKER_START_TIMEOUT_MS} ms after it was spawned`),
        );
      }
    }
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
      this.checkStarts();
      if (this.waiters.size === 0) return n + this.inline.drainCompleted(0);
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
    // Wait for running jobs so no table is left half-written by a terminated worker,
    // turning the event loop between checks (see the header).
    while (this.waiters.size > 0) {
      if (this.drainCompleted(0) > 0) continue;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        setTimeout(resolve, 50);
      });
      this.idle = undefined;
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
