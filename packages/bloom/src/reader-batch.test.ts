/**
 * The batched queries (`mayMatchMany`, `mayMatchHashes`) against the single-key ones and a
 * plain reference (BigInt FastRange32, chained early-exit probes), on filters the builder
 * wrote and on arbitrary bit patterns with any probe count.
 */
import { ErrorCode, isShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BloomFilterBuilder } from "./builder.js";
import { hashKey64 } from "./hash.js";
import { BloomFilterReader, QUERY_BATCH } from "./reader.js";
import { hashPair, randomKeys, referenceMayMatch } from "./reference.test-support.js";

/** A filter of `numLines` lines whose bits are set with probability about `density`. */
function patternFilter(bytes: Uint8Array, numLines: number, numProbes: number): Uint8Array {
  const filter = new Uint8Array(numLines * 64 + 5);
  for (let i = 0; i < numLines * 64; i++) filter[i] = bytes[i % bytes.length]!;
  filter.set([0xff, 0, numProbes, 0, 0], numLines * 64);
  return filter;
}

/** Bytes whose bits are each set with probability 1 - 2^-k (k random bytes ORed). */
const denseBytes = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.uint8Array({ minLength: 64, maxLength: 256 }))
  .chain(([k, first]) =>
    fc
      .array(fc.uint8Array({ minLength: first.length, maxLength: first.length }), {
        minLength: k - 1,
        maxLength: k - 1,
      })
      .map((rest) => first.map((b, i) => rest.reduce((acc, r) => acc | r[i]!, b))),
  );

const u32 = fc.integer({ min: 0, max: 0xffffffff });

