/**
 * What the report plots, computed here (not in the page) so a test can check it: one chart
 * per measure, one series per engine that has the measure, each series `x` (seconds since
 * the engine's first workload) and `y` (null where a sample has no value).
 *
 * | chart               | y                                        | from                  |
 * |---------------------|------------------------------------------|-----------------------|
 * | ops/sec             | ops per second over each interval        | the workloads' ticks  |
 * | p99 latency (log)   | µs, 99th percentile of the interval's ops | the per-op clock     |
 * | L0 files            | tables in level 0                        | Engine.gauges()       |
 * | immutable memtables | memtables waiting for a flush            | Engine.gauges()       |
 * | compaction          | MiB compactions read + wrote, cumulative | Engine.gauges()       |
 * | write stalls        | ms writes stalled or slowed, cumulative  | Engine.gauges()       |
 */
import type { EngineSeries, Sample } from "./sampler.js";

export interface ChartSeries {
  engine: string;
  x: number[];
  y: (number | null)[];
}

export interface Chart {
  id: string;
  title: string;
  unit: string;
  /** Plot y on a log scale (latencies: one stall would flatten the rest). */
  log: boolean;
  series: ChartSeries[];
  /** Engines of the run that do not report this measure. */
  missing: string[];
}

interface Measure {
  id: string;
  title: string;
  unit: string;
  log?: boolean;
  value: (s: Sample) => number | null;
}

const MiB = 1024 * 1024;

export const MEASURES: readonly Measure[] = [
  { id: "ops", title: "Throughput", unit: "ops/sec", value: (s) => s.opsPerSec },
  { id: "p99", title: "p99 latency", unit: "µs", log: true, value: (s) => s.p99Micros },
  { id: "l0", title: "L0 files", unit: "files", value: (s) => s.l0Files },
  {
    id: "memtables",
    title: "Immutable memtables",
    unit: "memtables",
    value: (s) => s.immutableMemtables,
  },
  {
    id: "compaction",
    title: "Compaction bytes (read + written, cumulative)",
    unit: "MiB",
    value: (s) => (s.compactionBytes === null ? null : s.compactionBytes / MiB),
  },
  {
    id: "stalls",
    title: "Write stalls (cumulative)",
    unit: "ms",
    value: (s) => (s.stallMicros === null ? null : s.stallMicros / 1000),
  },
];

export function buildCharts(series: readonly EngineSeries[]): Chart[] {
  return MEASURES.map((m) => {
    const chart: Chart = {
      id: m.id,
      title: m.title,
      unit: m.unit,
      log: m.log === true,
      series: [],
      missing: [],
    };
    for (const e of series) {
      const y = e.samples.map(m.value);
      if (y.every((v) => v === null)) {
        chart.missing.push(e.engine);
        continue;
      }
      chart.series.push({ engine: e.engine, x: e.samples.map((s) => Number(s.t.toFixed(4))), y });
    }
    return chart;
  });
}
