/**
 * Point-read workloads: readrandom, readmissing, multireadrandom, and the mixes that
 * interleave writes or merges with reads (readwhilewriting, readwhilemerging,
 * readrandommergerandom).
 *
 * The mixes run in one JavaScript thread: where db_bench runs a writer thread beside the
 * readers, db-bench interleaves one write every 10 reads, or — with
 * `--benchmark_write_rate_limit=B` — a write whenever the writes so far are behind B bytes/s.
 * Their ops count both reads and writes (db_bench reports only the readers).
 */
import { mergeKeyCount, readCount } from "../flags.js";
import {
  FastRandom,
  type KeyGenerator,
  keyGenerator,
  Stream,
  ValueGenerator,
} from "../generators.js";
import type { BenchResult } from "../report.js";
import { type BenchContext, opClock, result } from "./context.js";
import { mergeOperand, readWriteCount } from "./writes.js";

/** `copy`: through the engine's copying read (`getCopy`, readrandomcopy) where it has one. */
export async function readRandom(
  ctx: BenchContext,
  name: string,
  missing: boolean,
  copy = false,
): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const reads = readCount(flags);
  const keys = keyGenerator(flags, missing ? 1 : 0);
  if (missing) keys.buf[flags.keySize] = 0x2e; // "." makes the key absent
  const rnd = new FastRandom(flags.seed + Stream.read);
  const num = flags.num;
  let found = 0;
  let bytes = 0;
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, reads);
  const viaCopy = copy && engine.getCopy !== undefined;
  const t0 = performance.now();
  for (let i = 0; i < reads; i++) {
    const key = keys.key(rnd.uniform(num));
    let n = viaCopy ? engine.getCopy!(key) : engine.get(key);
    if (typeof n !== "number") n = await n;
    if (n >= 0) {
      found++;
      bytes += flags.keySize + n;
    }
    if (clock !== undefined) clock.finished();
    if ((i & 1023) === 0) progress.tick(i, reads);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  return result(ctx, name, reads, seconds, bytes, `(${found} of ${reads} found)`, clock);
}

export async function multiReadRandom(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const reads = readCount(flags);
  const batchSize = flags.multireadBatchSize;
  const generators: KeyGenerator[] = [];
  for (let i = 0; i < batchSize; i++) generators.push(keyGenerator(flags));
  const full = generators.map((g) => g.buf as Uint8Array);
  const rnd = new FastRandom(flags.seed + Stream.read);
  const tally = { found: 0, bytes: 0 };
  const num = flags.num;
  progress.start(`${engine.name} multireadrandom`);
  const clock = opClock(ctx, reads);
  const t0 = performance.now();
  for (let i = 0; i < reads; i += batchSize) {
    const n = Math.min(batchSize, reads - i);
    for (let j = 0; j < n; j++) generators[j]!.key(rnd.uniform(num));
    const batch = n === batchSize ? full : full.slice(0, n);
    const p = engine.getMany(batch, tally);
    if (p !== undefined) await p;
    if (clock !== undefined) clock.finishedMany(n);
    if ((i & 1023) < batchSize) progress.tick(i, reads);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = `(${tally.found} of ${reads} found; getMany of ${batchSize})`;
  return result(ctx, "multireadrandom", reads, seconds, tally.bytes, message, clock);
}

/**
 * Reads with a write (or merge) interleaved: by default after every 10th read; with a rate
 * limit, whenever the bytes written so far trail `rate * elapsed`.
 */
export async function readWhileWriting(
  ctx: BenchContext,
  name: string,
  merges: boolean,
): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const reads = readCount(flags);
  const readKeys = keyGenerator(flags);
  const writeKeys = keyGenerator(flags);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + Stream.read);
  const wrnd = new FastRandom(flags.seed + Stream.readWhileWritingWrites);
  const rate = flags.benchmarkWriteRateLimit;
  const keySpace = merges ? mergeKeyCount(flags) : flags.num;
  let found = 0;
  let bytes = 0;
  let writes = 0;
  let written = 0;
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, reads + (rate > 0 ? reads : Math.floor(reads / 10)));
  const t0 = performance.now();
  for (let i = 0; i < reads; i++) {
    let n = engine.get(readKeys.key(rnd.uniform(flags.num)));
    if (typeof n !== "number") n = await n;
    if (n >= 0) {
      found++;
      bytes += flags.keySize + n;
    }
    if (clock !== undefined) clock.finished();
    const due = rate > 0 ? written < ((performance.now() - t0) / 1000) * rate : (i + 1) % 10 === 0;
    if (due) {
      const key = writeKeys.key(wrnd.uniform(keySpace));
      const v = merges ? mergeOperand(ctx, values) : values.generate(flags.valueSize);
      const p = merges ? engine.merge(key, v) : engine.put(key, v);
      if (p !== undefined) await p;
      writes++;
      written += flags.keySize + v.length;
      if (clock !== undefined) clock.finished();
    }
    if ((i & 1023) === 0) progress.tick(i, reads);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const verb = merges ? "merges" : "writes";
  const message = `(${found} of ${reads} found; ${writes} ${verb})`;
  return result(ctx, name, reads + writes, seconds, bytes + written, message, clock);
}

/** db_bench's ReadRandomMergeRandom: `mergereadpercent`% merges, the rest gets. */
export async function readRandomMergeRandom(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const keys = keyGenerator(flags);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + Stream.readRandomMergeRandom);
  const ops = readWriteCount(ctx);
  const mergeKeys = mergeKeyCount(flags);
  let gets = 0;
  let merges = 0;
  let hits = 0;
  let maxLength = 0;
  let bytes = 0;
  progress.start(`${engine.name} readrandommergerandom`);
  const clock = opClock(ctx, ops);
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const key = keys.key(rnd.uniform(mergeKeys));
    if (rnd.uniform(100) < flags.mergeReadPercent) {
      const operand = mergeOperand(ctx, values);
      const p = engine.merge(key, operand);
      if (p !== undefined) await p;
      merges++;
      bytes += flags.keySize + operand.length;
    } else {
      let n = engine.get(key);
      if (typeof n !== "number") n = await n;
      gets++;
      if (n >= 0) {
        hits++;
        bytes += flags.keySize + n;
        if (n > maxLength) maxLength = n;
      }
    }
    if (clock !== undefined) clock.finished();
    if ((i & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = `(reads:${gets} merges:${merges} total:${ops} hits:${hits} maxlength:${maxLength})`;
  return result(ctx, "readrandommergerandom", ops, seconds, bytes, message, clock);
}
