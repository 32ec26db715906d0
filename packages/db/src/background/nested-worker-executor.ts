/**
 * `NestedWorkerExecutor`: background jobs in nested workers — in a browser, module workers
 * started by the database's own dedicated worker (see executor.ts for the contract). Used
 * when the database's file system can be reached from another worker: it starts the worker
 * (`startBackgroundWorker`, e.g. OPFS's `backgroundWorkerUrl`) and gives it a client of its
 * own (`shareWithWorker`); the worker's script runs nested-worker-main.ts over it. The job
 * code is job-runner.ts, and the lanes, the jobs' bookkeeping and the waits are the pool's
 * (worker-pool.ts), as in Node's worker threads (worker-executor.ts): only the transport
 * differs.
 *
 * ```
 *   database's worker                          background worker (one per lane)
 *   flush/compact -> postMessage(job)   --->   JobRunner over its file system client
 *   takeFinished  <- mailbox (shared)   <---   result, `finished` cell set, { type: "wake" }
 * ```
 *
 * Results come back through a shared mailbox (result-mailbox.ts), not only as messages, so
 * `takeFinished` and `drainCompleted` take them synchronously, as Node's executor does with
 * `receiveMessageOnPort`: a writer stalled in `Atomics.wait` for a flush wakes on the
 * `finished` cell and installs it without its event loop turning. The `wake` message makes
 * an idle database take a result from its event loop.
 *
 * Lanes (worker-pool.ts): with `maxBackgroundJobs` >= 2 one worker runs the flushes
 * and up to `maxBackgroundJobs - 1` run the compactions; with 1, one worker runs everything.
 *
 * Falling back: when no nested worker can start (the scope has no `Worker`, the script fails
 * to load, the file system cannot be reached from it), that job and every later one run
 * on the database's worker (the inline executor), with one `console.warn` naming why. A file
 * system that starts no worker (`backgroundWorkerUrl: false`) runs jobs inline silently.
 * Jobs that cannot cross (a user's comparator or merge operator object, a prefix extractor
 * that does not cross) run inline, as in Node.
 *
 * A worker not started yet (Chromium 156 does not start a nested worker, nor deliver its
 * first message, while the database's worker is blocked in a synchronous wait): a writer
 * stalled in `drainCompleted` takes back each job that worker has not claimed once it waited
 * STEAL_AFTER_MS (the job's claim cell, nested-worker-main.ts) and runs it here, so a
 * synchronous put loop that outruns its first flushes waits tens of milliseconds for each.
 * The worker stays and takes the jobs posted after it starts; a worker that never starts
 * costs that wait at each stall, and `close` takes its jobs back the same way.
 *
 * Thread safety: the database's thread only.
 */
import type { FileSystem } from "@shale/base";
import type { BackgroundRateLimit } from "./executor.js";
import type { BackgroundInitMessage, ClaimedJob } from "./nested-worker-main.js";
import type { JobMessage, WorkerMessage } from "./protocol.js";
import { MailboxReader, newMailbox } from "./result-mailbox.js";
import { GIVEN_UP, Lane, type Slot, WorkerPool, type WorkerTransport } from "./worker-pool.js";

/** A worker as browsers (`addEventListener`) and Node (`on`) have it. */
export interface BackgroundWorkerLike {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  terminate(): unknown;
  addEventListener?(type: "message" | "error", listener: (event: unknown) => void): void;
  on?(type: "message" | "error", listener: (data: unknown) => void): unknown;
}

/**
 * A file system another worker can reach (OPFS's `OpfsFileSystem`), and that says how to
 * start the worker that runs a database's background jobs over it.
 */
export interface BackgroundWorkerFileSystem extends FileSystem {
  /**
   * A new worker running nested-worker-main.ts's `serveBackgroundJobs`; undefined when the
   * file system is set to start none. Throws when this scope cannot start one.
   */
  startBackgroundWorker(): BackgroundWorkerLike | undefined;
  /** A new client for another worker: `handle` to post, with `transfer` as the transfer list. */
  shareWithWorker(): { handle: unknown; transfer: readonly unknown[] };
}

/** Whether `fs` can run a database's background jobs in nested workers. */
export function isBackgroundWorkerFileSystem(fs: FileSystem): fs is BackgroundWorkerFileSystem {
  const f = fs as Partial<BackgroundWorkerFileSystem>;
  return typeof f.startBackgroundWorker === "function" && typeof f.shareWithWorker === "function";
}

/**
 * How long a writer waiting in `drainCompleted` lets a job sit with a worker that has not
 * started before it runs the job itself (the job's claim cell; nested-worker-main.ts).
 */
export const STEAL_AFTER_MS = 50;

function listen(
  worker: BackgroundWorkerLike,
  type: "message" | "error",
  listener: (data: unknown) => void,
): void {
  if (typeof worker.addEventListener === "function")
    worker.addEventListener(type, (event) =>
      listener(type === "message" ? (event as { data: unknown }).data : event),
    );
  else if (typeof worker.on === "function") worker.on(type, listener);
  else throw new TypeError("a background worker needs addEventListener or on");
}

function describe(event: unknown): string {
  if (event instanceof Error) return event.message;
  const message = (event as { message?: unknown } | null)?.message;
  if (typeof message === "string" && message !== "") return message;
  return "its script failed to load or threw (an error event without a message)";
}

