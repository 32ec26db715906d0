/**
 * maxTotalWalSize (RocksDB's max_total_wal_size): with several column families, a family
 * written rarely no longer keeps every WAL since its last flush. Once the live WALs hold
 * more than the limit, the families with data in the oldest one flush (reason "WalFull").
 * The WAL-by-WAL trace is testdata/wal-retention/max-total-wal-size.txt; here the default
 * limit over many reopens, the flush reason, one family, and the OPTIONS file.
 */
import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import type { FlushJobInfo } from "../core/event-listeners.js";
import { DB } from "../db.js";

const KIB = 1024;
const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function walFiles(fs: MemoryFileSystem): string[] {
  return fs.list("/db").filter((n) => n.endsWith(".log"));
}

function walBytes(fs: MemoryFileSystem): number {
  let total = 0;
  for (const n of walFiles(fs)) total += fs.fileSize(`/db/${n}`);
  return total;
}

describe("maxTotalWalSize", () => {
  it("by default (4 x the memtables' memory) bounds the WALs an idle family keeps across reopens", async () => {
    const fs = new MemoryFileSystem();
    // Three families of 64 KiB memtables, two each: the limit is 4 * 3 * 128 KiB = 1.5 MiB.
    const options = {
      fs,
      writeBufferSize: 64 * KIB,
      createMissingColumnFamilies: true,
      columnFamilies: { busy: {}, idle: {} },
      disableAutoCompactions: true,
    };
    const value = "v".repeat(KIB);
    let most = 0;
    const rounds = 20;
    for (let r = 0; r < rounds; r++) {
      const db = await DB.open("/db", options);
      // The soak's shape: one write to `idle` a round, 160 KiB to `busy` (two flushes).
      db.columnFamily("idle").put(`i${r}`, `idle ${r}`);
      const busy = db.columnFamily("busy");
      for (let i = 0; i < 160; i++) busy.put(`b${r}-${i}`, value);
      await db.waitForCompactions();
      most = Math.max(most, walBytes(fs));
      await db.close();
    }
    // Without the limit every WAL since round 0 stays: 20 rounds x 160 KiB, 40 files and more.
    expect(most).toBeLessThan(1536 * KIB + 64 * KIB);
    expect(walFiles(fs).length).toBeLessThan(40);
    const db = await DB.open("/db", options);
    for (let r = 0; r < rounds; r++) {
      expect(str(db.columnFamily("idle").get(`i${r}`))).toBe(`idle ${r}`);
      expect(str(db.columnFamily("busy").get(`b${r}-159`))).toBe(value);
    }
    await db.close();
  });

  it("flushes the families holding the oldest WAL, reported with flush reason WalFull", async () => {
    const fs = new MemoryFileSystem();
    const flushed: FlushJobInfo[] = [];
    const db = await DB.open("/db", {
      fs,
      maxTotalWalSize: 8 * KIB,
      createMissingColumnFamilies: true,
      columnFamilies: { busy: {}, idle: {} },
      listeners: [{ onFlushCompleted: (info: FlushJobInfo) => void flushed.push(info) }],
    });
    db.columnFamily("idle").put("i", "idle");
    db.put("d", "default"); // in the oldest WAL too
    const busy = db.columnFamily("busy");
    // A tick after each write lets each WalFull flush finish (until it does, the oldest WAL
    // is already being flushed and a write asks for nothing more).
    for (let i = 0; i < 40; i++) {
      busy.put(`b${i}`, "x".repeat(512));
      await tick();
    }
    await db.waitForCompactions();
    await tick(); // listeners run on the next turn
    const byFamily = (name: string) => flushed.filter((f) => f.cfName === name);
    // The first switch takes every family with data in the one live WAL; later ones only busy.
    expect(byFamily("idle").map((f) => f.flushReason)).toEqual(["WalFull"]);
    expect(byFamily("default").map((f) => f.flushReason)).toEqual(["WalFull"]);
    expect(byFamily("busy").length).toBeGreaterThan(1);
    expect(byFamily("busy").every((f) => f.flushReason === "WalFull")).toBe(true);
    expect(walBytes(fs)).toBeLessThan(8 * KIB + KIB);
    expect(str(db.columnFamily("idle").get("i"))).toBe("idle");
    expect(str(db.get("d"))).toBe("default");
    await db.close();
  });

  it("with atomicFlush, every family flushes together", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      atomicFlush: true,
      maxTotalWalSize: 4 * KIB,
      createMissingColumnFamilies: true,
      columnFamilies: { busy: {}, idle: {} },
    });
    db.columnFamily("idle").put("i", "idle");
    const busy = db.columnFamily("busy");
    for (let i = 0; i < 20; i++) {
      busy.put(`b${i}`, "x".repeat(512));
      await tick();
    }
    await db.waitForCompactions();
    expect(db.columnFamily("idle").getProperty("shale.num-files-at-level0")).toBe("1");
    expect(walBytes(fs)).toBeLessThan(4 * KIB + KIB);
    await db.close();
    const again = await DB.open("/db", { fs, atomicFlush: true });
    expect(str(again.columnFamily("idle").get("i"))).toBe("idle");
    expect(str(again.columnFamily("busy").get("b19"))).toBe("x".repeat(512));
    await again.close();
  });

  it("does nothing with one column family: its own flushes free every WAL", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, maxTotalWalSize: KIB });
    for (let i = 0; i < 40; i++) db.put(`k${i}`, "x".repeat(512));
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(db.getProperty("shale.num-immutable-mem-table")).toBe("0");
    await db.close();
  });

  it("is recorded in the OPTIONS file as max_total_wal_size", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, maxTotalWalSize: 123 * KIB });
    const name = fs
      .list("/db")
      .filter((n) => n.startsWith("OPTIONS-"))
      .sort()
      .pop()!;
    expect(new TextDecoder().decode(fs.readFile(`/db/${name}`))).toMatch(
      /^\s*max_total_wal_size=125952$/m,
    );
    await db.close();
  });
});
