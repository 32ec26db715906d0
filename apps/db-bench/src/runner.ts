/**
 * Runs the workloads on each engine in this process, one engine after another. Each engine
 * works in its own directory (`<dir>/<engine>`, or `--db` itself when it names one engine);
 * fresh-database workloads start from an empty directory; the directory size is taken after
 * every fill workload; `--statistics` adds each engine's stats at its end.
 *
 * A workload that throws, or whose engine stops answering (no progress for
 * `STALL_SECONDS`: an awaited operation that never settles), is reported FAILED, the rest of
 * that engine's workloads "not run", and the run goes on with the next engine; the caller
 * gets the failures back.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runWorkload, WORKLOADS } from "./benchmarks.js";
import { directoryBytes } from "./disk.js";
import type { Engine, EngineOptions } from "./engines/engine.js";
import { createEngine } from "./engines/index.js";
import { FlagError, type Flags } from "./flags.js";
import type { EngineSeries, Sampler } from "./report/sampler.js";
import { type BenchResult, Progress } from "./report.js";

/** --prepopulate_block_cache's values (db_bench's spelling) as shale's option values. */
/** --compaction_style's numbers (RocksDB's CompactionStyle enum) -> shale's compactionStyle. */
const COMPACTION_STYLES: Record<number, "leveled" | "universal" | "fifo"> = {
  0: "leveled",
  1: "universal",
  2: "fifo",
};

const PREPOPULATE: Record<string, "disable" | "flushOnly" | "flushAndCompaction"> = {
  disable: "disable",
  flush_only: "flushOnly",
  flush_and_compaction: "flushAndCompaction",
};

export interface RunEvents {
  /** An engine opened; `notes` are the flags it cannot apply. */
  engineStart(engine: string, notes: string[]): void;
  result(r: BenchResult): void;
  /** An --isolate child's --report time series arrived. */
  samples?(series: EngineSeries): void;
}

/** Seconds without progress after which a workload counts as stuck. */
export const STALL_SECONDS = 600;

export class StallError extends Error {}

export function engineOptions(flags: Flags): EngineOptions {
  return {
    sync: flags.sync,
    disableWal: flags.disableWal,
    writeBufferSize: flags.writeBufferSize,
    dbWriteBufferSize: flags.dbWriteBufferSize,
    statistics: flags.statistics,
    cacheSize: flags.cacheSize,
    bloomBits: flags.bloomBits,
    numColumnFamilies: flags.numColumnFamilies,
    blockSize: flags.blockSize,
    dataBlockIndexType: flags.dataBlockIndexType,
    dataBlockHashTableUtilRatio: flags.dataBlockHashTableUtilRatio,
    compression: flags.compressionType === "none" ? "none" : "snappy",
    mergeOperator: flags.mergeOperator === "" ? undefined : flags.mergeOperator,
    disableAutoCompactions: flags.disableAutoCompactions,
    cacheIndexAndFilterBlocks: flags.cacheIndexAndFilterBlocks,
    sharedBlockCache: flags.sharedBlockCache,
    avoidFlushDuringRecovery: flags.avoidFlushDuringRecovery,
    compactionCpuPriority: flags.compactionCpuPriority as "normal" | "low" | "idle",
    compactionStyle: COMPACTION_STYLES[flags.compactionStyle] ?? "leveled",
    fifoMaxTableFilesSize: flags.fifoMaxTableFilesSizeMb * 1024 * 1024,
    rateLimiterBytesPerSec: flags.rateLimiterBytesPerSec,
    prepopulateBlockCache: PREPOPULATE[flags.prepopulateBlockCache] ?? "flushAndCompaction",
    transactionDb: flags.transactionDb,
    prefixSize: flags.prefixSize,
    prefixSameAsStart: flags.prefixSameAsStart,
    memtableBloomSizeRatio: flags.memtableBloomSizeRatio,
    memtableWholeKeyFiltering: flags.memtableWholeKeyFiltering,
    totalOrderSeek: flags.totalOrderSeek,
  };
}

/** The directory `engine` works in under `base`. */
export function engineDir(flags: Flags, base: string, engine: string): string {
  return flags.db !== undefined && flags.engines.length === 1 ? flags.db : join(base, engine);
}

