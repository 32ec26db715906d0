/**
 * Compaction styles at the database: the options (validation, OPTIONS file names, the
 * recorded style taken on reopen, per column family), a style the tree cannot take refused
 * before anything is written, compactRange and statistics under universal and FIFO, and
 * FIFO's ttl on the system clock.
 */
import { randomBytes } from "node:crypto";
import { MemoryFileSystem, ShaleError, Statistics, Ticker } from "@shale/base";
import { SstFileWriter } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { readNewestOptions } from "./core/options-file.js";
import { DB } from "./db.js";
import { NUM_LEVELS } from "./version/version-edit.js";

const DIR = "/db";

function filesPerLevel(db: DB): number[] {
  return db.debugVersion().levels.map((l) => l.length);
}

function cfEntries(fs: MemoryFileSystem, family = "default"): Map<string, string> {
  const found = readNewestOptions(fs, DIR)!;
  return found.sections.find((s) => s.title === `CFOptions "${family}"`)!.entries;
}

async function fillTables(db: DB, tables: number, keysPerTable: number, tag = "v"): Promise<void> {
  for (let t = 0; t < tables; t++) {
    for (let i = 0; i < keysPerTable; i++)
      db.put(
        `k${String(i * tables + t).padStart(6, "0")}`,
        `${tag}${t}-${randomBytes(50).toString("hex")}`,
      );
    await db.flush();
  }
}

async function expectRejects(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(ShaleError.isInstance(e), String(e)).toBe(true);
  expect((e as ShaleError).code).toBe(code);
  expect((e as Error).message).toMatch(message);
}

