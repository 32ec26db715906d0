import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runWorkload } from "./benchmarks.js";
import type { Engine } from "./engines/engine.js";
import { parseFlags } from "./flags.js";
import { OpClock } from "./op-clock.js";
import { json, line, Progress, parseResult } from "./report.js";
import { bench } from "./test/helpers.js";

/** Keeps the thread busy for `ms` (a synchronous pause, as a flush on the main thread). */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

/**
 * An engine whose put number `slowPut` blocks the thread for `ms`, and whose compact()
 * blocks it for `ms` between two awaits.
 */
function pausingEngine(slowPut: number, ms: number): Engine {
  let puts = 0;
  const no = () => {
    throw new Error("not used by this test");
  };
  return {
    name: "pausing",
    open: async () => [],
    unsupported: () => undefined,
    put: () => {
      if (++puts === slowPut) block(ms);
    },
    delete: no,
    merge: no,
    deleteRange: no,
    write: no,
    get: () => -1,
    getMany: no,
    scan: no,
    seekOnce: no,
    openCursor: no,
    compact: async () => {
      await sleep(2);
      block(ms);
      await sleep(2);
    },
    waitForCompactions: async () => {},
    stats: () => "",
    close: async () => {},
  };
}

function context(engine: Engine, args: string[]) {
  return { flags: parseFlags(args), engine, progress: new Progress() };
}

describe("--max_pause", () => {
  it("sees a pause inside a synchronous loop: the longest gap between two finished ops", async () => {
    const engine = pausingEngine(7, 30);
    const r = await runWorkload(context(engine, ["--num=20", "--max_pause"]), "fillseq");
    expect(r.maxPauseMs).toBeGreaterThanOrEqual(30);
    expect(line(r)).toMatch(/ \(max pause \d+\.\d{3} ms\)$/);
    expect(parseResult(JSON.parse(json(r)) as Record<string, unknown>)).toEqual(r);
    // Off by default: no clock, nothing reported.
    const off = await runWorkload(context(pausingEngine(7, 1), ["--num=20"]), "fillseq");
    expect(off.maxPauseMs).toBeUndefined();
    expect(off.histogram).toBeUndefined();
  });

  it("is the largest histogram entry when both are on (the same gaps, db_bench's FinishedOps)", async () => {
    const r = await runWorkload(
      context(pausingEngine(3, 5), ["--num=50", "--max_pause", "--histogram"]),
      "fillrandom",
    );
    expect(r.histogram!.count).toBe(50);
    expect(r.maxPauseMs! * 1000).toBe(r.histogram!.max);
    expect(r.maxPauseMs).toBeGreaterThanOrEqual(5);
  });

  it("measures an awaited call with the event-loop delay monitor", async () => {
    const r = await runWorkload(context(pausingEngine(0, 40), ["--max_pause"]), "compact");
    expect(r.ops).toBe(1);
    expect(r.maxPauseMs).toBeGreaterThanOrEqual(39);
    const quiet = await runWorkload(context(pausingEngine(0, 0), ["--max_pause"]), "compact");
    expect(quiet.maxPauseMs).toBeGreaterThan(0); // at least one sampling interval
  });

  it("spreads a batched read over its ops in the histogram but counts the whole gap as the pause", () => {
    const clock = new OpClock(new Float64Array(8));
    clock.finished();
    block(4);
    clock.finishedMany(4);
    expect(clock.recorded).toBe(5);
    const l = clock.histogramInput()!;
    expect(l.length).toBe(5);
    expect(l[1]).toBe(l[4]);
    expect(clock.maxGapMs).toBeGreaterThanOrEqual(4);
    expect(clock.maxGapMs * 1000).toBeCloseTo(l[1]! * 4, 6);
    clock.finishedMany(10); // past the array: the pause still counts
    expect(clock.recorded).toBe(8);
  });

  it("reports a pause for every workload of a shale run, in text and JSON", async () => {
    const args = [
      "--benchmarks=fillrandom,readrandom,seekrandom,compact,waitforcompaction",
      "--num=3000",
      "--write_buffer_size=65536",
      "--max_pause",
    ];
    const text = await bench(args);
    const names = text.results("shale").map((r) => r.name);
    expect(names).toEqual(args[0]!.slice("--benchmarks=".length).split(","));
    for (const r of text.results("shale")) {
      if (r.na !== undefined) continue; // a build without the iterator or compactRange
      expect(r.maxPauseMs).toBeGreaterThan(0);
      expect(text.out).toContain(line(r));
    }
    const j = await bench([...args, "--json"]);
    const objects = j.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    const results = objects.filter((o) => "benchmark" in o && !("na" in o));
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const o of results) expect(typeof o.maxPauseMs).toBe("number");
  });
});
