import { describe, expect, it, vi } from "vitest";
import { Histogram, Statistics, Ticker } from "./statistics.js";

describe("Statistics", () => {
  it("counts tickers and histograms when enabled", () => {
    let t = 0;
    const stats = new Statistics({ clock: () => (t += 1000) });
    stats.tick(Ticker.KeysWritten);
    stats.tick(Ticker.KeysWritten, 4);
    expect(stats.getTicker(Ticker.KeysWritten)).toBe(5);
    const t0 = stats.now();
    stats.recordTime(Histogram.MergeNanos, t0, 1, Ticker.MergeTimeNanos);
    const h = stats.histogram(Histogram.MergeNanos);
    expect(h.count).toBe(1);
    expect(h.sum).toBe(1000);
    expect(stats.getTicker(Ticker.MergeTimeNanos)).toBe(1000);
    for (let i = 1; i <= 100; i++) stats.record(Histogram.GetMicros, i);
    const g = stats.histogram(Histogram.GetMicros);
    expect(g.count).toBe(100);
    expect(g.min).toBe(1);
    expect(g.max).toBe(100);
    expect(g.p50).toBeGreaterThanOrEqual(45);
    expect(g.p50).toBeLessThanOrEqual(72);
    expect(stats.toString()).toContain("KeysWritten COUNT : 5");
  });

  it("never reads the clock and never counts when disabled", () => {
    const clock = vi.fn(() => 42);
    const stats = new Statistics({ level: "disabled", clock });
    const t0 = stats.now();
    stats.tick(Ticker.MergeOperations);
    stats.record(Histogram.GetMicros, 5);
    stats.recordTime(Histogram.MergeNanos, t0, 1, Ticker.MergeTimeNanos);
    expect(clock).not.toHaveBeenCalled();
    expect(t0).toBe(0);
    expect(stats.getTicker(Ticker.MergeOperations)).toBe(0);
    expect(stats.histogram(Histogram.GetMicros).count).toBe(0);
  });

  it("keeps counters but reads no clock at except-timers", () => {
    const clock = vi.fn(() => 42);
    const stats = new Statistics({ level: "except-timers", clock });
    stats.tick(Ticker.MergeOperations);
    stats.recordTime(Histogram.MergeNanos, stats.now());
    expect(clock).not.toHaveBeenCalled();
    expect(stats.getTicker(Ticker.MergeOperations)).toBe(1);
    stats.setLevel("all");
    stats.recordTime(Histogram.MergeNanos, stats.now());
    expect(clock).toHaveBeenCalledTimes(2);
    stats.reset();
    expect(stats.getTicker(Ticker.MergeOperations)).toBe(0);
  });
});