/** A nested worker, its result mailbox and the claim cells of the jobs it has. */
class NestedTransport implements WorkerTransport {
  /** Per job posted and not yet answered: its claim cell and when it was posted. */
  readonly claims = new Map<number, { cell: Int32Array; postedAt: number }>();
  /** Resolves when the worker answered `close` (or was terminated). */
  readonly closed: Promise<void>;
  onClosed!: () => void;

  constructor(
    readonly worker: BackgroundWorkerLike,
    private readonly mailbox: MailboxReader,
    readonly started: Int32Array,
  ) {
    this.closed = new Promise<void>((resolve) => {
      this.onClosed = resolve;
    });
  }

  post(message: JobMessage): void {
    const claim = new SharedArrayBuffer(4);
    this.claims.set(message.id, { cell: new Int32Array(claim), postedAt: performance.now() });
    const job: ClaimedJob = { ...message, claim };
    this.worker.postMessage(job);
  }

  take(): WorkerMessage | undefined {
    const m = this.mailbox.take() as WorkerMessage | undefined;
    if (m !== undefined && !("fatal" in m)) this.claims.delete(m.id);
    return m;
  }

  busy(_busy: boolean): void {}

  terminate(): void {
    this.claims.clear();
    void this.worker.terminate();
    this.onClosed();
  }

  /** Each worker closes its file system client, then ends (terminated if it does not answer). */
  async close(): Promise<void> {
    this.worker.postMessage({ type: "close" });
    await Promise.race([this.closed, new Promise((r) => setTimeout(r, 1000))]);
    await this.worker.terminate();
  }
}

export class NestedWorkerExecutor extends WorkerPool<NestedTransport> {
  constructor(
    size: number,
    private readonly fs: BackgroundWorkerFileSystem,
    rate?: BackgroundRateLimit,
    /** Bytes of each worker's result mailbox (result-mailbox.ts); tests make it small. */
    private readonly mailboxCapacity?: number,
  ) {
    super(size, fs, rate);
    // Started now, while the database opens: a browser may not deliver the first messages to
    // a nested worker while its parent's thread blocks (a writer stalled for a flush).
    try {
      this.start(this.size === 1 ? Lane.Any : Lane.Flush);
      if (this.size > 1) this.start(Lane.Compaction);
    } catch (e) {
      this.giveUp(reason(e));
    }
  }

  protected spawn(lane: Lane): Slot<NestedTransport> | undefined {
    const worker = this.fs.startBackgroundWorker();
    if (worker === undefined) {
      this.noWorkers = true;
      return undefined;
    }
    let client: { handle: unknown; transfer: readonly unknown[] };
    try {
      client = this.fs.shareWithWorker();
    } catch (e) {
      void worker.terminate();
      throw e;
    }
    const mailbox = newMailbox(this.mailboxCapacity);
    const started = new SharedArrayBuffer(4);
    const transport = new NestedTransport(
      worker,
      new MailboxReader(mailbox),
      new Int32Array(started),
    );
    const slot: Slot<NestedTransport> = { lane, transport, jobs: new Set() };
    listen(worker, "message", (data) => {
      const type = (data as { type?: unknown } | null)?.type;
      if (type === "wake") this.takeFinished();
      else if (type === "closed") transport.onClosed();
    });
    listen(worker, "error", (event) => this.failAll(slot, describe(event)));
    const init: BackgroundInitMessage = {
      type: "init",
      fs: client.handle,
      finished: this.finished.buffer as SharedArrayBuffer,
      mailbox,
      started,
      rateLimiter: this.rate?.limiter.buffer,
      rateAccount: this.rate?.account.buffer,
    };
    worker.postMessage(init, client.transfer);
    return slot;
  }

  protected fallbackReason(e: unknown): string {
    return reason(e);
  }

  /** Says once, on the console, why jobs run on this thread from now on. */
  protected warn(why: string): void {
    console.warn(
      `shale: background work runs on the database's worker: a nested worker could not run it (${why})`,
    );
  }

  /** The worker could not reach the file system; it ran no job: its jobs run here. */
  protected fatal(slot: Slot<NestedTransport>, why: string): void {
    this.abandon(slot, why);
  }

  removeFiles(paths: string[], done: () => void): void {
    this.inline.removeFiles(paths, done);
  }

  /** Takes back the overdue jobs of workers not started yet (see the header). */
  protected checkStarts(): void {
    const now = performance.now();
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const slot = this.slots[i]!;
      if (slot.jobs.size > 0 && this.unstarted(slot)) this.stealUnclaimed(slot, now);
    }
  }

  /**
   * Runs on this thread the jobs of `slot` (a worker not started yet) that waited
   * STEAL_AFTER_MS and that the worker has not claimed: a browser may not start a nested
   * worker while this thread is blocked, as it is now. The worker stays: it takes later jobs
   * once it starts.
   */
  private stealUnclaimed(slot: Slot<NestedTransport>, now: number): void {
    const claims = slot.transport.claims;
    for (const id of [...slot.jobs]) {
      const claim = claims.get(id);
      if (claim === undefined || now - claim.postedAt < STEAL_AFTER_MS) continue;
      if (Atomics.compareExchange(claim.cell, 0, 0, GIVEN_UP) !== 0) continue;
      claims.delete(id);
      this.takeBack(slot, id);
    }
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
