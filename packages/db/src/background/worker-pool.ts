/**
 * `WorkerPool`: what the two worker executors share — Node's worker threads
 * (worker-executor.ts) and a browser's nested workers (nested-worker-executor.ts). Each of
 * them keeps only its transport (a `WorkerTransport` a worker: how a job is posted, how a
 * result is taken synchronously, how the worker ends) and its policy for a worker that does
 * not start; the pool keeps the rest:
 *
 * ```
 *   flush/compact -> message (job-messages.ts) -> slot of the lane -> transport.post
 *   takeFinished  <- transport.take, per slot  <- waiter: ok / fail / inline
 *   drainCompleted: takeFinished, else the executor's checkStarts, else Atomics.wait(finished)
 * ```
 *
 * Lanes: with a pool of two or more, one worker runs the flushes (a writer may be waiting
 * for them) and up to `size - 1` run the compactions; a pool of one runs everything. A slot
 * is a worker and the ids of the jobs it has not answered.
 *
 * A worker's ending, the same in both executors: a worker that never started (its start
 * cell still 0, claimed here 0 -> 2) is abandoned: its jobs, and every later one, run on this
 * thread (the inline executor), with one warning. A worker that had started and then died
 * fails its jobs (the database records a background error).
 *
 * Imports no Node module: a browser bundle holds this file (tooling/bundle.test.ts).
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
import { deserializeError, type JobMessage, type WorkerMessage } from "./protocol.js";

export const Lane = Object.freeze({ Flush: 0, Compaction: 1, Any: 2 } as const);
export type Lane = (typeof Lane)[keyof typeof Lane];

/** A worker's start cell: 0 not started, 1 started (the worker claimed it), 2 given up here. */
export const NOT_STARTED = 0;
export const GIVEN_UP = 2;

/** One background worker as the pool drives it. */
export interface WorkerTransport {
  /** The start cell (see the header), shared with the worker. */
  readonly started: Int32Array;
  /** Posts a job to the worker. */
  post(message: JobMessage): void;
  /** The next message the worker posted, taken without the event loop; undefined when none. */
  take(): WorkerMessage | undefined;
  /** The worker got its first job (`true`) or answered its last one (`false`). */
  busy(busy: boolean): void;
  /** Ends the worker now: it died or runs no job. */
  terminate(): void;
  /** Ends the worker when the pool closes (its jobs are answered). */
  close(): Promise<void>;
}

export interface Slot<T extends WorkerTransport> {
  readonly lane: Lane;
  readonly transport: T;
  /** Ids of the jobs posted to this worker and not answered. */
  readonly jobs: Set<number>;
}

export abstract class WorkerPool<T extends WorkerTransport> implements BackgroundExecutor {
  readonly kind = "worker";
  /** Set by the workers after each result they post (executor.ts's header). */
  readonly finished = new Int32Array(new SharedArrayBuffer(4));
  protected readonly size: number;
  protected readonly slots: Slot<T>[] = [];
  private readonly waiters = new Map<number, Waiter>();
  /** Jobs that cannot cross threads, and every job once no worker can run them, run here. */
  protected readonly inline: InlineExecutor;
  protected nextId = 1;
  protected closed = false;
  /** Resolves `close()`'s wait as soon as a job completes (set only while it waits). */
  private idle: (() => void) | undefined;
  /** Set once no worker can run jobs: every job runs on this thread from then on. */
  protected noWorkers = false;
  private warned = false;

  constructor(
    size: number,
    fs: FileSystem,
    protected readonly rate: BackgroundRateLimit | undefined,
  ) {
    this.size = Math.max(1, size);
    this.inline = new InlineExecutor(fs, rate);
  }

  /**
   * A new worker for `lane`, not yet in `slots`; undefined when the file system starts none
   * (the executor then sets `noWorkers`). Throws when this scope cannot start one.
   */
  protected abstract spawn(lane: Lane): Slot<T> | undefined;
  /** The reason to run jobs here when `spawn` threw `e`; undefined to pass `e` on. */
  protected abstract fallbackReason(e: unknown): string | undefined;
  /** Says that jobs run on this thread from now on, and why (called once per executor). */
  protected abstract warn(why: string): void;
  /** What a synchronous wait does about busy workers that have not started. */
  protected abstract checkStarts(): void;
  /** A worker's fatal message: it started and cannot run jobs. */
  protected abstract fatal(slot: Slot<T>, why: string): void;

  get pending(): number {
    return this.waiters.size + this.inline.pending;
  }

  /** Every job runs on this thread from now on; warns once. */
  protected giveUp(why: string): void {
    this.noWorkers = true;
    if (this.warned) return;
    this.warned = true;
    this.warn(why);
  }

  /** Spawns a worker for `lane` and adds its slot. */
  protected start(lane: Lane): Slot<T> | undefined {
    const slot = this.spawn(lane);
    if (slot !== undefined) this.slots.push(slot);
    return slot;
  }

