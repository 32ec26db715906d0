/**
 * The workloads, as db_bench defines them (tools/db_bench_tool.cc). `num` keys of `key_size`
 * bytes, `reads` = num unless given; "random" is uniform over [0, num) with replacement.
 *
 * | name                  | does                                                                |
 * |-----------------------|---------------------------------------------------------------------|
 * | fillseq               | `num` puts in key order into a fresh database                        |
 * | fillrandom            | `num` puts of random keys into a fresh database                      |
 * | overwrite             | `num` puts of random keys into the existing database                 |
 * | fillsync              | fillrandom with `num / 1000` puts, each fsynced (whatever --sync)    |
 * | fill100K              | fillrandom with `num / 1000` puts of 100 KB values                   |
 * | readseq               | one iterator from the first key, up to `reads` entries               |
 * | readreverse           | the same from the last key backwards                                 |
 * | readrandom            | `reads` gets of random keys: "(found of reads found)"                |
 * | readrandomcopy        | readrandom through the engine's copying get (shale get, lmdb getBinary) |
 * | readmissing           | `reads` gets of absent keys (key + ".")                              |
 * | multireadrandom       | `reads` gets as getMany batches of `multiread_batch_size`            |
 * | seekrandom            | `reads` × (new iterator, seek to a random key, `seek_nexts` nexts)   |
 * | deleteseq             | `num` deletes in key order                                           |
 * | deleterandom          | `num` deletes of random keys                                         |
 * | readwhilewriting      | `reads` gets with a put interleaved every 10 reads (or rate-limited) |
 * | mergerandom           | merges to random keys in [0, merge_keys): "( updates:N)"            |
 * | mergeseq              | `num` merges to keys 0, 1, ... mod merge_keys (not in db_bench)      |
 * | readrandommergerandom | `mergereadpercent`% merges, the rest gets, on [0, merge_keys)        |
 * | readwhilemerging      | readwhilewriting with merges as the writes                           |
 * | fillseekseq           | fillseq (untimed), then seeks + `seek_nexts` nexts over every key    |
 * | compact               | compacts the whole key space (db.compactRange())                    |
 * | waitforcompaction     | waits until no flush or compaction is running or due                |
 * | stats                 | prints the engine's statistics                                      |
 * | randomtransaction     | `readwrites` transactions of `transaction_sets` getForUpdate + put    |
 * | filltransaction       | fillrandom with each put in a transaction of its own                 |
 *
 * With `--batch_size=N` the fills and deletes write batches of N. Fills also honour the
 * range-tombstone flags (see workloads/writes.ts). With `--max_pause`, compact and
 * waitforcompaction report the longest event-loop delay while they await (op-clock.ts).
 * With `--threads=N` (N > 1, or any N with `--worker_readers`) readrandom, readseq and
 * seekrandom run on N reader threads, each doing the whole workload; ops/sec is their total
 * (threads/reader-threads.ts).
 */

import type { Feature } from "./engines/engine.js";
import { Stream } from "./generators.js";
import { eventLoopPauses } from "./op-clock.js";
import type { BenchResult } from "./report.js";
import { runReaderThreads, THREADED_WORKLOADS } from "./threads/reader-threads.js";
import { type BenchContext, notAvailable, result } from "./workloads/context.js";
import {
  multiReadRandom,
  readRandom,
  readRandomMergeRandom,
  readWhileWriting,
} from "./workloads/reads.js";
import { fillSeekSeq, scan, seekRandom } from "./workloads/scans.js";
import { fillTransaction, randomTransaction } from "./workloads/transactions.js";
import { deleteKeys, fill, merges } from "./workloads/writes.js";

export type { BenchContext } from "./workloads/context.js";

export interface Workload {
  run(ctx: BenchContext): Promise<BenchResult>;
  /** Starts from an empty database (db_bench's fresh_db). */
  fresh?: boolean;
  /** Writes data: the engine's directory size is reported after it. */
  fills?: boolean;
  /** Needs this engine capability; n/a with the engine's reason otherwise. */
  needs?: Feature;
  /** Needs --merge_operator. */
  merges?: boolean;
  /** fsyncs every write whatever --sync says (db_bench's fillsync). */
  sync?: boolean;
}

const thousandth = (ctx: BenchContext) => Math.max(1, Math.floor(ctx.flags.num / 1000));

