/**
 * The memtable Bloom filter (`memtablePrefixBloomSizeRatio`, `memtableWholeKeyFiltering`)
 * changes no answer: random puts, deletes, merges, range deletions and flushes, then gets,
 * getMany and prefix seeks (`prefixSameAsStart`, whose results are defined) on a database
 * with each kind of filter, against a model — a database without the filter reads the same.
 * Plus the statistics tickers, the OPTIONS file, column families and bad values.
 */
import { MemoryFileSystem, ShaleError, Statistics, Ticker } from "@shale/base";
import { fixedPrefix } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";

const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : Buffer.from(b).toString("latin1");
const KEYS = ["a", "aa1", "aa2", "ab1", "ab2", "b", "bc1", "bc7", "cd", "cd5", "zz9"];

type Op =
  | { kind: "put"; key: string; value: string }
  | { kind: "del"; key: string }
  | { kind: "merge"; key: string; value: string }
  | { kind: "range"; start: string; end: string }
  | { kind: "flush" };

const keyArb = fc.constantFrom(...KEYS);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("put" as const),
      key: keyArb,
      value: fc.string({ maxLength: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("del" as const), key: keyArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("merge" as const),
      key: keyArb,
      value: fc.string({ maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("range" as const), start: keyArb, end: keyArb }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "flush" as const }) },
);

const VARIANTS: Record<string, DbOptions> = {
  none: {},
  prefix: { memtablePrefixBloomSizeRatio: 0.1 },
  wholeKey: { memtablePrefixBloomSizeRatio: 0.1, memtableWholeKeyFiltering: true },
  // A filter of one 512-bit block: many false positives, same answers.
  tiny: {
    memtablePrefixBloomSizeRatio: 0.001,
    memtableWholeKeyFiltering: true,
    writeBufferSize: 65536,
  },
};

async function load(extra: DbOptions, ops: readonly Op[]) {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    prefixExtractor: fixedPrefix(2),
    mergeOperator: "stringappend",
    disableAutoCompactions: true,
    ...extra,
  });
  const model = new Map<string, string>();
  for (const op of ops) {
    if (op.kind === "put") {
      db.put(op.key, op.value);
      model.set(op.key, op.value);
    } else if (op.kind === "del") {
      db.delete(op.key);
      model.delete(op.key);
    } else if (op.kind === "merge") {
      db.merge(op.key, op.value);
      const old = model.get(op.key);
      model.set(op.key, old === undefined ? op.value : `${old},${op.value}`);
    } else if (op.kind === "range") {
      if (op.start >= op.end) continue;
      db.deleteRange(op.start, op.end);
      for (const k of [...model.keys()]) if (k >= op.start && k < op.end) model.delete(k);
    } else await db.flush();
  }
  return { db, model };
}

function prefixScan(db: DB, target: string): string[] {
  const it = db.iterator({ prefixSameAsStart: true });
  try {
    const out: string[] = [];
    for (it.seek(target); it.valid(); it.next()) out.push(`${text(it.key())}=${text(it.value())}`);
    return out;
  } finally {
    it.close();
  }
}

