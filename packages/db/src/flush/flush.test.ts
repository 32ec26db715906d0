import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FaultInjectionFileSystem,
  MemoryFileSystem,
  NodeFileSystem,
  Statistics,
  Ticker,
} from "@shale/base";
import { TableReader } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { decodeUint64, encodeUint64 } from "../core/merge-operator.js";
import { DB } from "../db.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const tmp = mkdtempSync(join(tmpdir(), "shale-flush-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("flush to L0", () => {
  it("writes the memtable as an L0 table, reads through it, and retires the WAL", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, mergeOperator: "uint64add" });
    for (let i = 0; i < 1000; i++) db.put(`k${String(i).padStart(4, "0")}`, `v${i}`);
    db.merge("counter", encodeUint64(3));
    db.delete("k0001");
    db.deleteRange("k0500", "k0600");
    const snap = db.snapshot();
    await db.flush();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(db.getProperty("shale.num-entries-active-mem-table")).toBe("0");
    expect(str(db.get("k0000"))).toBe("v0");
    expect(db.get("k0001")).toBeUndefined();
    expect(db.get("k0550")).toBeUndefined();
    expect(str(db.get("k0600"))).toBe("v600");
    db.merge("counter", encodeUint64(4));
    expect(decodeUint64(db.get("counter")!)).toBe(7);
    expect(str(db.get("k0550", { snapshot: snap }))).toBeUndefined();
    expect(fs.list("/db").filter((n) => n.endsWith(".log"))).toHaveLength(1);
    expect(fs.list("/db").filter((n) => n.endsWith(".sst"))).toHaveLength(1);
    await db.flush();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("2");
    await db.close();
    const again = await DB.open("/db", { fs, mergeOperator: "uint64add" });
    expect(decodeUint64(again.get("counter")!)).toBe(7);
    expect(str(again.get("k0999"))).toBe("v999");
    expect(again.get("k0599")).toBeUndefined();
    await again.close();
  });

  it("reads newer L0 tables before older ones", async () => {
    const fs = new MemoryFileSystem();
    // No compaction: the files must stay in L0 for this test.
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    for (let round = 0; round < 5; round++) {
      db.put("k", `v${round}`);
      if (round !== 3) db.put(`only${round}`, "x");
      await db.flush();
    }
    expect(db.getProperty("shale.num-files-at-level0")).toBe("5");
    expect(str(db.get("k"))).toBe("v4");
    expect(db.get("only3")).toBeUndefined();
    expect(str(db.get("only2"))).toBe("x");
    db.delete("k");
    await db.flush();
    expect(db.get("k")).toBeUndefined();
    await db.close();
  });

  // Replayed WALs and their flush on open (or after it): open/deferred-recovery-flush.test.ts.

  it("removes tables that no MANIFEST edit made visible (numbered below its next file number)", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.close();
    // 000001: a number the database handed out (its first MANIFEST), as a dead flush's would be.
    fs.writeFile("/db/000001.sst", new Uint8Array(100));
    // 000999: never handed out, so not the database's file: kept.
    fs.writeFile("/db/000999.sst", new Uint8Array(100));
    const again = await DB.open("/db", { fs });
    expect(fs.exists("/db/000001.sst")).toBe(false);
    expect(fs.exists("/db/000999.sst")).toBe(true);
    expect(str(again.get("a"))).toBe("1");
    await again.close();
  });

  it("uses the block cache for table reads", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, blockCacheSize: 1 << 20 });
    for (let i = 0; i < 100; i++) db.put(`k${i}`, "v".repeat(100));
    await db.flush();
    const misses = Number(db.getProperty("shale.block-cache-misses"));
    db.get("k5");
    db.get("k5");
    expect(Number(db.getProperty("shale.block-cache-hits"))).toBeGreaterThan(0);
    expect(Number(db.getProperty("shale.block-cache-misses"))).toBeGreaterThanOrEqual(misses);
    expect(Number(db.getProperty("shale.block-cache-usage"))).toBeGreaterThan(0);
    await db.close();
  });

  it("flushes in worker threads on the node file system", async () => {
    const stats = new Statistics();
    const dir = join(tmp, "workers");
    const db = await DB.open(dir, {
      writeBufferSize: 64 * 1024,
      statistics: stats,
      disableAutoCompactions: true, // every table stays in L0 for the count below
    });
    for (let i = 0; i < 20_000; i++) db.put(`key${i}`, `value${i}`.repeat(4));
    await db.flush();
    expect(stats.getTicker(Ticker.FlushCount)).toBeGreaterThan(3);
    expect(readdirSync(dir).filter((n) => n.endsWith(".sst")).length).toBe(
      Number(db.getProperty("shale.num-files-at-level0")),
    );
    for (let i = 0; i < 20_000; i += 999)
      expect(str(db.get(`key${i}`))).toBe(`value${i}`.repeat(4));
    await db.close();
    const again = await DB.open(dir);
    expect(str(again.get("key19999"))).toBe("value19999".repeat(4));
    await again.close();
  });

  for (const where of ["inline", "worker"] as const) {
    it(`drops the versions no snapshot can see (${where})`, async () => {
      const fs = where === "inline" ? new MemoryFileSystem() : new NodeFileSystem();
      const dir = where === "inline" ? "/db" : join(tmp, "hidden");
      const db = await DB.open(dir, { fs, mergeOperator: "uint64add" });
      for (let i = 0; i < 5; i++) db.put("over", `v${i}`); // 4 hidden
      db.put("snap", "old");
      const snap = db.snapshot();
      db.put("snap", "new"); // "old" is seen by snap: kept
      db.put("covered", "x");
      db.deleteRange("covered", "coveree"); // covers "covered"@seq below it: dropped
      db.put("gone", "x");
      db.delete("gone"); // the put is hidden; the deletion stays (older tables may hold it)
      db.put("m", encodeUint64(1)); // a merge operand's base: kept with it
      db.merge("m", encodeUint64(2));
      db.merge("m", encodeUint64(3));
      await db.flush();
      // over, snap x2, gone (deletion), m x3 = 7 point entries (+ 1 range tombstone).
      const sst = fs.list(dir).filter((n) => n.endsWith(".sst"));
      expect(sst).toHaveLength(1);
      const path = `${dir}/${sst[0]}`;
      const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
      expect(reader.properties.numEntries).toBe(7);
      expect(reader.properties.numRangeDeletions).toBe(1);
      reader.close();
      expect(str(db.get("over"))).toBe("v4");
      expect(str(db.get("snap"))).toBe("new");
      expect(str(db.get("snap", { snapshot: snap }))).toBe("old");
      expect(db.get("covered")).toBeUndefined();
      expect(db.get("gone")).toBeUndefined();
      expect(decodeUint64(db.get("m")!)).toBe(6);
      snap.release();
      await db.close();
    });
  }

  it("stops writes after a failed flush, keeps reads, and loses nothing on reopen", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    fs.failAfter("write", 1, "EIO"); // the first write after the WAL append is the table's
    await expect(db.flush()).rejects.toThrowError(/EIO|IOError/);
    expect(() => db.put("b", "2")).toThrowError(/background job failed/);
    expect(str(db.get("a"))).toBe("1");
    expect(db.getProperty("shale.background-errors")).toBe("1");
    fs.clearFaults();
    await expect(db.close()).rejects.toMatchObject({ code: "IOError" });
    const again = await DB.open("/db", { fs });
    expect(str(again.get("a"))).toBe("1");
    await again.close();
  });

  it("turns read-only when a new WAL cannot be started, and loses nothing on reopen", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    fs.failAfter("sync", 1, "EIO");
    await expect(db.flush()).rejects.toThrowError(/new WAL/);
    expect(() => db.put("b", "2")).toThrowError(/read-only/);
    fs.clearFaults();
    await expect(db.close()).rejects.toMatchObject({ code: "IOError" });
    const again = await DB.open("/db", { fs });
    expect(str(again.get("a"))).toBe("1");
    await again.close();
  });
});
