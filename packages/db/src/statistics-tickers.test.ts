/**
 * Statistics count what they say: for every ticker and every histogram, a
 * workload that must move it, and how much. The table is checked to cover every ticker and
 * histogram `@shale/base` defines, so a new counter that nothing moves fails here.
 *
 * Each row: `setUp` builds the state (statistics are reset after it), `act` is the workload
 * measured, `expect` the movement (an exact count, or "> 0"). The clock advances 1 µs per
 * read so timers are never 0. Seen failing without the fix: GetHitL0, GetHitL1,
 * GetHitL2AndUp, GetMicros, WriteMicros, BytesPerWrite, SstReadMicros, BlockCacheEviction
 * (all stayed 0).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Histogram, MemoryFileSystem, Statistics, Ticker } from "@shale/base";
import { fixedPrefix } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { encodeUint64, uint64AddOperator } from "./core/merge-operator.js";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";
import { WriteBatch } from "./write/write-batch.js";

interface Ctx {
  db: DB;
  fs: MemoryFileSystem;
  options: DbOptions;
  stats: Statistics;
}

type Movement = number | "> 0";

interface Row {
  /** A Ticker or Histogram name (a histogram's movement is its count). */
  name: string;
  options?: DbOptions;
  setUp?: (c: Ctx) => Promise<void> | void;
  act: (c: Ctx) => Promise<void> | void;
  expect: Movement;
}

const value = (i: number) => `value-${i}-${"x".repeat(90)}`;

async function fillTables(db: DB, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) db.put(`key${String(i).padStart(6, "0")}`, value(i));
  await db.flush();
}

const key = (i: number) => `key${String(i).padStart(6, "0")}`;

/** Puts keys into L1 (compactRange), then more into L0. */
async function l1AndL0(db: DB): Promise<void> {
  await fillTables(db, 100, 0);
  await db.compactRange();
  await fillTables(db, 100, 1000);
}

/** Puts keys 0..99 into L2 or deeper: small level targets make automatic compaction push them down. */
const deepOptions: DbOptions = {
  maxBytesForLevelBase: 1,
  targetFileSizeBase: 1024,
  level0FileNumCompactionTrigger: 1,
};

async function deep(db: DB): Promise<void> {
  await fillTables(db, 100, 0);
  for (let i = 0; i < 3; i++) {
    await fillTables(db, 10, 5000 + i * 10);
    await db.waitForCompactions();
  }
}

function deepestLevelOf(db: DB): number {
  const levels = db.debugVersion().levels;
  let deepest = 0;
  levels.forEach((files, l) => {
    if (files.length > 0) deepest = l;
  });
  return deepest;
}

