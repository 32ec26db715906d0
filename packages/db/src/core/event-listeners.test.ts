/**
 * The `listeners` open option (RocksDB's EventListener): what each callback is told and
 * when — after the call that caused it, on the main thread — that a throwing listener is
 * reported and never fatal, and that anything but an array of objects of functions is a
 * TypeError.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FaultInjectionFileSystem,
  MemoryFileSystem,
  ShaleError,
  Statistics,
  Ticker,
} from "@shale/base";
import { describe, expect, it, vi } from "vitest";
import { DB } from "../db.js";
import type {
  BackgroundErrorInfo,
  CompactionJobInfo,
  EventListener,
  FlushJobInfo,
  TableFileDeletionInfo,
  WriteStallInfo,
} from "./event-listeners.js";

/** A listener recording every event, by kind. */
function recorder() {
  const seen = {
    flush: [] as FlushJobInfo[],
    compaction: [] as CompactionJobInfo[],
    deleted: [] as TableFileDeletionInfo[],
    error: [] as BackgroundErrorInfo[],
    stall: [] as WriteStallInfo[],
  };
  const listener: EventListener = {
    onFlushCompleted: (i) => seen.flush.push(i),
    onCompactionCompleted: (i) => seen.compaction.push(i),
    onTableFileDeleted: (i) => seen.deleted.push(i),
    onBackgroundError: (i) => seen.error.push(i),
    onStallConditionsChanged: (i) => seen.stall.push(i),
  };
  return { seen, listener };
}

