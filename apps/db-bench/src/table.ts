/**
 * The closing comparison: one row per workload, one column per engine, ops/sec with each
 * peer's ratio to shale; then the directory size after each fill and, with --isolate, each
 * engine's peak RSS.
 *
 *   "(3.20x)" after a peer's figure = shale ops/sec ÷ that engine's ops/sec: how many times
 *   faster shale is (below 1: the peer is faster).
 */
import { type BenchResult, formatMB, opsPerSec } from "./report.js";

export interface EngineSummary {
  engine: string;
  results: BenchResult[];
  /** With --isolate: the peak RSS of the engine's own process. */
  peakRssBytes?: number;
}

export const TABLE_TITLE =
  'Comparison: ops/sec (higher is better); "(N.NNx)" after a peer = shale ops/sec / peer ops/sec, how many times faster shale is (< 1: the peer is faster)';

/** Results that make table rows (stats prints text, not a figure). */
function rows(results: BenchResult[]): BenchResult[] {
  return results.filter((r) => r.text === undefined);
}

export function comparisonTable(engines: EngineSummary[]): string {
  const shale = engines.find((e) => e.engine === "shale");
  const base = shale !== undefined ? rows(shale.results) : undefined;
  const columns = engines.map((e) => rows(e.results));
  const count = Math.max(0, ...columns.map((c) => c.length));
  const table: string[][] = [["workload", ...engines.map((e) => e.engine)]];
  const seen = new Map<string, number>();
  const labels: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = columns.find((c) => c[i] !== undefined)?.[i]?.name ?? "?";
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    labels.push(n > 1 ? `${name} #${n}` : name);
    table.push([labels[i]!, ...columns.map((c, e) => cell(c[i], base?.[i], engines[e]!.engine))]);
  }
  for (let i = 0; i < count; i++) {
    if (!columns.some((c) => c[i]?.diskBytes !== undefined)) continue;
    table.push([
      `disk after ${labels[i]} (MB)`,
      ...columns.map((c) => {
        const b = c[i]?.diskBytes;
        return b === undefined ? "—" : formatMB(b);
      }),
    ]);
  }
  if (engines.some((e) => e.peakRssBytes !== undefined)) {
    table.push([
      "peak RSS (MB)",
      ...engines.map((e) => (e.peakRssBytes === undefined ? "—" : formatMB(e.peakRssBytes))),
    ]);
  }
  const widths = table[0]!.map((_, col) => Math.max(...table.map((row) => row[col]!.length)));
  const lines = table.map((row) =>
    row.map((c, col) => (col === 0 ? c.padEnd(widths[col]!) : c.padStart(widths[col]!))).join("  "),
  );
  return [TABLE_TITLE, ...lines].join("\n");
}

function cell(r: BenchResult | undefined, shale: BenchResult | undefined, engine: string): string {
  if (r === undefined) return "—";
  if (r.na !== undefined) return "n/a";
  if (r.failed !== undefined) return "FAILED";
  const ops = opsPerSec(r);
  const figure = String(Math.round(ops));
  if (engine === "shale" || shale?.seconds === undefined || shale.seconds <= 0 || ops <= 0)
    return figure;
  return `${figure} (${(opsPerSec(shale) / ops).toFixed(2)}x)`;
}
