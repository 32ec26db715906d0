import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BloomFilterBuilder } from "./builder.js";
import { hashKey64 } from "./hash.js";
import { BloomFilterReader } from "./reader.js";
import { counterKey, hashPair, randomKeys } from "./reference.test-support.js";

function build(keys: readonly Uint8Array[], bitsPerKey = 10): Uint8Array {
  const b = new BloomFilterBuilder({ bitsPerKey });
  for (const k of keys) b.addKey(k);
  return b.finish();
}

describe("BloomFilterReader", () => {
  it("has no false negatives, for any key set and bits/key", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uint8Array({ maxLength: 40 }), {
          maxLength: 300,
          selector: (k) => k.join(","),
        }),
        fc.constantFrom(1, 3, 6.5, 10, 16, 24, 50),
        (keys, bitsPerKey) => {
          const reader = new BloomFilterReader(build(keys, bitsPerKey));
          for (const k of keys) expect(reader.mayMatch(k)).toBe(true);
          const out = new Uint8Array(keys.length);
          reader.mayMatchMany(keys, out);
          expect(out.every((v) => v === 1)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps the false-positive rate within 10 % of theory at 10 bits/key (200k keys)", () => {
    const n = 200_000;
    const builder = new BloomFilterBuilder({ bitsPerKey: 10 });
    for (let i = 0; i < n; i++) builder.addKey(counterKey(i, 0x1234));
    const filter = builder.finish();
    const reader = new BloomFilterReader(filter);
    for (let i = 0; i < n; i += 997) expect(reader.mayMatch(counterKey(i, 0x1234))).toBe(true);
    const queries = 1_000_000;
    let fp = 0;
    for (let i = 0; i < queries; i++) if (reader.mayMatch(counterKey(i | 0x80000000, 0x1234))) fp++;
    const bitsPerKeyStored = ((filter.length - 5) * 8) / n;
    const theory = BloomFilterReader.theoreticalFpRate(bitsPerKeyStored, reader.numProbes);
    const measured = fp / queries;
    expect(theory).toBeCloseTo(0.00955, 4);
    expect(Math.abs(measured - theory) / theory).toBeLessThan(0.1);
  });

  it("answers mayMatchHash / mayMatchMany / mayMatchHashes exactly like mayMatch", () => {
    const keys = randomKeys(11, 2000, 24);
    const reader = new BloomFilterReader(build(keys.slice(0, 1000), 6));
    const out = new Uint8Array(keys.length + 3).fill(9);
    reader.mayMatchMany(keys, out);
    const hashes = new Uint32Array(2 * keys.length);
    for (let i = 0; i < keys.length; i++) hashKey64(keys[i]!, hashes, 2 * i);
    const out2 = new Uint8Array(keys.length);
    reader.mayMatchHashes(hashes, keys.length, out2);
    let positives = 0;
    keys.forEach((k, i) => {
      const single = reader.mayMatch(k);
      const [lo, hi] = hashPair(k);
      expect(reader.mayMatchHash(lo, hi)).toBe(single);
      expect(out[i]).toBe(single ? 1 : 0);
      expect(out2[i]).toBe(single ? 1 : 0);
      if (single) positives++;
    });
    expect(out[keys.length]).toBe(9); // untouched past the batch
    expect(positives).toBeGreaterThanOrEqual(1000);
    expect(positives).toBeLessThan(1100);
  });

  it("works for any byte keys: empty, one byte, long, views into larger buffers", () => {
    const long = new Uint8Array(10_000).map((_, i) => (i * 31) & 0xff);
    const big = new Uint8Array(100).fill(7);
    const view = big.subarray(13, 37);
    const keys = [new Uint8Array(0), new Uint8Array([0]), long, view, Buffer.from("buffer key")];
    const reader = new BloomFilterReader(build(keys));
    for (const k of keys) expect(reader.mayMatch(k)).toBe(true);
    expect(reader.mayMatch(Uint8Array.from(view))).toBe(true); // same bytes, different array
  });

  it("views the filter bytes without copying, at any byte offset", () => {
    const filter = build([counterKey(1, 1), counterKey(2, 1)]);
    const host = new Uint8Array(filter.length + 3);
    host.set(filter, 3);
    const reader = new BloomFilterReader(host.subarray(3));
    expect(reader.data.buffer).toBe(host.buffer);
    expect(reader.mayMatch(counterKey(1, 1))).toBe(true);
    expect([reader.numLines, reader.numProbes]).toEqual([1, 6]);
  });

  it("treats the empty filter (0 keys) as 'no key matches'", () => {
    const reader = new BloomFilterReader(build([]));
    expect(reader.isConstant).toBe(true);
    expect(reader.mayMatch(new Uint8Array(0))).toBe(false);
    expect(reader.mayMatchHash(1, 2)).toBe(false);
    const out = new Uint8Array(2).fill(5);
    reader.mayMatchMany([new Uint8Array(1), new Uint8Array(2)], out);
    expect(Array.from(out)).toEqual([0, 0]);
  });

  it("treats marker 0 as 'always may match', as RocksDB does (a 5-byte filter stays empty)", () => {
    const always = new BloomFilterReader(new Uint8Array([1, 2, 3, 0, 0, 0, 0, 0]));
    expect(always.mayMatch(new Uint8Array([42]))).toBe(true);
    const out = new Uint8Array(1);
    always.mayMatchMany([new Uint8Array(1)], out);
    expect(out[0]).toBe(1);
    expect(new BloomFilterReader(new Uint8Array(5)).mayMatch(new Uint8Array([42]))).toBe(false);
  });

  it("treats filters of at most 5 bytes as 'no key was added', as RocksDB does", () => {
    for (let len = 0; len <= 5; len++) {
      const reader = new BloomFilterReader(new Uint8Array(len).fill(0xff));
      expect([reader.kind, reader.mayMatch(new Uint8Array([1]))]).toEqual(["alwaysFalse", false]);
    }
  });

  it("uses floor(len / 64) lines of a ragged bit array, as RocksDB does", () => {
    const ragged = build([counterKey(1, 1)]); // 64 bytes of bits
    const longer = new Uint8Array(64 + 6 + 5);
    longer.set(ragged.subarray(0, 64));
    longer.set(ragged.subarray(64), 70);
    const reader = new BloomFilterReader(longer);
    expect([reader.kind, reader.numLines]).toEqual(["fastLocalBloom", 1]);
    expect(reader.mayMatch(counterKey(1, 1))).toBe(true);
    // Fewer bytes than one line: nothing to probe, so every key may match.
    const short = new BloomFilterReader(Uint8Array.of(0, 0, 0xff, 0, 6, 0, 0));
    expect([short.kind, short.mayMatch(new Uint8Array(3))]).toEqual(["alwaysTrue", true]);
    expect(short.unsupported).toMatch(/shorter than a line/);
  });

  it("answers 'may match' for every key on metadata it does not implement, and counts it", () => {
    const keys = randomKeys(4, 100);
    const good = build(keys); // 2 lines: metadata at 128
    const damaged = (at: number, value: number) => {
      const copy = Uint8Array.from(good);
      copy[at] = value;
      return copy;
    };
    const cases: [Uint8Array, RegExp][] = [
      // Ribbon marker with 6 blocks is a Ribbon filter (reader.ribbon); with 1 block it is not.
      [
        Uint8Array.from(damaged(128, 0xfe), (b, i) => (i === 130 ? 1 : b)),
        /Ribbon filter with fewer than 2 blocks/,
      ],
      [damaged(128, 6), /legacy Bloom filter of 128 bytes cannot have 1536 lines/],
      [damaged(128, 0x80), /reserved filter marker -128/],
      [damaged(129, 1), /sub-implementation 1/],
      [damaged(130, 0), /probe count 0/],
      [damaged(130, 31), /probe count 31/],
      [damaged(130, 0x26), /line size code 1/], // 128-byte lines
      [damaged(131, 1), /reserved metadata/], // RocksDB: maybe a future seed
      [damaged(132, 1), /reserved metadata/],
    ];
    const absent = randomKeys(5, 200);
    for (const [bytes, why] of cases) {
      const before = BloomFilterReader.unsupportedFilters;
      const reader = new BloomFilterReader(bytes, { file: "000007.sst", offset: 1000 });
      expect(BloomFilterReader.unsupportedFilters).toBe(before + 1);
      expect(reader.kind).toBe("alwaysTrue");
      expect(reader.unsupported).toMatch(why);
      expect(reader.unsupported).toMatch(/\(000007\.sst @ 1128\)/);
      for (const key of [...keys, ...absent]) expect(reader.mayMatch(key)).toBe(true);
      const out = new Uint8Array(absent.length);
      reader.mayMatchMany(absent, out);
      expect(out.every((x) => x === 1)).toBe(true);
    }
    // RocksDB's deliberate zero-probe filter is "always true" too, but not unsupported.
    const before = BloomFilterReader.unsupportedFilters;
    const zeroProbes = new BloomFilterReader(new Uint8Array([1, 2, 3, 0, 0, 0, 0, 0]));
    expect([zeroProbes.kind, zeroProbes.unsupported]).toEqual(["alwaysTrue", undefined]);
    expect(BloomFilterReader.unsupportedFilters).toBe(before);
  });

  it("accepts every valid probe count the metadata can carry", () => {
    for (let probes = 1; probes <= 30; probes++) {
      const f = build([counterKey(1, 1)]);
      f[f.length - 3] = probes;
      expect(new BloomFilterReader(f).numProbes).toBe(probes);
    }
  });

  it("rejects wrong argument types with TypeError", () => {
    const reader = new BloomFilterReader(build([counterKey(1, 1)]));
    expect(() => new BloomFilterReader([1, 2, 3, 4, 5] as unknown as Uint8Array)).toThrow(
      TypeError,
    );
    expect(() => reader.mayMatch("k" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => reader.mayMatchMany(["k" as unknown as Uint8Array], new Uint8Array(1))).toThrow(
      TypeError,
    );
    expect(() => reader.mayMatchMany([new Uint8Array(1)], new Uint8Array(0))).toThrow(/slots/);
  });
});
