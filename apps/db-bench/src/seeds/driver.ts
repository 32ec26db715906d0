/**
 * What the seed experiments share: their command line, running db-bench (the built
 * `dist/main.js`, one process per call, as db_bench runs) with `--json`, medians and tables.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { MAIN_JS } from "../isolate.js";
import { type BenchResult, microsPerOp, parseResult } from "../report.js";

/** A seed's options: their defaults give each its kind (number, boolean, string, number list). */
export type SeedOptions = Record<string, number | boolean | string | number[]>;

export class SeedUsageError extends Error {}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Parses `--name=value` (or `--flag`, `--noflag`) into a copy of `defaults`, whose key
 * `fooBar` is the flag `--foo_bar`. Arguments after `--` are returned as `extra` (flags for
 * every db-bench run).
 */
export function parseSeedArgs<T extends SeedOptions>(
  argv: readonly string[],
  defaults: T,
): { options: T; extra: string[] } {
  const options: SeedOptions = { ...defaults };
  const keys = new Map(Object.keys(defaults).map((k) => [snake(k), k]));
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  for (const arg of own) {
    const m = /^--([a-z0-9_]+)(?:=(.*))?$/.exec(arg);
    if (m === null) throw new SeedUsageError(`unexpected argument "${arg}"`);
    let name = m[1]!;
    let value = m[2];
    if (!keys.has(name) && name.startsWith("no") && value === undefined) {
      const key = keys.get(name.slice(2));
      if (key !== undefined && typeof defaults[key] === "boolean") {
        name = name.slice(2);
        value = "false";
      }
    }
    const key = keys.get(name);
    if (key === undefined)
      throw new SeedUsageError(`unknown option --${name} (known: ${[...keys.keys()].join(", ")})`);
    const d = defaults[key];
    if (typeof d === "boolean") {
      if (value === undefined || value === "true" || value === "1") options[key] = true;
      else if (value === "false" || value === "0") options[key] = false;
      else throw new SeedUsageError(`--${name} must be true or false, not "${value}"`);
      continue;
    }
    if (value === undefined) throw new SeedUsageError(`--${name} needs a value (--${name}=...)`);
    if (typeof d === "number") options[key] = integer(name, value);
    else if (Array.isArray(d))
      options[key] = value
        .split(",")
        .filter((s) => s.length > 0)
        .map((s) => integer(name, s));
    else options[key] = value;
  }
  return { options: options as T, extra: dash < 0 ? [] : argv.slice(dash + 1) };
}

function integer(name: string, text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(n))
    throw new SeedUsageError(`--${name} must be an integer, not "${text}"`);
  return n;
}

/**
 * Runs db-bench once (a child process of its own) with `argv` and `--json`; returns its
 * results. Throws with db-bench's exit code when it fails (its stderr passes through).
 */
export function runDbBench(argv: readonly string[]): BenchResult[] {
  const run = spawnSync(process.execPath, [MAIN_JS, ...argv, "--json"], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (run.error !== undefined) throw run.error;
  if (run.status !== 0)
    throw new Error(`db-bench ${argv.join(" ")} exited with code ${run.status ?? run.signal}`);
  const results: BenchResult[] = [];
  for (const text of run.stdout.split("\n")) {
    if (!text.startsWith("{")) continue;
    const o = JSON.parse(text) as Record<string, unknown>;
    if (typeof o.benchmark === "string") results.push(parseResult(o));
  }
  return results;
}

/** The results named `name`, each checked to have run. */
export function named(results: readonly BenchResult[], name: string): BenchResult[] {
  const out = results.filter((r) => r.name === name);
  for (const r of out) {
    if (r.na !== undefined) throw new Error(`${name} is not available: ${r.na}`);
    if (r.failed !== undefined) throw new Error(`${name} failed: ${r.failed}`);
  }
  return out;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median micros/op of `results`. */
export function medianMicros(results: readonly BenchResult[]): number {
  return median(results.map(microsPerOp));
}

/** `n` times `name`, comma-separated (a --benchmarks list). */
export function repeated(name: string, n: number): string {
  return Array.from({ length: n }, () => name).join(",");
}

/** The machine's load, for the record ("load 0.52 0.80 1.10"). */
export function load(): string {
  return `load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`;
}

/** Rows as a Markdown table (first row the header). */
export function markdownTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  const line = (r: readonly string[]) =>
    `| ${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, c) => "-".repeat(c === 0 ? w + 2 : w + 1) + (c === 0 ? "" : ":")).join("|")}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join("\n");
}

/** Runs a seed's main when its module is the program; usage errors exit with code 2. */
export function runMain(
  moduleUrl: string,
  main: (argv: string[], out: (s: string) => void) => Promise<void>,
): void {
  if (process.argv[1] === undefined || moduleUrl !== new URL(`file://${process.argv[1]}`).href)
    return;
  main(process.argv.slice(2), (s) => process.stdout.write(`${s}\n`)).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e instanceof SeedUsageError ? `usage: ${e.message}` : e);
      process.exit(e instanceof SeedUsageError ? 2 : 1);
    },
  );
}
