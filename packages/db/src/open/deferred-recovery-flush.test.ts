/**
 * avoidFlushDuringRecovery (recovery.ts): the memtables a WAL replay rebuilds go to the
 * background flush; their WALs stay until it installs, so a crash before that loses nothing.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { fixturePath } from "../test-support/crash-runner.test-support.js";

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);
const logs = (names: string[]) => names.filter((n) => n.endsWith(".log")).sort();

describe("avoidFlushDuringRecovery", () => {
  it("by default leaves the replayed memtable to the background flush, its WAL kept until then", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.close();
    const again = await DB.open("/db", { fs });
    expect(again.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(logs(fs.list("/db"))).toHaveLength(2); // the replayed WAL and the new one
    expect(str(again.get("a"))).toBe("1");
    await again.flush(); // waits for the replayed memtable's flush too
    expect(again.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(logs(fs.list("/db"))).toHaveLength(1);
    expect(str(again.get("a"))).toBe("1");
    await again.close();
    const third = await DB.open("/db", { fs });
    expect(str(third.get("a"))).toBe("1");
    await third.close();
  });

  it("false flushes the replayed memtables to L0 during open and deletes their WALs", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.close();
    const again = await DB.open("/db", { fs, avoidFlushDuringRecovery: false });
    expect(again.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(logs(fs.list("/db"))).toHaveLength(1);
    expect(str(again.get("a"))).toBe("1");
    await again.close();
  });

  it("flushes several replayed memtables oldest first: the newest version of a key wins", async () => {
    const fs = new MemoryFileSystem();
    const big = "x".repeat(1000);
    const db = await DB.open("/db", { fs, writeBufferSize: 1 << 20, disableAutoCompactions: true });
    // Three rounds over the same 60 keys, ~64 KiB each: one WAL, three memtables at 64 KiB.
    for (let round = 0; round < 3; round++)
      for (let k = 0; k < 60; k++) db.put(`k${k}`, `${round}:${big}`);
    db.delete("k7");
    await db.close();
    const again = await DB.open("/db", {
      fs,
      writeBufferSize: 64 * 1024,
      disableAutoCompactions: true,
    });
    const expectLatest = () => {
      for (let k = 0; k < 60; k++) {
        const v = str(again.get(`k${k}`));
        if (k === 7) expect(v).toBeUndefined();
        else expect(v?.slice(0, 2), `k${k}`).toBe("2:");
      }
    };
    expectLatest();
    await again.flush();
    expect(Number(again.getProperty("shale.num-files-at-level0"))).toBeGreaterThanOrEqual(3);
    expect(logs(fs.list("/db"))).toHaveLength(1);
    expectLatest();
    await again.close();
  });

  /** A database whose L0 holds 4 tables (the compaction trigger) and whose WAL holds more. */
  async function l0AtTriggerWithWal(fs: MemoryFileSystem): Promise<void> {
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    for (let t = 0; t < 4; t++) {
      for (let k = 0; k < 50; k++) db.put(`k${k}`, `${t}`);
      await db.flush();
    }
    for (let k = 0; k < 50; k++) db.put(`k${k}`, "wal");
    await db.close();
  }
  const level = (db: DB, n: number) => db.getProperty(`shale.num-files-at-level${n}`);

  it("holds the L0 compaction back until the replayed memtable's table is in L0: one job takes all five", async () => {
    const fs = new MemoryFileSystem();
    await l0AtTriggerWithWal(fs);
    const again = await DB.open("/db", { fs });
    await again.waitForCompactions();
    // Compacted at once, the 4 tables would leave the replayed one alone in L0 beside L1.
    expect(level(again, 0)).toBe("0");
    expect(level(again, 1)).toBe("1");
    expect(again.getProperty("shale.stats")).toMatch(/1 compactions/);
    for (let k = 0; k < 50; k++) expect(str(again.get(`k${k}`))).toBe("wal");
    await again.close();
  });

  it("does not hold it back once L0 has reached the slowdown trigger", async () => {
    const fs = new MemoryFileSystem();
    await l0AtTriggerWithWal(fs);
    const again = await DB.open("/db", { fs, level0SlowdownWritesTrigger: 4 });
    await again.waitForCompactions();
    expect(level(again, 0)).toBe("1"); // the 4 compacted at once; the replayed one came after
    expect(level(again, 1)).toBe("1");
    for (let k = 0; k < 50; k++) expect(str(again.get(`k${k}`))).toBe("wal");
    await again.close();
  });

  it("a process killed right after open replays the kept WALs again: nothing is lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-deferred-flush-"));
    try {
      const db = await DB.open(dir, { writeBufferSize: 64 * 1024 });
      for (let k = 0; k < 500; k++) db.put(`k${k}`, `v${k}`.repeat(20));
      await db.close(); // the WAL is left to replay (no flush on close)
      expect(logs(readdirSync(dir)).length).toBeGreaterThan(0);
      const child = spawnSync(process.execPath, [fixturePath("reopen-and-die.mjs"), dir], {
        encoding: "utf8",
      });
      expect(child.signal).toBe("SIGKILL");
      expect(child.stdout).toContain("open l0=");
      const again = await DB.open(dir, { writeBufferSize: 64 * 1024 });
      for (let k = 0; k < 500; k++)
        expect(str(again.get(`k${k}`)), `k${k}`).toBe(`v${k}`.repeat(20));
      expect(str(again.get("after-reopen"))).toBe("yes");
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rejects a non-boolean", async () => {
    await expect(
      DB.open("/db", { fs: new MemoryFileSystem(), avoidFlushDuringRecovery: 1 as never }),
    ).rejects.toThrow(TypeError);
  });
});