const ROWS: Row[] = [
  {
    name: "BlockCacheHit",
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(key(5));
      c.db.get(key(5));
    },
    expect: "> 0",
  },
  {
    name: "BlockCacheMiss",
    // A block read from the table: not warmed when the flush was installed.
    options: { prepopulateBlockCache: "disable" },
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(key(5));
    },
    expect: "> 0",
  },
  {
    name: "BlockCacheAdd",
    // A block read from the table: not warmed when the flush was installed.
    options: { prepopulateBlockCache: "disable" },
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(key(5));
    },
    expect: "> 0",
  },
  {
    name: "BlockCacheEviction",
    options: { blockCacheSize: 32 * 1024, blockSize: 1024 },
    setUp: (c) => fillTables(c.db, 3000),
    act: (c) => {
      for (let i = 0; i < 3000; i += 10) c.db.get(key(i));
    },
    expect: "> 0",
  },
  {
    name: "BloomUseful",
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(`${key(5)}-missing`);
    },
    expect: 1,
  },
  {
    name: "BloomChecked",
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(key(5));
      c.db.get(`${key(5)}-missing`);
    },
    expect: 2,
  },
  {
    name: "MemtableHit",
    setUp: (c) => c.db.put("a", "1"),
    act: (c) => {
      c.db.get("a");
    },
    expect: 1,
  },
  {
    name: "MemtableMiss",
    act: (c) => {
      c.db.get("absent");
    },
    expect: 1,
  },
  {
    name: "GetHitL0",
    setUp: (c) => l1AndL0(c.db),
    act: (c) => {
      for (let i = 1000; i < 1100; i++) c.db.get(key(i));
      c.db.get(key(5)); // an L1 hit, not counted here
    },
    expect: 100,
  },
  {
    name: "GetHitL1",
    setUp: (c) => l1AndL0(c.db),
    act: (c) => {
      for (let i = 0; i < 100; i++) c.db.get(key(i));
      c.db.get(key(1005)); // an L0 hit
    },
    expect: 100,
  },
  {
    name: "GetHitL2AndUp",
    options: deepOptions,
    setUp: async (c) => {
      await deep(c.db);
      expect(deepestLevelOf(c.db)).toBeGreaterThanOrEqual(2);
    },
    act: (c) => {
      const levels = c.db.debugVersion().levels;
      let n = 0;
      for (let l = 2; l < levels.length; l++) n += levels[l]!.length;
      expect(n).toBeGreaterThan(0);
      c.db.get(key(0));
    },
    expect: 1,
  },
  { name: "KeysWritten", act: (c) => c.db.put("k", "v"), expect: 1 },
  {
    name: "KeysRead",
    act: (c) => {
      c.db.get("k");
      c.db.getMany(["a", "b"]);
    },
    expect: 3,
  },
  { name: "BytesWritten", act: (c) => c.db.put("k", "v"), expect: "> 0" },
  {
    name: "BytesRead",
    // A block read from the table: not warmed when the flush was installed.
    options: { prepopulateBlockCache: "disable" },
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(key(5));
    },
    expect: "> 0",
  },
  { name: "WalBytes", act: (c) => c.db.put("k", "v"), expect: "> 0" },
  { name: "WalSyncs", act: (c) => c.db.put("k", "v", { sync: true }), expect: 1 },
  {
    name: "MergeOperations",
    options: { mergeOperator: uint64AddOperator },
    setUp: (c) => c.db.merge("n", encodeUint64(1)),
    act: (c) => {
      c.db.get("n");
    },
    expect: 1,
  },
  {
    name: "MergeFailures",
    options: { mergeOperator: uint64AddOperator },
    setUp: (c) => c.db.merge("n", new Uint8Array(3)),
    act: (c) => {
      expect(() => c.db.get("n")).toThrow(/Corruption/);
    },
    expect: 1,
  },
  {
    name: "MergeTimeNanos",
    options: { mergeOperator: uint64AddOperator },
    setUp: (c) => c.db.merge("n", encodeUint64(1)),
    act: (c) => {
      c.db.get("n");
    },
    expect: "> 0",
  },
  {
    name: "FlushCount",
    act: async (c) => {
      c.db.put("k", "v");
      await c.db.flush();
    },
    expect: 1,
  },
  {
    name: "CompactionCount",
    setUp: async (c) => {
      await fillTables(c.db, 50);
      await fillTables(c.db, 50, 25);
    },
    act: (c) => c.db.compactRange(),
    expect: "> 0",
  },
  {
    name: "CompactReadBytes",
    setUp: async (c) => {
      await fillTables(c.db, 50);
      await fillTables(c.db, 50, 25);
    },
    act: (c) => c.db.compactRange(),
    expect: "> 0",
  },
  {
    name: "CompactWriteBytes",
    setUp: async (c) => {
      await fillTables(c.db, 50);
      await fillTables(c.db, 50, 25);
    },
    act: (c) => c.db.compactRange(),
    expect: "> 0",
  },
  {
    name: "StallMicros",
    options: {
      writeBufferSize: 64 * 1024,
      level0FileNumCompactionTrigger: 2,
      level0SlowdownWritesTrigger: 4,
      level0StopWritesTrigger: 4,
    },
    // A synchronous loop: inline jobs run only while a write waits, so L0 reaches the stop.
    act: (c) => {
      for (let i = 0; i < 10_000; i++) c.db.put(key(i % 5000), value(i));
    },
    expect: "> 0",
  },
  {
    name: "IterSeeks",
    setUp: (c) => c.db.put("a", "1"),
    act: (c) => {
      const it = c.db.iterator();
      it.seek("a");
      it.seekToFirst();
      it.close();
    },
    expect: 2,
  },
  {
    name: "IterNexts",
    setUp: (c) => {
      for (const k of ["a", "b", "c"]) c.db.put(k, "1");
    },
    act: (c) => {
      const it = c.db.iterator();
      it.seekToFirst();
      it.next();
      it.next();
      it.close();
    },
    expect: 2,
  },
  {
    name: "RangeDelCoveredKeys",
    setUp: async (c) => {
      // In one source with the tombstone: visited and found covered (a newer source's
      // tombstone is seeked over instead, see iterator/skipping-iterator.ts).
      for (let i = 0; i < 10; i++) c.db.put(key(i), value(i));
      c.db.deleteRange(key(0), key(5));
    },
    act: (c) => {
      Array.from(c.db.iterator());
    },
    expect: "> 0",
  },
  {
    name: "WalRecoveryDroppedBytes",
    setUp: async (c) => {
      for (let i = 0; i < 20; i++) c.db.put(key(i), value(i));
      await c.db.close();
      const wal = c.fs
        .list("/db")
        .filter((f) => f.endsWith(".log"))
        .sort()
        .at(-1)!;
      c.fs.truncate(`/db/${wal}`, c.fs.fileSize(`/db/${wal}`) - 10);
    },
    act: async (c) => {
      c.db = await DB.open("/db", { ...c.options, fs: c.fs, statistics: c.stats });
    },
    expect: "> 0",
  },
  {
    name: "WalRecoveryDrops",
    setUp: async (c) => {
      for (let i = 0; i < 20; i++) c.db.put(key(i), value(i));
      await c.db.close();
      const wal = c.fs
        .list("/db")
        .filter((f) => f.endsWith(".log"))
        .sort()
        .at(-1)!;
      c.fs.truncate(`/db/${wal}`, c.fs.fileSize(`/db/${wal}`) - 10);
    },
    act: async (c) => {
      c.db = await DB.open("/db", { ...c.options, fs: c.fs, statistics: c.stats });
    },
    expect: 1,
  },
  {
    // Keys "key000000".."key000099" in one table: prefix "key000" is there, "zzz000" is not.
    name: "BloomPrefixChecked",
    options: { prefixExtractor: fixedPrefix(6) },
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      for (const t of ["key000", "zzz000"]) {
        const it = c.db.iterator();
        it.seek(t);
        it.close();
      }
    },
    expect: 2,
  },
  {
    name: "BloomPrefixUseful",
    options: { prefixExtractor: fixedPrefix(6) },
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      const it = c.db.iterator({ prefixSameAsStart: true });
      it.seek("zzz000");
      it.close();
    },
    expect: 1,
  },
  {
    // Two listeners throw at each flush: both are counted, neither is fatal.
    name: "ListenerErrors",
    options: {
      listeners: [
        {
          onFlushCompleted: () => {
            throw new Error("listener failure (expected by this test)");
          },
        },
        { onFlushCompleted: () => Promise.reject(new Error("listener failure (expected)")) },
      ],
    },
    act: async (c) => {
      c.db.put("a", "1");
      await c.db.flush();
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    },
    expect: 2,
  },
  {
    // FIFO: a table over maxTableFilesSize is deleted as soon as it is flushed.
    name: "FifoMaxSizeCompactions",
    options: { compactionStyle: "fifo", fifo: { maxTableFilesSize: 1, ttl: 0 } },
    act: async (c) => {
      c.db.put("a", "1");
      await c.db.flush();
    },
    expect: 1,
  },
  {
    // FIFO's ttl reads table creation times in seconds of the system clock: 2 s old at ttl 1.
    name: "FifoTtlCompactions",
    options: { compactionStyle: "fifo", fifo: { ttl: 1 } },
    setUp: async (c) => {
      c.db.put("a", "1");
      await c.db.flush();
      await new Promise((r) => setTimeout(r, 2100));
    },
    act: async (c) => {
      c.db.put("b", "2");
      await c.db.flush();
    },
    expect: 1,
  },
  // A compaction in a worker thread (a database on the node file system of its own, sharing
  // the row's statistics) held to 1 MiB/s: it waits for tokens.
  { name: "RateLimitDelayMillis", act: (c) => rateLimitedCompaction(c.stats), expect: "> 0" },
  { name: "NumberRateLimiterDrains", act: (c) => rateLimitedCompaction(c.stats), expect: "> 0" },
  // The memtable bloom: "a" is in the memtable (a hit), "b" is not (a miss, no search).
  {
    name: "BloomMemtableHit",
    options: { memtablePrefixBloomSizeRatio: 0.1, memtableWholeKeyFiltering: true },
    act: (c) => {
      c.db.put("a", "1");
      c.db.get("a");
    },
    expect: 1,
  },
  {
    name: "BloomMemtableMiss",
    options: { memtablePrefixBloomSizeRatio: 0.1, memtableWholeKeyFiltering: true },
    act: (c) => {
      c.db.put("a", "1");
      c.db.get("b");
    },
    expect: 1,
  },
  // Histograms: the count of values recorded.
  {
    name: "GetMicros",
    act: (c) => {
      c.db.get("a");
      c.db.get("b");
    },
    expect: 2,
  },
  {
    name: "WriteMicros",
    act: (c) => {
      c.db.put("a", "1");
      c.db.delete("a");
      c.db.write(batchOfTwo());
    },
    expect: 3,
  },
  { name: "WalSyncMicros", act: (c) => c.db.put("k", "v", { sync: true }), expect: 1 },
  {
    name: "MergeNanos",
    options: { mergeOperator: uint64AddOperator },
    setUp: (c) => c.db.merge("n", encodeUint64(1)),
    act: (c) => {
      c.db.get("n");
    },
    expect: 1,
  },
  {
    name: "FlushMicros",
    act: async (c) => {
      c.db.put("k", "v");
      await c.db.flush();
    },
    expect: 1,
  },
  {
    name: "CompactionMicros",
    setUp: async (c) => {
      await fillTables(c.db, 50);
      await fillTables(c.db, 50, 25);
    },
    act: (c) => c.db.compactRange(),
    expect: "> 0",
  },
  {
    name: "SstReadMicros",
    // A block read from the table: not warmed when the flush was installed.
    options: { prepopulateBlockCache: "disable" },
    setUp: (c) => fillTables(c.db, 100),
    act: (c) => {
      c.db.get(key(5));
    },
    expect: "> 0",
  },
  {
    name: "BytesPerWrite",
    act: (c) => {
      c.db.put("a", "1");
      c.db.write(batchOfTwo());
    },
    expect: 2,
  },
  {
    name: "TablesPerGet",
    setUp: (c) => fillTables(c.db, 10),
    act: (c) => {
      c.db.get(key(1));
    },
    expect: 1,
  },
  {
    name: "TablesPerSeek",
    setUp: (c) => fillTables(c.db, 10),
    act: (c) => {
      const it = c.db.iterator();
      it.seekToFirst();
      it.close();
    },
    expect: 1,
  },
];

