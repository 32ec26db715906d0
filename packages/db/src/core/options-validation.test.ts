/**
 * Every option of every call, data-driven: for each options type a table of
 * `option -> a value of the wrong type, a value out of range, a good value`, and the rules
 * of validate.ts checked for each row: wrong type (and null) -> TypeError naming the option,
 * out of range -> InvalidArgument naming it, an unknown name -> InvalidArgument naming it,
 * the options argument itself of the wrong type -> TypeError; a good value works.
 *
 * The tables here are checked against the validators' own tables, so an option added to
 * one without a row here fails the suite.
 */
import { bytewiseComparator, isShaleError, MemoryFileSystem, Statistics } from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import { fixedPrefix } from "@shale/sstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import { WriteBufferManager } from "./write-buffer-manager.js";

type Outcome = "ok" | "TypeError" | "InvalidArgument" | string;

async function outcome(fn: () => unknown): Promise<{ kind: Outcome; message: string }> {
  try {
    await fn();
    return { kind: "ok", message: "" };
  } catch (e) {
    const message = String((e as Error)?.message ?? e);
    if (e instanceof TypeError) return { kind: "TypeError", message };
    if (isShaleError(e, "InvalidArgument")) return { kind: "InvalidArgument", message };
    return { kind: `other: ${message}`, message };
  }
}

/** [option, wrong type, out of range (or undefined: every value of the type is fine), good]. */
type Row = [name: string, wrongType: unknown, outOfRange: unknown, good: unknown];

