/**
 * `NestedWorkerExecutor`: background jobs in nested workers — in a browser, module workers
 * started by the database's own dedicated worker (see executor.ts for the contract). Used
 * when the database's file system can be reached from another worker: it starts the worker
 * (`startBackgroundWorker`, e.g. OPFS's `backgroundWorkerUrl`) and gives it a client of its
 * own (`shareWithWorker`); the worker's script runs nested-worker-main.ts over it. The job
 * code is job-runner.ts, as in Node's worker threads (worker-executor.ts): only the
 * transport differs.
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
 * Lanes, as in worker-executor.ts: with `maxBackgroundJobs` >= 2 one worker runs the flushes
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
import { type FileSystem, ShaleError } from "@shale/base";
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
import type { BackgroundInitMessage, ClaimedJob } from "./nested-worker-main.js";
import {
  type CompactMessage,
  deserializeError,
  type FlushMessage,
  type RemoveMessage,
  type WorkerMessage,
} from "./protocol.js";
import { MailboxReader, newMailbox } from "./result-mailbox.js";

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

const NOT_STARTED = 0;
const GIVEN_UP = 2;
/**
 * How long a writer waiting in `drainCompleted` lets a job sit with a worker that has not
 * started before it runs the job itself (the job's claim cell; nested-worker-main.ts).
 */
export const STEAL_AFTER_MS = 50;

const Lane = Object.freeze({ Flush: 0, Compaction: 1, Any: 2 } as const);
type Lane = (typeof Lane)[keyof typeof Lane];

interface Slot {
  lane: Lane;
  worker: BackgroundWorkerLike;
  mailbox: MailboxReader;
  /** Ids of the jobs this worker is running. */
  jobs: Set<number>;
  /** 0 not started, 1 started (the worker claimed it), 2 given up by the executor. */
  started: Int32Array;
  /** Resolves when the worker answered `close`. */
  closed: Promise<void>;
  onClosed: () => void;
}

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

export class NestedWorkerExecutor implements BackgroundExecutor {
  readonly kind = "worker";
  /** Set by the workers after each result they post (see the header). */
  readonly finished = new Int32Array(new SharedArrayBuffer(4));
  private readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly waiters = new Map<number, Waiter>();
  /** Per job posted and not yet answered: its claim cell and when it was posted. */
  private readonly claims = new Map<number, { cell: Int32Array; postedAt: number }>();
  private readonly inline: InlineExecutor;
  private nextId = 1;
  private closed = false;
  private idle: (() => void) | undefined;
  /** Set once no worker can run jobs: every job runs on this thread from then on. */
  private noWorkers = false;
  private warned = false;

  constructor(
    size: number,
    private readonly fs: BackgroundWorkerFileSystem,
    private readonly rate?: BackgroundRateLimit,
    /** Bytes of each worker's result mailbox (result-mailbox.ts); tests make it small. */
    private readonly mailboxCapacity?: number,
  ) {
    this.size = Math.max(1, size);
    this.inline = new InlineExecutor(fs, rate);
    // Started now, while the database opens: a browser may not deliver the first messages to
    // a nested worker while its parent's thread blocks (a writer stalled for a flush).
    try {
      this.spawn(this.size === 1 ? Lane.Any : Lane.Flush);
      if (this.size > 1) this.spawn(Lane.Compaction);
    } catch (e) {
      this.giveUp(e instanceof Error ? e.message : String(e));
    }
  }

  get pending(): number {
    return this.waiters.size + this.inline.pending;
  }

  /** Says once, on the console, why jobs run on this thread from now on. */
  private giveUp(why: string): void {
    this.noWorkers = true;
    if (this.warned) return;
    this.warned = true;
    console.warn(
      `shale: background work runs on the database's worker: a nested worker could not run it (${why})`,
    );
  }

  /** The worker for `lane` (a new one while the lane has fewer than its share and none is idle). */
  private slot(lane: Lane): Slot | undefined {
    const shared = this.size === 1;
    let best: Slot | undefined;
    let count = 0;
    for (const s of this.slots) {
      if (!(shared || lane === Lane.Any || s.lane === lane)) continue;
      count++;
      if (best === undefined || s.jobs.size < best.jobs.size) best = s;
    }
    if (lane === Lane.Any && best !== undefined) return best;
    const own: Lane = shared ? Lane.Any : lane === Lane.Any ? Lane.Flush : lane;
    const share = shared || own === Lane.Flush ? 1 : this.size - 1;
    if (best !== undefined && (best.jobs.size === 0 || count >= share)) return best;
    return this.spawn(own);
  }

