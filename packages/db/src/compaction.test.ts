/**
 * Leveled compaction through the database: levels form, every key stays readable, L1+ stay
 * sorted runs, snapshots keep what they see, compactRange reaches the last level and drops
 * deletions, no file leaks, and compaction runs in worker threads on the node file system.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bytewiseComparator,
  type Comparator,
  type FileSystem,
  formatInternalKey,
  MemoryFileSystem,
  reverseBytewiseComparator,
  Statistics,
  Ticker,
} from "@shale/base";
import { Random } from "@shale/base/testing";
import { TableReader } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { builtinMergeOperatorName } from "./background/protocol.js";
import {
  DEFAULT_STRING_APPEND,
  decodeUint64,
  encodeUint64,
  type MergeOperator,
  maxOperator,
  stringAppendOperator,
} from "./core/merge-operator.js";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";
import { fileRange, rangesOverlap } from "./version/key-range.js";
import { NUM_LEVELS } from "./version/version-edit.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const tmp = mkdtempSync(join(tmpdir(), "shale-compaction-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Small sizes so that a few MB make several levels. */
const SMALL: DbOptions = {
  writeBufferSize: 64 * 1024,
  targetFileSizeBase: 32 * 1024,
  maxBytesForLevelBase: 128 * 1024,
  maxBytesForLevelMultiplier: 4,
  level0FileNumCompactionTrigger: 2,
  compression: "none",
};

const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const value = (i: number, round: number) => `value-${i}-${round}-${"x".repeat(60)}`;

/** Writes `n` random keys (of `space`), yielding now and then so inline jobs run. */
async function fill(
  db: DB,
  n: number,
  space: number,
  round: number,
  seed: number,
): Promise<Map<number, number>> {
  const rnd = new Random(seed);
  const written = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const k = rnd.uniform(space);
    db.put(key(k), value(k, round));
    written.set(k, round);
    if (i % 500 === 0) await new Promise((r) => setImmediate(r));
  }
  return written;
}

/** Checks the level invariants: L1+ sorted, non-overlapping; returns files per level. */
function checkLevels(db: DB, ucmp: Comparator = bytewiseComparator): number[] {
  const v = db.debugVersion();
  const counts: number[] = [];
  for (let level = 0; level < NUM_LEVELS; level++) {
    const files = v.levels[level]!;
    counts.push(files.length);
    if (level === 0) continue;
    for (let i = 1; i < files.length; i++) {
      const a = files[i - 1]!;
      const b = files[i]!;
      const what = `L${level}: ${formatInternalKey(a.largest)} vs ${formatInternalKey(b.smallest)}`;
      expect(rangesOverlap(ucmp, fileRange(a), fileRange(b)), what).toBe(false);
      expect(ucmp.compare(fileRange(a).lo, fileRange(b).lo), what).toBeLessThan(0);
    }
  }
  return counts;
}

/**
 * Every table, log, MANIFEST, CURRENT, IDENTITY, LOCK and OPTIONS file (the two newest) the
 * database should have — nothing else.
 */
function expectNoLeaks(fs: FileSystem, dir: string, db: DB): void {
  const live = new Set<string>();
  for (const files of db.debugVersion().levels)
    for (const f of files) live.add(`${String(f.number).padStart(6, "0")}.sst`);
  const names = fs.list(dir);
  const tables = names.filter((n) => n.endsWith(".sst"));
  expect(new Set(tables)).toEqual(live);
  const options = names.filter((n) => n.startsWith("OPTIONS-"));
  expect(options.length).toBeGreaterThanOrEqual(1);
  expect(options.length).toBeLessThanOrEqual(2);
  const others = names
    .filter((n) => !n.endsWith(".sst") && !n.startsWith("OPTIONS-"))
    .map((n) => n.replace(/\d+/, "N"));
  expect(others.sort()).toEqual(["CURRENT", "IDENTITY", "LOCK", "MANIFEST-N", "N.log"]);
}

function tableProperties(fs: FileSystem, db: DB) {
  const out = [];
  for (const files of db.debugVersion().levels) {
    for (const f of files) {
      const r = TableReader.open(fs.openRandomAccess(db.tablePath(f.number)), { fileSize: f.size });
      out.push({ ...r.properties, tombstones: r.rangeTombstones().numTombstones });
      r.close();
    }
  }
  return out;
}