const openRows: Row[] = [
  ["createIfMissing", "yes", undefined, true],
  ["errorIfExists", 1, undefined, false],
  ["comparator", { compare: 1, name: "x" }, undefined, bytewiseComparator],
  [
    "compactionFilter",
    5,
    { module: new URL("../test-fixtures/compaction-filters.mjs", import.meta.url), name: "nope" },
    { module: new URL("../test-fixtures/compaction-filters.mjs", import.meta.url), name: "rules" },
  ],
  ["ttl", "10", -1, 10],
  ["clock", { now: 1 }, undefined, { nowSeconds: () => 1_800_000_000 }],
  ["mergeOperator", 5, "nope", "max"],
  ["writeBufferSize", "1", 10, 65536],
  ["maxWriteBufferNumber", "2", 1, 3],
  ["maxWriteBufferSizeToMaintain", "0", -2, 1 << 20],
  ["blockCache", {}, undefined, new LRUCache({ capacity: 1 << 20 })],
  ["blockCacheSize", "1", -1, 1 << 20],
  ["sharedBlockCache", "yes", undefined, true],
  ["cacheIndexAndFilterBlocks", "no", undefined, false],
  ["prepopulateBlockCache", true, "kFlushOnly", "flushOnly"],
  ["blockSize", "4096", 100, 4096],
  ["blockRestartInterval", "16", 0, 4],
  ["bloomBitsPerKey", "10", 101, 10],
  ["filterPolicy", 10, { type: "cuckoo" }, { type: "ribbon", bitsPerKey: 10 }],
  ["formatVersion", "6", 8, 6],
  ["checksum", 4, "crc32", "xxh3"],
  ["indexType", 2, "hashSearch", "twoLevelIndex"],
  ["partitionFilters", "yes", undefined, false],
  ["dataBlockIndexType", 1, "hash", "binaryAndHash"],
  ["dataBlockHashTableUtilRatio", "0.75", 0, 0.5],
  ["metadataBlockSize", "4096", 0, 256],
  [
    "prefixExtractor",
    "fixed:8",
    { name: "nullptr", transform: (k: Uint8Array) => k, inDomain: () => true },
    fixedPrefix(8),
  ],
  ["wholeKeyFiltering", "no", undefined, false],
  ["memtablePrefixBloomSizeRatio", "0.1", 1.5, 0.1],
  ["memtableWholeKeyFiltering", "yes", undefined, true],
  ["compression", 1, "lz4hc", "zstd"],
  ["compressionPerLevel", ["lz4", 4], ["none", "lz5"], ["none", "snappy", "lz4", "zstd"]],
  ["bottommostCompression", 7, "bzip2", "zstd"],
  ["zstdLevel", "3", 23, -5],
  ["zstdMaxDictBytes", "16384", -1, 16384],
  ["walCompression", 1, "lz4", "zstd"],
  ["walTtlSeconds", "60", -1, 60],
  ["walSizeLimitMb", true, 1.5, 64],
  ["maxTotalWalSize", "1", -1, 1 << 20],
  ["dbWriteBufferSize", "1", -1, 1 << 20],
  ["writeBufferManager", 1 << 20, undefined, new WriteBufferManager(1 << 20)],
  ["maxBackgroundJobs", true, 0, 2],
  ["compactionCpuPriority", 10, "lowest", "low"],
  ["rateLimiter", { bytesPerSecond: "1MB" }, { bytesPerSecond: 0 }, { bytesPerSecond: 1 << 20 }],
  ["level0FileNumCompactionTrigger", "4", 0, 4],
  ["level0SlowdownWritesTrigger", "20", 0, 20],
  ["level0StopWritesTrigger", "36", 0, 36],
  ["softPendingCompactionBytesLimit", "1", -1, 0],
  ["hardPendingCompactionBytesLimit", "1", 1.5, 1 << 30],
  ["maxBytesForLevelBase", "x", 0, 1 << 20],
  ["maxBytesForLevelMultiplier", "10", 1, 8],
  ["targetFileSizeBase", [], 1.5, 1 << 20],
  ["disableAutoCompactions", "no", undefined, true],
  ["compactionStyle", 1, "tiered", "universal"],
  ["universal", "x", { sizeRatio: -1 }, { sizeRatio: 2 }],
  ["fifo", [], { maxTableFilesSize: 1.5 }, { maxTableFilesSize: 1 << 20 }],
  ["maxOpenFiles", "1000", 1, 100],
  ["statistics", "on", undefined, new Statistics()],
  ["listeners", [{ onFlushCompleted: "no" }], undefined, [{ onFlushCompleted: () => {} }]],
  ["walRecoveryMode", true, "toString", "PointInTime"],
  ["paranoidChecks", "true", undefined, false],
  ["bestEffortsRecovery", 1, undefined, true],
  ["avoidFlushDuringRecovery", "no", undefined, false],
  ["atomicFlush", "yes", undefined, true],
  ["readOnly", "yes", undefined, false],
  [
    "transactionDB",
    5,
    { defaultLockTimeoutMs: -2 },
    { lockTimeoutMs: 10, defaultLockTimeoutMs: 0, deadlockDetect: true },
  ],
  ["columnFamilies", "users", { users: { bogus: 1 } }, { default: { writeBufferSize: 1 << 20 } }],
  ["createMissingColumnFamilies", "yes", undefined, true],
  ["fs", { openWritable() {} }, undefined, "memory"],
];

const writeRows: Row[] = [
  ["sync", "yes", undefined, true],
  ["disableWAL", 1, undefined, true],
];

const readRows: Row[] = [
  ["snapshot", { seq: 1 }, undefined, "snapshot"],
  ["fillCache", "no", undefined, false],
  ["verifyChecksums", 0, undefined, false],
];

const rangeRows: Row[] = [
  ["gt", 1, undefined, "a"],
  ["gte", true, undefined, new Uint8Array([0x61])],
  ["lt", [], undefined, "z"],
  ["lte", 2n, undefined, "z"],
  ["lowerBound", 5, undefined, "a"],
  ["upperBound", {}, undefined, "z"],
];

const limitRow: Row = ["limit", "10", 1.5, 10];

const iteratorRows: Row[] = [
  ...readRows,
  ...rangeRows,
  limitRow,
  ["reverse", "yes", undefined, true],
  ["prefixSameAsStart", 1, undefined, true],
  ["totalOrderSeek", "yes", undefined, true],
  ["autoPrefixMode", 0, undefined, true],
];

