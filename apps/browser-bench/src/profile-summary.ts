/**
 * Where a CPU profile's time went: the self time of each function (by name and place) in a
 * V8 CPU profile (the `Profiler.Profile` that the DevTools protocol returns, saved as a
 * `.cpuprofile`), largest first. V8 marks the time it spends outside script with names in
 * parentheses: `(garbage collector)`, `(program)` (the engine itself: compiling, runtime),
 * `(idle)`.
 *
 * Each sample is charged the time until the next one (the protocol's `timeDeltas[i + 1]`),
 * as DevTools does; the last sample, with nothing after it, is charged nothing.
 *
 * ```
 *   nodes  1 (root)  2 step a.js:10  3 (garbage collector)
 *   samples   [2, 2, 3, 2]   timeDeltas [0, 100, 50, 300]   (microseconds)
 *   -> step a.js:10  100 + 50 = 150 µs; (garbage collector) 300 µs
 * ```
 */

/** The parts of `Profiler.Profile` read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

/** One function's share of a profile. */
export interface SelfTime {
  /** `name file:line` (the file's last path segment; line 1-based). */
  name: string;
  micros: number;
  /** Of the time the samples cover. */
  fraction: number;
}

/** The `top` functions by self time, largest first. */
export function selfTimes(profile: CpuProfile, top: number): SelfTime[] {
  const names = new Map<number, string>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const file = f.url.slice(f.url.lastIndexOf("/") + 1);
    names.set(
      node.id,
      file === ""
        ? f.functionName || "(anonymous)"
        : `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`,
    );
  }
  const micros = new Map<string, number>();
  let total = 0;
  for (let i = 0; i + 1 < profile.samples.length; i++) {
    const name = names.get(profile.samples[i]!);
    if (name === undefined) throw new Error(`profile sample ${i} names no node`);
    const dt = profile.timeDeltas[i + 1]!;
    micros.set(name, (micros.get(name) ?? 0) + dt);
    total += dt;
  }
  return [...micros]
    .map(([name, m]) => ({ name, micros: m, fraction: total > 0 ? m / total : 0 }))
    .sort((a, b) => b.micros - a.micros || (a.name < b.name ? -1 : 1))
    .slice(0, top);
}
