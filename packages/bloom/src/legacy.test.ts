import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { legacyGeometry } from "./legacy.js";
import { legacyBloomHash } from "./legacy-hash.js";
import { BloomFilterReader } from "./reader.js";
import { randomKeys } from "./reference.test-support.js";
import { legacyReferenceFilter } from "./rocksdb-fixtures.test-support.js";

describe("legacy Bloom filters (format_version < 5), read-only", () => {
  it("worked bytes: 3 keys at 10 bits/key are one 64-byte line, then 06 01 00 00 00", () => {
    const enc = new TextEncoder();
    const keys = ["a", "b", "c"].map((s) => enc.encode(s));
    const filter = legacyReferenceFilter(keys, 10);
    // totalBits = 30 -> 1 line (odd) -> 64 bytes; numProbes floor(10 * 0.69) = 6.
    expect(filter.length).toBe(69);
    expect(Array.from(filter.subarray(64))).toEqual([6, 1, 0, 0, 0]);
    // Key "a": h = BloomHash("a"); probe j sets bit (h + j * rotr(h, 17)) & 511.
    const h = legacyBloomHash(keys[0]!);
    const delta = ((h >>> 17) | (h << 15)) >>> 0;
    for (let j = 0, g = h; j < 6; j++, g = (g + delta) >>> 0) {
      const bit = g & 511;
      expect(filter[bit >> 3]! & (1 << (bit & 7))).not.toBe(0);
    }
    const reader = new BloomFilterReader(filter);
    expect([reader.kind, reader.numProbes, reader.usesHashKey64]).toEqual([
      "legacyBloom",
      6,
      false,
    ]);
  });

  it("has no false negatives for any keys, bits/key and line size (as on other CPUs)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 5, max: 8 }),
        fc.nat(),
        (n, bitsPerKey, log2LineBytes, seed) => {
          const keys = randomKeys(seed, n);
          const reader = new BloomFilterReader(
            legacyReferenceFilter(keys, bitsPerKey, log2LineBytes),
          );
          expect(reader.kind).toBe("legacyBloom");
          for (const key of keys) expect(reader.mayMatch(key)).toBe(true);
          const out = new Uint8Array(keys.length);
          reader.mayMatchMany(keys, out);
          expect(out.every((x) => x === 1)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps the false-positive rate near RocksDB's legacy estimate (~1.2 % at 10 bits/key)", () => {
    const keys = randomKeys(11, 20_000);
    const reader = new BloomFilterReader(legacyReferenceFilter(keys, 10));
    const absent = randomKeys(12, 40_000, 40).filter((k) => k.length > 32);
    let fp = 0;
    for (const key of absent) if (reader.mayMatch(key)) fp++;
    const rate = fp / absent.length;
    expect(rate).toBeGreaterThan(0.006);
    expect(rate).toBeLessThan(0.02);
  });

  it("cannot answer from a 64-bit hash: mayMatchHash / mayMatchHashes say 'may match'", () => {
    const keys = randomKeys(13, 50);
    const reader = new BloomFilterReader(legacyReferenceFilter(keys, 10));
    expect(reader.mayMatchHash(1, 2)).toBe(true);
    const out = new Uint8Array(3);
    reader.mayMatchHashes(new Uint32Array(6), 3, out);
    expect(Array.from(out)).toEqual([1, 1, 1]);
  });

  it("derives the line size from the metadata, as RocksDB does, or gives up safely", () => {
    expect(legacyGeometry(21 * 64, 21)).toEqual({ numLines: 21, log2LineBytes: 6 });
    expect(legacyGeometry(21 * 128, 21)).toEqual({ numLines: 21, log2LineBytes: 7 });
    expect(legacyGeometry(21 * 32, 21)).toEqual({ numLines: 21, log2LineBytes: 5 });
    expect(legacyGeometry(21 * 96, 21)).toBeUndefined(); // not a power of two
    expect(legacyGeometry(100, 21)).toBeUndefined(); // no whole line size
    expect(legacyGeometry(64, 0)).toBeUndefined();
    const filter = legacyReferenceFilter(randomKeys(14, 30), 10);
    filter[filter.length - 4] = 3; // 3 lines cannot fill 64 bytes
    const reader = new BloomFilterReader(filter);
    expect([reader.kind, reader.mayMatch(new Uint8Array(1))]).toEqual(["alwaysTrue", true]);
  });
});