  /**
   * The least busy worker of `lane` (a new one while the lane has fewer than its share of
   * the pool and none is idle): the flush lane has one worker, the compaction lane the rest;
   * with a pool of one, its worker is in every lane. `Lane.Any` takes the least busy of either.
   */
  private slot(lane: Lane): Slot<T> | undefined {
    const shared = this.size === 1;
    let best: Slot<T> | undefined;
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
    return this.start(own);
  }

  /** Posts `message` to a worker of `lane`, or runs it here (`waiter.inline`) when none can. */
  protected post(message: JobMessage, lane: Lane, waiter: Waiter): void {
    if (this.closed) throw ShaleError.closed("the background executor is closed");
    let slot: Slot<T> | undefined;
    if (!this.noWorkers) {
      try {
        slot = this.slot(lane);
      } catch (e) {
        const why = this.fallbackReason(e);
        if (why === undefined) throw e;
        this.giveUp(why);
      }
    }
    if (slot === undefined) {
      waiter.inline();
      return;
    }
    this.waiters.set(message.id, waiter);
    slot.jobs.add(message.id);
    if (slot.jobs.size === 1) slot.transport.busy(true);
    slot.transport.post(message);
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

  abstract removeFiles(paths: string[], done: () => void): void;

  /** A message from `slot`'s worker: a job's result or its fatal message. */
  protected receive(slot: Slot<T>, m: WorkerMessage): void {
    if ("fatal" in m) {
      this.fatal(slot, `the worker could not start: ${m.message}`);
      return;
    }
    const waiter = this.waiters.get(m.id);
    if (waiter === undefined) return;
    this.waiters.delete(m.id);
    slot.jobs.delete(m.id);
    if (slot.jobs.size === 0) slot.transport.busy(false);
    settleRateLimit(this.rate);
    if (m.ok) waiter.ok(m);
    else waiter.fail(deserializeError(m.error));
    this.idle?.();
  }

  /** Whether `slot`'s worker has not started yet. */
  protected unstarted(slot: Slot<T>): boolean {
    return Atomics.load(slot.transport.started, 0) === NOT_STARTED;
  }

  /**
   * Gives up on `slot`'s worker if it has not started (its start cell 0 -> 2): it then runs
   * nothing even if it starts late. False when it had started.
   */
  protected giveUpStart(slot: Slot<T>): boolean {
    return (
      Atomics.compareExchange(slot.transport.started, 0, NOT_STARTED, GIVEN_UP) === NOT_STARTED
    );
  }

  /** A worker's error: it never started (its jobs run here), or it died (its jobs fail). */
  protected failAll(slot: Slot<T>, why: string, cause?: Error): void {
    if (this.giveUpStart(slot)) {
      this.abandon(slot, why);
      return;
    }
    const error = ShaleError.ioError(`background worker failed: ${why}`, undefined, cause);
    for (const id of this.drop(slot)) this.end(id)?.fail(error);
    this.idle?.();
  }

  /** A worker that runs no job: its jobs, and every later one, run on this thread. */
  protected abandon(slot: Slot<T>, why: string): void {
    const jobs = this.drop(slot);
    this.giveUp(why);
    for (const id of jobs) this.end(id)?.inline();
    this.idle?.();
  }

  /** Takes job `id` back from `slot`'s worker (which will not run it) and runs it here. */
  protected takeBack(slot: Slot<T>, id: number): void {
    slot.jobs.delete(id);
    if (slot.jobs.size === 0) slot.transport.busy(false);
    this.end(id)?.inline();
  }

  /** Forgets job `id`'s waiter and returns it. */
  private end(id: number): Waiter | undefined {
    const waiter = this.waiters.get(id);
    this.waiters.delete(id);
    return waiter;
  }

  /** Removes a slot and ends its worker; returns the ids of the jobs it had. */
  private drop(slot: Slot<T>): number[] {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    const jobs = [...slot.jobs];
    slot.jobs.clear();
    slot.transport.terminate();
    return jobs;
  }

  takeFinished(): number {
    // Cleared before the workers are read: a worker sets it only after posting, so a result
    // posted from now on sets it again (at worst once too often: the next take finds none).
    Atomics.store(this.finished, 0, 0);
    let n = 0;
    const slots = this.slots;
    // A callback may start a job on a new slot or drop one: index, re-read length.
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      for (let m = slot.transport.take(); m !== undefined; m = slot.transport.take()) {
        this.receive(slot, m);
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
      // Woken by the next result (a worker notifies after setting the cell); returns at once
      // if one was posted since takeFinished cleared it.
      Atomics.wait(this.finished, 0, 0, left);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.inline.close();
    // Wait for running jobs so no table is left half-written by a terminated worker,
    // turning the event loop between checks: a result, or a worker's error event, reaches it
    // either way.
    while (this.waiters.size > 0) {
      if (this.drainCompleted(0) > 0) continue;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        setTimeout(resolve, 50);
      });
      this.idle = undefined;
    }
    await Promise.all(this.slots.map((s) => s.transport.close()));
    this.slots.length = 0;
  }
}
