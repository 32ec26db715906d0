import { describe, expect, it } from "vitest";
import type { Engine } from "../engines/engine.js";
import { OpClock } from "../op-clock.js";
import { p99Of, Sampler } from "./sampler.js";

describe("p99Of", () => {
  it("is the 99th percentile of the slice, null for none", () => {
    const l = Float64Array.from({ length: 1000 }, (_, i) => 1000 - i); // 1000 .. 1
    expect(p99Of(l, 0, 1000)).toBe(991);
    expect(p99Of(l, 900, 1000)).toBe(100);
    expect(p99Of(l, 5, 5)).toBeNull();
  });

  it("strides past 20,000 values and stays close", () => {
    const l = Float64Array.from({ length: 200_000 }, (_, i) => i % 1000);
    expect(Math.abs(p99Of(l, 0, l.length)! - 990)).toBeLessThanOrEqual(10);
  });
});

describe("Sampler", () => {
  it("samples at most once an interval, with rate, p99 and the engine's gauges", async () => {
    let l0 = 0;
    const engine = { name: "e", gauges: () => ({ l0Files: l0++ }) } as unknown as Engine;
    const s = new Sampler(5);
    s.beginEngine(engine);
    s.beginWorkload("fill");
    const clock = new OpClock(new Float64Array(100));
    s.watch(clock);
    for (let i = 0; i < 10; i++) clock.finished();
    const t0 = performance.now();
    s.tick(10, 100, t0); // too soon after the start: no sample
    await new Promise((r) => setTimeout(r, 10));
    s.tick(50, 100, performance.now());
    s.endWorkload();
    const [series] = s.series();
    expect(series!.engine).toBe("e");
    expect(series!.samples.map((x) => x.workload)).toEqual(["fill", "fill", "fill"]);
    expect(series!.samples[0]!.opsPerSec).toBeNull(); // the start sample
    expect(series!.samples[1]!.opsPerSec).toBeGreaterThan(0);
    expect(series!.samples[1]!.p99Micros).not.toBeNull();
    expect(series!.samples[2]!.p99Micros).toBeNull(); // no op finished since
    expect(series!.samples.map((x) => x.l0Files)).toEqual([0, 1, 2]);
    expect(series!.samples[0]!.compactionBytes).toBeNull();
    expect(series!.workloads).toEqual([
      { name: "fill", start: expect.any(Number), end: expect.any(Number) },
    ]);
  });
});
