/**
 * The `prepopulateBlockCache` option (table-warming.ts): "flushOnly" puts a flushed table's
 * data blocks into the block cache when the flush is installed, "flushAndCompaction"
 * compaction outputs too, "disable" neither; recorded in OPTIONS under RocksDB's name; bad
 * values refused. Runs inline (MemoryFileSystem) and with worker threads (node file system).
 * The blocks a flush or compaction captured as it wrote them are what is warmed (no table
 * data read back on install); a table compacted away takes its warmed blocks out of the cache.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FileSystem, MemoryFileSystem, Statistics, Ticker } from "@shale/base";
import { fixedPrefix, newBlockCache } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions, PrepopulateBlockCache } from "../core/options.js";
import { DB } from "../db.js";

const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const value = (i: number) => `value-${i}-${"v".repeat(i % 90)}`;

const tmp = mkdtempSync(join(tmpdir(), "shale-table-warming-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Block cache misses of `n` gets (every key read back and checked). */
function missesOfGets(db: DB, stats: Statistics, from: number, n: number): number {
  const before = stats.getTicker(Ticker.BlockCacheMiss);
  for (let i = from; i < from + n; i++) expect(db.get(key(i))).toBeDefined();
  return stats.getTicker(Ticker.BlockCacheMiss) - before;
}

async function openWith(
  mode: PrepopulateBlockCache | undefined,
  dir: string,
  fs?: FileSystem,
): Promise<{ db: DB; stats: Statistics }> {
  const stats = new Statistics();
  const options: DbOptions = { statistics: stats, blockSize: 512, blockCacheSize: 64 << 20 };
  if (fs !== undefined) options.fs = fs;
  if (mode !== undefined) options.prepopulateBlockCache = mode;
  return { db: await DB.open(dir, options), stats };
}

async function flushed(db: DB, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) db.put(key(i), value(i));
  await db.flush();
}

