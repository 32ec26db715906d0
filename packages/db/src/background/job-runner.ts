/**
 * The background jobs themselves, one home for every transport: a worker thread in Node.js
 * (worker-main.ts, over `worker_threads`) and a nested module worker in a browser
 * (nested-worker-main.ts, over the Web Worker API and a shared result mailbox) both hand the
 * job messages they receive (protocol.ts) to a `JobRunner` and send back what it returns.
 *
 * A job message names what cannot be posted: the comparator and built-in merge operators by
 * name, a user's merge operator or compaction filter by module (core/user-module.ts), loaded
 * here once per worker (`prepare`) before the job runs.
 *
 * Thread safety: one runner per worker thread; jobs run one at a time.
 */
import type { FileSystem } from "@shale/base";
import { MemTable } from "@shale/memtable";
import type { CapturedDataBlocks } from "@shale/sstable";
import { revivePrefixExtractor, type TableWriteOptions } from "../compaction/build-table.js";
import { runCompactionJob } from "../compaction/compaction-job.js";
import { type CompactionFilterFunction, loadCompactionFilter } from "../core/compaction-filter.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { loadMergeOperator } from "../core/module-options.js";
import { RateLimiter, RateLimiterAccount } from "../core/rate-limiter.js";
import { fixedClock, ttlMergeOperator } from "../core/ttl.js";
import type { ModuleExportRef } from "../core/user-module.js";
import { flushMemTable } from "../flush/flush-job.js";
import { takeCapturedBlocks } from "../read/table-warming.js";
import {
  builtinComparator,
  builtinMergeOperator,
  type CompactMessage,
  type JobMessage,
  type ResultMessage,
  serializeError,
} from "./protocol.js";
import { rateLimitedFileSystem } from "./rate-limited-fs.js";

/** The database's rate limiter as posted to a worker: its shared state and this database's account. */
export interface SharedRateLimit {
  rateLimiter?: SharedArrayBuffer | undefined;
  rateAccount?: SharedArrayBuffer | undefined;
}

const refKey = (ref: ModuleExportRef) => `${ref.module}#${ref.name}`;

export class JobRunner {
  private readonly flushFs: FileSystem;
  private readonly compactFs: FileSystem;
  /** User code loaded from modules (core/user-module.ts), by `module#name`. */
  private readonly mergeOperators = new Map<string, MergeOperator>();
  private readonly filters = new Map<string, CompactionFilterFunction>();

  /**
   * Jobs read and write through `fs`; with a rate limiter, flushes are charged and never
   * wait, compactions sleep for their tokens (core/rate-limiter.ts).
   */
  /**
   * `returnBlocks`: the results may carry the data blocks a job captured
   * (`TableWriteOptions.captureBlocks`, transferred by Node's worker threads); when false
   * (a browser's nested worker, whose answers are JSON), jobs capture nothing.
   */
  constructor(
    private readonly fs: FileSystem,
    rate: SharedRateLimit = {},
    private readonly returnBlocks = false,
  ) {
    const limiter =
      rate.rateLimiter === undefined ? undefined : RateLimiter.fromShared(rate.rateLimiter);
    const account =
      rate.rateAccount === undefined ? undefined : new RateLimiterAccount(rate.rateAccount);
    this.flushFs = limiter === undefined ? fs : rateLimitedFileSystem(fs, limiter, "high", account);
    this.compactFs =
      limiter === undefined ? fs : rateLimitedFileSystem(fs, limiter, "low", account);
  }

  /**
   * Imports the modules a compaction names that this worker has not loaded yet; undefined
   * when there are none (the job can run at once).
   */
  prepare(job: JobMessage): Promise<void> | undefined {
    if (job.type !== "compact") return undefined;
    return this.loadModules(job);
  }

  /** Runs the job; a failure is an error result, never a throw. */
  run(job: JobMessage): ResultMessage {
    try {
      return this.runOrThrow(job);
    } catch (e) {
      return { id: job.id, ok: false, error: serializeError(e) };
    }
  }