describe("compaction style options", () => {
  it("validates compactionStyle, universal and fifo", async () => {
    const fs = new MemoryFileSystem();
    await expectRejects(
      DB.open(DIR, { fs, compactionStyle: "tiered" as never }),
      "InvalidArgument",
      /compactionStyle must be one of/,
    );
    await expect(DB.open(DIR, { fs, universal: { sizeRatio: "1" as never } })).rejects.toThrow(
      TypeError,
    );
    await expectRejects(
      DB.open(DIR, { fs, universal: { sizeRatio: 1.5 } }),
      "InvalidArgument",
      /universal.sizeRatio must be an integer/,
    );
    await expectRejects(
      DB.open(DIR, { fs, universal: { sizeRatoi: 1 } as never }),
      "InvalidArgument",
      /unknown options.universal option "sizeRatoi"/,
    );
    await expectRejects(
      DB.open(DIR, { fs, universal: { incremental: true } }),
      "NotSupported",
      /incremental/,
    );
    await expect(
      DB.open(DIR, { fs, universal: { allowTrivialMove: "yes" as never } }),
    ).rejects.toThrow(TypeError);
    await expectRejects(
      DB.open(DIR, { fs, fifo: { maxTableFilesSize: -1 } }),
      "InvalidArgument",
      /fifo.maxTableFilesSize/,
    );
    await expect(DB.open(DIR, { fs, fifo: null as never })).rejects.toThrow(TypeError);
    // Nothing was created by the refused opens.
    expect(fs.exists(DIR) ? fs.list(DIR) : []).toEqual([]);
  });

  it("writes RocksDB's names to OPTIONS and reopens with the recorded style", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open(DIR, {
      fs,
      compactionStyle: "universal",
      universal: { sizeRatio: 10, maxSizeAmplificationPercent: 150, stopStyle: "similarSize" },
    });
    await db.close();
    const e = cfEntries(fs);
    expect(e.get("compaction_style")).toBe("kCompactionStyleUniversal");
    expect(e.get("compaction_options_universal")).toBe(
      "{incremental=false;compression_size_percent=-1;allow_trivial_move=false;max_size_amplification_percent=150;max_merge_width=4294967295;stop_style=kCompactionStopStyleSimilarSize;min_merge_width=2;size_ratio=10;}",
    );
    expect(e.get("compaction_options_fifo")).toBe(
      "{allow_compaction=false;age_for_warm=0;max_table_files_size=1073741824;}",
    );
    // No style given: the recorded one, with its options (compactRange proves universal:
    // everything goes to the last level, where leveled would stop at L1).
    db = await DB.open(DIR, { fs, disableAutoCompactions: true });
    await fillTables(db, 3, 50);
    await db.compactRange();
    expect(filesPerLevel(db).slice(0, NUM_LEVELS - 1)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(filesPerLevel(db)[NUM_LEVELS - 1]).toBeGreaterThan(0);
    await db.close();
    const again = cfEntries(fs);
    expect(again.get("compaction_style")).toBe("kCompactionStyleUniversal");
    expect(again.get("compaction_options_universal")).toContain("size_ratio=10;");
    // Given: it wins (universal -> leveled is a change every tree can take).
    db = await DB.open(DIR, { fs, compactionStyle: "leveled" });
    await db.close();
    expect(cfEntries(fs).get("compaction_style")).toBe("kCompactionStyleLevel");
  });

  it("records FIFO with its ttl, per column family", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open(DIR, { fs });
    await db.createColumnFamily("logs", {
      compactionStyle: "fifo",
      fifo: { maxTableFilesSize: 1 << 20, ttl: 3600 },
    });
    await db.close();
    expect(cfEntries(fs).get("compaction_style")).toBe("kCompactionStyleLevel");
    const logs = cfEntries(fs, "logs");
    expect(logs.get("compaction_style")).toBe("kCompactionStyleFIFO");
    expect(logs.get("compaction_options_fifo")).toBe(
      "{allow_compaction=false;age_for_warm=0;max_table_files_size=1048576;}",
    );
    expect(logs.get("ttl")).toBe("3600");
    db = await DB.open(DIR, { fs });
    await db.close();
    expect(cfEntries(fs, "logs").get("ttl")).toBe("3600");
    expect(cfEntries(fs, "logs").get("compaction_style")).toBe("kCompactionStyleFIFO");
  });

  it("refuses FIFO for a tree with tables below L0, before anything is written", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open(DIR, { fs });
    await fillTables(db, 2, 50);
    await db.compactRange();
    expect(filesPerLevel(db)[1]).toBeGreaterThan(0);
    db.put("unflushed", "in the WAL");
    await db.close();
    const before = new Map(fs.list(DIR).map((n) => [n, fs.readFile(`${DIR}/${n}`)]));
    await expectRejects(
      DB.open(DIR, { fs, compactionStyle: "fifo" }),
      "InvalidArgument",
      /cannot open with compactionStyle "fifo": FIFO keeps every table in L0/,
    );
    const after = new Map(fs.list(DIR).map((n) => [n, fs.readFile(`${DIR}/${n}`)]));
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [n, bytes] of before) expect(after.get(n), n).toEqual(bytes);
    // The tree still opens as it was.
    db = await DB.open(DIR, { fs });
    expect(db.get("unflushed")?.length).toBe(10);
    await db.close();
  });

  it("lets a FIFO tree (all in L0) become universal or leveled", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open(DIR, { fs, compactionStyle: "fifo" });
    await fillTables(db, 3, 20);
    await db.close();
    db = await DB.open(DIR, { fs, compactionStyle: "universal", disableAutoCompactions: true });
    await db.compactRange();
    expect(filesPerLevel(db)[NUM_LEVELS - 1]).toBeGreaterThan(0);
    expect(db.get("k000000")).toBeDefined();
    await db.close();
  });
});

