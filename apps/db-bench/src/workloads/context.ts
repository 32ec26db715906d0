/**
 * What every workload gets, and the bookkeeping they share (the op clock, the result record).
 */
import type { Engine } from "../engines/engine.js";
import type { Flags } from "../flags.js";
import { OpClock } from "../op-clock.js";
import { type BenchResult, type Progress, summarize } from "../report.js";

export interface BenchContext {
  flags: Flags;
  engine: Engine;
  progress: Progress;
}

/**
 * The per-op clock of a workload of up to `ops` timed ops, when --histogram, --max_pause or
 * --report asks for one (undefined otherwise: the loops then read no clock per op). Create
 * it right before the timed loop.
 */
export function opClock(ctx: BenchContext, ops: number): OpClock | undefined {
  const f = ctx.flags;
  const sampler = ctx.progress.sampler; // --report: p99 over time needs every op's latency
  if (!f.histogram && !f.maxPause && sampler === undefined) return undefined;
  const clock = new OpClock(
    f.histogram || sampler !== undefined ? new Float64Array(ops) : undefined,
  );
  sampler?.watch(clock);
  return clock;
}

export function result(
  ctx: BenchContext,
  name: string,
  ops: number,
  seconds: number,
  bytes: number,
  message: string,
  clock?: OpClock,
): BenchResult {
  const r: BenchResult = { name, engine: ctx.engine.name, ops, seconds, bytes, message };
  if (clock === undefined) return r;
  const latencies = ctx.flags.histogram ? clock.histogramInput() : undefined;
  if (latencies !== undefined) {
    const h = summarize(latencies);
    if (h !== undefined) r.histogram = h;
  }
  if (ctx.flags.maxPause) r.maxPauseMs = clock.maxGapMs;
  return r;
}

export function notAvailable(ctx: BenchContext, name: string, reason: string): BenchResult {
  return { name, engine: ctx.engine.name, ops: 0, seconds: 0, bytes: 0, message: "", na: reason };
}
