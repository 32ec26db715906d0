/**
 * Read amplification made visible: the TablesPerGet and TablesPerSeek histograms and
 * `shale.num-files-at-level0`.
 */
import { Histogram, MemoryFileSystem, Statistics } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

describe("read amplification in the statistics", () => {
  it("counts the tables each get probed and each seek positioned", async () => {
    const statistics = new Statistics();
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      disableAutoCompactions: true,
      statistics,
    });
    // Three L0 tables, each range inside the older ones': [a, z], [b, y], [c, x];
    // "mem" in the memtable.
    db.put("a", "1");
    db.put("z", "1");
    await db.flush();
    db.put("b", "2");
    db.put("y", "2");
    await db.flush();
    db.put("c", "3");
    db.put("x", "3");
    await db.flush();
    db.put("mem", "m");
    expect(db.getProperty("shale.num-files-at-level0")).toBe("3");

    const tablesPerGet = () => statistics.histogram(Histogram.TablesPerGet);
    statistics.reset();
    db.get("mem"); // the memtable answers: no table
    expect(tablesPerGet()).toMatchObject({ count: 1, sum: 0, max: 0 });
    db.get("c"); // the newest table answers
    expect(tablesPerGet()).toMatchObject({ count: 2, sum: 1, max: 1 });
    db.get("n"); // in every table's range, in none: all three probed, newest first
    expect(tablesPerGet()).toMatchObject({ count: 3, sum: 4, max: 3 });
    db.get("a"); // only the oldest table's range holds it
    expect(tablesPerGet()).toMatchObject({ count: 4, sum: 5 });
    db.get("zz"); // out of every table's range: none probed
    expect(tablesPerGet()).toMatchObject({ count: 5, sum: 5 });

    const it = db.iterator();
    it.seek("b");
    it.seekToFirst();
    it.close();
    expect(statistics.histogram(Histogram.TablesPerSeek)).toMatchObject({ count: 2, sum: 6 });

    // After a full compaction: one table in L1, none in L0.
    await db.compactRange();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    statistics.reset();
    db.get("a");
    const it2 = db.iterator();
    it2.seekToLast();
    it2.close();
    expect(tablesPerGet()).toMatchObject({ count: 1, sum: 1 });
    expect(statistics.histogram(Histogram.TablesPerSeek)).toMatchObject({ count: 1, sum: 1 });
    expect(statistics.toString()).toContain("TablesPerGet P50");
    await db.close();
  });
});
