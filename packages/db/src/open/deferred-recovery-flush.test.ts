/**
 * avoidFlushDuringRecovery (recovery.ts): the memtables a WAL replay rebuilds stay in memory,
 * the last one as the mutable memtable and the full ones for the background flush; their WALs
 * stay until the flushes install, so a crash before that loses nothing.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem } from "@shale/base";
import { LogWriter } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { fixturePath } from "../test-support/crash-runner.test-support.js";
import { VersionEdit } from "../version/version-edit.js";

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);
const logs = (names: string[]) => names.filter((n) => n.endsWith(".log")).sort();

describe("avoidFlushDuringRecovery", () => {
  it("by default keeps the replayed memtable in memory, its WAL kept until it is flushed", async () => {
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

  it("false deletes the replayed WALs when the MANIFEST records a MinLogNumberToKeep (as RocksDB's does)", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.close();
    // RocksDB records MinLogNumberToKeep with every flush: here the WAL that holds "a".
    const [wal] = logs(fs.list("/db"));
    const manifest = `/db/${new TextDecoder().decode(fs.readFile("/db/CURRENT")).trim()}`;
    const w = new LogWriter(fs.openWritable(manifest, { append: true }));
    const edit = new VersionEdit();
    edit.minLogNumberToKeep = Number(wal!.slice(0, -4));
    w.addRecord(edit.encode());
    w.close();
    const again = await DB.open("/db", { fs, avoidFlushDuringRecovery: false });
    expect(again.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(logs(fs.list("/db"))).toHaveLength(1);
    expect(logs(fs.list("/db"))).not.toContain(wal);
    expect(str(again.get("a"))).toBe("1");
    await again.close();
    const third = await DB.open("/db", { fs });
    expect(str(third.get("a"))).toBe("1");
    await third.close();
  });

  it("flushes several replayed memtables oldest first: the newest version of a key wins", async () => {
    const fs = new MemoryFileSystem();
    const big = "x".repeat(2000);
    // Three rounds over the same 60 keys, ~120 KiB each, one WAL each (every open replays
    // the WALs before into its memtable, keeps them, and starts a new one).
    for (let round = 0; round < 3; round++) {
      const db = await DB.open("/db", {
        fs,
        writeBufferSize: 1 << 20,
        disableAutoCompactions: true,
      });
      for (let k = 0; k < 60; k++) db.put(`k${k}`, `${round}:${big}`);
      if (round === 2) db.delete("k7");
      await db.close();
    }
    expect(logs(fs.list("/db"))).toHaveLength(3);
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

  it("writes after the open go to the replayed memtable; a later open replays both WALs", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.close();
    const again = await DB.open("/db", { fs });
    expect(again.getProperty("shale.num-immutable-mem-table")).toBe("0");
    expect(again.getProperty("shale.num-entries-active-mem-table")).toBe("1");
    again.put("b", "2");
    expect(again.getProperty("shale.num-entries-active-mem-table")).toBe("2");
    await again.close();
    expect(logs(fs.list("/db"))).toHaveLength(2); // nothing flushed: both WALs kept
    const third = await DB.open("/db", { fs });
    expect(str(third.get("a"))).toBe("1");
    expect(str(third.get("b"))).toBe("2");
    expect(third.getProperty("shale.num-entries-active-mem-table")).toBe("2");
    await third.flush();
    expect(logs(fs.list("/db"))).toHaveLength(1);
    await third.close();
    const fourth = await DB.open("/db", { fs });
    expect(str(fourth.get("a"))).toBe("1");
    expect(str(fourth.get("b"))).toBe("2");
    await fourth.close();
  });

  const big = "x".repeat(1000);
  /**
   * `n` puts of ~1 KiB (`k<i>` = `<i>:` + 1000 bytes) in one WAL and `tail` more in a second
   * one, left to replay, then reopened at a 64 KiB write buffer: the first WAL's full
   * memtable for the background flush, the second's the mutable one (a WAL's records stay in
   * one memtable).
   */
  async function reopenOverTwoWals(
    fs: MemoryFileSystem,
    n: number,
    tail: number,
    maxWriteBufferNumber?: number,
  ): Promise<DB> {
    let db = await DB.open("/db", { fs, writeBufferSize: 1 << 20 });
    for (let k = 0; k < n; k++) db.put(`k${k}`, `${k}:${big}`);
    await db.close();
    db = await DB.open("/db", { fs, writeBufferSize: 1 << 20 });
    for (let k = n; k < n + tail; k++) db.put(`k${k}`, `${k}:${big}`);
    await db.close();
    return DB.open("/db", {
      fs,
      writeBufferSize: 64 * 1024,
      ...(maxWriteBufferNumber !== undefined ? { maxWriteBufferNumber } : {}),
    });
  }
  const expectPuts = (db: DB, n: number) => {
    for (let k = 0; k < n; k++) expect(str(db.get(`k${k}`))?.split(":")[0], `k${k}`).toBe(`${k}`);
  };

  it("the full replayed memtable's flush keeps the WAL the mutable one still needs", async () => {
    const fs = new MemoryFileSystem();
    const again = await reopenOverTwoWals(fs, 120, 20);
    const full = Number(again.getProperty("shale.num-immutable-mem-table"));
    expect(full).toBe(1);
    const active = Number(again.getProperty("shale.num-entries-active-mem-table"));
    expect(active).toBeGreaterThan(0);
    for (let i = 0; i < 200 && again.getProperty("shale.num-immutable-mem-table") !== "0"; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(again.getProperty("shale.num-immutable-mem-table")).toBe("0");
    expect(again.getProperty("shale.num-files-at-level0")).toBe(String(full));
    // The second replayed WAL holds the mutable memtable's data: it must outlive that flush.
    expect(logs(fs.list("/db"))).toHaveLength(2);
    await again.close(); // no flush on close: the next open replays it
    const third = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
    expectPuts(third, 140);
    await third.close();
  });

  it("a replayed mutable memtable switched out keeps its oldest WAL until its own flush (a crash before it loses nothing)", async () => {
    const fs = new MemoryFileSystem();
    // Room for every memtable the writes below switch out: with the default two, the writer
    // stalls or is throttled to the flush rate (time-dependent) and may run every queued
    // flush inline before the copy, and the case below never arises.
    const again = await reopenOverTwoWals(fs, 300, 20, 8);
    expect(again.getProperty("shale.num-immutable-mem-table")).toBe("1");
    // Before the full replayed memtables' flushes install, the mutable one (its data in the
    // replayed WAL) is switched out by new writes: when an older one's flush installs, the
    // replayed WAL must stay for it. The process dies before its own flush: a copy of the
    // files as they are then (all in the OS) is what the next open finds.
    for (let k = 0; k < 80; k++) again.put(`n${k}`, big);
    expect(Number(again.getProperty("shale.num-immutable-mem-table"))).toBeGreaterThanOrEqual(1);
    const crashed = new MemoryFileSystem();
    crashed.mkdir("/db");
    for (const name of fs.list("/db"))
      if (name !== "LOCK") crashed.writeFile(`/db/${name}`, fs.readFile(`/db/${name}`));
    await again.close();
    const third = await DB.open("/db", { fs: crashed, writeBufferSize: 64 * 1024 });
    expectPuts(third, 320);
    for (let k = 0; k < 80; k++) expect(str(third.get(`n${k}`)), `n${k}`).toBe(big);
    await third.close();
  });

  /**
   * A database whose L0 holds 4 tables (the compaction trigger) and whose WAL holds ~100 KiB
   * more: replayed at a 64 KiB write buffer, a full memtable for the background flush and
   * a mutable one.
   */
  async function l0AtTriggerWithWal(fs: MemoryFileSystem): Promise<void> {
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    for (let t = 0; t < 4; t++) {
      for (let k = 0; k < 50; k++) db.put(`k${k}`, `${t}`);
      await db.flush();
    }
    for (let k = 0; k < 50; k++) db.put(`k${k}`, WAL_VALUE);
    await db.close();
  }
  const WAL_VALUE = `wal${"x".repeat(2000)}`;
  const level = (db: DB, n: number) => db.getProperty(`shale.num-files-at-level${n}`);

  it("holds the L0 compaction back until the full replayed memtable's table is in L0: one job takes all five", async () => {
    const fs = new MemoryFileSystem();
    await l0AtTriggerWithWal(fs);
    const again = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
    expect(again.getProperty("shale.num-immutable-mem-table")).toBe("1");
    await again.waitForCompactions();
    // Compacted at once, the 4 tables would leave the replayed one alone in L0 beside L1.
    expect(level(again, 0)).toBe("0");
    expect(level(again, 1)).toBe("1");
    expect(again.getProperty("shale.stats")).toMatch(/1 compactions/);
    for (let k = 0; k < 50; k++) expect(str(again.get(`k${k}`))).toBe(WAL_VALUE);
    await again.close();
  });

  it("does not hold it back once L0 has reached the slowdown trigger", async () => {
    const fs = new MemoryFileSystem();
    await l0AtTriggerWithWal(fs);
    const again = await DB.open("/db", {
      fs,
      writeBufferSize: 64 * 1024,
      level0SlowdownWritesTrigger: 4,
    });
    await again.waitForCompactions();
    expect(level(again, 0)).toBe("1"); // the 4 compacted at once; the replayed one came after
    expect(level(again, 1)).toBe("1");
    for (let k = 0; k < 50; k++) expect(str(again.get(`k${k}`))).toBe(WAL_VALUE);
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

  it("never splits a WAL between two replayed memtables: a merge operand is applied once after the flushes", async () => {
    const fs = new MemoryFileSystem();
    const options = { fs, mergeOperator: "stringappend" as const };
    const db = await DB.open("/db", { ...options, writeBufferSize: 1 << 20 });
    db.merge("m", "x");
    for (let k = 0; k < 120; k++) db.put(`k${k}`, `${k}:${big}`);
    db.put("last", "1");
    await db.close();
    // The WAL (~120 KiB) is over this open's 64 KiB write buffer.
    const again = await DB.open("/db", { ...options, writeBufferSize: 64 * 1024 });
    expect(str(again.get("m"))).toBe("x");
    for (let i = 0; i < 200 && again.getProperty("shale.num-immutable-mem-table") !== "0"; i++)
      await new Promise((r) => setTimeout(r, 5));
    again.put("after", "open");
    await again.close();
    // A flush of part of the WAL's records must not leave them to be replayed again.
    for (let open = 0; open < 2; open++) {
      const next = await DB.open("/db", { ...options, writeBufferSize: 64 * 1024 });
      expect(str(next.get("m")), `open ${open}`).toBe("x");
      expectPuts(next, 120);
      expect(str(next.get("after"))).toBe("open");
      await next.close();
    }
  });

  it("rejects a non-boolean", async () => {
    await expect(
      DB.open("/db", { fs: new MemoryFileSystem(), avoidFlushDuringRecovery: 1 as never }),
    ).rejects.toThrow(TypeError);
  });
});