const clearRows: Row[] = [
  ...rangeRows,
  limitRow,
  ["reverse", 1, undefined, true],
  ["sync", "yes", undefined, false],
  ["disableWAL", 0, undefined, false],
];

const flushRows: Row[] = [["wait", "yes", undefined, false]];

/** Calls that take no option yet: any name is unknown. */
const noRows: Row[] = [];

/** Arguments that are not an options object at all. */
const notObjects: unknown[] = ["sync", 5, true, null, [], () => {}];

let db: DB;
let other: DB;

beforeAll(async () => {
  db = await DB.open("/db", { fs: new MemoryFileSystem(), mergeOperator: "max" });
  other = await DB.open("/other", { fs: new MemoryFileSystem() });
  db.put("a", "1");
});
afterAll(async () => {
  await db.close();
  await other.close();
});

/** Calls taking each options type, with `o` as their options. */
const calls: Record<string, [string, (o: unknown) => unknown][]> = {
  write: [
    ["put", (o) => db.put("k", "v", o as never)],
    ["delete", (o) => db.delete("k", o as never)],
    ["merge", (o) => db.merge("m", "v", o as never)],
    ["deleteRange", (o) => db.deleteRange("x", "y", o as never)],
    ["write", (o) => db.write(new WriteBatch().put("k", "v"), o as never)],
  ],
  read: [
    ["get", (o) => db.get("a", o as never)],
    ["getView", (o) => db.getView("a", o as never)],
    ["getMany", (o) => db.getMany(["a", "b"], o as never)],
    ["has", (o) => db.has("a", o as never)],
  ],
  iterator: [
    ["iterator", (o) => db.iterator(o as never).close()],
    ["iterator for-of", (o) => [...db.iterator(o as never)]],
  ],
  clear: [["clear", (o) => other.clear(o as never)]],
  flush: [["flush", (o) => db.flush(o as never)]],
  snapshot: [["snapshot", (o) => db.snapshot(o as never).release()]],
  compactRange: [["compactRange", (o) => db.compactRange("a", "b", o as never)]],
};

/** Good values that need the database: resolved at run time. */
function goodValue(v: unknown): unknown {
  if (v === "memory") return new MemoryFileSystem();
  if (v === "snapshot") return db.snapshot();
  return v;
}

let dirs = 0;
const openWith = (o: unknown) =>
  DB.open(`/open${dirs++}`, { fs: new MemoryFileSystem(), ...(o as object) }).then((d) =>
    d.close(),
  );

function expectNamed(result: { kind: Outcome; message: string }, kind: Outcome, name: string) {
  expect(result.kind, result.message).toBe(kind);
  expect(result.message).toContain(name);
}

describe("open options", () => {
  it.each(openRows)(
    "%s: wrong type, null, out of range, good",
    async (name, wrong, range, good) => {
      expectNamed(await outcome(() => openWith({ [name]: wrong })), "TypeError", name);
      expectNamed(await outcome(() => openWith({ [name]: null })), "TypeError", name);
      if (range !== undefined) {
        expectNamed(await outcome(() => openWith({ [name]: range })), "InvalidArgument", name);
      }
      expect((await outcome(() => openWith({ [name]: goodValue(good) }))).kind).toBe("ok");
    },
  );

  it("an unknown option, and an options argument that is not an object", async () => {
    expectNamed(await outcome(() => openWith({ bogus: 1 })), "InvalidArgument", "bogus");
    expectNamed(await outcome(() => openWith({ sync: true })), "InvalidArgument", "sync");
    for (const bad of notObjects) {
      const r = await outcome(() => DB.open("/bad", bad as never));
      expect(r.kind, `${String(bad)}: ${r.message}`).toBe("TypeError");
    }
  });

  it("more values out of range", async () => {
    const cases: [string, unknown][] = [
      ["walRecoveryMode", 7],
      ["walRecoveryMode", "pointInTime"],
      ["writeBufferSize", Number.NaN],
      ["dbWriteBufferSize", 1.5],
      ["blockCacheSize", Number.POSITIVE_INFINITY],
      ["maxBytesForLevelMultiplier", Number.POSITIVE_INFINITY],
      ["bloomBitsPerKey", 0.5],
    ];
    for (const [name, v] of cases) {
      expectNamed(await outcome(() => openWith({ [name]: v })), "InvalidArgument", name);
    }
  });
});