describe("leveled compaction", () => {
  it("forms levels, keeps every key readable and L1+ sorted, and survives a reopen", async () => {
    const fs = new MemoryFileSystem();
    const stats = new Statistics();
    const options = { ...SMALL, fs, statistics: stats };
    let db = await DB.open("/db", options);
    const written = await fill(db, 20_000, 8000, 1, 7);
    await db.waitForCompactions();
    const counts = checkLevels(db);
    expect(counts.slice(1).filter((n) => n > 0).length, `levels ${counts}`).toBeGreaterThanOrEqual(
      2,
    );
    for (const [k, round] of written) expect(str(db.get(key(k)))).toBe(value(k, round));
    expect(db.get(key(8001))).toBeUndefined();
    expect(stats.getTicker(Ticker.CompactionCount)).toBeGreaterThan(0);
    expect(Number(db.getProperty("shale.num-compactions"))).toBeGreaterThan(0);
    expect(Number(db.getProperty("shale.write-amplification"))).toBeGreaterThan(1);
    expect(db.getProperty("shale.compaction-pending")).toBe("0");
    expectNoLeaks(fs, "/db", db);
    await db.close();
    db = await DB.open("/db", options);
    checkLevels(db);
    for (const [k, round] of written) expect(str(db.get(key(k)))).toBe(value(k, round));
    await db.close();
  });

  it("keeps every version a live snapshot can see", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { ...SMALL, fs, mergeOperator: "uint64add" });
    for (let i = 0; i < 3000; i++) db.put(key(i), value(i, 1));
    db.merge("counter", encodeUint64(1));
    const snap1 = db.snapshot();
    for (let i = 0; i < 3000; i += 2) db.put(key(i), value(i, 2));
    for (let i = 1; i < 3000; i += 4) db.delete(key(i));
    db.deleteRange(key(1000), key(1100));
    db.merge("counter", encodeUint64(2));
    const snap2 = db.snapshot();
    await fill(db, 6000, 3000, 3, 11); // keys 0..2999 rewritten at random
    db.merge("counter", encodeUint64(4));
    await db.compactRange();
    await db.waitForCompactions();
    for (let i = 0; i < 3000; i++) {
      expect(str(db.get(key(i), { snapshot: snap1 }))).toBe(value(i, 1));
      let want: string | undefined = value(i, i % 2 === 0 ? 2 : 1);
      if (i % 4 === 1 || (i >= 1000 && i < 1100)) want = undefined;
      expect(str(db.get(key(i), { snapshot: snap2 })), `${i}`).toBe(want);
    }
    expect(decodeUint64(db.get("counter", { snapshot: snap1 })!)).toBe(1);
    expect(decodeUint64(db.get("counter", { snapshot: snap2 })!)).toBe(3);
    expect(decodeUint64(db.get("counter")!)).toBe(7);
    snap1.release();
    snap2.release();
    await db.compactRange();
    expect(decodeUint64(db.get("counter")!)).toBe(7);
    await db.close();
  });

  it("compactRange moves everything to the last level and drops deleted keys", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { ...SMALL, fs });
    for (let i = 0; i < 4000; i++) db.put(key(i), value(i, 1));
    await db.flush();
    await db.waitForCompactions();
    for (let i = 0; i < 4000; i += 2) db.delete(key(i));
    db.deleteRange(key(3000), key(4000));
    await db.compactRange();
    const counts = checkLevels(db);
    let last = 0;
    counts.forEach((n, level) => {
      if (n > 0) last = level;
    });
    expect(counts.filter((n) => n > 0).length, `${counts}`).toBe(1);
    expect(last).toBeGreaterThanOrEqual(1);
    const props = tableProperties(fs, db);
    expect(props.reduce((n, p) => n + p.numEntries, 0)).toBe(1500);
    expect(props.reduce((n, p) => n + p.numDeletions + p.tombstones, 0)).toBe(0);
    for (let i = 0; i < 4000; i++)
      expect(str(db.get(key(i)))).toBe(i % 2 === 1 && i < 3000 ? value(i, 1) : undefined);
    expectNoLeaks(fs, "/db", db);
    await db.close();
  });

  it("reads keys where a clipped range tombstone ends one table and the next begins", async () => {
    const fs = new MemoryFileSystem();
    // One output table per user key: every table boundary clips the tombstone.
    const db = await DB.open("/db", { ...SMALL, fs, targetFileSizeBase: 1 });
    const letters = "abcdefghijklmnopqrstuvwxyz".split("");
    for (const l of letters) db.put(l, `old-${l}`);
    const snap = db.snapshot(); // keeps the tombstone and the old values
    db.deleteRange("b", "y");
    for (const l of ["c", "m", "x"]) db.put(l, `new-${l}`);
    await db.compactRange();
    const files = db.debugVersion().levels[1]!;
    expect(files.length).toBeGreaterThan(20);
    expect(
      files.filter((f) => formatInternalKey(f.largest).includes(",RANGEDEL")).length,
    ).toBeGreaterThan(10);
    checkLevels(db);
    for (const l of letters) {
      const want = ["c", "m", "x"].includes(l)
        ? `new-${l}`
        : l >= "b" && l < "y"
          ? undefined
          : `old-${l}`;
      expect(str(db.get(l)), l).toBe(want);
      expect(str(db.get(l, { snapshot: snap })), l).toBe(`old-${l}`);
    }
    snap.release();
    await db.close();
  });

  it("compacts with a custom key order", async () => {
    const fs = new MemoryFileSystem();
    const options = { ...SMALL, fs, comparator: reverseBytewiseComparator };
    const db = await DB.open("/db", options);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 300; i++) db.put(key(i * 5 + round), value(i, round));
      await db.flush();
    }
    db.deleteRange(key(1000), key(500)); // [start, end) in reverse order: keys 1000 down to 501
    await db.waitForCompactions();
    await db.compactRange(key(1400), key(100));
    checkLevels(db, reverseBytewiseComparator);
    for (let i = 0; i < 300; i++) {
      for (let round = 0; round < 5; round++) {
        const k = i * 5 + round;
        const deleted = k <= 1000 && k > 500;
        expect(str(db.get(key(k))), key(k)).toBe(deleted ? undefined : value(i, round));
      }
    }
    await db.close();
    const again = await DB.open("/db", options);
    expect(str(again.get(key(1001)))).toBe(value(200, 1));
    expect(again.get(key(1000))).toBeUndefined();
    await again.close();
  });

  it("compacts only the requested range", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { ...SMALL, fs, disableAutoCompactions: true });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 400; i++) db.put(key(i), value(i, round));
      await db.flush();
    }
    for (let i = 1000; i < 1400; i++) db.put(key(i), value(i, 0));
    await db.flush();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("4");
    await db.compactRange(key(300), key(500));
    // The three L0 files overlapping [300, 500] go down; the one of keys 1000.. stays.
    expect(db.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(db.getProperty("shale.num-files-at-level1")).not.toBe("0");
    for (let i = 0; i < 400; i += 37) expect(str(db.get(key(i)))).toBe(value(i, 2));
    for (let i = 1000; i < 1400; i += 37) expect(str(db.get(key(i)))).toBe(value(i, 0));
    await expect(db.compactRange("b", "a")).rejects.toThrowError(/start is after end/);
    await db.close();
  });

  it("with disableAutoCompactions lets L0 grow (no stalls) until compactRange", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      ...SMALL,
      fs,
      disableAutoCompactions: true,
      level0SlowdownWritesTrigger: 3,
      level0StopWritesTrigger: 4,
    });
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 200; i++) db.put(key(i * 7 + round), value(i, round));
      await db.flush();
    }
    expect(db.getProperty("shale.num-files-at-level0")).toBe("6");
    expect(db.getProperty("shale.compaction-pending")).toBe("1");
    expect(db.getProperty("shale.num-compactions")).toBe("0");
    expect(db.getProperty("shale.stall-micros")).toBe("0");
    await db.compactRange();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(str(db.get(key(7 * 199 + 5)))).toBe(value(199, 5));
    await db.close();
  });

  it("stops writes at level0StopWritesTrigger until compaction catches up", async () => {
    const fs = new MemoryFileSystem();
    const stats = new Statistics();
    const db = await DB.open("/db", {
      ...SMALL,
      fs,
      statistics: stats,
      level0FileNumCompactionTrigger: 2,
      level0SlowdownWritesTrigger: 4,
      level0StopWritesTrigger: 4,
    });
    // A synchronous loop: inline jobs run only while a write waits.
    for (let i = 0; i < 30_000; i++) db.put(key(i % 5000), value(i, 0));
    expect(Number(db.debugVersion().numFiles(0))).toBeLessThan(5);
    expect(Number(db.getProperty("shale.l0-stop-micros"))).toBeGreaterThan(0);
    expect(stats.getTicker(Ticker.StallMicros)).toBeGreaterThan(0);
    expect(db.getProperty("shale.stats")).toMatch(/l0-stop \d+ \([1-9]\d*x\)/);
    await db.waitForCompactions();
    for (let i = 25_000; i < 30_000; i += 101) expect(str(db.get(key(i % 5000)))).toBe(value(i, 0));
    await db.close();
  });

  it("keeps a pinned version's files until it is released", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { ...SMALL, fs, disableAutoCompactions: true });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 500; i++) db.put(key(i), value(i, round));
      await db.flush();
    }
    const pin = db.pinCurrentVersion();
    const before = pin.version.levels[0]!.map((f) => f.number);
    expect(before).toHaveLength(3);
    await db.compactRange();
    for (const n of before) expect(fs.exists(db.tablePath(n)), `${n}`).toBe(true);
    expect(pin.version.refCount).toBe(1);
    pin.release();
    pin.release(); // idempotent
    for (const n of before) expect(fs.exists(db.tablePath(n))).toBe(false);
    expectNoLeaks(fs, "/db", db);
    await db.close();
  });

  it("merges operands and range deletions across compactions", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { ...SMALL, fs, mergeOperator: "uint64add" });
    for (let round = 0; round < 20; round++) {
      for (let c = 0; c < 50; c++) db.merge(`counter${c}`, encodeUint64(round));
      for (let i = 0; i < 300; i++) db.put(key(round * 300 + i), value(i, round));
      if (round === 10) db.deleteRange(key(0), key(1500));
      await db.flush();
    }
    await db.waitForCompactions();
    await db.compactRange();
    for (let c = 0; c < 50; c++) expect(decodeUint64(db.get(`counter${c}`)!)).toBe(190);
    expect(db.get(key(100))).toBeUndefined();
    expect(str(db.get(key(1600)))).toBe(value(100, 5));
    const props = tableProperties(fs, db);
    expect(props.reduce((n, p) => n + p.numMergeOperands, 0)).toBe(0);
    await db.close();
  });

  it("reports levels, compaction stats and estimates as properties", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { ...SMALL, fs });
    await fill(db, 10_000, 5000, 1, 3);
    await db.waitForCompactions();
    const levelstats = db.getProperty("shale.levelstats")!;
    expect(levelstats.split("\n")[0]).toBe("Level Files Size(MB)");
    expect(levelstats.split("\n")).toHaveLength(2 + NUM_LEVELS);
    const table = db.getProperty("shale.compaction-stats")!;
    expect(table).toMatch(/Level\s+Files\s+Size\(MB\)\s+Score\s+Read\(GB\)/);
    expect(table).toMatch(/^L1 /m);
    expect(table).toMatch(/^Sum /m);
    expect(db.getProperty("shale.stats")).toContain("** Compaction Stats **");
    let bytes = 0;
    for (let l = 0; l < NUM_LEVELS; l++)
      bytes += Number(db.getProperty(`shale.bytes-at-level${l}`));
    expect(String(bytes)).toBe(db.getProperty("shale.total-sst-files-size"));
    expect(db.getProperty("shale.estimate-pending-compaction-bytes")).toMatch(/^\d+$/);
    expect(db.getProperty("shale.num-running-compactions")).toBe("0");
    const flushed = Number(db.getProperty("shale.flush-write-bytes"));
    const compacted = Number(db.getProperty("shale.compact-write-bytes"));
    expect(db.getProperty("shale.write-amplification")).toBe(
      ((flushed + compacted) / flushed).toFixed(2),
    );
    await db.close();
  });

  it("rejects bad compaction options", async () => {
    const fs = new MemoryFileSystem();
    await expect(DB.open("/db", { fs, level0FileNumCompactionTrigger: 0 })).rejects.toThrowError(
      /InvalidArgument/,
    );
    await expect(
      DB.open("/db", { fs, level0SlowdownWritesTrigger: 10, level0StopWritesTrigger: 5 }),
    ).rejects.toThrowError(/level0StopWritesTrigger/);
    await expect(DB.open("/db", { fs, maxBytesForLevelMultiplier: 1 })).rejects.toThrowError(
      /maxBytesForLevelMultiplier/,
    );
    await expect(
      DB.open("/db", { fs, disableAutoCompactions: "yes" as unknown as boolean }),
    ).rejects.toThrowError(TypeError);
    // A trigger above the default slowdown raises the stall triggers with it.
    const db = await DB.open("/db", { fs, level0FileNumCompactionTrigger: 30 });
    await db.close();
  });

  it("closes while a compaction is queued or running, losing nothing", async () => {
    const fs = new MemoryFileSystem();
    const options = { ...SMALL, fs, disableAutoCompactions: true };
    const db = await DB.open("/db", options);
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 400; i++) db.put(key(i + round * 100), value(i, round));
      await db.flush();
    }
    const pending = db.compactRange().then(
      () => "done",
      (e: Error) => e.message,
    );
    await db.close();
    expect(await pending).toMatch(/done|closed|closing/);
    const again = await DB.open("/db", options);
    for (let i = 0; i < 700; i += 13) expect(again.get(key(i))).toBeDefined();
    expectNoLeaks(fs, "/db", again);
    await again.close();
  });

  it("stops a worker compaction when the database closes, losing nothing", async () => {
    const dir = join(tmp, "close-during");
    const options = { ...SMALL, disableAutoCompactions: true, targetFileSizeBase: 1 << 20 };
    const db = await DB.open(dir, options);
    const written = await fill(db, 15_000, 15_000, 1, 9);
    await db.flush();
    const pending = db.compactRange().then(
      () => "done",
      (e: Error) => e.message,
    );
    await new Promise((r) => setTimeout(r, 5));
    await db.close();
    expect(await pending).toMatch(/done|closed|closing/);
    const again = await DB.open(dir, options);
    for (const [k, round] of written) expect(str(again.get(key(k)))).toBe(value(k, round));
    const live = new Set<string>();
    for (const files of again.debugVersion().levels)
      for (const f of files) live.add(`${String(f.number).padStart(6, "0")}.sst`);
    expect(new Set(readdirSync(dir).filter((n) => n.endsWith(".sst")))).toEqual(live);
    await again.close();
  });

  it("compacts on the main thread when the merge operator cannot cross threads", async () => {
    const dir = join(tmp, "user-operator");
    // A user's object (even one that behaves like a built-in) cannot be sent to a worker.
    const concat: MergeOperator = {
      name: "concat",
      fullMerge: (_k, base, ops) =>
        new TextEncoder().encode(
          [base, ...ops]
            .filter((x) => x !== undefined)
            .map(str)
            .join(""),
        ),
    };
    const db = await DB.open(dir, {
      ...SMALL,
      mergeOperator: concat,
      disableAutoCompactions: true,
    });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 100; i++) db.merge(key(i), String(round));
      await db.flush();
    }
    await db.compactRange();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(db.getProperty("shale.num-compactions")).toBe("1");
    for (let i = 0; i < 100; i += 9) expect(str(db.get(key(i)))).toBe("012");
    expect(builtinMergeOperatorName(concat)).toBeUndefined();
    expect(builtinMergeOperatorName(stringAppendOperator())).toBeUndefined();
    expect(builtinMergeOperatorName(DEFAULT_STRING_APPEND)).toBe("stringappend");
    expect(builtinMergeOperatorName(maxOperator)).toBe("max");
    await db.close();
  });

  it("compacts in worker threads on the node file system", async () => {
    const dir = join(tmp, "workers");
    const stats = new Statistics();
    const options = { ...SMALL, statistics: stats, mergeOperator: "stringappend" as const };
    const db = await DB.open(dir, options);
    const written = await fill(db, 20_000, 6000, 1, 5);
    for (let i = 0; i < 100; i++) db.merge("log", `e${i}`);
    await db.waitForCompactions();
    expect(stats.getTicker(Ticker.CompactionCount)).toBeGreaterThan(0);
    checkLevels(db);
    for (const [k, round] of written) expect(str(db.get(key(k)))).toBe(value(k, round));
    expect(str(db.get("log"))).toBe(Array.from({ length: 100 }, (_, i) => `e${i}`).join(","));
    const live = new Set<string>();
    for (const files of db.debugVersion().levels)
      for (const f of files) live.add(`${String(f.number).padStart(6, "0")}.sst`);
    expect(new Set(readdirSync(dir).filter((n) => n.endsWith(".sst")))).toEqual(live);
    await db.compactRange();
    expect(str(db.get("log"))).toBe(Array.from({ length: 100 }, (_, i) => `e${i}`).join(","));
    await db.close();
    const again = await DB.open(dir, options);
    for (const [k, round] of written) expect(str(again.get(key(k)))).toBe(value(k, round));
    await again.close();
  });
});