export const WORKLOADS: Record<string, Workload> = {
  fillseq: {
    run: (ctx) => fill(ctx, "fillseq", "seq", ctx.flags.num, ctx.flags.valueSize),
    fresh: true,
    fills: true,
  },
  fillrandom: {
    run: (ctx) => fill(ctx, "fillrandom", "random", ctx.flags.num, ctx.flags.valueSize),
    fresh: true,
    fills: true,
  },
  overwrite: {
    run: (ctx) =>
      fill(ctx, "overwrite", "random", ctx.flags.num, ctx.flags.valueSize, Stream.overwrite),
    fills: true,
  },
  fillsync: {
    run: (ctx) => fill(ctx, "fillsync", "random", thousandth(ctx), ctx.flags.valueSize),
    fresh: true,
    fills: true,
    sync: true,
  },
  fill100K: {
    run: (ctx) => fill(ctx, "fill100K", "random", thousandth(ctx), 100 * 1000),
    fresh: true,
    fills: true,
  },
  readseq: { run: (ctx) => scan(ctx, "readseq", false), needs: "iterator" },
  readreverse: { run: (ctx) => scan(ctx, "readreverse", true), needs: "iterator" },
  readrandom: { run: (ctx) => readRandom(ctx, "readrandom", false) },
  readrandomcopy: { run: (ctx) => readRandom(ctx, "readrandomcopy", false, true) },
  readmissing: { run: (ctx) => readRandom(ctx, "readmissing", true) },
  multireadrandom: { run: multiReadRandom },
  seekrandom: { run: seekRandom, needs: "iterator" },
  deleteseq: { run: (ctx) => deleteKeys(ctx, "deleteseq", "seq") },
  deleterandom: { run: (ctx) => deleteKeys(ctx, "deleterandom", "random") },
  readwhilewriting: { run: (ctx) => readWhileWriting(ctx, "readwhilewriting", false) },
  mergerandom: { run: (ctx) => merges(ctx, false), needs: "merge", merges: true },
  mergeseq: { run: (ctx) => merges(ctx, true), needs: "merge", merges: true, fills: true },
  readrandommergerandom: { run: readRandomMergeRandom, needs: "merge", merges: true },
  readwhilemerging: {
    run: (ctx) => readWhileWriting(ctx, "readwhilemerging", true),
    needs: "merge",
    merges: true,
  },
  fillseekseq: { run: fillSeekSeq, fresh: true, fills: true, needs: "iterator" },
  compact: { run: (ctx) => awaited(ctx, "compact", () => ctx.engine.compact()), needs: "compact" },
  waitforcompaction: {
    run: (ctx) => awaited(ctx, "waitforcompaction", () => ctx.engine.waitForCompactions()),
    needs: "waitForCompactions",
  },
  stats: { run: stats, needs: "stats" },
  randomtransaction: { run: randomTransaction, fills: true },
  filltransaction: { run: fillTransaction, fresh: true, fills: true },
};

/** One awaited call, timed; with --max_pause, under the event-loop delay monitor. */
async function awaited(
  ctx: BenchContext,
  name: string,
  work: () => Promise<void>,
): Promise<BenchResult> {
  if (ctx.flags.maxPause) {
    const { seconds, maxPauseMs } = await eventLoopPauses(work);
    const r = result(ctx, name, 1, seconds, 0, "");
    r.maxPauseMs = maxPauseMs;
    return r;
  }
  const t0 = performance.now();
  await work();
  return result(ctx, name, 1, (performance.now() - t0) / 1000, 0, "");
}

async function stats(ctx: BenchContext): Promise<BenchResult> {
  const r = result(ctx, "stats", 0, 0, 0, "");
  r.text = ctx.engine.stats();
  return r;
}

/** Runs `name` on the context's engine, or reports it n/a with the engine's reason. */
export async function runWorkload(ctx: BenchContext, name: string): Promise<BenchResult> {
  const w = WORKLOADS[name]!;
  if (w.needs !== undefined) {
    const reason = ctx.engine.unsupported(w.needs);
    if (reason !== undefined) return notAvailable(ctx, name, reason);
  }
  if ((ctx.flags.threads > 1 || ctx.flags.workerReaders) && THREADED_WORKLOADS.has(name)) {
    if (ctx.engine.readerThreadSpec === undefined)
      return notAvailable(ctx, name, "--threads: this engine is not read from other threads here");
    return runReaderThreads(ctx, name);
  }
  return w.run(ctx);
}