describe.each([
  ["write", writeRows],
  ["read", readRows],
  ["iterator", iteratorRows],
  ["clear", clearRows],
  ["flush", flushRows],
  ["snapshot", noRows],
  ["compactRange", noRows],
] as const)("%s options", (type, rows) => {
  for (const [call, fn] of calls[type]!) {
    // (snapshot, compactRange: no rows; their unknown-option test below is what applies)
    if (rows.length > 0)
      it.each(rows)(`${call}: %s: wrong type, null, good`, async (name, wrong, range, good) => {
        expectNamed(await outcome(() => fn({ [name]: wrong })), "TypeError", name);
        expectNamed(await outcome(() => fn({ [name]: null })), "TypeError", name);
        if (range !== undefined) {
          expectNamed(await outcome(() => fn({ [name]: range })), "InvalidArgument", name);
        }
        const v = goodValue(good);
        const r = await outcome(() => fn({ [name]: v }));
        expect(r.kind, r.message).toBe("ok");
      });

    it(`${call}: unknown option, and an options argument that is not an object`, async () => {
      expectNamed(await outcome(() => fn({ bogus: 1 })), "InvalidArgument", "bogus");
      for (const bad of notObjects) {
        const r = await outcome(() => fn(bad));
        expect(r.kind, `${JSON.stringify(bad)}: ${r.message}`).toBe("TypeError");
      }
      expect((await outcome(() => fn(undefined))).kind).toBe("ok");
      expect((await outcome(() => fn({}))).kind).toBe("ok");
    });
  }
});

describe("snapshots passed to a read", () => {
  it("a snapshot of another database is InvalidArgument, for every read", async () => {
    const foreign = other.snapshot();
    for (const fn of [
      () => db.get("a", { snapshot: foreign }),
      () => db.getMany(["a"], { snapshot: foreign }),
      () => db.iterator({ snapshot: foreign }),
    ]) {
      expectNamed(await outcome(fn), "InvalidArgument", "another database");
    }
    foreign.release();
  });

  it("a released snapshot is InvalidArgument", async () => {
    const s = db.snapshot();
    s.release();
    expectNamed(await outcome(() => db.get("a", { snapshot: s })), "InvalidArgument", "released");
    expectNamed(await outcome(() => db.iterator({ snapshot: s })), "InvalidArgument", "released");
  });

  it("snapshot() takes no option yet: any name is InvalidArgument naming it", async () => {
    expectNamed(await outcome(() => db.snapshot({ x: 1 } as never)), "InvalidArgument", "x");
  });
});

describe("range options that conflict", () => {
  const pairs: [string, string][] = [
    ["gt", "gte"],
    ["gt", "lowerBound"],
    ["gte", "lowerBound"],
    ["lt", "lte"],
    ["lt", "upperBound"],
    ["lte", "upperBound"],
  ];
  it.each(pairs)("%s with %s is InvalidArgument naming both (iterator, clear)", async (a, b) => {
    const o = { [a]: a.startsWith("l") && a !== "lowerBound" ? "y" : "b", [b]: "c" };
    for (const fn of [() => db.iterator(o).close(), () => db.clear(o)]) {
      const r = await outcome(fn);
      expectNamed(r, "InvalidArgument", a);
      expect(r.message).toContain(b);
    }
  });

  it("limit -1 and Infinity mean no limit; other negatives are InvalidArgument", async () => {
    expect((await outcome(() => [...db.iterator({ limit: -1 })])).kind).toBe("ok");
    expect((await outcome(() => [...db.iterator({ limit: Number.POSITIVE_INFINITY })])).kind).toBe(
      "ok",
    );
    expectNamed(await outcome(() => db.iterator({ limit: -2 })), "InvalidArgument", "limit");
    expectNamed(
      await outcome(() => db.iterator({ limit: Number.NaN })),
      "InvalidArgument",
      "limit",
    );
  });
});

