import { ErrorCode, isShaleError, type ShaleError } from "@shale/base";
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

function corruption(f: () => unknown): ShaleError {
  try {
    f();
  } catch (e) {
    if (isShaleError(e, ErrorCode.Corruption)) return e;
    throw e;
  }
  throw new Error("expected a Corruption error");
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

  it("rejects truncated filters as Corruption", () => {
    for (let len = 0; len < 5; len++) {
      const e = corruption(() => new BloomFilterReader(new Uint8Array(len).fill(0xff)));
      expect(e.offset).toBe(0);
    }
    // A filter missing its first byte: valid metadata, but the bit array is 127 bytes.
    const filter = build(randomKeys(3, 100));
    const e = corruption(() => new BloomFilterReader(filter.subarray(1)));
    expect(e.message).toMatch(/whole 64-byte lines/);
  });

  it("rejects unknown markers and bad metadata as Corruption, with file and offset", () => {
    const good = build(randomKeys(4, 100)); // 2 lines: metadata at 128
    const damaged = (at: number, value: number) => {
      const copy = Uint8Array.from(good);
      copy[at] = value;
      return copy;
    };
    const cases: [Uint8Array, number][] = [
      [damaged(128, 0xfe), 128], // Ribbon
      [damaged(128, 6), 128], // legacy Bloom (num_probes in the marker byte)
      [damaged(128, 0x80), 128],
      [damaged(129, 1), 129], // unknown sub-implementation
      [damaged(130, 0), 130], // zero probes
      [damaged(130, 31), 130], // more than 30 probes
      [damaged(130, 0x26), 130], // 128-byte lines (log2 code 1)
      [damaged(131, 1), 131], // reserved
      [damaged(132, 1), 131],
    ];
    for (const [bytes, offset] of cases) {
      const e = corruption(
        () => new BloomFilterReader(bytes, { file: "000007.sst", offset: 1000 }),
      );
      expect([e.file, e.offset]).toEqual(["000007.sst", 1000 + offset]);
    }
    // Bit array not made of whole lines.
    const ragged = new Uint8Array(70);
    ragged.set([0xff, 0, 6, 0, 0], 65);
    corruption(() => new BloomFilterReader(ragged));
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
