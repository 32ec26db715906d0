/**
 * Ribbon filter properties: no false negatives for any key set (empty, one key, duplicates,
 * large), a false-positive rate near the configured one, builder -> reader round trips
 * through both hash storages, RocksDB's reader dispatch for malformed metadata, the policy's
 * Bloom-below-a-level choice and RocksDB's ids. Bit-exactness with RocksDB itself:
 * ribbon-rocksdb.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cacheLocalFpRate } from "./fp-rate.js";
import { hashKey64 } from "./hash.js";
import { BloomFilterPolicy } from "./policy.js";
import { BloomFilterReader } from "./reader.js";
import { RibbonFilterBuilder } from "./ribbon-builder.js";
import { ribbonLayout, ribbonOneInFpRate, ribbonSlotsForKeys } from "./ribbon-config.js";
import { ALWAYS_BLOOM, bitsSuffix, RibbonFilterPolicy } from "./ribbon-policy.js";
import { RibbonFilterReader } from "./ribbon-reader.js";

const enc = new TextEncoder();

describe("RibbonFilterBuilder -> reader", () => {
  it("never a false negative, for any keys (empty, duplicated, any bytes), any setting", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 24 }), { maxLength: 1500 }),
        fc.constantFrom(1, 2.5, 6, 10, 15.5, 24, 50),
        fc.constantFrom("chunked" as const, "doubling" as const),
        (keys, bitsPerKey, hashStorage) => {
          const builder = new RibbonFilterBuilder({ bitsPerKey, hashStorage });
          for (const k of keys) builder.addKey(k);
          const size = builder.estimatedSize();
          const filter = builder.finish();
          expect(filter.length).toBe(size);
          const reader = new BloomFilterReader(filter);
          if (keys.length === 0) expect(reader.kind).toBe("alwaysFalse");
          for (const k of keys) expect(reader.mayMatch(k)).toBe(true);
          expect(builder.numEntries).toBe(0); // finish resets
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a large filter (20k keys, some repeated later): no false negatives, FP rate near 1 % at 10 bits/key", () => {
    const builder = new RibbonFilterBuilder({ bitsPerKey: 10 });
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 20000; i++) keys.push(enc.encode(`user:${i * 7919}`));
    for (const k of keys) builder.addKey(k);
    for (let i = 0; i < 500; i++) builder.addKey(keys[i * 3]!); // not adjacent: kept, redundant
    const filter = builder.finish();
    expect(builder.lastFinish).toBe("ribbon");
    const reader = RibbonFilterReader.open(filter)!;
    for (const k of keys) expect(reader.mayMatch(k)).toBe(true);
    let fp = 0;
    const probes = 100000;
    for (let i = 0; i < probes; i++) if (reader.mayMatch(enc.encode(`other:${i}`))) fp++;
    const target = cacheLocalFpRate(10, 6);
    expect(fp / probes).toBeGreaterThan(target * 0.8);
    expect(fp / probes).toBeLessThan(target * 1.2);
    expect(reader.expectedFpRate).toBeGreaterThan(target * 0.9);
    expect(reader.expectedFpRate).toBeLessThan(target * 1.1);
    // About 30 % less space than Bloom at the same rate.
    expect((filter.length * 8) / 20500).toBeLessThan(7.4);
  });

  it("FP rate follows the setting: about Bloom's at 5, 15 and 20 bits/key", () => {
    for (const bitsPerKey of [5, 15, 20]) {
      const builder = new RibbonFilterBuilder({ bitsPerKey });
      for (let i = 0; i < 8000; i++) builder.addKey(enc.encode(`k${i}`));
      const reader = new BloomFilterReader(builder.finish());
      expect(reader.kind).toBe("ribbon");
      let fp = 0;
      const probes = 200000;
      for (let i = 0; i < probes; i++) if (reader.mayMatch(enc.encode(`p${i}`))) fp++;
      const target = 1 / ribbonOneInFpRate(bitsPerKey);
      expect(Math.abs(fp / probes - target)).toBeLessThan(target * 0.3 + 30 / probes);
    }
  });

  it("consecutive duplicates count once; small sets fall back to the smaller Bloom filter", () => {
    const builder = new RibbonFilterBuilder({ bitsPerKey: 10 });
    for (let i = 0; i < 3; i++) builder.addKey(enc.encode("same"));
    expect(builder.numEntries).toBe(1);
    const filter = builder.finish();
    expect(builder.lastFinish).toBe("bloom");
    expect(new BloomFilterReader(filter).kind).toBe("fastLocalBloom");
    expect(filter.length).toBe(69);
    const empty = builder.finish();
    expect([builder.lastFinish, empty.length]).toEqual(["empty", 5]);
  });

  it("mayMatchHash, mayMatchMany and mayMatchHashes answer as mayMatch", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: 300, maxLength: 800 }),
        (keys) => {
          const builder = new RibbonFilterBuilder();
          for (const k of keys.slice(0, 400)) builder.addKey(k);
          const reader = new BloomFilterReader(builder.finish());
          const out = new Uint8Array(keys.length);
          reader.mayMatchMany(keys, out);
          const hashes = new Uint32Array(2 * keys.length);
          keys.forEach((k, i) => {
            hashKey64(k, hashes, 2 * i);
          });
          const out2 = new Uint8Array(keys.length);
          reader.mayMatchHashes(hashes, keys.length, out2);
          keys.forEach((k, i) => {
            const m = reader.mayMatch(k) ? 1 : 0;
            expect([
              out[i],
              out2[i],
              reader.mayMatchHash(hashes[2 * i]!, hashes[2 * i + 1]!) ? 1 : 0,
            ]).toEqual([m, m, m]);
          });
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe("reading Ribbon metadata as RocksDB does", () => {
  it("fewer than 2 blocks: 'may match' for every key, counted as unsupported", () => {
    const before = BloomFilterReader.unsupportedFilters;
    const filter = new Uint8Array([...new Uint8Array(32), 0xfe, 0, 1, 0, 0]);
    const reader = new BloomFilterReader(filter);
    expect([reader.kind, BloomFilterReader.unsupportedFilters]).toEqual(["alwaysTrue", before + 1]);
    expect(reader.mayMatch(enc.encode("x"))).toBe(true);
  });

  it("any solution bytes and seed: never throws, answers a boolean (layout from the length)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 700 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 2, max: 40 }),
        fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 20 }),
        (solution, seed, numBlocks, keys) => {
          const filter = new Uint8Array(solution.length + 5);
          filter.set(solution);
          filter.set([0xfe, seed, numBlocks, 0, 0], solution.length);
          const reader = new BloomFilterReader(filter);
          if (solution.length === 0) return;
          for (const k of keys) expect(typeof reader.mayMatch(k)).toBe("boolean");
        },
      ),
    );
  });

  it("layout: blocks before upperStartBlock have one column fewer; at most 32 columns", () => {
    expect(ribbonLayout(8, 53 * 16)).toEqual({
      upperNumColumns: 7,
      upperStartBlock: 3,
      numSegments: 53,
    });
    expect(ribbonLayout(2, 100 * 16)).toEqual({
      upperNumColumns: 32,
      upperStartBlock: 0,
      numSegments: 64,
    });
    expect(ribbonSlotsForKeys(1)).toBe(256);
    expect(ribbonSlotsForKeys(1000)).toBe(1024);
  });
});

describe("RibbonFilterPolicy", () => {
  it("Bloom below bloomBeforeLevel (a flush is level -1), Ribbon at and above; unknown = bottommost", () => {
    const p = new RibbonFilterPolicy(10, 0);
    expect(p.usesBloom({ reason: "flush", levelAtCreation: 0 })).toBe(true);
    expect(p.usesBloom({ reason: "compaction", levelAtCreation: 0 })).toBe(false);
    expect(p.usesBloom({})).toBe(false);
    const p2 = new RibbonFilterPolicy(10, 2);
    expect(p2.usesBloom({ reason: "compaction", levelAtCreation: 1 })).toBe(true);
    expect(p2.usesBloom({ reason: "compaction", levelAtCreation: 2 })).toBe(false);
    expect(new RibbonFilterPolicy(10, -1).usesBloom({ reason: "flush" })).toBe(false);
    expect(new RibbonFilterPolicy(10, ALWAYS_BLOOM).usesBloom({})).toBe(true);
    expect(p.newBuilder({ reason: "flush" }).constructor.name).toBe("BloomFilterBuilder");
    expect(p.newBuilder({ levelAtCreation: 3 }).constructor.name).toBe("RibbonFilterBuilder");
  });

  it("RocksDB's names and ids", () => {
    const p = new RibbonFilterPolicy(10, 0);
    expect([p.name, p.compatibilityName, p.id]).toEqual([
      "ribbonfilter",
      "rocksdb.BuiltinBloomFilter",
      "ribbonfilter:10:0",
    ]);
    expect(new RibbonFilterPolicy(7.5, -1).id).toBe("ribbonfilter:7.5:-1");
    expect(new BloomFilterPolicy(10).id).toBe("bloomfilter:10:false");
    expect([bitsSuffix(12.345), bitsSuffix(9.9), bitsSuffix(100)]).toEqual([
      "12.345",
      "9.9",
      "100",
    ]);
  });

  it("refuses bad settings", () => {
    expect(() => new RibbonFilterPolicy(0.5)).toThrow(/bitsPerKey/);
    expect(() => new RibbonFilterPolicy(10, -2)).toThrow(/bloomBeforeLevel/);
    expect(() => new RibbonFilterPolicy(10, 1.5)).toThrow(/bloomBeforeLevel/);
    expect(() => new RibbonFilterPolicy("10" as never)).toThrow(TypeError);
  });
});
