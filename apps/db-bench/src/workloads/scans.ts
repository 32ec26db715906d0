/**
 * Iterator workloads: readseq / readreverse (one scan of up to `reads` entries from the first
 * or last key), seekrandom (per op a new iterator, a seek to a random key and `seek_nexts`
 * reads, as db_bench does without a tailing iterator) and fillseekseq (fill `num` keys in
 * order untimed, then walk them with seeks and `seek_nexts` reads on one iterator, timed).
 */
import { readCount } from "../flags.js";
import { FastRandom, keyGenerator, Stream } from "../generators.js";
import type { BenchResult } from "../report.js";
import { type BenchContext, opClock, result } from "./context.js";
import { fill } from "./writes.js";

export async function scan(
  ctx: BenchContext,
  name: string,
  reverse: boolean,
): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const limit = readCount(flags);
  const out = { entries: 0, bytes: 0 };
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, limit);
  const t0 = performance.now();
  const p = engine.scan(reverse, limit, out, clock);
  if (p !== undefined) await p;
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  return result(ctx, name, out.entries, seconds, out.bytes, `(${out.entries} entries)`, clock);
}

export async function seekRandom(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const reads = readCount(flags);
  const keys = keyGenerator(flags);
  const rnd = new FastRandom(flags.seed + Stream.seek);
  const out = { exact: false, entries: 0, bytes: 0 };
  const nexts = flags.seekNexts;
  const num = flags.num;
  let found = 0;
  let bytes = 0;
  progress.start(`${engine.name} seekrandom`);
  const clock = opClock(ctx, reads);
  const t0 = performance.now();
  for (let i = 0; i < reads; i++) {
    const p = engine.seekOnce(keys.key(rnd.uniform(num)), nexts, out);
    if (p !== undefined) await p;
    if (out.exact) found++;
    bytes += out.bytes;
    if (clock !== undefined) clock.finished();
    if ((i & 1023) === 0) progress.tick(i, reads);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = `(${found} of ${reads} found; ${nexts} nexts)`;
  return result(ctx, "seekrandom", reads, seconds, bytes, message, clock);
}

export async function fillSeekSeq(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const num = flags.num;
  await fill(ctx, "fillseekseq", "seq", num, flags.valueSize);
  const keys = keyGenerator(flags);
  const nexts = flags.seekNexts;
  const step = Math.max(1, nexts);
  const out = { exact: false, entries: 0, bytes: 0 };
  let found = 0;
  let seeks = 0;
  let visited = 0;
  let bytes = 0;
  progress.start(`${engine.name} fillseekseq (seeks)`);
  const clock = opClock(ctx, Math.ceil(num / step));
  const t0 = performance.now();
  let cursor = engine.openCursor();
  if (cursor instanceof Promise) cursor = await cursor;
  for (let i = 0; i < num; i += step) {
    const p = cursor.seek(keys.key(i), Math.min(nexts, num - i), out);
    if (p !== undefined) await p;
    if (out.exact) found++;
    visited += Math.max(1, out.entries);
    bytes += out.bytes;
    if (clock !== undefined) clock.finished();
    seeks++;
    if ((seeks & 1023) === 0) progress.tick(i, num);
  }
  const c = cursor.close();
  if (c !== undefined) await c;
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = `(${found} of ${seeks} seeks found; ${visited} of ${num} keys visited)`;
  return result(ctx, "fillseekseq", visited, seconds, bytes, message, clock);
}
