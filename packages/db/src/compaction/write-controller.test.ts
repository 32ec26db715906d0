/** WriteController: L0 conditions and the memtable throttle, against a fake host. */
import { describe, expect, it } from "vitest";
import type { BackgroundExecutor } from "../background/executor.js";
import { StallCondition, type StallHost, WriteController } from "./write-controller.js";

function controller(): WriteController {
  return new WriteController({
    level0SlowdownWritesTrigger: 4,
    level0StopWritesTrigger: 8,
    disableAutoCompactions: false,
  });
}

/** A host whose executor runs `onDrain` at the first drain and has `pending` jobs. */
function host(pending: number, onDrain?: () => void): StallHost & { drains: number } {
  const h = {
    drains: 0,
    statistics: undefined,
    scheduleCompactions() {},
    failed: () => false,
    executor: {
      get pending() {
        return pending;
      },
      drainCompleted(timeoutMs: number): number {
        h.drains++;
        if (onDrain !== undefined) {
          const f = onDrain;
          onDrain = undefined;
          f();
          pending = 0;
          return 1;
        }
        const end = performance.now() + timeoutMs;
        while (performance.now() < end) {}
        return 0;
      },
    } as unknown as BackgroundExecutor,
  };
  return h;
}

describe("WriteController", () => {
  it("decides Normal / Delayed / Stopped from the L0 file count", () => {
    const c = controller();
    c.update(3);
    expect(c.condition).toBe(StallCondition.Normal);
    c.update(4);
    expect(c.condition).toBe(StallCondition.Delayed);
    c.update(8);
    expect(c.condition).toBe(StallCondition.Stopped);
  });

  it("the memtable throttle lets a writer at or below the rate through without sleeping", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1e9, 0); // a rate no writer reaches
    for (let usage = 0; usage < 1e6; usage += 1e4) c.throttle(usage, h);
    expect(h.drains).toBe(0);
    expect(c.counters.memtableThrottleCount).toBe(0);
  });

  it("sleeps off a writer's lead over the rate, in slices that take finished jobs", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1000, 0); // 1000 bytes per ms
    const t0 = performance.now();
    c.throttle(20_000, h); // 20 ms ahead
    const slept = performance.now() - t0;
    expect(slept).toBeGreaterThanOrEqual(19);
    expect(h.drains).toBeGreaterThanOrEqual(4); // slices of at most 5 ms
    expect(c.counters.memtableThrottleCount).toBe(1);
    expect(c.counters.memtableThrottleMicros).toBeGreaterThanOrEqual(19_000);
    expect(c.totalMicros).toBe(c.counters.memtableThrottleMicros);
  });

  it("stops sleeping as soon as a finished job turns the throttle off", () => {
    const c = controller();
    const h = host(1, () => c.setThrottle(0, 0));
    c.setThrottle(1000, 0);
    const t0 = performance.now();
    c.throttle(1_000_000, h); // 1 s ahead
    expect(performance.now() - t0).toBeLessThan(500);
    expect(c.throttling).toBe(false);
    expect(h.drains).toBe(1);
  });

  it("measures the lead from the usage when the throttle began", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1000, 50_000);
    c.throttle(50_500, h); // 0.5 ms of bytes since: no sleep
    expect(c.counters.memtableThrottleCount).toBe(0);
  });
});