describe("universal compaction in a database", () => {
  it("keeps the sorted runs within the trigger, counts statistics, compacts all on compactRange", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    const db = await DB.open(DIR, {
      fs,
      statistics,
      compactionStyle: "universal",
      level0FileNumCompactionTrigger: 3,
    });
    try {
      await fillTables(db, 12, 40);
      await db.waitForCompactions();
      const levels = filesPerLevel(db);
      const runs = levels[0]! + levels.slice(1).filter((n) => n > 0).length;
      // At most the trigger: RocksDB's pickers leave `trigger` runs whose sizes call for nothing.
      expect(runs).toBeLessThanOrEqual(3);
      expect(statistics.getTicker(Ticker.CompactionCount)).toBeGreaterThan(0);
      expect(statistics.getTicker(Ticker.CompactWriteBytes)).toBeGreaterThan(0);
      expect(Number(db.getProperty("shale.write-amplification"))).toBeGreaterThan(1);
      await db.compactRange("k000100", "k000200");
      // The range does not matter: every table ends in the last level.
      expect(filesPerLevel(db).slice(0, NUM_LEVELS - 1)).toEqual([0, 0, 0, 0, 0, 0]);
      for (let i = 0; i < 480; i++)
        expect(db.get(`k${String(i).padStart(6, "0")}`), String(i)).toBeDefined();
    } finally {
      await db.close();
    }
  });
});

describe("FIFO compaction in a database", () => {
  it("deletes the oldest tables beyond maxTableFilesSize and counts them", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    const db = await DB.open(DIR, {
      fs,
      statistics,
      compactionStyle: "fifo",
      fifo: { maxTableFilesSize: 12_000, ttl: 0 },
    });
    try {
      await fillTables(db, 6, 40);
      await db.waitForCompactions();
      const l0 = db.debugVersion().levels[0]!;
      const total = l0.reduce((n, f) => n + f.size, 0);
      expect(total).toBeLessThanOrEqual(12_000);
      expect(l0.length).toBeLessThan(6);
      expect(statistics.getTicker(Ticker.FifoMaxSizeCompactions)).toBeGreaterThan(0);
      // The newest table's keys are there; the oldest table's are gone.
      expect(db.get("k000005")).toBeDefined();
      expect(db.get("k000000")).toBeUndefined();
      // No stall under FIFO, however many L0 tables.
      expect(db.getProperty("shale.is-write-stopped")).toBe("0");
      // compactRange is the FIFO pick: nothing more to delete now.
      await db.compactRange();
      expect(db.debugVersion().levels[0]!.length).toBe(l0.length);
    } finally {
      await db.close();
    }
  });

  it("deletes tables older than ttl (system clock)", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    const db = await DB.open(DIR, {
      fs,
      statistics,
      compactionStyle: "fifo",
      fifo: { ttl: 1 },
    });
    try {
      await fillTables(db, 2, 10, "old");
      expect(db.debugVersion().levels[0]!.length).toBe(2);
      await new Promise((r) => setTimeout(r, 2200));
      db.put("fresh", "value");
      await db.flush();
      await db.waitForCompactions();
      const l0 = db.debugVersion().levels[0]!;
      expect(l0.length).toBe(1);
      expect(statistics.getTicker(Ticker.FifoTtlCompactions)).toBe(1);
      expect(db.get("fresh")).toBeDefined();
      expect(db.get("k000000")).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});

describe("ingestion under universal and FIFO", () => {
  for (const style of ["fifo", "universal"] as const) {
    it(`puts an external file into L0 under ${style}`, async () => {
      const fs = new MemoryFileSystem();
      const db = await DB.open(DIR, { fs, compactionStyle: style, disableAutoCompactions: true });
      try {
        db.put("a", "1");
        await db.flush();
        const w = new SstFileWriter({ fs });
        w.open("/ext.sst");
        w.put("x", "ext");
        w.finish();
        await db.ingestExternalFile(["/ext.sst"]);
        // Leveled would place it in L6 (nothing overlaps it).
        expect(filesPerLevel(db)).toEqual([2, 0, 0, 0, 0, 0, 0]);
        expect(db.get("x")?.length).toBe(3);
      } finally {
        await db.close();
      }
      // And the FIFO tree still opens FIFO.
      const again = await DB.open(DIR, { fs });
      await again.close();
    });
  }
});
