/**
 * Fractional bits-per-key settings (RocksDB's millibits): how they are read, named and
 * checked, and that a filter at any setting in [1, 100] never answers "no" for a key it
 * holds and keeps its false-positive rate near RocksDB's estimate.
 */
import { ErrorCode, isShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BloomFilterBuilder } from "./builder.js";
import { checkBitsPerKey, chooseNumProbes, filterBytesFor, millibitsPerKey } from "./format.js";
import { estimatedFpRate } from "./fp-rate.js";
import { BloomFilterPolicy } from "./policy.js";
import { BloomFilterReader } from "./reader.js";
import { counterKey } from "./reference.test-support.js";
import { RibbonFilterPolicy } from "./ribbon-policy.js";

const SALT = 0x1234;
/** Keys never added: the top bit of the counter set (the added ones stay below 2^31). */
const absentKey = (i: number) => counterKey((i | 0x80000000) >>> 0, SALT);

describe("fractional bitsPerKey", () => {
  it("is read to the thousandth and named as RocksDB's GetId() names it", () => {
    const cases: [number, number, number, string][] = [
      // bitsPerKey, millibits, probes, id
      [9.9, 9900, 6, "bloomfilter:9.9:false"],
      [10.5, 10500, 7, "bloomfilter:10.5:false"],
      [7.5, 7500, 5, "bloomfilter:7.5:false"],
      [12.34, 12340, 8, "bloomfilter:12.34:false"],
      [7.0049, 7005, 5, "bloomfilter:7.005:false"],
      [1, 1000, 1, "bloomfilter:1:false"],
      [100, 100000, 24, "bloomfilter:100:false"],
    ];
    for (const [bits, millibits, probes, id] of cases) {
      const policy = new BloomFilterPolicy(bits);
      expect([policy.millibitsPerKey, policy.id]).toEqual([millibits, id]);
      const builder = policy.newBuilder();
      expect([builder.millibitsPerKey, builder.numProbes]).toEqual([millibits, probes]);
    }
    expect(new RibbonFilterPolicy(9.9, -1).id).toBe("ribbonfilter:9.9:-1");
  });

  it("sizes the filter from the millibits: 1000 keys at 9.9 -> ceil(9900000 / 512000) lines", () => {
    const builder = new BloomFilterBuilder({ bitsPerKey: 9.9 });
    for (let i = 0; i < 1000; i++) builder.addKey(counterKey(i, SALT));
    const filter = builder.finish();
    expect(filter.length).toBe(20 * 64 + 5); // 19.34 -> 20 lines
    expect(filter.length).toBe(filterBytesFor(1000, 9900));
    expect(Array.from(filter.subarray(filter.length - 5))).toEqual([0xff, 0, 6, 0, 0]);
    // 10.5 bits/key: 20.5 -> 21 lines and 7 probes.
    const b105 = new BloomFilterBuilder({ bitsPerKey: 10.5 });
    for (let i = 0; i < 1000; i++) b105.addKey(counterKey(i, SALT));
    expect(b105.finish().length).toBe(21 * 64 + 5);
    expect(chooseNumProbes(millibitsPerKey(10.5))).toBe(7);
  });

  it("rejects NaN, infinities, negatives, zero, out-of-range and non-numbers", () => {
    const invalid = (v: unknown) => {
      try {
        checkBitsPerKey(v, "filterPolicy.bitsPerKey");
      } catch (e) {
        if (isShaleError(e, ErrorCode.InvalidArgument)) {
          expect((e as Error).message).toMatch(
            /filterPolicy\.bitsPerKey must be a number in \[1, 100\]/,
          );
          return "InvalidArgument";
        }
        if (e instanceof TypeError) return "TypeError";
        throw e;
      }
      return "ok";
    };
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -10, -0.5]) {
      expect(invalid(v), String(v)).toBe("InvalidArgument");
    }
    for (const v of [0, 0.5, 0.999, 100.001, 1e9, Number.MAX_VALUE]) {
      expect(invalid(v), String(v)).toBe("InvalidArgument");
    }
    for (const v of ["10", null, undefined, 10n, {}, [10]]) {
      expect(invalid(v), String(v)).toBe("TypeError");
    }
    for (const v of [1, 1.0001, 9.9, 10, 99.999, 100]) expect(invalid(v), String(v)).toBe("ok");
    for (const make of [
      (b: number) => new BloomFilterPolicy(b),
      (b: number) => new BloomFilterBuilder({ bitsPerKey: b }),
      (b: number) => new RibbonFilterPolicy(b),
    ]) {
      expect(() => make(Number.NaN)).toThrow(/bitsPerKey must be a number in \[1, 100\]/);
      expect(() => make(-1)).toThrow(/got -1/);
      expect(() => make("9.9" as unknown as number)).toThrow(TypeError);
    }
  });

  it("never answers no for an added key, at any setting in [1, 100]", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 100, noNaN: true }),
        fc.integer({ min: 1, max: 3000 }),
        fc.nat(),
        (bitsPerKey, n, salt) => {
          const builder = new BloomFilterBuilder({ bitsPerKey });
          for (let i = 0; i < n; i++) builder.addKey(counterKey(i, salt));
          const filter = builder.finish();
          expect(filter.length).toBe(filterBytesFor(n, millibitsPerKey(bitsPerKey)));
          const reader = new BloomFilterReader(filter);
          for (let i = 0; i < n; i++) {
            if (!reader.mayMatch(counterKey(i, salt))) {
              throw new Error(`false negative: key ${i} of ${n} at ${bitsPerKey} bits/key`);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps the false-positive rate near RocksDB's estimate at any setting in [1, 24]", () => {
    const n = 20_000;
    const queries = 60_000;
    fc.assert(
      fc.property(fc.double({ min: 1, max: 24, noNaN: true }), (bitsPerKey) => {
        const builder = new BloomFilterBuilder({ bitsPerKey });
        for (let i = 0; i < n; i++) builder.addKey(counterKey(i, SALT));
        const filter = builder.finish();
        const reader = new BloomFilterReader(filter);
        let fp = 0;
        for (let i = 0; i < queries; i++) if (reader.mayMatch(absentKey(i))) fp++;
        const expected = estimatedFpRate(n, filter.length - 5, reader.numProbes);
        const measured = fp / queries;
        // 10 % for the estimate (RocksDB's one-standard-deviation approximation of the
        // crowding of lines), plus 4.5 binomial standard deviations for the sample.
        const tolerance = 0.1 * expected + 4.5 * Math.sqrt((expected * (1 - expected)) / queries);
        expect(
          Math.abs(measured - expected),
          `${bitsPerKey} bits/key: measured ${measured}, estimate ${expected}`,
        ).toBeLessThanOrEqual(tolerance);
      }),
      { numRuns: 25 },
    );
  });
});
