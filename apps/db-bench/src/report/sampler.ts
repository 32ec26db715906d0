/**
 * --report's time series: while each workload runs, every `intervalMs` (at the workloads'
 * progress ticks, every 1024 ops) one sample of each engine:
 *
 * ```
 * t (s since the engine's first workload) | workload | ops/sec over the interval
 * | p99 latency (µs) of the ops finished in the interval (from the per-op clock)
 * | L0 files | immutable memtables | compaction bytes (cumulative) | stall µs (cumulative)
 * ```
 * The last four come from `Engine.gauges()`; an engine without it (lmdb, memory-level) has
 * null there, and so has a workload without a per-op clock for p99. Each workload also gets
 * a start sample and an end sample, so short workloads still show.
 *
 * Cost, only with --report: the per-op clock (one performance.now() per op) and, per sample,
 * a sort of the interval's latencies (at most MAX_SORT of them, evenly strided).
 */
import type { Engine, EngineGauges } from "../engines/engine.js";
import type { OpClock } from "../op-clock.js";

export interface Sample {
  t: number;
  workload: string;
  opsPerSec: number | null;
  p99Micros: number | null;
  l0Files: number | null;
  immutableMemtables: number | null;
  compactionBytes: number | null;
  stallMicros: number | null;
}

export interface WorkloadSpan {
  name: string;
  start: number;
  end: number;
}

export interface EngineSeries {
  engine: string;
  samples: Sample[];
  workloads: WorkloadSpan[];
}

/** Latencies sorted per sample, at most (a stride beyond). */
const MAX_SORT = 20_000;

/** The 99th percentile of `latencies[from, to)`, or null when there are none. */
export function p99Of(latencies: Float64Array, from: number, to: number): number | null {
  const n = to - from;
  if (n <= 0) return null;
  const stride = Math.max(1, Math.floor(n / MAX_SORT));
  const picked = new Float64Array(Math.ceil(n / stride));
  for (let i = 0, j = from; j < to; i++, j += stride) picked[i] = latencies[j]!;
  picked.sort();
  return picked[Math.min(picked.length - 1, Math.floor(picked.length * 0.99))]!;
}

export class Sampler {
  private readonly byEngine = new Map<string, EngineSeries>();
  private current: EngineSeries | undefined;
  private engine: Engine | undefined;
  private engineStart = 0;
  private workload = "";
  private workloadStart = 0;
  private lastAt = 0;
  private lastDone = 0;
  private lastTotal = 0;
  private clock: OpClock | undefined;
  private clockSeen = 0;

  constructor(readonly intervalMs = 100) {}

  /** The engine whose workloads come next (it is open). */
  beginEngine(engine: Engine): void {
    this.engine = engine;
    this.engineStart = performance.now();
    this.current = { engine: engine.name, samples: [], workloads: [] };
    this.byEngine.set(engine.name, this.current);
  }

  /** Workload `name` starts on the current engine. */
  beginWorkload(name: string): void {
    if (this.current === undefined) return;
    this.workload = name;
    const now = performance.now();
    this.workloadStart = now;
    this.lastAt = now;
    this.lastDone = 0;
    this.lastTotal = 0;
    this.clock = undefined;
    this.clockSeen = 0;
    this.push(now, null, null);
  }

  /** The workload's per-op clock (p99 comes from it). */
  watch(clock: OpClock): void {
    this.clock = clock;
    this.clockSeen = clock.recorded;
  }

  /** `done` of `total` ops are finished; samples when an interval has passed. */
  tick(done: number, total: number, now: number): void {
    this.lastTotal = total;
    if (this.current === undefined || now - this.lastAt < this.intervalMs) return;
    this.sample(done, now);
  }

  /** The workload finished (all of its ops). */
  endWorkload(): void {
    if (this.current === undefined || this.workload === "") return;
    const now = performance.now();
    if (this.lastTotal > this.lastDone) this.sample(this.lastTotal, now);
    else this.push(now, null, null);
    this.current.workloads.push({
      name: this.workload,
      start: (this.workloadStart - this.engineStart) / 1000,
      end: (now - this.engineStart) / 1000,
    });
    this.workload = "";
  }

  /** Series an --isolate child measured. */
  adopt(series: EngineSeries): void {
    this.byEngine.set(series.engine, series);
  }

  /** Every engine's series, in the order the engines began. */
  series(): EngineSeries[] {
    return [...this.byEngine.values()];
  }

  private sample(done: number, now: number): void {
    const seconds = (now - this.lastAt) / 1000;
    const rate = seconds > 0 ? (done - this.lastDone) / seconds : null;
    let p99: number | null = null;
    const clock = this.clock;
    if (clock?.latencies !== undefined) {
      p99 = p99Of(clock.latencies, this.clockSeen, clock.recorded);
      this.clockSeen = clock.recorded;
    }
    this.lastAt = now;
    this.lastDone = done;
    this.push(now, rate, p99);
  }

  private push(now: number, opsPerSec: number | null, p99Micros: number | null): void {
    let g: EngineGauges = {};
    try {
      g = this.engine?.gauges?.() ?? {};
    } catch {
      // A closed or failing engine tells nothing this time.
    }
    this.current!.samples.push({
      t: (now - this.engineStart) / 1000,
      workload: this.workload,
      opsPerSec,
      p99Micros,
      l0Files: g.l0Files ?? null,
      immutableMemtables: g.immutableMemtables ?? null,
      compactionBytes: g.compactionBytes ?? null,
      stallMicros: g.stallMicros ?? null,
    });
  }
}