describe("memtable bloom", () => {
  it("reads agree with a model, with and without the filter", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        for (const [name, extra] of Object.entries(VARIANTS)) {
          const { db, model } = await load(extra, ops);
          try {
            const probes = [...KEYS, "ab9", "ac", "q", "zz"];
            for (const k of probes) expect(text(db.get(k)), `${name} get ${k}`).toBe(model.get(k));
            expect(db.getMany(probes).map(text), name).toEqual(probes.map((k) => model.get(k)));
            for (const target of ["aa", "ab", "ab2", "bc", "cd", "q0", "zz"]) {
              const p = target.slice(0, 2);
              const want = [...model.keys()]
                .filter((k) => k >= target && k.startsWith(p))
                .sort()
                .map((k) => `${k}=${model.get(k)}`);
              expect(prefixScan(db, target), `${name} seek ${target}`).toEqual(want);
            }
          } finally {
            await db.close();
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("counts hits and misses; a miss skips the memtable", async () => {
    const statistics = new Statistics();
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      memtablePrefixBloomSizeRatio: 0.1,
      memtableWholeKeyFiltering: true,
      statistics,
    });
    for (let i = 0; i < 100; i++) db.put(`key${i}`, "v");
    for (let i = 0; i < 100; i++) expect(text(db.get(`key${i}`))).toBe("v");
    expect(statistics.getTicker(Ticker.BloomMemtableHit)).toBe(100);
    for (let i = 0; i < 1000; i++) expect(db.get(`absent${i}`)).toBeUndefined();
    expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBeGreaterThan(950);
    expect(statistics.getTicker(Ticker.BloomMemtableHit)).toBeLessThan(150);
    await db.close();
  });

  it("a prefix seek of a prefix the memtable lacks skips it", async () => {
    const statistics = new Statistics();
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      prefixExtractor: fixedPrefix(2),
      memtablePrefixBloomSizeRatio: 0.1,
      statistics,
    });
    for (let i = 0; i < 100; i++) db.put(`aa${i}`, "v");
    expect(prefixScan(db, "aa5").length).toBe(55); // aa5, aa50..aa99
    expect(statistics.getTicker(Ticker.BloomMemtableHit)).toBe(1);
    expect(prefixScan(db, "zq")).toEqual([]);
    expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBe(1);
    // Total order and seekToFirst do not ask the filter.
    const it = db.iterator({ totalOrderSeek: true });
    it.seek("zq");
    expect(it.valid()).toBe(false);
    it.seekToFirst();
    expect(text(it.key())).toBe("aa0");
    it.close();
    expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBe(1);
    await db.close();
  });

  it("is off by default and without an extractor or whole keys", async () => {
    for (const extra of [{}, { memtablePrefixBloomSizeRatio: 0.1 }] as DbOptions[]) {
      const statistics = new Statistics();
      const db = await DB.open("/db", { fs: new MemoryFileSystem(), statistics, ...extra });
      db.put("a", "1");
      db.get("b");
      expect(statistics.getTicker(Ticker.BloomMemtableHit)).toBe(0);
      expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBe(0);
      await db.close();
    }
  });

  it("is per column family and written to the OPTIONS file", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    const db = await DB.open("/db", {
      fs,
      statistics,
      createMissingColumnFamilies: true,
      columnFamilies: {
        filtered: { memtablePrefixBloomSizeRatio: 0.05, memtableWholeKeyFiltering: true },
      },
    });
    db.put("a", "1");
    db.get("b");
    expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBe(0);
    const cf = db.columnFamily("filtered");
    cf.put("a", "1");
    expect(cf.get("b")).toBeUndefined();
    expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBe(1);
    const names = fs
      .list("/db")
      .filter((n) => n.startsWith("OPTIONS-"))
      .sort();
    const options = new TextDecoder().decode(fs.readFile(`/db/${names[names.length - 1]}`));
    const sections = options.split("[CFOptions ");
    const filtered = sections.find((s) => s.startsWith('"filtered"'))!;
    const dflt = sections.find((s) => s.startsWith('"default"'))!;
    expect(filtered).toMatch(/memtable_prefix_bloom_size_ratio=0\.05\b/);
    expect(filtered).toMatch(/memtable_whole_key_filtering=true/);
    expect(dflt).toMatch(/memtable_prefix_bloom_size_ratio=0\b/);
    expect(dflt).toMatch(/memtable_whole_key_filtering=false/);
    await db.close();
  });

  it("rejects bad values, naming the option", async () => {
    const open = (o: Record<string, unknown>) =>
      DB.open("/db", { fs: new MemoryFileSystem(), ...(o as DbOptions) });
    await expect(open({ memtablePrefixBloomSizeRatio: -0.1 })).rejects.toThrow(
      /memtablePrefixBloomSizeRatio/,
    );
    await expect(open({ memtablePrefixBloomSizeRatio: 1.5 })).rejects.toSatisfy(
      (e) => ShaleError.isInstance(e) && e.code === "InvalidArgument",
    );
    await expect(open({ memtablePrefixBloomSizeRatio: Number.NaN })).rejects.toThrow(
      /memtablePrefixBloomSizeRatio/,
    );
    await expect(open({ memtablePrefixBloomSizeRatio: "0.1" })).rejects.toThrow(TypeError);
    await expect(open({ memtableWholeKeyFiltering: 1 })).rejects.toThrow(TypeError);
  });
});
