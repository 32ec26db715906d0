/**
 * What every workload gets, and the bookkeeping they share (latencies, the result record).
 */
import type { Engine } from "../engines/engine.js";
import type { Flags } from "../flags.js";
import { type BenchResult, type Progress, summarize } from "../report.js";

export interface BenchContext {
  flags: Flags;
  engine: Engine;
  progress: Progress;
}

/** A per-op latency array when --histogram is on. */
export function latencyArray(ctx: BenchContext, ops: number): Float64Array | undefined {
  return ctx.flags.histogram ? new Float64Array(ops) : undefined;
}

export function result(
  ctx: BenchContext,
  name: string,
  ops: number,
  seconds: number,
  bytes: number,
  message: string,
  latencies?: Float64Array,
): BenchResult {
  const r: BenchResult = { name, engine: ctx.engine.name, ops, seconds, bytes, message };
  if (latencies !== undefined) {
    const h = summarize(latencies);
    if (h !== undefined) r.histogram = h;
  }
  return r;
}

export function notAvailable(ctx: BenchContext, name: string, reason: string): BenchResult {
  return { name, engine: ctx.engine.name, ops: 0, seconds: 0, bytes: 0, message: "", na: reason };
}
