/**
 * Side-by-side runs: each (builder, run) in its own child process, so that each peak RSS
 * belongs to one builder; the runs are interleaved (chunked, doubling, chunked, ...) so
 * that machine noise hits both alike. The children's full output is printed, then a
 * table of medians.
 */
import type { HashStorage } from "@shale/bloom";
import { type BenchFlags, toArgs } from "./flags.js";

/** Runs the bench with `args` in a fresh process and resolves with its stdout. */
export type RunChild = (args: string[]) => Promise<string>;

/** The lines compared in the summary, in order. */
export const SUMMARY_METRICS = [
  "Build avg ns/key",
  "Number of filters",
  "Total size (MB)",
  "Bits/key stored",
  "Predicted FP rate %",
  "Prelim FP rate %",
  "Builder peak hash storage (MB)",
  "Single filter net ns/op",
  "Batched, prepared net ns/op",
  "Batched, unprepared net ns/op",
  "Random filter net ns/op",
  "Peak RSS (MB)",
] as const;

/**
 * Parses "Name: value" lines of a child's output. Query lines repeat per section; the
 * first (mixed inside/outside) occurrence is kept.
 */
export function parseResult(output: string): Map<string, number> {
  const result = new Map<string, number>();
  for (const line of output.split("\n")) {
    const m = /^\s*([A-Za-z][A-Za-z0-9 /%,()-]*?):\s*(-?[0-9.e+-]+|NaN)\s*$/.exec(line);
    if (m === null) continue;
    const name = m[1]!;
    if (!result.has(name)) result.set(name, Number(m[2]));
  }
  return result;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs every builder `flags.runs` times in child processes and prints the comparison. */
export async function compareBuilders(
  flags: BenchFlags,
  builders: readonly HashStorage[],
  runChild: RunChild,
  write: (line: string) => void,
): Promise<void> {
  const results = new Map<HashStorage, Map<string, number>[]>(builders.map((b) => [b, []]));
  for (let run = 1; run <= flags.runs; run++) {
    for (const builder of builders) {
      write(`=== builder=${builder}, run ${run} of ${flags.runs} (child process) ===`);
      const output = await runChild(toArgs({ ...flags, builder, runs: 1 }));
      for (const line of output.trimEnd().split("\n")) write(line);
      results.get(builder)!.push(parseResult(output));
    }
  }
  write("");
  write(
    `=== Summary: ${flags.runs === 1 ? "one run" : `median of ${flags.runs} runs`} per builder ===`,
  );
  const width = Math.max(...SUMMARY_METRICS.map((m) => m.length)) + 2;
  write(`${"".padEnd(width)}${builders.map((b) => b.padStart(14)).join("")}`);
  for (const metric of SUMMARY_METRICS) {
    const cells = builders.map((b) =>
      median(results.get(b)!.map((r) => r.get(metric) ?? Number.NaN)),
    );
    if (cells.every((c) => Number.isNaN(c))) continue;
    write(`${`${metric}:`.padEnd(width)}${cells.map((c) => formatCell(c).padStart(14)).join("")}`);
  }
}

function formatCell(x: number): string {
  if (Number.isNaN(x)) return "-";
  return Number.isInteger(x) ? String(x) : x.toFixed(x >= 100 ? 1 : 3);
}
