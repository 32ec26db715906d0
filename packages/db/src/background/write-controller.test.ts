/** WriteController: L0 conditions and the memtable throttle, against a fake host. */
import { dataDrivenTests } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import type { BackgroundExecutor } from "./executor.js";
import { StallCondition, type StallHost, WriteController } from "./write-controller.js";

function controller(): WriteController {
  return new WriteController({
    level0SlowdownWritesTrigger: 4,
    level0StopWritesTrigger: 8,
    disableAutoCompactions: false,
  });
}

/**
 * A host whose executor runs `onDrain` at the first drain and has `pending` jobs; each drain
 * records the wait it was asked for (`slices`) and spends it.
 */
function host(
  pending: number,
  onDrain?: () => void,
): StallHost & { drains: number; slices: number[] } {
  const h = {
    drains: 0,
    slices: [] as number[],
    statistics: undefined,
    scheduleCompactions() {},
    failed: () => false,
    executor: {
      get pending() {
        return pending;
      },
      drainCompleted(timeoutMs: number): number {
        h.drains++;
        h.slices.push(timeoutMs);
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

  it("decides from the pending compaction bytes too (soft: Delayed, hard: Stopped; 0: off)", () => {
    const c = new WriteController({
      level0SlowdownWritesTrigger: 4,
      level0StopWritesTrigger: 8,
      disableAutoCompactions: false,
      softPendingCompactionBytesLimit: 1000,
      hardPendingCompactionBytesLimit: 5000,
    });
    const cases: [number, number, StallCondition][] = [
      [0, 999, StallCondition.Normal],
      [0, 1000, StallCondition.Delayed],
      [0, 4999, StallCondition.Delayed],
      [0, 5000, StallCondition.Stopped],
      [8, 0, StallCondition.Stopped],
      [4, 999, StallCondition.Delayed],
      [0, 0, StallCondition.Normal],
    ];
    for (const [l0, pending, want] of cases) {
      c.update(l0, pending);
      expect(c.condition, `${l0} files, ${pending} bytes`).toBe(want);
    }
    const off = new WriteController({
      level0SlowdownWritesTrigger: 4,
      level0StopWritesTrigger: 8,
      disableAutoCompactions: false,
      softPendingCompactionBytesLimit: 0,
      hardPendingCompactionBytesLimit: 0,
    });
    off.update(0, 2 ** 50);
    expect(off.condition).toBe(StallCondition.Normal);
    const noAuto = new WriteController({
      level0SlowdownWritesTrigger: 4,
      level0StopWritesTrigger: 8,
      disableAutoCompactions: true,
      hardPendingCompactionBytesLimit: 1,
    });
    noAuto.update(0, 10);
    expect(noAuto.condition).toBe(StallCondition.Normal);
  });

  it("the memtable throttle lets a writer at or below the rate through without sleeping", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1e9, 0); // a rate no writer reaches
    for (let usage = 0; usage < 1e6; usage += 1e4) c.throttle(usage, 1e12, h);
    expect(h.drains).toBe(0);
    expect(c.counters.memtableThrottleCount).toBe(0);
  });

  it("sleeps off a writer's lead over the rate, at most 5 ms per write", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1000, 0); // 1000 bytes per ms
    // 20 ms ahead at once: this and the next writes (adding nothing) pay it off, each
    // waiting one slice of at most 5 ms, until the lead is under 1 ms.
    c.throttle(20_000, 1e12, h);
    expect(h.slices).toEqual([5]);
    while (h.drains < 1000) {
      const before = h.drains;
      c.throttle(20_000, 1e12, h);
      if (h.drains === before) break; // paid off: the write went through
    }
    expect(h.drains).toBeLessThan(1000);
    expect(h.slices.every((ms) => ms > 0 && ms <= 5)).toBe(true);
    expect(c.counters.memtableThrottleCount).toBe(h.drains);
    expect(c.counters.memtableThrottleMicros).toBeGreaterThan(0);
    expect(c.totalMicros).toBe(c.counters.memtableThrottleMicros);
  });

  it("a finished job taken while sleeping can turn the throttle off", () => {
    const c = controller();
    const h = host(1, () => c.setThrottle(0, 0));
    c.setThrottle(1000, 0);
    c.throttle(1_000_000, 1e12, h); // 1 s ahead
    expect(h.slices).toEqual([5]);
    expect(c.throttling).toBe(false);
  });

  it("slows down as the memtable passes half full", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1000, 0);
    // 0.9 ms of bytes at the base rate: no sleep while the memtable is at most half full...
    c.throttle(900, 2000, h);
    expect(h.drains).toBe(0);
    // ...but 500 more bytes at 95 % full are allowed at 10 % of the rate: 5 ms more.
    c.throttle(1400, 1400 / 0.95, h);
    expect(h.drains).toBe(1);
  });

  it("measures the lead from the usage when the throttle began", () => {
    const c = controller();
    const h = host(1);
    c.setThrottle(1000, 50_000);
    c.throttle(50_500, 1e12, h); // 0.5 ms of bytes since: no sleep
    expect(c.counters.memtableThrottleCount).toBe(0);
  });
});

/**
 * Data-driven (testdata/write-controller/*.txt): `new [slowdown=4] [stop=8] [disabled]`;
 * `update l0=<n>` -> the condition; `delay-for bytes=<n>` -> the whole ms a write of that
 * size sleeps now and the debt left (micros, 3 decimals). Cases run in order on the last
 * controller.
 */
const CONDITION_NAMES = ["Normal", "Delayed", "Stopped"];
dataDrivenTests(new URL("../../testdata/write-controller", import.meta.url), () => {
  let c = controller();
  return (t) => {
    switch (t.cmd) {
      case "new":
        c = new WriteController({
          level0SlowdownWritesTrigger: t.numArg("slowdown", 4),
          level0StopWritesTrigger: t.numArg("stop", 8),
          disableAutoCompactions: t.hasArg("disabled"),
        });
        return CONDITION_NAMES[c.condition]!;
      case "update":
        c.update(t.numArg("l0"));
        return `${CONDITION_NAMES[c.condition]!} (owed ${c.owedMicros.toFixed(3)} µs)`;
      case "delay-for": {
        const ms = c.delayFor(t.numArg("bytes"));
        return `sleep ${ms} ms, owed ${c.owedMicros.toFixed(3)} µs`;
      }
      default:
        return t.fail("unknown command");
    }
  };
});
