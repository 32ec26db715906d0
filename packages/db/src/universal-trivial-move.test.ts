/**
 * Universal compaction's allowTrivialMove (RocksDB's CompactionOptionsUniversal::
 * allow_trivial_move): a pick whose tables overlap nowhere is moved to its output level in
 * the MANIFEST — the same table files, no byte written — while overlapping tables, the option
 * off, and compactRange rewrite. Every key reads back either way, also after a reopen, and
 * the option is in the OPTIONS file.
 */
import { MemoryFileSystem, Statistics, Ticker } from "@shale/base";
import { describe, expect, it } from "vitest";
import { readNewestOptions } from "./core/options-file.js";
import { DB } from "./db.js";

const DIR = "/db";
const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** `tables` flushes of `perTable` keys each: disjoint ranges, or interleaved (overlapping). */
async function load(db: DB, tables: number, perTable: number, overlapping: boolean) {
  for (let t = 0; t < tables; t++) {
    for (let i = 0; i < perTable; i++) {
      const n = overlapping ? i * tables + t : t * perTable + i;
      db.put(`k${String(n).padStart(5, "0")}`, `v${n}`);
    }
    await db.flush();
  }
  await db.waitForCompactions();
}

function numbers(db: DB): number[][] {
  return db.debugVersion().levels.map((l) => l.map((f) => f.number));
}

describe("universal allowTrivialMove", () => {
  it("moves non-overlapping tables without writing a byte", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    const db = await DB.open(DIR, {
      fs,
      statistics,
      compactionStyle: "universal",
      universal: { allowTrivialMove: true },
      level0FileNumCompactionTrigger: 4,
    });
    await load(db, 3, 200, false);
    const l0 = numbers(db)[0]!
      .slice()
      .sort((a, b) => a - b);
    expect(l0.length).toBe(3);
    for (let i = 0; i < 200; i++) db.put(`k${String(600 + i).padStart(5, "0")}`, `v${600 + i}`);
    await db.flush();
    await db.waitForCompactions();
    const levels = numbers(db);
    expect(levels[0]).toEqual([]);
    const moved = levels[6]!.slice().sort((a, b) => a - b);
    expect(moved.length).toBe(4);
    expect(moved.slice(0, 3)).toEqual(l0); // the same files, re-filed
    expect(statistics.getTicker(Ticker.CompactWriteBytes)).toBe(0);
    expect(statistics.getTicker(Ticker.CompactReadBytes)).toBe(0);
    expect(db.getProperty("shale.num-trivial-moves")).toBe("1");
    for (let n = 0; n < 800; n++)
      expect(text(db.get(`k${String(n).padStart(5, "0")}`))).toBe(`v${n}`);
    await db.close();
    const again = await DB.open(DIR, { fs, compactionStyle: "universal" });
    expect(
      numbers(again)[6]!
        .slice()
        .sort((a, b) => a - b),
    ).toEqual(moved);
    expect(text(again.get("k00799"))).toBe("v799");
    const cf = readNewestOptions(fs, DIR)!.sections.find((s) => s.title === 'CFOptions "default"')!;
    expect(cf.entries.get("compaction_options_universal")).toMatch(/allow_trivial_move=true;/);
    await again.close();
  });

  for (const [name, overlapping, allow] of [
    ["overlapping tables are rewritten", true, true],
    ["without the option, disjoint tables are rewritten", false, false],
  ] as const) {
    it(name, async () => {
      const statistics = new Statistics();
      const db = await DB.open(DIR, {
        fs: new MemoryFileSystem(),
        statistics,
        compactionStyle: "universal",
        universal: { allowTrivialMove: allow },
        level0FileNumCompactionTrigger: 4,
      });
      const before: number[] = [];
      for (let t = 0; t < 4; t++) {
        for (let i = 0; i < 200; i++) {
          const n = overlapping ? i * 4 + t : t * 200 + i;
          db.put(`k${String(n).padStart(5, "0")}`, `v${n}`);
        }
        await db.flush();
        before.push(...numbers(db)[0]!);
      }
      await db.waitForCompactions();
      const after = numbers(db).flat();
      expect(after.some((n) => before.includes(n))).toBe(false); // new tables
      expect(statistics.getTicker(Ticker.CompactWriteBytes)).toBeGreaterThan(0);
      expect(db.getProperty("shale.num-trivial-moves")).toBe("0");
      for (let n = 0; n < 800; n++)
        expect(text(db.get(`k${String(n).padStart(5, "0")}`))).toBe(`v${n}`);
      await db.close();
    });
  }

  it("compactRange rewrites even disjoint tables", async () => {
    const statistics = new Statistics();
    const db = await DB.open(DIR, {
      fs: new MemoryFileSystem(),
      statistics,
      compactionStyle: "universal",
      universal: { allowTrivialMove: true },
      disableAutoCompactions: true,
    });
    await load(db, 3, 100, false);
    await db.compactRange();
    expect(statistics.getTicker(Ticker.CompactWriteBytes)).toBeGreaterThan(0);
    expect(db.getProperty("shale.num-trivial-moves")).toBe("0");
    await db.close();
  });
});
