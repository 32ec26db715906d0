import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { benchKey, checkScanBytes, medianRatio, ROW_BYTES, randomIndexes } from "./workloads.js";

describe("browser-bench workloads", () => {
  it("keys are 16 digits and sort as their indexes", () => {
    expect(benchKey(42)).toBe("0000000000000042");
    fc.assert(
      fc.property(fc.nat(1e9), fc.nat(1e9), (a, b) => {
        expect(Math.sign(benchKey(a).localeCompare(benchKey(b)))).toBe(Math.sign(a - b));
      }),
    );
  });

  it("random indexes stay in range and repeat for a seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.nat(), (n, seed) => {
        const a = randomIndexes(200, n, seed);
        expect(a.every((i) => i < n)).toBe(true);
        expect(randomIndexes(200, n, seed)).toEqual(a);
      }),
    );
  });

  it("a copy scan must have copied every row's key and value", () => {
    expect(ROW_BYTES).toBe(116);
    expect(() => checkScanBytes("shale", 3, 3 * 116)).not.toThrow();
    expect(() => checkScanBytes("shale", 0, 0)).not.toThrow();
    expect(() => checkScanBytes("sqlite-sahpool", 3, 3 * 100)).toThrow(
      /copied 300 bytes for 3 rows/,
    );
    expect(() => checkScanBytes("shale", 2, 3 * 116)).toThrow(/not 232/);
  });

  it("the median of per-round ratios", () => {
    expect(medianRatio([2, 4, 9], [1, 1, 3])).toBe(3);
    expect(medianRatio([1, 2], [1, 1])).toBe(1.5);
    expect(() => medianRatio([1], [])).toThrow(RangeError);
  });
});
