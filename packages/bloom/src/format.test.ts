import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  chooseNumProbes,
  FilterFormat,
  fastRange32,
  filterBytesFor,
  millibitsPerKey,
  numLinesFor,
  writeMetadata,
} from "./format.js";
import { cacheLocalFpRate, estimatedFpRate, fingerprintFpRate, standardFpRate } from "./fp-rate.js";

describe("chooseNumProbes", () => {
  it("follows RocksDB's table at every boundary", () => {
    const table: [number, number][] = [
      [1000, 1],
      [2080, 1],
      [2081, 2],
      [3580, 2],
      [3581, 3],
      [5100, 3],
      [5101, 4],
      [6640, 4],
      [6641, 5],
      [8300, 5],
      [8301, 6],
      [10000, 6],
      [10070, 6],
      [10071, 7],
      [11720, 7],
      [11721, 8],
      [14001, 8],
      [14002, 9],
      [16050, 9],
      [16051, 10],
      [18300, 10],
      [18301, 11],
      [22001, 11],
      [22002, 12],
      [25501, 12],
      [25502, 11], // (25502 - 1) / 2000 - 1 = 11: RocksDB's formula, not monotonic here
      [28000, 12],
      [28001, 13],
      [50000, 23],
      [50001, 24],
      [100000, 24],
    ];
    for (const [millibits, probes] of table)
      expect([millibits, chooseNumProbes(millibits)]).toEqual([millibits, probes]);
  });

  it("maps common bits/key settings", () => {
    expect([5, 8, 10, 12, 16, 20].map((b) => chooseNumProbes(millibitsPerKey(b)))).toEqual([
      3, 5, 6, 8, 9, 11,
    ]);
    expect(millibitsPerKey(9.9996)).toBe(10000);
    expect(millibitsPerKey(10)).toBe(10000);
  });
});

describe("sizing", () => {
  it("uses ceil(n * millibits / 512000) lines, none for zero keys", () => {
    expect(numLinesFor(0, 10000)).toBe(0);
    expect(numLinesFor(1, 10000)).toBe(1);
    expect(numLinesFor(51, 10000)).toBe(1); // 510 bits
    expect(numLinesFor(52, 10000)).toBe(2); // 520 bits
    expect(numLinesFor(256, 2000)).toBe(1); // exactly 512000
    expect(numLinesFor(257, 2000)).toBe(2);
    expect(numLinesFor(6_000_000, 10000)).toBe(117188);
    expect(filterBytesFor(0, 10000)).toBe(5);
    expect(filterBytesFor(3, 10000)).toBe(69);
  });

  it("is RocksDB's roundUp64(ceil(n * millibits / 8000)) bytes, capped at 0xffffffc0", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 27 }),
        fc.integer({ min: 1000, max: 100000 }),
        (n, m) => {
          const raw = Math.min(Math.ceil((n * m) / 8000), 0xffffffc0);
          expect(numLinesFor(n, m) * 64).toBe(Math.ceil(raw / 64) * 64);
        },
      ),
    );
    expect(numLinesFor(2 ** 30, 100000) * 64).toBe(0xffffffc0);
  });

  it("reads bits/key as RocksDB does: int(bitsPerKey * 1000 + 0.500001)", () => {
    expect(millibitsPerKey(10)).toBe(10000);
    expect(millibitsPerKey(7.5)).toBe(7500);
    expect(millibitsPerKey(7.005)).toBe(7005);
    expect(millibitsPerKey(9.9995)).toBe(10000);
    // The nudge: a fraction just below .5 rounds up (Math.round would give 7000).
    expect(millibitsPerKey(7.0004999995)).toBe(7001);
    expect(millibitsPerKey(7.000499998)).toBe(7000);
  });

  it("never under-allocates: lines * 512000 >= n * millibits > (lines - 1) * 512000", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 25 }),
        fc.integer({ min: 1000, max: 100000 }),
        (n, m) => {
          const lines = numLinesFor(n, m);
          expect(lines * 512000).toBeGreaterThanOrEqual(n * m);
          expect((lines - 1) * 512000).toBeLessThan(n * m);
        },
      ),
    );
  });
});

describe("fastRange32", () => {
  const exact = (h: number, n: number) => Number((BigInt(h) * BigInt(n)) >> 32n);

  it("equals floor(h * n / 2^32) computed with BigInt, for any u32 h and n", () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.integer({ min: 1, max: 0xffffffff }), (h, n) => {
        expect(fastRange32(h, n)).toBe(exact(h, n));
      }),
      { numRuns: 2000 },
    );
  });

  it("is exact at the extremes of both branches", () => {
    for (const n of [1, 2, 3, 2 ** 21 - 1, 2 ** 21, 2 ** 21 + 1, 2 ** 31, 0xffffffff]) {
      for (const h of [0, 1, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]) {
        expect(fastRange32(h, n)).toBe(exact(h, n));
      }
    }
    // Negative int32 inputs are taken as unsigned.
    expect(fastRange32(-1, 1000)).toBe(exact(0xffffffff, 1000));
  });
});

describe("writeMetadata", () => {
  it("writes ff 00 probes 00 00 after the bit array", () => {
    const f = new Uint8Array(69).fill(0xaa);
    writeMetadata(f, 64, 6);
    expect(Array.from(f.subarray(64))).toEqual([0xff, 0x00, 0x06, 0x00, 0x00]);
    expect(f[63]).toBe(0xaa);
    expect(FilterFormat.METADATA_BYTES).toBe(5);
  });
});

describe("false-positive math", () => {
  it("gives RocksDB's cache-local estimate: ~0.955 % at 10 bits/key, 6 probes", () => {
    expect(cacheLocalFpRate(10, 6)).toBeCloseTo(0.00955, 4);
    expect(standardFpRate(10, 6)).toBeCloseTo(0.00843, 4);
    expect(cacheLocalFpRate(10, 6)).toBeGreaterThan(standardFpRate(10, 6));
    expect(cacheLocalFpRate(0, 6)).toBe(1);
  });

  it("adds a negligible 64-bit fingerprint term", () => {
    expect(fingerprintFpRate(1_000_000, 64)).toBeLessThan(1e-12);
    expect(fingerprintFpRate(2 ** 40, 32)).toBeCloseTo(1, 6);
    expect(estimatedFpRate(0, 0, 6)).toBe(0);
    expect(estimatedFpRate(200_000, 250_048, 6)).toBeCloseTo(
      cacheLocalFpRate((8 * 250_048) / 200_000, 6),
      10,
    );
  });
});
