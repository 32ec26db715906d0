/**
 * --isolate: each engine runs in a child process of its own (this program, built, with
 * `--json --engines=<one>`), so each engine's peak RSS is its own. The parent reads the
 * children's JSON lines back into the same events an in-process run produces.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { defaultFlags, FLAG_SPECS, type Flags } from "./flags.js";
import type { EngineSeries } from "./report/sampler.js";
import { parseResult } from "./report.js";
import { engineDir, type RunEvents } from "./runner.js";

/** The built entry point (from src/ and from dist/ alike). */
export const MAIN_JS = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** `flags` as argv: every flag that differs from its default, as --name=value. */
export function flagsToArgv(flags: Flags): string[] {
  const defaults = defaultFlags() as unknown as Record<string, unknown>;
  const values = flags as unknown as Record<string, unknown>;
  const argv: string[] = [];
  for (const [name, spec] of Object.entries(FLAG_SPECS)) {
    const v = values[spec.key];
    const d = defaults[spec.key];
    const text = Array.isArray(v) ? v.join(",") : String(v);
    const dtext = Array.isArray(d) ? d.join(",") : String(d);
    if (v === undefined || text === dtext) continue;
    argv.push(`--${name}=${text}`);
  }
  return argv;
}

/** Runs each engine in a child; returns the failures ("engine: message"). */
export async function runIsolated(
  flags: Flags,
  events: RunEvents,
  peakRss: (engine: string, bytes: number) => void,
): Promise<string[]> {
  const failures: string[] = [];
  for (const engine of flags.engines) {
    const child: Flags = {
      ...flags,
      engines: [engine],
      isolate: false,
      json: true,
      // --report: the parent writes the page; the child sends its time series.
      report: undefined,
      reportSamples: flags.report !== undefined || flags.reportSamples,
      db: flags.db === undefined ? undefined : engineDir(flags, flags.db, engine),
    };
    let reported = 0;
    let failed = false;
    const counting: RunEvents = {
      engineStart: (e, notes) => events.engineStart(e, notes),
      samples: (series) => events.samples?.(series),
      result: (r) => {
        reported++;
        if (r.failed !== undefined) failed = true;
        events.result(r);
      },
    };
    let code: number;
    try {
      code = await runChild(engine, flagsToArgv(child), counting, peakRss);
    } catch (e) {
      code = -1;
      failures.push(`${engine}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (code === 0) continue;
    // The child reports its own failures; a crash leaves workloads unreported.
    if (reported === 0) events.engineStart(engine, []);
    for (const name of flags.benchmarks.slice(reported)) {
      const why = `the engine's process exited with code ${code}`;
      counting.result({ name, engine, ops: 0, seconds: 0, bytes: 0, message: "", failed: why });
    }
    if (failed || code !== -1) failures.push(`${engine}: its process exited with code ${code}`);
  }
  return failures;
}

/** Runs one child to its end; resolves with its exit code. */
function runChild(
  engine: string,
  argv: string[],
  events: RunEvents,
  peakRss: (engine: string, bytes: number) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [MAIN_JS, ...argv], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let failure: Error | undefined;
    const lines = createInterface({ input: proc.stdout });
    lines.on("line", (text) => {
      if (failure !== undefined) return;
      try {
        const o = JSON.parse(text) as Record<string, unknown>;
        if (Array.isArray(o.notes)) events.engineStart(engine, o.notes.map(String));
        else if (typeof o.benchmark === "string") events.result(parseResult(o));
        else if (typeof o.reportSeries === "object" && o.reportSeries !== null)
          events.samples?.(o.reportSeries as EngineSeries);
        else if (typeof o.peakRssBytes === "number" && o.engine === undefined)
          peakRss(engine, o.peakRssBytes);
      } catch (e) {
        failure = e instanceof Error ? e : new Error(String(e));
      }
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (failure !== undefined) reject(failure);
      else resolve(code ?? 1);
    });
  });
}