describe("BloomFilterReader batched queries", () => {
  it("mayMatchHashes and mayMatchHash equal the reference on any bits and probe count", () => {
    fc.assert(
      fc.property(
        denseBytes,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.tuple(u32, u32), { maxLength: 3 * QUERY_BATCH + 5, size: "max" }),
        (bytes, numLines, numProbes, pairs) => {
          const filter = patternFilter(bytes, numLines, numProbes);
          const reader = new BloomFilterReader(filter);
          const n = pairs.length;
          const hashes = new Uint32Array(2 * n + 4).fill(0xdeadbeef);
          pairs.forEach(([lo, hi], i) => {
            hashes.set([lo, hi], 2 * i);
          });
          const out = new Uint8Array(n + 2).fill(7);
          reader.mayMatchHashes(hashes, n, out);
          pairs.forEach(([lo, hi], i) => {
            const expected = referenceMayMatch(filter, lo, hi);
            expect(reader.mayMatchHash(lo, hi)).toBe(expected);
            expect(out[i]).toBe(expected ? 1 : 0);
          });
          expect(Array.from(out.subarray(n))).toEqual([7, 7]); // nothing past count
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the written-out 6-probe query (10 bits/key) equals the reference's chain", () => {
    // probesMatch has its own code for 6 probes; the test above reaches it in 1 run of 30.
    fc.assert(
      fc.property(
        denseBytes,
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(u32, u32), { minLength: 1, maxLength: 40 }),
        (bytes, numLines, pairs) => {
          const filter = patternFilter(bytes, numLines, 6);
          const reader = new BloomFilterReader(filter);
          expect(reader.numProbes).toBe(6);
          const hashes = Uint32Array.from(pairs.flat());
          const out = new Uint8Array(pairs.length);
          reader.mayMatchHashes(hashes, pairs.length, out);
          pairs.forEach(([lo, hi], i) => {
            const expected = referenceMayMatch(filter, lo, hi);
            expect(reader.mayMatchHash(lo, hi)).toBe(expected);
            expect(out[i]).toBe(expected ? 1 : 0);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("mayMatchMany answers exactly as mayMatch on each key, for any batch size", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom(1, 2, 4.5, 10, 20),
        fc.integer({ min: 0, max: 3 * QUERY_BATCH + 7 }),
        (seed, numAdded, bitsPerKey, numQueries) => {
          const keys = randomKeys(seed, numAdded + numQueries, 24);
          const builder = new BloomFilterBuilder({ bitsPerKey });
          for (const k of keys.slice(0, numAdded)) builder.addKey(k);
          const filter = builder.finish();
          const reader = new BloomFilterReader(filter);
          // Queries: every other one a key that was added (when there are any).
          const queries = Array.from({ length: numQueries }, (_, i) =>
            i % 2 === 0 && numAdded > 0 ? keys[i % numAdded]! : keys[numAdded + i]!,
          );
          const out = new Uint8Array(numQueries + 1).fill(9);
          reader.mayMatchMany(queries, out);
          queries.forEach((k, i) => {
            const single = reader.mayMatch(k);
            const [lo, hi] = hashPair(k);
            expect(single).toBe(referenceMayMatch(filter, lo, hi));
            expect(out[i]).toBe(single ? 1 : 0);
            if (i % 2 === 0 && numAdded > 0) expect(single).toBe(true);
          });
          expect(out[numQueries]).toBe(9);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("takes the exact (16-bit halves) line mapping above 2^21 lines, single and batched", () => {
    const numLines = 2 ** 21 + 5; // 128 MiB of bits: FastRange32 from 16-bit halves
    const pattern = new Uint8Array(4093); // prime length: lines differ from one another
    for (let i = 0; i < pattern.length; i++) pattern[i] = (Math.imul(i, 0x9e3779b1) >>> 24) | 0x5b;
    const filter = new Uint8Array(numLines * 64 + 5);
    filter.set(pattern);
    for (let filled = pattern.length; filled < numLines * 64; filled *= 2) {
      filter.copyWithin(filled, 0, Math.min(filled, numLines * 64 - filled));
    }
    filter.set([0xff, 0, 3, 0, 0], numLines * 64);
    const reader = new BloomFilterReader(filter);
    expect(reader.numLines).toBe(numLines);
    const keys = randomKeys(5, 1000, 20);
    const hashes = new Uint32Array(2 * keys.length);
    keys.forEach((k, i) => {
      hashKey64(k, hashes, 2 * i);
    });
    hashes.set([0xffffffff, 0x12345678, 0x80000000, 0xfedcba98], 0); // the extremes
    const batched = new Uint8Array(keys.length);
    reader.mayMatchHashes(hashes, keys.length, batched);
    const many = new Uint8Array(keys.length);
    reader.mayMatchMany(keys, many);
    let positives = 0;
    for (let i = 0; i < keys.length; i++) {
      const expected = referenceMayMatch(filter, hashes[2 * i]!, hashes[2 * i + 1]!);
      expect(reader.mayMatchHash(hashes[2 * i]!, hashes[2 * i + 1]!)).toBe(expected);
      expect(batched[i]).toBe(expected ? 1 : 0);
      if (i >= 2) expect(many[i]).toBe(expected ? 1 : 0);
      if (expected) positives++;
    }
    // Both answers occur, so the comparison above can fail.
    expect(positives).toBeGreaterThan(100);
    expect(positives).toBeLessThan(900);
  });

  it("answers constant filters for the first `count` slots only", () => {
    const empty = new BloomFilterReader(new BloomFilterBuilder().finish());
    const always = new BloomFilterReader(new Uint8Array([1, 2, 3, 0, 0, 0, 0, 0]));
    const hashes = new Uint32Array(2 * 40);
    for (const [reader, answer] of [
      [empty, 0],
      [always, 1],
    ] as const) {
      const out = new Uint8Array(41).fill(5);
      reader.mayMatchHashes(hashes, 40, out);
      expect(out.subarray(0, 40).every((v) => v === answer)).toBe(true);
      expect(out[40]).toBe(5);
      const keys = Array.from({ length: 40 }, (_, i) => new Uint8Array([i]));
      out.fill(5);
      reader.mayMatchMany(keys, out);
      expect(out.subarray(0, 40).every((v) => v === answer)).toBe(true);
      expect(out[40]).toBe(5);
    }
  });

  it("rejects bad batched arguments", () => {
    const b = new BloomFilterBuilder();
    b.addKey(new Uint8Array([1]));
    const reader = new BloomFilterReader(b.finish());
    const hashes = new Uint32Array(8);
    const out = new Uint8Array(4);
    const invalid = (f: () => void) => {
      try {
        f();
      } catch (e) {
        expect(isShaleError(e, ErrorCode.InvalidArgument)).toBe(true);
        return;
      }
      throw new Error("expected InvalidArgument");
    };
    invalid(() => reader.mayMatchHashes(hashes, 5, new Uint8Array(5))); // 10 words needed
    invalid(() => reader.mayMatchHashes(hashes, 4, new Uint8Array(3))); // 4 slots needed
    invalid(() => reader.mayMatchHashes(hashes, 1.5, out));
    invalid(() => reader.mayMatchHashes(hashes, -1, out));
    expect(() => reader.mayMatchHashes([1, 2] as unknown as Uint32Array, 1, out)).toThrow(
      TypeError,
    );
    expect(() => reader.mayMatchHashes(hashes, 1, [0] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => reader.mayMatchMany([], [] as unknown as Uint8Array)).toThrow(TypeError);
    reader.mayMatchHashes(hashes, 0, out); // an empty batch is fine
    reader.mayMatchMany([], new Uint8Array(0));
  });
});
