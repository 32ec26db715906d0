/**
 * Failed syncs and writes: a fault at EVERY sync point of a flush and of a
 * compaction (the n-th sync from a point just before them fails, n = 1, 2, ... until the
 * workload completes without the fault firing), each then ended by a clean close or by a
 * power cut, reopened with the fault cleared and model-checked (see
 * test-support/fault-model.test-support.ts): no acknowledged write lost, none invented,
 * the reopen works in the same process.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bytewiseComparator,
  FaultInjectionFileSystem,
  InternalKeyComparator,
  MemoryFileSystem,
  NodeFileSystem,
  ShaleError,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { manifestFileName } from "./core/filenames.js";
import { DB } from "./db.js";
import {
  type FaultClass,
  faultDbOptions,
  runTrial,
  type TrialResult,
  type WorkloadOptions,
} from "./test-support/fault-model.test-support.js";
import { VersionEdit } from "./version/version-edit.js";
import { VersionSet } from "./version/version-set.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** Around one explicit flush at op 300 (the fault is armed just before its synced write). */
const FLUSH: WorkloadOptions = {
  seed: 14_1,
  ops: 420,
  syncEvery: 10,
  yieldEvery: 50,
  flushEvery: 300,
  compactEvery: 100_000,
};
const FLUSH_ARM = 299;

/** Flushes at 150 and 300, a compactRange at 300 (armed just before it). */
const COMPACT: WorkloadOptions = {
  seed: 14_2,
  ops: 380,
  syncEvery: 10,
  yieldEvery: 50,
  flushEvery: 150,
  compactEvery: 300,
};
const COMPACT_ARM = 299;

/** Trials with n = 1, 2, ... until the fault no longer fires; every one must recover. */
async function everySyncPoint(
  w: WorkloadOptions,
  armAt: number,
  fault: FaultClass,
): Promise<TrialResult[]> {
  const results: TrialResult[] = [];
  for (let n = 1; n <= 400; n++) {
    const r = await runTrial(w, fault, armAt, n);
    results.push(r);
    if (r.outcome === "no-fault") return results;
  }
  throw new Error("the workload never completed");
}

function expectAllRecovered(results: TrialResult[]): void {
  const bad = results
    .map((r, i) => ({ n: i + 1, ...r }))
    .filter((r) => r.outcome !== "recovered" && r.outcome !== "no-fault")
    .map((r) => `n=${r.n} ${r.outcome}: ${r.detail}`);
  expect(bad).toEqual([]);
  expect(results.at(-1)!.outcome).toBe("no-fault");
  // The fault fired in every trial but the last (so every sync point was hit).
  expect(results.slice(0, -1).every((r) => r.error !== undefined)).toBe(true);
}

describe("a failed sync at every sync point, then reopen", () => {
  for (const errno of ["EIO", "ENOSPC"] as const) {
    for (const end of ["close", "powercut"] as const) {
      it(`flush: ${errno}, then ${end}`, async () => {
        const results = await everySyncPoint(FLUSH, FLUSH_ARM, { op: "sync", errno, end });
        expectAllRecovered(results);
        expect(results.length).toBeGreaterThan(5);
      });
      it(`compaction: ${errno}, then ${end}`, async () => {
        const results = await everySyncPoint(COMPACT, COMPACT_ARM, { op: "sync", errno, end });
        expectAllRecovered(results);
        expect(results.length).toBeGreaterThan(5);
      });
    }
  }
  it("a failed write at every write point of a flush, then close", async () => {
    const results = await everySyncPoint(FLUSH, FLUSH_ARM, {
      op: "write",
      errno: "ENOSPC",
      end: "close",
    });
    expectAllRecovered(results);
  });
});

