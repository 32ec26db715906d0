/**
 * Pause tracing: with `SHALE_TRACE_PAUSES=<ms>` in the environment, every traced
 * synchronous step of the main thread that takes at least that long is printed to stderr as
 * it ends — what a writer waits on (memtable switch, WAL roll, stalls), what a finished
 * background job costs the thread that installs it (the version edit, the MANIFEST write and
 * sync, obsolete-file scheduling, the next job's start). A diagnosis aid for the longest
 * pause of a fill (db-bench `--max_pause` prints its gaps above the same threshold on the
 * same clock, so the two line up).
 *
 * Line format (`t` is `performance.now()` at the step's start, ms; nested steps are
 * indented one level per enclosing step, and print before it, since they end first):
 * ```
 *   [shale pause] t=12034.5 ms    manifest sync 41.2 ms
 *   [shale pause] t=12034.1 ms  flush install 42.0 ms (L0 files 5)
 * ```
 *
 * Off (the default) it costs one branch on a constant per traced step:
 * `const t0 = tracingPauses ? pauseStart() : 0; ...; if (tracingPauses) pauseEnd(t0, "...")`.
 *
 * Threading: main thread only (each worker has its own module instance, never traced).
 */

/**
 * SHALE_TRACE_PAUSES as a number of ms, 0 when unset or not a positive number. Read as
 * @shale/base reads SHALE_INVARIANTS: only through `globalThis`, never throwing, never asking
 * Deno for a permission (only when already granted), never in a browser.
 */
function threshold(): number {
  const g = globalThis as {
    Deno?: {
      permissions?: { querySync?(d: { name: "env"; variable: string }): { state: string } };
    };
    process?: { env?: Record<string, string | undefined> };
  };
  try {
    const name = "SHALE_TRACE_PAUSES";
    if (g.Deno !== undefined) {
      const status = g.Deno.permissions?.querySync?.({ name: "env", variable: name });
      if (status?.state !== "granted") return 0;
    }
    const ms = Number(g.process?.env?.[name] ?? "");
    return Number.isFinite(ms) && ms > 0 ? ms : 0;
  } catch {
    return 0;
  }
}

/** The threshold in ms (0 = off). */
export const pauseTraceMs: number = threshold();
/** True when pause tracing is on. */
export const tracingPauses: boolean = pauseTraceMs > 0;

let depth = 0;

/** Starts a traced step; returns its start for `pauseEnd`. */
export function pauseStart(): number {
  depth++;
  return performance.now();
}

/**
 * Ends the step started at `t0`: prints it if it took at least the threshold. `detail` adds
 * context (called only when the line is printed).
 */
export function pauseEnd(t0: number, label: string, detail?: () => string): void {
  if (depth > 0) depth--;
  const ms = performance.now() - t0;
  if (ms < pauseTraceMs) return;
  const extra = detail === undefined ? "" : ` (${detail()})`;
  console.error(
    `[shale pause] t=${t0.toFixed(1)} ms ${"  ".repeat(depth)}${label} ${ms.toFixed(1)} ms${extra}`,
  );
}