describe("prepopulateBlockCache", () => {
  it('"flushOnly" and the default ("flushAndCompaction"): gets of a flushed table miss no block; "disable" does', async () => {
    for (const mode of [undefined, "disable", "flushOnly"] as const) {
      const { db, stats } = await openWith(mode, "/db", new MemoryFileSystem());
      const addsBefore = stats.getTicker(Ticker.BlockCacheAdd);
      await flushed(db, 0, 2000);
      const added = stats.getTicker(Ticker.BlockCacheAdd) - addsBefore;
      const misses = missesOfGets(db, stats, 0, 2000);
      if (mode !== "disable") {
        expect(added).toBeGreaterThan(20);
        expect(misses).toBe(0);
      } else {
        expect(misses).toBeGreaterThan(20);
      }
      await db.close();
    }
  });

  it('"flushAndCompaction" warms compaction outputs too; "flushOnly" does not', async () => {
    const misses: Record<string, number> = {};
    for (const mode of ["flushOnly", "flushAndCompaction"] as const) {
      const { db, stats } = await openWith(mode, "/db", new MemoryFileSystem());
      await flushed(db, 0, 1500);
      await flushed(db, 1000, 1500);
      await db.compactRange();
      expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
      misses[mode] = missesOfGets(db, stats, 0, 2500);
      await db.close();
    }
    expect(misses.flushAndCompaction).toBe(0);
    expect(misses.flushOnly).toBeGreaterThan(20);
  });

  it('"flushOnly" with atomicFlush: the tables of the atomic group are warmed', async () => {
    const stats = new Statistics();
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      statistics: stats,
      blockSize: 512,
      atomicFlush: true,
      prepopulateBlockCache: "flushOnly",
    });
    await flushed(db, 0, 2000);
    expect(db.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(missesOfGets(db, stats, 0, 2000)).toBe(0);
    await db.close();
  });

  it("works with flushes and compactions in worker threads (node file system)", async () => {
    const dir = join(tmp, "workers");
    const { db, stats } = await openWith("flushAndCompaction", dir);
    await flushed(db, 0, 2000);
    expect(missesOfGets(db, stats, 0, 2000)).toBe(0);
    await flushed(db, 1000, 2000);
    await db.compactRange();
    expect(missesOfGets(db, stats, 0, 3000)).toBe(0);
    await db.close();
  });

  for (const where of ["inline", "worker threads"] as const) {
    it(`warms from the blocks the job captured, reading no table data back (${where})`, async () => {
      const fs = where === "inline" ? new MemoryFileSystem() : undefined;
      const dir = where === "inline" ? "/db" : join(tmp, "captured");
      const { db, stats } = await openWith("flushAndCompaction", dir, fs);
      const n = 20_000;
      for (const [from, count] of [
        [0, n],
        [n / 2, n],
      ] as const) {
        const read = stats.getTicker(Ticker.BytesRead);
        const adds = stats.getTicker(Ticker.BlockCacheAdd);
        await flushed(db, from, count);
        const table = Number(db.getProperty("shale.total-sst-files-size"));
        // Only the new table's index and filter are read when it opens (a sixth
        // of it at this block size); its data blocks came with the job's result.
        expect(stats.getTicker(Ticker.BytesRead) - read).toBeLessThan(table / 4);
        expect(stats.getTicker(Ticker.BlockCacheAdd) - adds).toBeGreaterThan(count / 20);
      }
      const read = stats.getTicker(Ticker.BytesRead);
      await db.compactRange();
      const compactedRead = stats.getTicker(Ticker.BytesRead) - read;
      const table = Number(db.getProperty("shale.total-sst-files-size"));
      expect(compactedRead).toBeLessThan(table / 4);
      expect(missesOfGets(db, stats, 0, n + n / 2)).toBe(0);
      await db.close();
      if (fs === undefined) rmSync(dir, { recursive: true, force: true });
    });
  }

  it("a table compacted away leaves the cache with its warmed blocks", async () => {
    const stats = new Statistics();
    const cache = newBlockCache(64 << 20);
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      statistics: stats,
      blockSize: 512,
      blockCache: cache,
      prepopulateBlockCache: "flushOnly",
    });
    await flushed(db, 0, 5000);
    await flushed(db, 2500, 5000);
    const warmed = cache.usage;
    const table = Number(db.getProperty("shale.total-sst-files-size"));
    expect(warmed).toBeGreaterThan(table);
    // "flushOnly": the compaction's output is not warmed; the inputs' blocks are erased
    // (soon: in bounded steps on later turns of the event loop).
    await db.compactRange();
    for (let i = 0; i < 50 && cache.usage > warmed / 10; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(cache.usage).toBeLessThan(warmed / 10);
    await db.close();
  });

  it('"flushAndCompaction": an iterator opened before a compaction reads its input tables after it', async () => {
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      blockSize: 512,
      blockCache: newBlockCache(4096),
      prefixExtractor: fixedPrefix(3),
      prepopulateBlockCache: "flushAndCompaction",
    });
    await flushed(db, 0, 5000);
    await flushed(db, 2500, 5000);
    const it = db.iterator({ prefixSameAsStart: true });
    it.seek(key(10));
    // The inputs' blocks leave the cache at the install; their readers stay open for it:
    // the prefix seeks below probe the inputs' filters.
    await db.compactRange();
    for (const k of [100, 2600, 7000]) {
      it.seek(key(k));
      expect(it.valid() && Buffer.from(it.key()).equals(Buffer.from(key(k)))).toBe(true);
    }
    it.close();
    await db.close();
  });

  it('"flushAndCompaction": outputs warm into the room their inputs leave', async () => {
    const open = async (capacity: number) => {
      const stats = new Statistics();
      const cache = newBlockCache(capacity, { numShardBits: 0 });
      const db = await DB.open("/db", {
        fs: new MemoryFileSystem(),
        statistics: stats,
        blockSize: 512,
        blockCache: cache,
        prepopulateBlockCache: "flushAndCompaction",
      });
      await flushed(db, 0, 5000);
      await flushed(db, 2500, 5000);
      return { db, stats, cache };
    };
    // The two flushed tables' blocks, warmed.
    const first = await open(64 << 20);
    const warmed = first.cache.usage;
    await first.db.close();
    // A cache with room for them and half as much again: the output (7,500 keys) fits only
    // once its inputs (10,000 entries) are out.
    const { db, stats, cache } = await open(Math.floor(warmed * 1.5));
    expect(cache.usage).toBeGreaterThan(warmed * 0.9);
    await db.compactRange();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(cache.evictions).toBe(0);
    expect(missesOfGets(db, stats, 0, 7500)).toBe(0);
    await db.close();
  });

  it("is recorded in OPTIONS as RocksDB's prepopulate_block_cache", async () => {
    const expected: Record<PrepopulateBlockCache, string> = {
      disable: "kDisable",
      flushOnly: "kFlushOnly",
      flushAndCompaction: "kFlushOnly",
    };
    for (const [mode, recorded] of Object.entries(expected)) {
      const dir = join(tmp, `options-${mode}`);
      const { db } = await openWith(mode as PrepopulateBlockCache, dir);
      await db.close();
      const name = readdirSync(dir)
        .filter((n) => /^OPTIONS-\d+$/.test(n))
        .sort()
        .pop()!;
      const text = readFileSync(join(dir, name), "utf8");
      const table = text.slice(text.indexOf('[TableOptions/BlockBasedTable "default"]'));
      expect(table).toContain(`prepopulate_block_cache=${recorded}\n`);
    }
  });

  it("refuses an unknown value (InvalidArgument) and a non-string (TypeError)", async () => {
    const fs = new MemoryFileSystem();
    await expect(
      DB.open("/db", { fs, prepopulateBlockCache: "kFlushOnly" as never }),
    ).rejects.toMatchObject({
      code: "InvalidArgument",
      message: expect.stringContaining("prepopulateBlockCache"),
    });
    await expect(DB.open("/db", { fs, prepopulateBlockCache: true as never })).rejects.toThrow(
      TypeError,
    );
  });
});
