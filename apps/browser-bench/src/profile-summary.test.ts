import { describe, expect, it } from "vitest";
import { type CpuProfile, selfTimes } from "./profile-summary.js";

const frame = (functionName: string, url = "", lineNumber = -1) => ({
  functionName,
  url,
  lineNumber,
});

describe("selfTimes", () => {
  it("charges each sample the time until the next (the file's worked example)", () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("(root)") },
        { id: 2, callFrame: frame("step", "http://127.0.0.1:1/a.js", 9) },
        { id: 3, callFrame: frame("(garbage collector)") },
      ],
      samples: [2, 2, 3, 2],
      timeDeltas: [0, 100, 50, 300],
    };
    expect(selfTimes(profile, 10)).toEqual([
      { name: "(garbage collector)", micros: 300, fraction: 300 / 450 },
      { name: "step a.js:10", micros: 150, fraction: 150 / 450 },
    ]);
    expect(selfTimes(profile, 1).map((s) => s.name)).toEqual(["(garbage collector)"]);
  });

  it("names anonymous functions and sums functions of one name and place", () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("", "x/b.js", 0) },
        { id: 2, callFrame: frame("", "x/b.js", 0) },
        { id: 3, callFrame: frame("next", "x/b.js", 4) },
      ],
      samples: [1, 2, 3],
      timeDeltas: [5, 10, 20],
    };
    expect(selfTimes(profile, 5)).toEqual([
      { name: "(anonymous) b.js:1", micros: 30, fraction: 1 },
    ]);
  });

  it("an empty profile has no time; a sample of no node is an error", () => {
    expect(selfTimes({ nodes: [], samples: [], timeDeltas: [] }, 3)).toEqual([]);
    expect(() => selfTimes({ nodes: [], samples: [7, 7], timeDeltas: [0, 1] }, 3)).toThrow(
      /sample 0 names no node/,
    );
  });
});
