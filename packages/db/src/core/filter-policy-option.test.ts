import { MemoryFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  filterPolicyId,
  filterPolicyOf,
  resolveFilterPolicyOption,
} from "./filter-policy-option.js";

describe("filterPolicy option and the OPTIONS file's filter_policy", () => {
  it("writes RocksDB's GetId() strings", () => {
    expect(filterPolicyId(resolveFilterPolicyOption({ type: "ribbon", bitsPerKey: 10 }))).toBe(
      "ribbonfilter:10:0",
    );
    expect(
      filterPolicyId(
        resolveFilterPolicyOption({ type: "ribbon", bitsPerKey: 7.5, bloomBeforeLevel: -1 }),
      ),
    ).toBe("ribbonfilter:7.5:-1");
    expect(filterPolicyId(resolveFilterPolicyOption({ type: "bloom", bitsPerKey: 10 }))).toBe(
      "bloomfilter:10:false",
    );
    expect(filterPolicyId(undefined)).toBe("nullptr");
  });

  it("reads every form RocksDB writes or accepts, and round-trips its own", () => {
    const ribbon = (bitsPerKey: number, bloomBeforeLevel: number) => ({
      type: "ribbon",
      bitsPerKey,
      bloomBeforeLevel,
    });
    const bloom = (bitsPerKey: number) => ({ type: "bloom", bitsPerKey, bloomBeforeLevel: 0 });
    expect(filterPolicyOf("ribbonfilter:10:0")).toEqual(ribbon(10, 0));
    expect(filterPolicyOf("ribbonfilter:10")).toEqual(ribbon(10, 0));
    expect(filterPolicyOf("ribbonfilter:10:-1")).toEqual(ribbon(10, -1));
    expect(filterPolicyOf("rocksdb.RibbonFilter:12.5:3")).toEqual(ribbon(12.5, 3));
    expect(filterPolicyOf("{id=ribbonfilter:10:0;bloom_before_level=2}")).toEqual(ribbon(10, 2));
    expect(filterPolicyOf("bloomfilter:10:false")).toEqual(bloom(10));
    expect(filterPolicyOf("bloomfilter:7.5")).toEqual(bloom(7.5));
    expect(filterPolicyOf("rocksdb.BloomFilter:10")).toEqual(bloom(10));
    for (const none of ["nullptr", "", undefined, "rocksdb.BuiltinBloomFilter", "my.Custom:3"]) {
      expect(filterPolicyOf(none)).toBeUndefined();
    }
    for (const o of [
      { type: "ribbon" as const, bitsPerKey: 9.9, bloomBeforeLevel: 1 },
      { type: "bloom" as const, bitsPerKey: 12, bloomBeforeLevel: 0 },
    ]) {
      expect(filterPolicyOf(filterPolicyId(o))).toEqual(o);
    }
  });

  it("validates the option", () => {
    expect(() => resolveFilterPolicyOption(null)).toThrow(TypeError);
    expect(() => resolveFilterPolicyOption({ type: "bloom", bloomBeforeLevel: 1 })).toThrow(
      /ribbon/,
    );
    expect(() => resolveFilterPolicyOption({ type: "ribbon", bits: 10 })).toThrow(/unknown field/);
    expect(() => resolveFilterPolicyOption({ type: "ribbon", bitsPerKey: "10" })).toThrow(
      TypeError,
    );
    expect(() => resolveFilterPolicyOption({ type: "ribbon", bloomBeforeLevel: -2 })).toThrow(
      /bloomBeforeLevel/,
    );
  });

  it("takes fractional bits per key for Bloom and Ribbon, recorded to the thousandth", () => {
    const bloom = resolveFilterPolicyOption({ type: "bloom", bitsPerKey: 9.9 });
    expect(bloom).toEqual({ type: "bloom", bitsPerKey: 9.9, bloomBeforeLevel: 0 });
    expect(filterPolicyId(bloom)).toBe("bloomfilter:9.9:false");
    expect(filterPolicyId(resolveFilterPolicyOption({ type: "bloom", bitsPerKey: 7.0049 }))).toBe(
      "bloomfilter:7.005:false",
    );
    expect(filterPolicyOf("bloomfilter:9.9:false")).toEqual(bloom);
    // Every setting RocksDB can write (whole millibits) reads back as itself.
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 100000 }),
        fc.constantFrom("bloom" as const, "ribbon" as const),
        (millibits, type) => {
          const o = resolveFilterPolicyOption({ type, bitsPerKey: millibits / 1000 });
          expect(filterPolicyOf(filterPolicyId(o))).toEqual(o);
        },
      ),
    );
  });

  it("refuses NaN, infinities, negatives and out-of-range bits per key, naming the option", () => {
    for (const bits of [Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 0.5, 100.5, 1e6]) {
      for (const type of ["bloom", "ribbon"]) {
        expect(() => resolveFilterPolicyOption({ type, bitsPerKey: bits }), String(bits)).toThrow(
          /filterPolicy\.bitsPerKey must be a number in \[1, 100\]/,
        );
      }
    }
  });
});

