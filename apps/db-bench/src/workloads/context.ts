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
 * The per-op clock of a workload of up to `ops` timed ops, when --histogram or --max_pause
 * asks for one (undefined otherwise: the loops then read no clock per op). Create it right
 * before the timed loop.
 */
export function opClock(ctx: BenchContext, ops: number): OpClock | undefined {
  const f = ctx.flags;
  if (!f.histogram && !f.maxPause) return undefined;
  return new OpClock(f.histogram ? new Float64Array(ops) : undefined);
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
  const latencies = clock.histogramInput();
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