  private spawn(lane: Lane): Slot | undefined {
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
    let onClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      onClosed = resolve;
    });
    const slot: Slot = {
      lane,
      worker,
      mailbox: new MailboxReader(mailbox),
      jobs: new Set(),
      started: new Int32Array(started),
      closed,
      onClosed,
    };
    listen(worker, "message", (data) => {
      const type = (data as { type?: unknown } | null)?.type;
      if (type === "wake") this.takeFinished();
      else if (type === "closed") slot.onClosed();
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
    this.slots.push(slot);
    return slot;
  }

  private post(message: FlushMessage | CompactMessage | RemoveMessage, lane: Lane, waiter: Waiter) {
    if (this.closed) throw ShaleError.closed("the background executor is closed");
    let slot: Slot | undefined;
    if (!this.noWorkers) {
      try {
        slot = this.slot(lane);
      } catch (e) {
        this.giveUp(e instanceof Error ? e.message : String(e));
      }
    }
    if (slot === undefined) {
      waiter.inline();
      return;
    }
    this.waiters.set(message.id, waiter);
    slot.jobs.add(message.id);
    const claim = new SharedArrayBuffer(4);
    this.claims.set(message.id, { cell: new Int32Array(claim), postedAt: performance.now() });
    const job: ClaimedJob = { ...message, claim };
    slot.worker.postMessage(job);
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
    this.inline.removeFiles(paths, done);
  }

  private receive(slot: Slot, m: WorkerMessage): void {
    if ("fatal" in m) {
      // The worker could not reach the file system; it ran no job.
      this.abandon(slot, `the worker could not start: ${m.message}`);
      return;
    }
    const waiter = this.waiters.get(m.id);
    if (waiter === undefined) return;
    this.waiters.delete(m.id);
    this.claims.delete(m.id);
    slot.jobs.delete(m.id);
    settleRateLimit(this.rate);
    if (m.ok) waiter.ok(m);
    else waiter.fail(deserializeError(m.error));
    this.idle?.();
  }

  /** A worker's error event: it never started (jobs run here), or it died (jobs fail). */
  private failAll(slot: Slot, why: string): void {
    if (Atomics.compareExchange(slot.started, 0, NOT_STARTED, GIVEN_UP) === NOT_STARTED) {
      this.abandon(slot, why);
      return;
    }
    const error = ShaleError.ioError(`background worker failed: ${why}`);
    for (const id of this.drop(slot)) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.fail(error);
    }
    this.idle?.();
  }

  /** A worker that runs no job: its jobs, and every later one, run on this thread. */
  private abandon(slot: Slot, why: string): void {
    const jobs = this.drop(slot);
    this.giveUp(why);
    for (const id of jobs) {
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.inline();
    }
    this.idle?.();
  }

  private drop(slot: Slot): number[] {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    const jobs = [...slot.jobs];
    slot.jobs.clear();
    for (const id of jobs) this.claims.delete(id);
    void slot.worker.terminate();
    slot.onClosed();
    return jobs;
  }

  /** Takes back the overdue jobs of workers not started yet (see the header). */
  private checkStarts(): void {
    const now = performance.now();
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const slot = this.slots[i]!;
      if (slot.jobs.size > 0 && Atomics.load(slot.started, 0) === NOT_STARTED)
        this.stealUnclaimed(slot, now);
    }
  }

  /**
   * Runs on this thread the jobs of `slot` (a worker not started yet) that waited
   * STEAL_AFTER_MS and that the worker has not claimed: a browser may not start a nested
   * worker while this thread is blocked, as it is now. The worker stays: it takes later jobs
   * once it starts.
   */
  private stealUnclaimed(slot: Slot, now: number): void {
    for (const id of [...slot.jobs]) {
      const claim = this.claims.get(id);
      if (claim === undefined || now - claim.postedAt < STEAL_AFTER_MS) continue;
      if (Atomics.compareExchange(claim.cell, 0, 0, GIVEN_UP) !== 0) continue;
      slot.jobs.delete(id);
      this.claims.delete(id);
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      waiter?.inline();
    }
  }

  takeFinished(): number {
    Atomics.store(this.finished, 0, 0);
    let n = 0;
    const slots = this.slots;
    // A callback may start a job on a new slot or drop one: index, re-read length.
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      for (let m = slot.mailbox.take(); m !== undefined; m = slot.mailbox.take()) {
        this.receive(slot, m as WorkerMessage);
        n++;
        if (slots[i] !== slot) break;
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
      // A job taken back from a worker (checkStarts) runs here now.
      const here = this.inline.drainCompleted(0);
      if (here > 0 || this.waiters.size === 0) return n + here;
      const left = deadline - performance.now();
      if (left <= 0) return n;
      Atomics.wait(this.finished, 0, 0, left);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.inline.close();
    // Wait for running jobs so no table is left half-written by a terminated worker.
    while (this.waiters.size > 0) {
      if (this.drainCompleted(0) > 0) continue;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        setTimeout(resolve, 50);
      });
      this.idle = undefined;
    }
    // Each worker closes its file system client, then ends (terminated if it does not answer).
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.worker.postMessage({ type: "close" });
        await Promise.race([slot.closed, new Promise((r) => setTimeout(r, 1000))]);
        await slot.worker.terminate();
      }),
    );
    this.slots.length = 0;
  }
}