describe("event listeners", () => {
  it("reports a flush after the call, with RocksDB's FlushJobInfo", async () => {
    const fs = new MemoryFileSystem();
    const { seen, listener } = recorder();
    const db = await DB.open("/db", { fs, listeners: [listener], disableAutoCompactions: true });
    db.put("a", "1");
    db.put("b", "2");
    await db.flush();
    await vi.waitFor(() => expect(seen.flush).toHaveLength(1));
    const info = seen.flush[0]!;
    expect(info.cfName).toBe("default");
    expect(info.cfId).toBe(0);
    expect(info.filePath).toMatch(/^\/db\/\d{6}\.sst$/);
    expect(fs.exists(info.filePath)).toBe(true);
    expect(info.filePath.endsWith(`${String(info.fileNumber).padStart(6, "0")}.sst`)).toBe(true);
    expect(info.jobId).toBeGreaterThan(0);
    expect([info.smallestSeqno, info.largestSeqno]).toEqual([1, 2]);
    expect(info.tableProperties.numEntries).toBe(2);
    expect(info.flushReason).toBe("ManualFlush");
    expect(info.triggeredWritesStop).toBe(false);
    await db.close();
  });

  it("reports jobs run in worker threads (node file system) the same way", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-listeners-"));
    const { seen, listener } = recorder();
    const db = await DB.open(dir, { listeners: [listener], disableAutoCompactions: true });
    try {
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 10; i++) db.put(`k${i}`, `v${round}`);
        await db.flush();
      }
      await db.compactRange();
      await vi.waitFor(() => expect(seen.compaction).toHaveLength(1));
      expect(seen.flush.map((f) => f.flushReason)).toEqual(["ManualFlush", "ManualFlush"]);
      expect(seen.compaction[0]!.outputFiles[0]!.startsWith(dir)).toBe(true);
      await vi.waitFor(() => expect(seen.deleted).toHaveLength(2));
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a full memtable's flush WriteBufferFull", async () => {
    const fs = new MemoryFileSystem();
    const { seen, listener } = recorder();
    const db = await DB.open("/db", {
      fs,
      listeners: [listener],
      writeBufferSize: 65536,
      disableAutoCompactions: true,
    });
    const value = "x".repeat(1000);
    for (let i = 0; i < 200; i++) db.put(`k${i}`, value);
    await db.flush();
    await vi.waitFor(() => expect(seen.flush.length).toBeGreaterThanOrEqual(2));
    expect(seen.flush[0]!.flushReason).toBe("WriteBufferFull");
    const ids = seen.flush.map((f) => f.jobId);
    expect(new Set(ids).size).toBe(ids.length);
    await db.close();
  });

  it("reports a compaction and the deletion of its input tables", async () => {
    const fs = new MemoryFileSystem();
    const { seen, listener } = recorder();
    const db = await DB.open("/db", { fs, listeners: [listener], disableAutoCompactions: true });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 10; i++) db.put(`k${i}`, `v${round}`);
      await db.flush();
    }
    await db.compactRange();
    await vi.waitFor(() => expect(seen.compaction).toHaveLength(1));
    const c = seen.compaction[0]!;
    expect(c.cfName).toBe("default");
    expect(c.status).toBeUndefined();
    expect(c.baseInputLevel).toBe(0);
    expect(c.outputLevel).toBe(1);
    expect(c.compactionReason).toBe("ManualCompaction");
    expect([...c.inputFiles].sort()).toEqual(seen.flush.map((f) => f.filePath).sort());
    expect(c.inputFiles.length).toBe(2);
    expect(c.outputFiles.length).toBe(1);
    expect(c.stats.numInputRecords).toBe(20);
    expect(c.stats.numOutputRecords).toBe(10);
    expect(c.stats.numInputFiles).toBe(2);
    expect(c.stats.numOutputFiles).toBe(1);
    expect(c.jobId).toBeGreaterThan(Math.max(...seen.flush.map((f) => f.jobId)));
    await vi.waitFor(() => expect(seen.deleted).toHaveLength(2));
    expect(seen.deleted.map((d) => d.filePath).sort()).toEqual([...c.inputFiles].sort());
    for (const d of seen.deleted) {
      expect(d.dbName).toBe("/db");
      expect(d.status).toBeUndefined();
      expect(fs.exists(d.filePath)).toBe(false);
    }
    await db.close();
  });

  it("reports a trivial move as a compaction whose file is input and output", async () => {
    const fs = new MemoryFileSystem();
    const { seen, listener } = recorder();
    const db = await DB.open("/db", {
      fs,
      listeners: [listener],
      level0FileNumCompactionTrigger: 1,
    });
    db.put("a", "1");
    await db.flush();
    await vi.waitFor(() => expect(seen.compaction).toHaveLength(1));
    const c = seen.compaction[0]!;
    expect(c.inputFiles).toEqual([seen.flush[0]!.filePath]);
    expect(c.outputFiles).toEqual(c.inputFiles);
    expect(c.baseInputLevel).toBe(0);
    expect(c.outputLevel).toBeGreaterThan(0);
    expect(c.compactionReason).toBe("LevelL0FilesNum");
    expect(c.stats.totalOutputBytes).toBe(0);
    expect(c.stats.numInputFiles).toBe(1);
    expect(seen.deleted).toEqual([]); // a move deletes nothing
    await db.close();
  });

  it("reports write stall changes of a family's L0", async () => {
    const fs = new MemoryFileSystem();
    const { seen, listener } = recorder();
    const db = await DB.open("/db", {
      fs,
      listeners: [listener],
      level0FileNumCompactionTrigger: 2,
      level0SlowdownWritesTrigger: 2,
      level0StopWritesTrigger: 20,
    });
    // The second L0 table slows writes down; the L0 compaction it starts ends the stall.
    for (let i = 0; i < 2; i++) {
      db.put(`k${i}`, "v");
      await db.flush();
    }
    await vi.waitFor(() => expect(seen.stall).toHaveLength(2));
    expect(seen.stall[0]).toEqual({
      cfName: "default",
      condition: { cur: "Delayed", prev: "Normal" },
    });
    expect(seen.stall[1]!.condition).toEqual({ cur: "Normal", prev: "Delayed" });
    await db.close();
  });

  it("reports the background error that turned the database read-only", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const { seen, listener } = recorder();
    const db = await DB.open("/db", { fs, listeners: [listener] });
    db.put("a", "1");
    // The memtable is switched now; the flush job writes its table after this call.
    await db.flush({ wait: false });
    fs.failAfter("any", 1, "EIO");
    await vi.waitFor(() => expect(seen.error).toHaveLength(1));
    expect(seen.error[0]!.reason).toBe("Flush");
    expect(ShaleError.isInstance(seen.error[0]!.status)).toBe(true);
    expect(() => db.put("b", "2")).toThrow(seen.error[0]!.status);
    fs.clearFaults();
    await db.close().catch(() => {});
  });

  it("calls no listener inside the database call, and survives one that throws", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    let inCall = false;
    const calledInCall: boolean[] = [];
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => {
      if (w.code === "SHALE_LISTENER_ERROR") warnings.push(w.message);
    };
    process.on("warning", onWarning);
    const { seen, listener } = recorder();
    const db = await DB.open("/db", {
      fs,
      statistics,
      listeners: [
        {
          onFlushCompleted: () => {
            calledInCall.push(inCall);
            throw new Error("listener bug");
          },
        },
        { onFlushCompleted: async () => Promise.reject(new Error("async listener bug")) },
        listener,
      ],
      writeBufferSize: 65536,
      disableAutoCompactions: true,
    });
    try {
      const value = "x".repeat(1000);
      // Puts fill memtables; their flushes land at later puts' operation boundaries.
      for (let i = 0; i < 400; i++) {
        inCall = true;
        db.put(`k${i}`, value);
        inCall = false;
        if (i % 50 === 0) await new Promise((r) => setTimeout(r, 5));
      }
      await db.flush();
      await vi.waitFor(() => expect(seen.flush.length).toBeGreaterThanOrEqual(3));
      await vi.waitFor(() =>
        expect(statistics.getTicker(Ticker.ListenerErrors)).toBe(2 * seen.flush.length),
      );
      expect(calledInCall.every((x) => !x)).toBe(true);
      await vi.waitFor(() => expect(warnings.length).toBe(2 * seen.flush.length));
      expect(warnings[0]).toContain("onFlushCompleted");
      db.put("after", "ok");
      expect(new TextDecoder().decode(db.get("after"))).toBe("ok");
    } finally {
      process.off("warning", onWarning);
      await db.close();
    }
  });

  it("takes only an array of objects whose listener members are functions", async () => {
    const fs = new MemoryFileSystem();
    for (const bad of [
      "x",
      {},
      [null],
      [1],
      [[]],
      [{ onFlushCompleted: 1 }],
      [{ onBackgroundError: "f" }],
    ]) {
      await expect(DB.open("/db", { fs, listeners: bad as never })).rejects.toThrow(TypeError);
    }
    const ok = await DB.open("/db", { fs, listeners: [{}, { somethingElse: 1 } as never] });
    await ok.close();
  });
});