/** ~512 KiB of random values compacted at 1 MiB/s on the node file system (workers). */
async function rateLimitedCompaction(statistics: Statistics): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "shale-tickers-"));
  try {
    const db = await DB.open(dir, {
      statistics,
      compression: "none",
      disableAutoCompactions: true,
      rateLimiter: { bytesPerSecond: 1 << 20, refillPeriodMicros: 10_000 },
    });
    for (let t = 0; t < 2; t++) {
      for (let i = 0; i < 256; i++) db.put(key(i * 2 + t), randomBytes(1000));
      await db.flush();
    }
    await db.compactRange();
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function batchOfTwo(): WriteBatch {
  return new WriteBatch().put("x", "1").put("y", "2");
}

function measure(stats: Statistics, name: string): number {
  if (name in Ticker) return stats.getTicker(Ticker[name as keyof typeof Ticker]);
  return stats.histogram(Histogram[name as keyof typeof Histogram]).count;
}

describe("statistics: every ticker and histogram moves under its workload", () => {
  it("the table covers every ticker and histogram", () => {
    const names = ROWS.map((r) => r.name).sort();
    expect(names).toEqual([...Object.keys(Ticker), ...Object.keys(Histogram)].sort());
  });

  for (const row of ROWS) {
    it(`${row.name}: ${row.expect}`, async () => {
      let t = 0;
      const stats = new Statistics({ clock: () => (t += 1000) });
      const fs = new MemoryFileSystem();
      const options: DbOptions = { ...row.options, fs, statistics: stats };
      const c: Ctx = { db: await DB.open("/db", options), fs, options, stats };
      await row.setUp?.(c);
      const before = measure(stats, row.name);
      stats.reset();
      expect(measure(stats, row.name)).toBe(0);
      await row.act(c);
      const moved = measure(stats, row.name);
      if (row.expect === "> 0")
        expect(moved, `${row.name} (was ${before} in setUp)`).toBeGreaterThan(0);
      else expect(moved).toBe(row.expect);
      await c.db.close();
    });
  }

  it("20,000 gets that hit L0 and L1 tables show in shale.stats", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, statistics: true });
    await l1AndL0(db);
    for (let i = 0; i < 10_000; i++) {
      db.get(key(i % 100)); // L1
      db.get(key(1000 + (i % 100))); // L0
    }
    const text = db.getProperty("shale.stats")!;
    const count = (name: string) =>
      Number(new RegExp(`^${name} COUNT : (\\d+)$`, "m").exec(text)?.[1]);
    const histogramCount = (name: string) =>
      Number(new RegExp(`^${name} P50 .* COUNT : (\\d+) SUM`, "m").exec(text)?.[1]);
    expect(count("GetHitL0")).toBe(10_000);
    expect(count("GetHitL1")).toBe(10_000);
    expect(count("GetHitL2AndUp")).toBe(0);
    expect(histogramCount("GetMicros")).toBe(20_000);
    await db.close();
  });
});