/** `work`, or a StallError once `progress` has been idle for `limitSeconds`. */
export async function guarded<T>(
  work: Promise<T>,
  progress: Progress,
  label: string,
  limitSeconds = STALL_SECONDS,
): Promise<T> {
  let timer: ReturnType<typeof setInterval> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setInterval(
      () => {
        const idle = progress.idleSeconds();
        if (idle > limitSeconds)
          reject(new StallError(`${label} made no progress for ${Math.round(idle)} s`));
      },
      Math.min(5000, limitSeconds * 250),
    );
  });
  try {
    return await Promise.race([work, stalled]);
  } finally {
    clearInterval(timer);
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Runs every engine; returns the failures ("engine: message"), empty when all went well. */
export async function runEngines(
  flags: Flags,
  base: string,
  events: RunEvents,
  sampler?: Sampler,
): Promise<string[]> {
  const progress = new Progress();
  progress.sampler = sampler;
  const failures: string[] = [];
  for (const name of flags.engines) {
    const failed = (workload: string, message: string) =>
      events.result({
        name: workload,
        engine: name,
        ops: 0,
        seconds: 0,
        bytes: 0,
        message: "",
        failed: message,
      });
    const dir = engineDir(flags, base, name);
    let engine: Engine;
    try {
      engine = await createEngine(name);
      if (!flags.useExistingDb) removeDatabase(dir);
      const notes = await engine.open(dir, engineOptions(flags));
      if (flags.numColumnFamilies > 1 && engine.columnFamilies !== true)
        notes.push("--num_column_families: this engine has one key space; not applied");
      if (flags.dbWriteBufferSize > 0 && name !== "shale")
        notes.push("--db_write_buffer_size: shale's option only; not applied");
      events.engineStart(name, notes);
      sampler?.beginEngine(engine);
    } catch (e) {
      if (e instanceof FlagError) throw e;
      events.engineStart(name, []);
      for (const w of flags.benchmarks) failed(w, `could not open: ${reason(e)}`);
      failures.push(`${name}: could not open: ${reason(e)}`);
      continue;
    }
    let stuck = false;
    let done = 0;
    try {
      let synced = flags.sync;
      for (const workload of flags.benchmarks) {
        const w = WORKLOADS[workload]!;
        // Durability is an open option for some engines (lmdb): a workload that syncs
        // (fillsync), and the first one after it, reopen the engine.
        const sync = flags.sync || w.sync === true;
        if (w.fresh === true || sync !== synced) {
          await engine.close();
          if (w.fresh === true) removeDatabase(dir);
          await engine.open(dir, { ...engineOptions(flags), sync });
          synced = sync;
        }
        progress.start(`${name} ${workload}`);
        sampler?.beginWorkload(workload);
        const r = await guarded(
          runWorkload({ flags, engine, progress }, workload),
          progress,
          `${name} ${workload}`,
        );
        sampler?.endWorkload();
        if (w.fills === true && r.na === undefined) {
          const bytes = directoryBytes(dir);
          if (bytes !== undefined) r.diskBytes = bytes;
        }
        if (flags.treeShape && r.na === undefined && engine.filesPerLevel !== undefined)
          r.filesPerLevel = engine.filesPerLevel();
        events.result(r);
        done++;
      }
      if (flags.statistics && !flags.benchmarks.includes("stats"))
        events.result(await runWorkload({ flags, engine, progress }, "stats"));
    } catch (e) {
      if (e instanceof FlagError) throw e;
      stuck = e instanceof StallError;
      const at = flags.benchmarks[done] ?? "stats";
      failed(at, reason(e));
      for (const w of flags.benchmarks.slice(done + 1)) failed(w, `not run: ${at} failed`);
      failures.push(`${name} ${at}: ${reason(e)}`);
    } finally {
      // A stuck engine may never finish closing: leave it (the process exits at the end).
      if (!stuck) await engine.close().catch(() => {});
      if (flags.db === undefined && !stuck) rmSync(dir, { recursive: true, force: true });
    }
  }
  return failures;
}

/** Files that mark a directory as some engine's database (LevelDB, RocksDB, shale, LMDB). */
const DATABASE_MARKERS = ["CURRENT", "LOCK", "data.mdb", "kv.sqlite"];

/**
 * Deletes a database directory, as db_bench destroys its --db unless --use_existing_db. A
 * non-empty directory that holds no database (a mistyped --db) is refused, never deleted.
 */
export function removeDatabase(dir: string): void {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir);
  if (entries.length > 0 && !entries.some((e) => DATABASE_MARKERS.includes(e))) {
    throw new FlagError(`${dir} is not empty and holds no database; refusing to delete it`);
  }
  rmSync(dir, { recursive: true, force: true });
}