describe("other arguments", () => {
  it("compactRange bounds must be keys", async () => {
    expectNamed(await outcome(() => db.compactRange(5 as never)), "TypeError", "start");
    expectNamed(await outcome(() => db.compactRange("a", {} as never)), "TypeError", "end");
    expectNamed(await outcome(() => db.compactRange("\ud800")), "TypeError", "start");
  });

  it("sync with disableWAL is InvalidArgument", async () => {
    const r = await outcome(() => db.put("k", "v", { sync: true, disableWAL: true }));
    expect(r.kind).toBe("InvalidArgument");
  });

  it("sharedBlockCache true with a blockCacheSize under 4096 is InvalidArgument naming both", async () => {
    for (const blockCacheSize of [0, 4095]) {
      const r = await outcome(() =>
        DB.open("/sbc", { fs: new MemoryFileSystem(), sharedBlockCache: true, blockCacheSize }),
      );
      expectNamed(r, "InvalidArgument", "sharedBlockCache");
      expect(r.message).toMatch(/blockCacheSize/);
    }
    const fs = new MemoryFileSystem();
    const ok = await DB.open("/sbc", { fs, sharedBlockCache: true, blockCacheSize: 4096 });
    ok.put("k", "v");
    await ok.flush();
    expect(ok.get("k")).toEqual(new TextEncoder().encode("v"));
    await ok.close();
  });
});

describe("string keys that are not well-formed UTF-16", () => {
  it("are a TypeError everywhere a string key, value or bound is taken", async () => {
    const lone = ["\ud800", "\udbff", "a\udc00"];
    for (const s of lone) {
      for (const fn of [
        () => db.put(s, "v"),
        () => db.put("k", s),
        () => db.get(s),
        () => db.delete(s),
        () => db.merge(s, "1"),
        () => db.deleteRange(s, "z"),
        () => db.getMany([s]),
        () => new WriteBatch().put(s, "v"),
        () => db.iterator({ lowerBound: s }),
        () => db.iterator({ gt: s }),
        () => db.iterator({ lte: s }),
        () => db.clear({ gte: s }),
        () => db.getView(s),
        () => db.has(s),
        () => {
          const it = db.iterator();
          try {
            it.seek(s);
          } finally {
            it.close();
          }
        },
      ]) {
        const r = await outcome(fn);
        expect(r.kind, r.message).toBe("TypeError");
        expect(r.message).toMatch(/well-formed/);
      }
    }
  });

  it('"\\ud800" and "\\udbff" no longer collide: neither is stored', async () => {
    const fs = new MemoryFileSystem();
    const d = await DB.open("/collide", { fs });
    expect(() => d.put("\ud800", "first")).toThrow(TypeError);
    expect(d.get(new Uint8Array([0xef, 0xbf, 0xbd]))).toBeUndefined();
    await d.close();
  });
});

describe("the tables here cover every validator row", () => {
  it("names match", async () => {
    const { OPEN_OPTIONS } = await import("./options.js");
    const calls = await import("./call-options.js");
    const names = (rows: Row[]) => rows.map((r) => r[0]);
    expect(OPEN_OPTIONS.names).toEqual(names(openRows));
    expect(calls.WRITE_OPTIONS.names).toEqual(names(writeRows));
    expect(calls.READ_OPTIONS.names).toEqual(names(readRows));
    expect(calls.ITERATOR_OPTIONS.names).toEqual(names(iteratorRows));
    expect(calls.CLEAR_OPTIONS.names).toEqual(names(clearRows));
    expect(calls.FLUSH_OPTIONS.names).toEqual(names(flushRows));
    expect(calls.SNAPSHOT_OPTIONS.names).toEqual([]);
    expect(calls.COMPACT_RANGE_OPTIONS.names).toEqual([]);
  });
});
