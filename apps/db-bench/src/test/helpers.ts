/** Shared helpers of the smoke tests: run db-bench in-process and read its output back. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { FastRandom } from "../generators.js";
import { type RunSummary, run } from "../main.js";
import type { BenchResult } from "../report.js";

/** db_bench's per-benchmark line. */
export const LINE =
  /^(\S+)\s+:\s+(\d+\.\d{3}) micros\/op (\d+) ops\/sec;(?:\s+(\d+\.\d) MB\/s)?(?: (.*))?$/;
/** A workload the engine lacks. */
export const NA_LINE = /^(\S+)\s+:\s+n\/a \((.+)\)$/;

export interface Bench {
  out: string[];
  summary: RunSummary;
  /** Results of `engine`, in workload order. */
  results(engine: string): BenchResult[];
}

export async function bench(args: string[]): Promise<Bench> {
  const out: string[] = [];
  const summary = await run(args, (s) => out.push(...s.split("\n")));
  return {
    out,
    summary,
    results: (engine) => summary.engines.find((e) => e.engine === engine)!.results,
  };
}

/** Every printed result line parses, one per (non-text) result, in order. */
export function expectParsableLines(b: Bench): void {
  const printed = b.out.filter((l) => LINE.test(l) || NA_LINE.test(l));
  const expected = b.summary.engines.flatMap((e) => e.results.filter((r) => r.text === undefined));
  expect(printed.map((l) => l.split(/\s+:/)[0])).toEqual(expected.map((r) => r.name));
  for (const [i, l] of printed.entries()) {
    const r = expected[i]!;
    if (r.na !== undefined) expect(l).toMatch(NA_LINE);
    else expect(Number(LINE.exec(l)![3])).toBe(Math.round(r.ops / r.seconds));
  }
}

/** "(F of N found...)" of a result. */
export function found(r: BenchResult): [number, number] {
  const m = /\((\d+) of (\d+) (?:seeks )?found/.exec(r.message);
  if (m === null) throw new Error(`no "found" in ${r.name}: ${r.message}`);
  return [Number(m[1]), Number(m[2])];
}

/** "(N entries)" of a scan. */
export function entries(r: BenchResult): number {
  const m = /\((\d+) entries\)/.exec(r.message);
  if (m === null) throw new Error(`no entries in ${r.name}: ${r.message}`);
  return Number(m[1]);
}

/** The key numbers a workload draws: `count` uniform draws in [0, n) with seed `seed`. */
export function draws(seed: number, count: number, n: number): number[] {
  const rnd = new FastRandom(seed);
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(rnd.uniform(n));
  return out;
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "db-bench-test-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Keys readrandom finds after a fillseq with range tombstones (db_bench's schedule: after
 * write number w, when w % every == 0 and w / every <= max, keys [b, b + width) with b
 * drawn uniformly with seed `seed + 7` are deleted; later writes re-create keys).
 */
export function foundAfterTombstones(
  num: number,
  every: number,
  max: number,
  width: number,
  seed: number,
): number {
  const present = new Set<number>();
  const starts = draws(seed + 7, max, num);
  for (let i = 0; i < num; i++) {
    present.add(i);
    const w = i + 1;
    if (w % every === 0 && w / every <= max) {
      const b = starts[w / every - 1]!;
      for (let k = b; k < b + width; k++) present.delete(k);
    }
  }
  return draws(seed + 2, num, num).filter((k) => present.has(k)).length;
}
