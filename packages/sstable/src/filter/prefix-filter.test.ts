/**
 * Prefix extractors and prefix entries in full filters (RocksDB's FullFilterBlockBuilder with
 * a prefix_extractor): the names, the domain rules, the properties a table records, and
 * `TableReader.prefixMayMatch` with whole-key filtering on and off.
 */
import { ShaleError, toBytes, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PropertyName } from "../format/properties.js";
import {
  builtinPrefixExtractor,
  cappedPrefix,
  checkPrefixExtractor,
  fixedPrefix,
  isBuiltinPrefixExtractor,
} from "../table/prefix-extractor.js";
import { buildTable, ikey, openTable } from "../table/table.test-support.js";

const bytes = (s: string) => toBytes(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("built-in extractors", () => {
  it("have RocksDB's names, domains and prefixes", () => {
    const fixed = fixedPrefix(3);
    expect(fixed.name).toBe("rocksdb.FixedPrefix.3");
    expect(fixed.inDomain(bytes("ab"))).toBe(false);
    expect(fixed.inDomain(bytes("abc"))).toBe(true);
    expect(text(fixed.transform(bytes("user42")))).toBe("use");
    const capped = cappedPrefix(3);
    expect(capped.name).toBe("rocksdb.CappedPrefix.3");
    expect(capped.inDomain(bytes(""))).toBe(true);
    expect(text(capped.transform(bytes("ab")))).toBe("ab");
    expect(text(capped.transform(bytes("user42")))).toBe("use");
  });

  it("are rebuilt from their names (RocksDB's and the short forms), nothing else", () => {
    expect(builtinPrefixExtractor("rocksdb.FixedPrefix.8")?.name).toBe("rocksdb.FixedPrefix.8");
    expect(builtinPrefixExtractor("rocksdb.CappedPrefix.4")?.name).toBe("rocksdb.CappedPrefix.4");
    expect(builtinPrefixExtractor("fixed:5")?.name).toBe("rocksdb.FixedPrefix.5");
    expect(builtinPrefixExtractor("capped:2")?.name).toBe("rocksdb.CappedPrefix.2");
    expect(builtinPrefixExtractor("rocksdb.Noop")?.name).toBe("rocksdb.Noop");
    for (const bad of ["nullptr", "rocksdb.FixedPrefix.", "rocksdb.FixedPrefix.0", "mine", ""])
      expect(builtinPrefixExtractor(bad)).toBeUndefined();
    expect(isBuiltinPrefixExtractor(fixedPrefix(2))).toBe(true);
    const mine = { name: "mine", transform: (k: Uint8Array) => k, inDomain: () => true };
    expect(isBuiltinPrefixExtractor(mine)).toBe(false);
  });

  it("refuse bad lengths and malformed user extractors", () => {
    expect(() => fixedPrefix(0)).toThrow(ShaleError);
    expect(() => cappedPrefix(1.5)).toThrow(ShaleError);
    expect(() => fixedPrefix("8" as unknown as number)).toThrow(TypeError);
    expect(() => checkPrefixExtractor({ name: "x" })).toThrow(TypeError);
    expect(() => checkPrefixExtractor(() => 1)).toThrow(TypeError);
    const nullptr = { name: "nullptr", transform: (k: Uint8Array) => k, inDomain: () => true };
    expect(() => checkPrefixExtractor(nullptr)).toThrow(/nullptr/);
  });
});

/** Sorted keys "pNN-kNN" of prefixes p00..p(prefixes-1) (4 bytes: "pNN-"), `per` keys each. */
function keysOf(prefixes: number, per: number): string[] {
  const out: string[] = [];
  for (let p = 0; p < prefixes; p++)
    for (let k = 0; k < per; k++)
      out.push(`p${String(p * 2).padStart(2, "0")}-k${String(k).padStart(2, "0")}`);
  return out;
}

function build(keys: readonly string[], options: Parameters<typeof buildTable>[2]) {
  const ik = keys.map((k, i) => ikey(k, i + 1, ValueKind.Value));
  return buildTable(
    ik,
    ik.map(() => bytes("v")),
    options,
  );
}

describe("tables with a prefix extractor", () => {
  const keys = keysOf(20, 5); // prefixes p00-, p02-, ..., p38-
  const extractor = fixedPrefix(4);

  it("record the extractor and hold whole keys and prefixes (whole-key filtering on)", () => {
    const t = build(keys, { prefixExtractor: extractor });
    expect(t.properties.prefixExtractorName).toBe("rocksdb.FixedPrefix.4");
    expect(t.properties.wholeKeyFiltering).toBe(true);
    // RocksDB's count: each whole key once and each prefix once.
    expect(t.properties.numFilterEntries).toBe(100 + 20);
    const r = openTable(t);
    try {
      expect(r.prefixExtractorName).toBe("rocksdb.FixedPrefix.4");
      expect(r.properties.user[PropertyName.PREFIX_FILTERING]).toBeUndefined();
      for (const k of keys) {
        expect(r.prefixMayMatch(extractor.transform(bytes(k)))).toBe(true);
        expect(r.mayContain(bytes(k))).toBe(true);
      }
      // Absent prefixes (odd numbers): nearly all ruled out at 10 bits per key.
      let passed = 0;
      for (let p = 1; p < 400; p += 2)
        if (r.prefixMayMatch(bytes(`p${String(p).padStart(3, "0")}`.slice(0, 4)))) passed++;
      expect(passed).toBeLessThan(20);
    } finally {
      r.close();
    }
  });

  it("hold prefixes only with whole-key filtering off (point lookups ask for the prefix)", () => {
    const t = build(keys, { prefixExtractor: extractor, wholeKeyFiltering: false });
    expect(t.properties.wholeKeyFiltering).toBe(false);
    expect(t.properties.numFilterEntries).toBe(20);
    const r = openTable(t);
    try {
      for (const k of keys) expect(r.prefixMayMatch(extractor.transform(bytes(k)))).toBe(true);
      // Point lookups ask for the key's prefix (the table's built-in extractor, by name).
      expect(r.mayContain(bytes("zzzz-absent"))).toBe(false);
      expect(r.mayContain(bytes("p02-absent"))).toBe(true);
      expect(r.get(bytes("zzzz-absent")).value).toBeUndefined();
      expect(text(r.get(bytes("p02-k01")).value!)).toBe("v");
    } finally {
      r.close();
    }
  });

  it("add keys outside the domain whole (or not at all without whole-key filtering)", () => {
    const short = ["a", "b", ...keys];
    const t = build(short, { prefixExtractor: extractor });
    expect(t.properties.numFilterEntries).toBe(2 + 100 + 20);
    const none = build(short, { prefixExtractor: extractor, wholeKeyFiltering: false });
    expect(none.properties.numFilterEntries).toBe(20);
  });

  it("without an extractor have no prefix filter", () => {
    const r = openTable(build(keys, {}));
    try {
      expect(r.prefixExtractorName).toBeUndefined();
      expect(r.properties.prefixExtractorName).toBe("nullptr");
      expect(r.prefixMayMatch(bytes("zzzz"))).toBe(true);
    } finally {
      r.close();
    }
  });

  it("refuse partitioned filters (NotSupported)", () => {
    expect(() =>
      build(keys, {
        prefixExtractor: extractor,
        indexType: "twoLevelIndex",
        partitionFilters: true,
      }),
    ).toThrow(/not supported/);
  });

  it("never rule out a prefix they hold (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 0, maxLength: 8 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        (raw, n, capped, whole) => {
          const sorted = raw
            .map((s) => bytes(s))
            .sort(Buffer.compare)
            .filter((k, i, a) => i === 0 || Buffer.compare(a[i - 1]!, k) !== 0);
          if (sorted.length === 0) return;
          const e = capped ? cappedPrefix(n) : fixedPrefix(n);
          const ik = sorted.map((k, i) => ikey(k, i + 1, ValueKind.Value));
          const t = buildTable(
            ik,
            ik.map(() => bytes("v")),
            { prefixExtractor: e, wholeKeyFiltering: whole },
          );
          const r = openTable(t);
          try {
            for (const k of sorted) {
              if (e.inDomain(k)) expect(r.prefixMayMatch(e.transform(k))).toBe(true);
              if (whole) expect(r.mayContain(k)).toBe(true);
            }
          } finally {
            r.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
