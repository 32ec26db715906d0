import { describe, expect, it, vi } from "vitest";
import { Progress, progressBar } from "./report.js";

describe("progressBar", () => {
  it("draws the bar to the terminal's width, with rate and ETA", () => {
    const line = progressBar({
      label: "shale fillseq",
      done: 250_000,
      total: 1_000_000,
      elapsedSeconds: 2,
      columns: 100,
    });
    expect(line).toMatch(
      /^shale fillseq \[█+░+\] {2}25\.0% 250000\/1000000 ops 125000 ops\/s ETA 0:06$/,
    );
    expect(line.length).toBe(100 - 1); // one column spare: a full line would wrap
    expect((line.match(/█/g) ?? []).length).toBe(
      Math.round(0.25 * (line.match(/[█░]/g) ?? []).length),
    );
    expect(
      progressBar({ label: "x", done: 0, total: 10, elapsedSeconds: 0, columns: 20 }),
    ).toContain("ETA --");
    expect(
      progressBar({ label: "x", done: 1, total: 7200, elapsedSeconds: 1, columns: 200 }),
    ).toContain("ETA 1:59:59");
  });
});

describe("Progress", () => {
  it("redraws the bar on a terminal once a workload has run 2 s, and clears it at the end", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const writes: string[] = [];
      const p = new Progress({ isTTY: true, columns: 80, write: (s) => writes.push(s) });
      p.start("shale fillseq");
      p.tick(10, 100);
      expect(writes).toEqual([]);
      vi.advanceTimersByTime(2500);
      p.tick(50, 100);
      expect(writes.length).toBe(1);
      expect(writes[0]!.startsWith("\r") && writes[0]!.endsWith("\x1b[K")).toBe(true);
      expect(writes[0]!.slice(1, -3)).toMatch(
        /^shale fillseq \[█+░+\] {2}50\.0% 50\/100 ops \d+ ops\/s ETA 0:0\d$/,
      );
      p.tick(60, 100); // within 250 ms: not redrawn
      expect(writes.length).toBe(1);
      p.done();
      expect(writes[1]).toBe("\r\x1b[K");
    } finally {
      vi.useRealTimers();
    }
  });

  it("writes nothing when the stream is not a terminal", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const writes: string[] = [];
      const p = new Progress({ isTTY: false, write: (s) => writes.push(s) });
      p.start("shale fillseq");
      vi.advanceTimersByTime(5000);
      p.tick(50, 100);
      p.done();
      expect(writes).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