describe("fractional Bloom bits per key end to end", () => {
  /** bits/key and probes of the one table's filter; OPTIONS' filter_policy. */
  async function openFlushRead(options: Parameters<typeof DB.open>[1]) {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, compression: "none", ...options });
    const n = 5000;
    for (let i = 0; i < n; i++) db.put(`key${String(i).padStart(6, "0")}`, "v");
    await db.flush();
    await db.close();
    const names = fs.list("/db");
    const options_ = names.filter((f) => /^OPTIONS-\d+$/.test(f)).sort();
    const text = new TextDecoder().decode(fs.readFile(`/db/${options_.at(-1)!}`));
    const policy = /^\s*filter_policy=(.*)$/m.exec(text)?.[1];
    const tables = names.filter((f) => f.endsWith(".sst"));
    expect(tables).toHaveLength(1);
    const reader = TableReader.open(fs.openRandomAccess(`/db/${tables[0]!}`));
    try {
      const p = reader.properties;
      for (let i = 0; i < n; i += 7) {
        expect(
          reader.mayContain(new TextEncoder().encode(`key${String(i).padStart(6, "0")}`)),
        ).toBe(true);
      }
      return { policy, propertyPolicy: p.filterPolicy, filterSize: p.filterSize, n };
    } finally {
      reader.close();
    }
  }

  it("filterPolicy { bloom, 9.9 } and bloomBitsPerKey 10.5 size the filters by their millibits", async () => {
    const a = await openFlushRead({ filterPolicy: { type: "bloom", bitsPerKey: 9.9 } });
    expect(a.policy).toBe("bloomfilter:9.9:false");
    expect(a.propertyPolicy).toBe("bloomfilter");
    expect(a.filterSize).toBe(Math.ceil((a.n * 9900) / 512000) * 64 + 5);
    const b = await openFlushRead({ bloomBitsPerKey: 10.5 });
    expect(b.policy).toBe("bloomfilter:10.5:false");
    expect(b.filterSize).toBe(Math.ceil((b.n * 10500) / 512000) * 64 + 5);
  });

  it("refuses bad bloomBitsPerKey values with InvalidArgument, wrong types with TypeError", async () => {
    const fs = new MemoryFileSystem();
    for (const bits of [Number.NaN, -3, 0.5, 101, Number.POSITIVE_INFINITY]) {
      await expect(DB.open("/db", { fs, bloomBitsPerKey: bits }), String(bits)).rejects.toThrow(
        /bloomBitsPerKey must be 0 \(no filter\) or a number in \[1, 100\]/,
      );
    }
    await expect(DB.open("/db", { fs, bloomBitsPerKey: "9.9" as never })).rejects.toThrow(
      TypeError,
    );
    await expect(
      DB.open("/db", { fs, filterPolicy: { type: "bloom", bitsPerKey: Number.NaN } }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
  });
});
