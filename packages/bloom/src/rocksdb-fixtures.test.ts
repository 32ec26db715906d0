/**
 * Bit-exactness with RocksDB 7.8.3: tables written by rocksdb::SstFileWriter with
 * NewBloomFilterPolicy (testdata/, made by testdata/make-rocksdb-fixtures.cc). The filter
 * @shale/bloom builds from the same keys must be byte for byte the filter block RocksDB wrote.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BloomFilterBuilder } from "./builder.js";
import { hashKey64 } from "./hash.js";
import { BloomFilterReader } from "./reader.js";
import { RibbonFilterBuilder } from "./ribbon-builder.js";
import {
  fixtureKeys,
  fixtureTables,
  legacyReferenceFilter,
  readSstFilter,
  TESTDATA,
  varintValue,
} from "./rocksdb-fixtures.test-support.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

interface BuilderVector {
  formatVersion: number;
  bitsPerKey: number;
  keys: number;
  length: number;
  hash64: string;
  answers: string;
}

const vectors = JSON.parse(readFileSync(new URL("builder-vectors.json", TESTDATA), "utf8")) as {
  filters: BuilderVector[];
  ribbon: { keys: number; filter: string };
};

const enc = new TextEncoder();
const numbered = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => enc.encode(`${prefix}${i}`));
const probes = numbered("q", 2000);

function digest(filter: Uint8Array): string {
  const out = new Uint32Array(2);
  hashKey64(filter, out);
  return out[1]!.toString(16).padStart(8, "0") + out[0]!.toString(16).padStart(8, "0");
}

describe("RocksDB's own filter builder and reader (testdata/builder-vectors.json)", () => {
  it("covers both formats, 15 bits/key settings and three sizes", () => {
    expect(vectors.filters.length).toBe(2 * 15 * 3);
  });

  for (const v of vectors.filters) {
    const name = `format_version ${v.formatVersion}, ${v.bitsPerKey} bits/key, ${v.keys} keys`;
    it(`${name}: the same filter bytes and the same answer for every probe key`, () => {
      const keys = numbered("k", v.keys);
      let filter: Uint8Array;
      if (v.formatVersion >= 5) {
        const builder = new BloomFilterBuilder({ bitsPerKey: v.bitsPerKey });
        for (const key of keys) builder.addKey(key);
        filter = builder.finish();
      } else {
        filter = legacyReferenceFilter(keys, v.bitsPerKey);
      }
      expect(filter.length).toBe(v.length);
      expect(digest(filter)).toBe(v.hash64); // RocksDB's Hash64 of RocksDB's filter
      const reader = new BloomFilterReader(filter);
      const answers = new Uint8Array(probes.length / 8);
      probes.forEach((key, j) => {
        if (reader.mayMatch(key)) answers[j >> 3]! |= 1 << (j & 7);
      });
      expect(hex(answers)).toBe(v.answers);
      for (const key of keys) expect(reader.mayMatch(key)).toBe(true);
    });
  }

  it("RocksDB's 200-key Ribbon filter: read as Ribbon, every key present, RibbonFilterBuilder's bytes", () => {
    const filter = new Uint8Array(Buffer.from(vectors.ribbon.filter, "hex"));
    const reader = new BloomFilterReader(filter);
    expect([reader.kind, reader.unsupported]).toEqual(["ribbon", undefined]);
    for (const key of numbered("k", vectors.ribbon.keys)) expect(reader.mayMatch(key)).toBe(true);
    const builder = new RibbonFilterBuilder({ bitsPerKey: 10 });
    for (const key of numbered("k", vectors.ribbon.keys)) builder.addKey(key);
    expect(hex(builder.finish())).toBe(vectors.ribbon.filter);
  });
});

describe("RocksDB-written full filters", () => {
  for (const table of fixtureTables()) {
    describe(table.file, () => {
      const sst = readSstFilter(new Uint8Array(readFileSync(new URL(table.file, TESTDATA))));
      const keys = fixtureKeys(table.keys);
      const filter = sst.filter!;

      it("has the filter under RocksDB's names and properties", () => {
        expect(filter).toBeDefined();
        expect(sst.metaNames).toContain("fullfilter.rocksdb.BuiltinBloomFilter");
        const policy = sst.properties.get("rocksdb.filter.policy");
        expect(Buffer.from(policy!).toString()).toBe("bloomfilter");
        expect(varintValue(sst.properties.get("rocksdb.filter.size"))).toBe(filter.length);
        expect(varintValue(sst.properties.get("rocksdb.num.filter_entries"))).toBe(keys.length);
      });

      if (table.formatVersion >= 5) {
        it("equals, byte for byte, the filter BloomFilterBuilder makes of the same keys", () => {
          for (const hashStorage of ["chunked", "doubling"] as const) {
            const builder = new BloomFilterBuilder({ bitsPerKey: table.bitsPerKey, hashStorage });
            for (const key of keys) builder.addKey(key);
            expect(hex(builder.finish())).toBe(hex(filter));
          }
        });
      } else {
        it("equals RocksDB's legacy Bloom builder written from its source", () => {
          expect(hex(legacyReferenceFilter(keys, table.bitsPerKey))).toBe(hex(filter));
        });
      }

      it("is read with no false negatives and about the expected false positives", () => {
        const reader = new BloomFilterReader(filter);
        expect(reader.kind).toBe(table.formatVersion >= 5 ? "fastLocalBloom" : "legacyBloom");
        expect(reader.unsupported).toBeUndefined();
        for (const key of keys) expect(reader.mayMatch(key)).toBe(true);
        const out = new Uint8Array(keys.length);
        reader.mayMatchMany(keys, out);
        expect(out.every((x) => x === 1)).toBe(true);
        let fp = 0;
        const probes = 20_000;
        for (let i = 0; i < probes; i++) if (reader.mayMatch(enc.encode(`absent${i}`))) fp++;
        // ~1 % at 10 bits/key, ~3 % at 7.5; a broken hash or probe gives ~100 % or a FN above.
        expect(fp / probes).toBeLessThan(table.bitsPerKey >= 10 ? 0.02 : 0.05);
      });
    });
  }
});
