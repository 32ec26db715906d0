import {
  LookupResult,
  LookupState,
  MAX_SEQ,
  Statistics,
  Ticker,
  toBytes,
  ValueKind,
} from "@shale/base";
import {
  BloomFilterBuilder,
  BloomFilterReader,
  hashKey64,
  legacyBloomHash,
  RibbonFilterBuilder,
} from "@shale/bloom";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MetaBlockName } from "../format/format.js";
import { buildTable, ikey, openTable, tableLayout } from "../table/table.test-support.js";
import { TableReader } from "../table/table-reader.js";
import {
  FilterBlockNames,
  FilterBlockWriter,
  filterMayMatch,
  hashFilterKey,
  openFilterBlock,
} from "./filter-block.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** A legacy Bloom filter (RocksDB format_version < 5) of one 64-byte line, 6 probes. */
function legacyFilter(keys: readonly Uint8Array[]): Uint8Array {
  const filter = new Uint8Array(64 + 5);
  for (const key of keys) {
    let h = legacyBloomHash(key);
    const delta = ((h >>> 17) | (h << 15)) >>> 0;
    for (let p = 0; p < 6; p++) {
      const bit = h & 511;
      filter[bit >> 3]! |= 1 << (bit & 7);
      h = (h + delta) >>> 0;
    }
  }
  filter.set([6, 1, 0, 0, 0], 64);
  return filter;
}

describe("FilterBlockWriter", () => {
  it("writes exactly @shale/bloom's (= RocksDB's) filter of the user keys added", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 30 }),
        (keys, bitsPerKey) => {
          const writer = new FilterBlockWriter(bitsPerKey);
          const builder = new BloomFilterBuilder({ bitsPerKey });
          for (const key of keys) {
            writer.add(key);
            builder.addKey(key);
          }
          expect(writer.numEntries).toBe(builder.numEntries);
          expect(hex(writer.finish()!)).toBe(hex(builder.finish()));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("counts a key repeated by consecutive entries once; gives no block when nothing was added", () => {
    const writer = new FilterBlockWriter(10);
    expect(writer.finish()).toBeUndefined();
    for (const k of ["a", "a", "b", "a"]) writer.add(toBytes(k));
    expect(writer.numEntries).toBe(3);
    const block = writer.finish()!;
    // Worked example of filter-block.ts: 1 line (64 bytes) + ff 00 06 00 00.
    expect(block.length).toBe(69);
    expect(hex(block.subarray(64))).toBe("ff00060000");
    expect(writer.finish()).toBeUndefined(); // reset by finish()
  });

  it("uses RocksDB 7.8.3's names", () => {
    expect(FilterBlockNames.METAINDEX_KEY).toBe("fullfilter.rocksdb.BuiltinBloomFilter");
    expect(FilterBlockNames.POLICY_NAME).toBe("bloomfilter");
  });
});

describe("filterMayMatch", () => {
  const keys = Array.from({ length: 40 }, (_, i) => toBytes(`key${i}`));

  it("answers a FastLocalBloom filter from the precomputed hash", () => {
    const writer = new FilterBlockWriter(10);
    for (const key of keys) writer.add(key);
    const filter = openFilterBlock(writer.finish()!);
    const hash = new Uint32Array(2);
    for (const key of keys) {
      hashFilterKey(key, hash);
      expect(filterMayMatch(filter, key, hash)).toBe(true);
      expect(filterMayMatch(filter, key, undefined)).toBe(true);
    }
    // The hash is what is probed when given: the empty filter says no whatever the key.
    const none = new BloomFilterReader(Uint8Array.of(0xff, 0, 6, 0, 0));
    hashKey64(keys[0]!, hash);
    expect(filterMayMatch(none, keys[0]!, hash)).toBe(false);
  });

  it("answers from the hash exactly as from the key, for hash halves of 2^31 and more (Bloom and Ribbon)", () => {
    // The halves cross into the reader as int32 (no boxed numbers): halves >= 2^31 arrive
    // negative, and the answers must not change.
    const writer = new FilterBlockWriter(10);
    const ribbon = new RibbonFilterBuilder({ bitsPerKey: 10 });
    for (const key of keys) {
      writer.add(key);
      ribbon.addKey(key);
    }
    const filters = [openFilterBlock(writer.finish()!), new BloomFilterReader(ribbon.finish())];
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 24 }), (probe) => {
        const hash = new Uint32Array(2);
        hashFilterKey(probe, hash);
        for (const filter of filters)
          expect(filterMayMatch(filter, probe, hash)).toBe(filter.mayMatch(probe));
      }),
      { numRuns: 2000 },
    );
    const hash = new Uint32Array(2);
    let high = 0;
    for (const key of keys) {
      hashFilterKey(key, hash);
      if (hash[0]! >= 2 ** 31 || hash[1]! >= 2 ** 31) high++;
      for (const filter of filters) expect(filterMayMatch(filter, key, hash)).toBe(true);
    }
    expect(high).toBeGreaterThan(0);
  });

  it("answers a legacy Bloom filter from the key, even when a 64-bit hash is given", () => {
    const filter = openFilterBlock(legacyFilter(keys), "000009.sst", 100) as BloomFilterReader;
    expect(filter.kind).toBe("legacyBloom");
    const hash = new Uint32Array(2);
    let rejected = 0;
    for (const key of keys) {
      hashFilterKey(key, hash);
      expect(filterMayMatch(filter, key, hash)).toBe(true);
    }
    for (let i = 0; i < 200; i++) {
      const key = toBytes(`other${i}`);
      hashFilterKey(key, hash);
      if (!filterMayMatch(filter, key, hash)) rejected++;
    }
    expect(rejected).toBeGreaterThan(0); // the key's own legacy hash was probed
  });
});

