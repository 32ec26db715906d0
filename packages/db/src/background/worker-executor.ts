/**
 * `WorkerExecutor`: background jobs on a pool of `worker_threads` (see executor.ts for the
 * contract and when the database uses it). Node.js, Deno and Bun only: a browser bundle
 * loads worker-executor.browser.ts in its place (package.json `"browser"` field), so the
 * in-memory path never imports `node:worker_threads`. The lanes, the jobs' bookkeeping and
 * the waits are the pool's (worker-pool.ts, shared with the browser's nested workers); this
 * file is the transport: a `MessagePort` per worker, read synchronously with
 * `receiveMessageOnPort`.
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
import { type FileSystem, ShaleError, workerExecArgv } from "@shale/base";
import type { CpuPriority } from "../core/options.js";
import type { BackgroundRateLimit } from "./executor.js";
import type { JobMessage, WorkerMessage } from "./protocol.js";
import { Lane, type Slot, WorkerPool, type WorkerTransport } from "./worker-pool.js";

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

/** Says that background jobs run on the main thread from now on (once per executor). */
function warnNoWorkers(why: string): void {
  const p = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process;
  p?.emitWarning?.(
    `shale: a background worker could not start (${why}); flushes and compactions run on the main thread from now on`,
    { type: "ShaleWarning", code: "SHALE_NO_WORKERS" },
  );
}

/** Nice values of the CPU priorities (RocksDB's CpuPriority: kNormal 0, kLow 10, kIdle 19). */
const NICE: Readonly<Record<CpuPriority, number>> = Object.freeze({ normal: 0, low: 10, idle: 19 });

/** How long a busy worker may take to start before a synchronous wait gives up on it. */
export const WORKER_START_TIMEOUT_MS = 5000;

/** A worker thread and the port its jobs and results travel on. */
class ThreadTransport implements WorkerTransport {
  /** `performance.now()` at the spawn. */
  readonly spawnedAt = performance.now();

  constructor(
    readonly worker: Worker,
    readonly port: MessagePort,
    readonly started: Int32Array,
  ) {}

  post(message: JobMessage): void {
    this.port.postMessage(message);
  }

  take(): WorkerMessage | undefined {
    return receiveMessageOnPort(this.port)?.message as WorkerMessage | undefined;
  }

  /** An idle worker keeps no process alive. */
  busy(busy: boolean): void {
    if (busy) {
      this.worker.ref();
      this.port.ref();
    } else {
      this.worker.unref();
      this.port.unref();
    }
  }

  terminate(): void {
    void this.worker.terminate();
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

export class WorkerExecutor extends WorkerPool<ThreadTransport> {
  /** The nice value compaction workers take (0: the process's own priority). */
  private readonly compactionNice: number;

  /**
   * Compactions that cannot cross threads (a user's merge operator object; one given as
   * `{ module, name }` crosses, as compaction filters do) run inline (the pool's `inline`).
   * With `rate`, the workers' writes go through the rate limiter (rate-limited-fs.ts).
   */
  constructor(
    size: number,
    fs: FileSystem,
    compactionPriority: CpuPriority = "normal",
    rate?: BackgroundRateLimit,
  ) {
    super(size, fs, rate);
    this.compactionNice = NICE[compactionPriority];
  }

  protected spawn(lane: Lane): Slot<ThreadTransport> {
    const nice = lane === Lane.Compaction ? this.compactionNice : 0;
    const { port1, port2 } = new MessageChannel();
    const started = new SharedArrayBuffer(4);
    const worker = newWorker(
      port2,
      this.finished.buffer as SharedArrayBuffer,
      started,
      nice,
      this.rate,
    );
    const slot: Slot<ThreadTransport> = {
      lane,
      transport: new ThreadTransport(worker, port1, new Int32Array(started)),
      jobs: new Set(),
    };
    port1.on("message", (m: WorkerMessage) => this.receive(slot, m));
    worker.on("error", (e) => this.failAll(slot, e.message, e));
    worker.unref();
    port1.unref();
    return slot;
  }

  /** No worker file to spawn (see the header): this thread runs the jobs from now on. */
  protected fallbackReason(e: unknown): string | undefined {
    return ShaleError.isInstance(e) && e.code === "NotSupported" ? e.message : undefined;
  }

  protected warn(why: string): void {
    warnNoWorkers(why);
  }

  /** A worker that could not load its body: its jobs fail, as a crash's do. */
  protected fatal(slot: Slot<ThreadTransport>, why: string): void {
    this.failAll(slot, why, new Error(why));
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

  /** Gives up on busy workers still unstarted WORKER_START_TIMEOUT_MS after their spawn. */
  protected checkStarts(): void {
    const now = performance.now();
    const slots = this.slots;
    for (let i = slots.length - 1; i >= 0; i--) {
      const slot = slots[i]!;
      if (
        slot.jobs.size > 0 &&
        now - slot.transport.spawnedAt > WORKER_START_TIMEOUT_MS &&
        this.giveUpStart(slot)
      ) {
        this.abandon(slot, `it had not started ${WORKER_START_TIMEOUT_MS} ms after it was spawned`);
      }
    }
  }
}
