/**
 * What every component bench measures with: CPU time, medians and spreads, memory after a
 * full collection, and the installed version of each contender.
 *
 * CPU time is the process's user + system time (the garbage collector's threads count too):
 * on a machine shared with other work it is far steadier than the wall clock, which also
 * counts the time the process waits for a core.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** CPU time of this process in ns. */
export function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** The median (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/** Three significant-ish digits: 1234, 56.7, 8.90. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return "-";
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** `median (min-max)` of samples. */
export function withSpread(xs: readonly number[], format: (x: number) => string = fmt): string {
  if (xs.length === 0) return "-";
  if (xs.length === 1) return format(xs[0]!);
  return `${format(median(xs))} (${format(Math.min(...xs))}-${format(Math.max(...xs))})`;
}

/** `globalThis.gc` when node runs with --expose-gc. */
export const gc = (globalThis as { gc?: () => void }).gc;

/**
 * V8 heap plus ArrayBuffer bytes in use after full collections (needs --expose-gc), read until
 * two readings a moment apart agree: optimised code compiled on a background thread lands on
 * the heap whenever the main thread next checks for it, hundreds of KB at a time, and one
 * reading taken before such a landing and one after would charge it to what is measured.
 */
export function heapBytes(): number {
  let last = -1;
  for (let tries = 0; tries < 20; tries++) {
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    const now = m.heapUsed + m.arrayBuffers;
    if (now === last) return now;
    last = now;
    spin(2);
  }
  return last;
}

/** Runs for `ms` milliseconds of calls, in which pending compilations are installed. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x = (x + Math.sqrt(x + 1)) % 1e6;
  sink.value = x;
}

/** Where `spin` leaves its result, so that no compiler drops the loop. */
const sink = { value: 0 };

const require = createRequire(import.meta.url);

/**
 * The installed version of package `name`: its package.json found upwards from its resolved
 * entry point (some packages' `exports` do not expose their package file).
 */
export function versionOf(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (json.name === name) return json.version ?? "?";
    } catch {
      // no package.json at this level
    }
    const up = dirname(dir);
    if (up === dir) return "?";
    dir = up;
  }
}

/** A rotating order: round r runs contender (j + r) mod n at position j. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  const out: T[] = [];
  for (let j = 0; j < items.length; j++) out.push(items[(j + round) % items.length]!);
  return out;
}

/** Writes one line of output. */
export type Write = (line: string) => void;
