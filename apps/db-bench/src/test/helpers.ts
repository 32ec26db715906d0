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
 * Keys readrandom finds after a fill of `num` puts with range tombstones, by db_bench's
 * DoWrite: the fill's key generator gives the key numbers (in order for "seq", uniform with
 * seed `seed + 1` for "random"); after put number w, when x = w - before > 0,
 * x % every == 0 and x / every <= max, the same generator draws b and keys [b, b + width)
 * are deleted (later puts re-create keys).
 */
export function foundAfterTombstones(
  order: "seq" | "random",
  t: { num: number; every: number; max: number; width: number; seed: number; before?: number },
): number {
  const rnd = new FastRandom(t.seed + 1);
  let following = 0;
  const next = () => (order === "seq" ? following++ : rnd.uniform(t.num));
  const present = new Set<number>();
  for (let w = 1; w <= t.num; w++) {
    present.add(next());
    const x = w - (t.before ?? 0);
    if (t.every > 0 && x > 0 && x % t.every === 0 && x / t.every <= t.max) {
      const b = next();
      for (let k = b; k < b + t.width; k++) present.delete(k);
    }
  }
  return draws(t.seed + 2, t.num, t.num).filter((k) => present.has(k)).length;
}