  private runOrThrow(job: JobMessage): ResultMessage {
    if (job.type === "remove") {
      for (const path of job.paths) this.removeQuietly(path);
      return { id: job.id, ok: true, type: "remove" };
    }
    const comparator = builtinComparator(job.comparator);
    if (comparator === undefined)
      throw new Error(`comparator ${job.comparator} cannot run in a worker`);
    if (job.type === "flush") {
      const mem = MemTable.fromShared(job.memtable, { comparator });
      const table = { ...revivePrefixExtractor(this.capturing(job.table)), comparator };
      const file = flushMemTable(this.flushFs, job.dir, job.fileNumber, mem, table, job.snapshots);
      const blocks = file === undefined ? undefined : takeCapturedBlocks(file);
      return blocks === undefined
        ? { id: job.id, ok: true, type: "flush", file }
        : { id: job.id, ok: true, type: "flush", file, blocks };
    }
    let mergeOperator: MergeOperator | undefined;
    const ref = job.mergeOperator;
    if (ref !== undefined) {
      mergeOperator =
        typeof ref === "string" ? builtinMergeOperator(ref) : this.mergeOperators.get(refKey(ref));
      if (mergeOperator === undefined)
        throw new Error(`merge operator ${JSON.stringify(ref)} cannot run in a worker`);
      // A TTL family's operator, wrapped with the clock reading the job carries.
      if (job.filter?.ttl !== undefined)
        mergeOperator = ttlMergeOperator(mergeOperator, fixedClock(job.filter.now));
    }
    const user = job.filter?.user;
    const filter = user === undefined ? undefined : this.filters.get(refKey(user));
    const table = this.capturing(job.table);
    const spec =
      table.prefixExtractor === undefined && table === job.table
        ? job
        : { ...job, table: revivePrefixExtractor(table) };
    const result = runCompactionJob(this.compactFs, spec, comparator, mergeOperator, filter);
    let blocks: (CapturedDataBlocks | undefined)[] | undefined;
    for (let i = 0; i < result.files.length; i++) {
      const b = takeCapturedBlocks(result.files[i]!);
      if (b === undefined) continue;
      blocks ??= new Array<CapturedDataBlocks | undefined>(result.files.length);
      blocks[i] = b;
    }
    return blocks === undefined
      ? { id: job.id, ok: true, type: "compact", result }
      : { id: job.id, ok: true, type: "compact", result, blocks };
  }

  /** `table` as this runner's jobs use it: without a capture when results carry no blocks. */
  private capturing(table: TableWriteOptions): TableWriteOptions {
    if (this.returnBlocks || table.captureBlocks === undefined) return table;
    const { captureBlocks: _none, ...rest } = table;
    return rest;
  }

  private loadModules(job: CompactMessage): Promise<void> | undefined {
    const pending: Promise<void>[] = [];
    const op = job.mergeOperator;
    if (typeof op === "object" && !this.mergeOperators.has(refKey(op)))
      pending.push(
        loadMergeOperator(op, "mergeOperator").then((m) => {
          this.mergeOperators.set(refKey(op), m);
        }),
      );
    const user = job.filter?.user;
    if (user !== undefined && !this.filters.has(refKey(user)))
      pending.push(
        loadCompactionFilter(user, "compactionFilter").then((f) => {
          this.filters.set(refKey(user), f.filter);
        }),
      );
    return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
  }

  /** Removes a file; one that is already gone is fine, other failures are left to the next open. */
  private removeQuietly(path: string): void {
    try {
      this.fs.remove(path);
    } catch {
      // an orphan: removed by the next open
    }
  }
}

/**
 * Takes job messages in arrival order and answers each through `reply`: at once when its
 * modules are loaded, else once they are (a failure to load is the job's error result).
 */
export function serveJobs(
  runner: JobRunner,
  reply: (result: ResultMessage) => void,
): (job: JobMessage) => void {
  return (job) => {
    const loading = runner.prepare(job);
    if (loading === undefined) {
      reply(runner.run(job));
      return;
    }
    loading.then(
      () => reply(runner.run(job)),
      (e: unknown) => reply({ id: job.id, ok: false, error: serializeError(e) }),
    );
  };
}
