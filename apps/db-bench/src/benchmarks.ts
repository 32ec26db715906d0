/**
 * The workloads, as db_bench defines them:
 *
 * | name         | does                                                              |
 * |--------------|-------------------------------------------------------------------|
 * | fillseq      | writes `num` keys in order into a fresh database                   |
 * | fillrandom   | writes `num` random keys (uniform in [0, num)) into a fresh database |
 * | overwrite    | writes `num` random keys into the existing database                |
 * | fillsync     | fillrandom with `num / 1000` writes, each fsynced                  |
 * | readrandom   | `reads` gets of random keys; reports "(found of reads found)"     |
 * | readmissing  | `reads` gets of keys that do not exist (key + ".")                |
 * | deleterandom | `num` deletes of random keys                                       |
 *
 * With `--batch_size=N` the fill workloads write batches of N (one op per key).
 */
import type { Engine } from "./engines/engine.js";
import type { Flags } from "./flags.js";
import { FastRandom, KeyGenerator, ValueGenerator } from "./generators.js";
import type { BenchResult, Progress } from "./report.js";

export interface BenchContext {
  flags: Flags;
  engine: Engine;
  progress: Progress;
}

type Order = "seq" | "random";

/** Workloads that start from an empty database (db_bench's fresh_db). */
export const FRESH_DB = new Set(["fillseq", "fillrandom", "fillsync", "fill100K"]);

export const WORKLOADS: Record<string, (ctx: BenchContext) => BenchResult> = {
  fillseq: (ctx) => fill(ctx, "fillseq", "seq", ctx.flags.num, ctx.flags.valueSize),
  fillrandom: (ctx) => fill(ctx, "fillrandom", "random", ctx.flags.num, ctx.flags.valueSize),
  overwrite: (ctx) => fill(ctx, "overwrite", "random", ctx.flags.num, ctx.flags.valueSize),
  fillsync: (ctx) =>
    fill(
      ctx,
      "fillsync",
      "random",
      Math.max(1, Math.floor(ctx.flags.num / 1000)),
      ctx.flags.valueSize,
    ),
  fill100K: (ctx) =>
    fill(ctx, "fill100K", "random", Math.max(1, Math.floor(ctx.flags.num / 1000)), 100 * 1000),
  readrandom: (ctx) => read(ctx, "readrandom", false),
  readmissing: (ctx) => read(ctx, "readmissing", true),
  deleterandom: (ctx) => deleteRandom(ctx),
};

function timer(ctx: BenchContext, ops: number): Float64Array | undefined {
  return ctx.flags.histogram ? new Float64Array(ops) : undefined;
}

function fill(
  ctx: BenchContext,
  name: string,
  order: Order,
  ops: number,
  valueSize: number,
): BenchResult {
  const { flags, engine, progress } = ctx;
  const keys = new KeyGenerator(flags.keySize);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + 1);
  const latencies = timer(ctx, ops);
  const batch = flags.batchSize;
  const batchKeys: Uint8Array[] = [];
  const batchValues: Uint8Array[] = [];
  progress.start();
  const t0 = performance.now();
  for (let i = 0; i < ops; i += batch) {
    const s = latencies !== undefined ? performance.now() : 0;
    if (batch === 1) {
      engine.put(
        keys.key(order === "seq" ? i : rnd.uniform(flags.num)),
        values.generate(valueSize),
      );
    } else {
      batchKeys.length = 0;
      batchValues.length = 0;
      for (let j = i; j < i + batch && j < ops; j++) {
        batchKeys.push(keys.key(order === "seq" ? j : rnd.uniform(flags.num)).slice());
        batchValues.push(values.generate(valueSize));
      }
      engine.putBatch(batchKeys, batchValues);
    }
    if (latencies !== undefined) latencies[i / batch] = (performance.now() - s) * 1000;
    if ((i & 1023) < batch) progress.tick(name, i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const result: BenchResult = {
    name,
    engine: engine.name,
    ops,
    seconds,
    bytes: ops * (flags.keySize + valueSize),
    message: batch > 1 ? `(batches of ${batch})` : "",
  };
  if (latencies !== undefined) result.latencies = latencies.subarray(0, Math.ceil(ops / batch));
  return result;
}

function read(ctx: BenchContext, name: string, missing: boolean): BenchResult {
  const { flags, engine, progress } = ctx;
  const reads = flags.reads < 0 ? flags.num : flags.reads;
  const keys = new KeyGenerator(flags.keySize + (missing ? 1 : 0));
  if (missing) keys.buf[flags.keySize] = 0x2e; // "." makes the key absent
  const rnd = new FastRandom(flags.seed + 2);
  const latencies = timer(ctx, reads);
  let found = 0;
  let bytes = 0;
  progress.start();
  const t0 = performance.now();
  for (let i = 0; i < reads; i++) {
    const s = latencies !== undefined ? performance.now() : 0;
    const v = engine.get(keys.key(rnd.uniform(flags.num)));
    if (v !== undefined) {
      found++;
      bytes += flags.keySize + v.length;
    }
    if (latencies !== undefined) latencies[i] = (performance.now() - s) * 1000;
    if ((i & 1023) === 0) progress.tick(name, i, reads);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const result: BenchResult = {
    name,
    engine: engine.name,
    ops: reads,
    seconds,
    bytes,
    message: `(${found} of ${reads} found)`,
  };
  if (latencies !== undefined) result.latencies = latencies;
  return result;
}

function deleteRandom(ctx: BenchContext): BenchResult {
  const { flags, engine, progress } = ctx;
  const keys = new KeyGenerator(flags.keySize);
  const rnd = new FastRandom(flags.seed + 3);
  const ops = flags.num;
  const latencies = timer(ctx, ops);
  progress.start();
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const s = latencies !== undefined ? performance.now() : 0;
    engine.delete(keys.key(rnd.uniform(flags.num)));
    if (latencies !== undefined) latencies[i] = (performance.now() - s) * 1000;
    if ((i & 1023) === 0) progress.tick("deleterandom", i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const result: BenchResult = {
    name: "deleterandom",
    engine: engine.name,
    ops,
    seconds,
    bytes: ops * flags.keySize,
    message: "",
  };
  if (latencies !== undefined) result.latencies = latencies;
  return result;
}
