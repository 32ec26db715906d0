/**
 * Where background jobs run.
 *
 * - `WorkerExecutor` (worker-executor.ts, Node.js/Deno/Bun only: a browser bundle loads
 *   worker-executor.browser.ts instead): a pool of `worker_threads` (size `maxBackgroundJobs`), used when the
 *   database is on the node file system with a built-in comparator. The main thread only
 *   posts the job (a sealed memtable travels as SharedArrayBuffers, not copied) and installs
 *   the result.
 * - `InlineExecutor`: runs the job on the main thread, after the current call returns. Used
 *   for other file systems (an in-memory FileSystem cannot be shared with another thread)
 *   and custom comparators (functions cannot cross threads). A WorkerExecutor also runs a
 *   compaction inline when the merge operator is a user's object (the built-ins cross
 *   threads by name, and operators given as `{ module, name }` by their module, as
 *   compaction filters do: core/user-module.ts).
 *
 * Flushes go before compactions: an inline executor runs queued flushes first; a worker
 * pool of two or more gives the flushes a worker of their own and the compactions the
 * others (the database runs at most `maxBackgroundJobs - 1` compactions at once), so a
 * flush never waits behind a compaction, and the compaction workers can run at a lower CPU
 * priority (`compactionCpuPriority`) without slowing the flushes a writer may wait for. A
 * pool of one worker interleaves both at the process's priority.
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
import { type Comparator, type FileSystem, ShaleError, type Statistics, Ticker } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableWriteOptions } from "../compaction/build-table.js";
import {
  type CompactionJobResult,
  type CompactionJobSpec,
  runCompactionJob,
} from "../compaction/compaction-job.js";
import type { CompactionFilterFunction } from "../core/compaction-filter.js";
import type { MergeOperator } from "../core/merge-operator.js";
import type { RateLimiter, RateLimiterAccount } from "../core/rate-limiter.js";
import { flushMemTable } from "../flush/flush-job.js";
import type { FileMetaData } from "../version/version-edit.js";
import { rateLimitedFileSystem } from "./rate-limited-fs.js";

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
  /** The user's compaction filter as loaded on this thread (its module in `spec.filter`). */
  compactionFilter?: CompactionFilterFunction | undefined;
}

/**
 * The database's rate limiter for background writes (`rateLimiter` option,
 * core/rate-limiter.ts): the (possibly shared) bucket, this database's account of what its
 * jobs charged, and the statistics that account is ticked into after each job.
 */
export interface BackgroundRateLimit {
  limiter: RateLimiter;
  account: RateLimiterAccount;
  statistics: Statistics | undefined;
}

/** Ticks what the jobs charged since the last call into the database's statistics. */
export function settleRateLimit(rate: BackgroundRateLimit | undefined): void {
  if (rate === undefined || rate.statistics === undefined) return;
  const d = rate.account.drain();
  if (d.delayMillis > 0) rate.statistics.tick(Ticker.RateLimitDelayMillis, d.delayMillis);
  if (d.drains > 0) rate.statistics.tick(Ticker.NumberRateLimiterDrains, d.drains);
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

/**
 * The next turn of the event loop: `setImmediate` where there is one (Node.js, Deno, Bun),
 * else a zero timeout (browsers). Read once, with no access to `process` or Node modules.
 */
const nextTurn: (run: () => void) => void =
  typeof setImmediate === "function" ? (run) => setImmediate(run) : (run) => setTimeout(run, 0);

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
  private readonly rate: BackgroundRateLimit | undefined;

  /**
   * With `rate`, what the jobs write is charged to the limiter but never waits: they run
   * on the thread that answers reads (rate-limited-fs.ts).
   */
  constructor(fs: FileSystem, rate?: BackgroundRateLimit) {
    this.fs =
      rate === undefined ? fs : rateLimitedFileSystem(fs, rate.limiter, "high", rate.account);
    this.rate = rate;
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
      settleRateLimit(this.rate);
      done(error, file);
    };
    this.flushes.push({ run, cancel: run });
    this.schedule();
  }

  compact(request: CompactRequest, done: CompactCallback): void {
    this.compactions.push({
      run: () =>
        runCompactInline(this.fs, request, (error, result) => {
          settleRateLimit(this.rate);
          done(error, result);
        }),
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
    nextTurn(() => {
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
    result = runCompactionJob(
      fs,
      request.spec,
      request.comparator,
      request.mergeOperator,
      request.compactionFilter,
    );
  } catch (e) {
    error = asError(e);
  }
  done(error, result);
}