describe("close after an I/O error", () => {
  it("releases the LOCK: a reopen in the same process works and has every write", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", faultDbOptions(fs));
    db.put("a", "1");
    db.put("b", "2", { sync: true });
    fs.failAfter("write", 1, "EIO");
    expect(() => db.put("c", "3")).toThrowError(/EIO/);
    expect(() => db.put("d", "4")).toThrowError(/read-only/);
    // close reports the error once, and still releases everything.
    const closing = await db.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ShaleError.isInstance(closing) && closing.code).toBe("IOError");
    await expect(db.close()).resolves.toBeUndefined(); // once
    fs.clearFaults();
    const again = await DB.open("/db", faultDbOptions(fs));
    expect(str(again.get("a"))).toBe("1");
    expect(str(again.get("b"))).toBe("2");
    expect(again.get("d")).toBeUndefined();
    await again.close();
  });

  it("releases the node LOCK file and every handle: a reopen in the same process works", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "shale-fault-close-"));
    try {
      const fs = new FaultInjectionFileSystem(new NodeFileSystem());
      const dir = join(tmp, "db");
      const db = await DB.open(dir, faultDbOptions(fs));
      for (let i = 0; i < 50; i++) db.put(`k${i}`, `v${i}`, { sync: i % 10 === 9 });
      fs.failAfter("write", 1, "ENOSPC");
      expect(() => db.put("x", "y")).toThrowError(/ENOSPC/);
      await expect(db.close()).rejects.toMatchObject({ code: "IOError" });
      expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe("");
      fs.clearFaults();
      const again = await DB.open(dir, faultDbOptions(fs));
      for (let i = 0; i < 50; i++) expect(str(again.get(`k${i}`))).toBe(`v${i}`);
      await again.close();
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("releases the LOCK even while the file system still fails", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", faultDbOptions(fs));
    db.put("a", "1");
    fs.setFilesystemActive(false);
    await expect(db.close()).rejects.toMatchObject({ code: "IOError" });
    fs.setFilesystemActive(true);
    const again = await DB.open("/db", faultDbOptions(fs));
    expect(str(again.get("a"))).toBe("1");
    await again.close();
  });

  it("a compactRange waiting for a compaction that fails rejects with that IOError", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", faultDbOptions(fs)); // L0 trigger 2
    for (let i = 0; i < 100; i++) db.put(`k${i}`, `a${i}`);
    await db.flush();
    for (let i = 0; i < 100; i++) db.put(`k${i}`, `b${i}`);
    await db.flush(); // the second L0 file: an automatic compaction is queued, not yet run
    expect(db.getProperty("shale.num-running-compactions")).toBe("1");
    fs.failAfter("sync", 1, "ENOSPC"); // its output table's sync
    const e = await db.compactRange().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toMatchObject({ code: "IOError" });
    expect((e as Error).message).toMatch(/ENOSPC/);
    // The same error object from every refused call.
    expect(() => db.put("x", "y")).toThrow(e as Error);
    await expect(db.flush()).rejects.toBe(e);
    await expect(db.close()).rejects.toBe(e);
    fs.clearFaults();
    const again = await DB.open("/db", faultDbOptions(fs));
    expect(str(again.get("k7"))).toBe("b7");
    await again.close();
  });

  it("compactRange and flush after a background failure reject with the IOError that caused it", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", faultDbOptions(fs));
    for (let i = 0; i < 100; i++) db.put(`k${i}`, `v${i}`);
    fs.failAfter("sync", 2, "ENOSPC"); // the WAL roll's directory sync passes; the table's fails
    const flushError = await db.flush().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(flushError).toMatchObject({ code: "IOError" });
    expect(String((flushError as Error).cause ?? flushError)).toMatch(/ENOSPC/);
    fs.clearFaults();
    for (const call of [() => db.compactRange(), () => db.flush()]) {
      const e = await call().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toMatchObject({ code: "IOError" });
      expect(String((e as Error).message) + String((e as Error).cause)).toMatch(/ENOSPC/);
    }
    await db.close().catch(() => undefined);
    const again = await DB.open("/db", faultDbOptions(fs));
    expect(str(again.get("k7"))).toBe("v7");
    await again.close();
  });
});

describe("after a failure nothing is deleted", () => {
  it("tables an iterator kept alive stay on disk when it closes after the failure", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", faultDbOptions(fs)); // L0 trigger 2
    for (let i = 0; i < 100; i++) db.put(`k${i}`, `a${i}`);
    await db.flush();
    for (let i = 0; i < 100; i++) db.put(`k${i}`, `b${i}`);
    await db.flush();
    const l0 = db.debugVersion().levels[0]!.map((f) => f.number);
    expect(l0.length).toBe(2);
    const it = db.iterator(); // pins the version with both L0 tables
    await db.waitForCompactions();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    for (const n of l0) expect(fs.exists(db.tablePath(n))).toBe(true); // still pinned
    fs.failAfter("write", 1, "EIO");
    expect(() => db.put("x", "y")).toThrowError(/EIO/);
    it.close(); // the last reference: the tables are obsolete, but the database has failed
    for (const n of l0) expect(fs.exists(db.tablePath(n)), `table ${n}`).toBe(true);
    await db.close().catch(() => undefined);
    fs.clearFaults();
    const again = await DB.open("/db", faultDbOptions(fs)); // the open removes them
    for (const n of l0) expect(fs.exists(again.tablePath(n))).toBe(false);
    expect(str(again.get("k5"))).toBe("b5");
    await again.close();
  });
});

describe("a failed MANIFEST write or sync", () => {
  it("latches: the MANIFEST takes no further edit, in memory nothing is applied", () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    fs.mkdir("/v");
    const versions = new VersionSet({
      fs,
      dir: "/v",
      icmp: new InternalKeyComparator(bytewiseComparator),
      mergeOperatorName: undefined,
    });
    versions.rollManifest();
    const path = manifestFileName("/v", versions.manifestNumber);
    fs.failAfter("sync", 1, "EIO");
    const edit = new VersionEdit();
    edit.logNumber = 7;
    expect(() => versions.logAndApply(edit)).toThrowError(/EIO/);
    const failure = versions.manifestError;
    expect(failure).toMatchObject({ code: "IOError" });
    expect(versions.logNumber).toBe(0);
    fs.clearFaults();
    const size = fs.fileSize(path);
    expect(() => versions.logAndApply(new VersionEdit())).toThrow(failure!);
    expect(fs.fileSize(path)).toBe(size);
    versions.close();
  });
});
