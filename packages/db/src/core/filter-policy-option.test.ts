import { describe, expect, it } from "vitest";
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
});