describe("the filter block in a table", () => {
  const user = (i: number) => `u${String(i).padStart(4, "0")}`;

  function table(n: number, tombstones = 0) {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < n; i++) {
      // Two versions of every user key: one hash each.
      keys.push(ikey(user(i), 2 * i + 2, ValueKind.Value));
      values.push(toBytes(`v${i}`));
      keys.push(ikey(user(i), 2 * i + 1, ValueKind.Value));
      values.push(toBytes(`w${i}`));
    }
    const ts = Array.from({ length: tombstones }, (_, i) => ({
      start: toBytes(`t${i}`),
      end: toBytes(`t${i}z`),
      seq: 10_000 + i,
    }));
    return buildTable(keys, values, { bitsPerKey: 10, compression: "none" }, ts);
  }

  it("holds the filter of the table's user keys, as RocksDB's builder would make it", () => {
    const t = table(500);
    const layout = tableLayout(t);
    const handle = layout.meta.get(MetaBlockName.FULL_FILTER)!;
    const builder = new BloomFilterBuilder({ bitsPerKey: 10 });
    for (let i = 0; i < 500; i++) builder.addKey(toBytes(user(i)));
    const expected = builder.finish();
    expect(handle.size).toBe(expected.length);
    const bytes = t.fs.readFile(t.path);
    expect(hex(bytes.subarray(handle.offset, handle.offset + handle.size))).toBe(hex(expected));
  });

  it("is left out of a table with no point key (range tombstones only), as RocksDB does", () => {
    const t = table(0, 3);
    const layout = tableLayout(t);
    expect(layout.meta.has(MetaBlockName.FULL_FILTER)).toBe(false);
    expect(layout.meta.has(MetaBlockName.RANGE_DEL)).toBe(true);
    expect(t.properties.filterSize).toBe(0);
    const reader = openTable(t);
    expect(reader.mayContain(toBytes("t0"))).toBe(true);
    reader.close();
  });

  it("finds every key through the filter, with or without the precomputed hash", () => {
    const t = table(300);
    const stats = new Statistics();
    const reader = openTable(t, { statistics: stats });
    const result = new LookupResult();
    const hash = new Uint32Array(2);
    for (let i = 0; i < 300; i++) {
      const key = toBytes(user(i));
      TableReader.hashKey(key, hash);
      for (const keyHash of [hash, undefined]) {
        result.reset();
        reader.get(key, MAX_SEQ, result, undefined, keyHash);
        expect(result.state).toBe(LookupState.Found);
      }
    }
    let useful = 0;
    for (let i = 0; i < 1000; i++) if (!reader.mayContain(toBytes(`absent${i}`))) useful++;
    expect(useful).toBeGreaterThan(960); // ~1 % false positives
    expect(stats.getTicker(Ticker.BloomChecked)).toBe(600);
    reader.close();
  });

  it("an unreadable filter (reserved metadata) is no error and rules nothing out", () => {
    const t = table(100);
    const handle = tableLayout(t).meta.get(MetaBlockName.FULL_FILTER)!;
    const bytes = t.fs.readFile(t.path);
    // Sub-implementation byte 1 (reserved): RocksDB answers "may match" for every key.
    bytes[handle.offset + handle.size - 4] = 1;
    const path = "000002.sst";
    const file = t.fs.openWritable(path);
    file.append(bytes);
    file.sync();
    file.close();
    const damaged = { ...t, path };
    const before = BloomFilterReader.unsupportedFilters;
    const reader = openTable(damaged, { verifyChecksums: false });
    expect(BloomFilterReader.unsupportedFilters).toBe(before + 1);
    const result = new LookupResult();
    for (let i = 0; i < 100; i++) {
      result.reset();
      reader.get(toBytes(user(i)), MAX_SEQ, result);
      expect(result.state).toBe(LookupState.Found);
    }
    for (let i = 0; i < 100; i++) expect(reader.mayContain(toBytes(`absent${i}`))).toBe(true);
    reader.close();
  });
});
