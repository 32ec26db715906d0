/**
 * Checkpoints (ops/checkpoint.ts): taken while writes go on, each reopens with exactly the
 * state of the moment it was taken (a model map copied at the call), on the in-memory file
 * system (copies) and the node one (hard links, flushes and compactions in worker threads).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FaultInjectionFileSystem,
  type FileSystem,
  isShaleError,
  MemoryFileSystem,
  NodeFileSystem,
} from "@shale/base";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DB } from "../db.js";
import { BackupEngine } from "./backup/engine.js";
import { contents, ModelWorkload, tick } from "./model-workload.test-support.js";

const small = {
  writeBufferSize: 64 * 1024,
  targetFileSizeBase: 64 * 1024,
  maxBytesForLevelBase: 256 * 1024,
};

async function checkpointsUnderWrites(
  fs: FileSystem,
  root: string,
  seed: number,
  rounds: number,
): Promise<void> {
  const db = await DB.open(`${root}/db`, { fs, ...small });
  const w = new ModelWorkload(db, seed);
  const taken: { dir: string; expected: Map<string, string>; done: Promise<unknown> }[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 400; i++) w.step();
    const dir = `${root}/ck${round}`;
    // The moment: the call (its capture runs before it returns).
    const done = db.checkpoint(dir);
    taken.push({ dir, expected: w.snapshot(), done });
    for (let i = 0; i < 200; i++) {
      w.step();
      if (i % 20 === 0) await tick();
    }
  }
  for (const t of taken) await t.done;
  expect(contents(db)).toEqual(w.model);
  await db.close();
  for (const t of taken) {
    const copy = await DB.open(t.dir, { fs, createIfMissing: false });
    expect(contents(copy)).toEqual(t.expected);
    await copy.close();
  }
}

describe("db.checkpoint", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });

  it("under concurrent writes, each reopens with the state of its moment (memory fs)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
        await checkpointsUnderWrites(new MemoryFileSystem(), "/m", seed, 4);
      }),
      { numRuns: 4 },
    );
  });

  it("under concurrent writes with background workers, tables hard-linked (node fs)", async () => {
    const root = mkdtempSync(join(tmpdir(), "shale-ck-"));
    roots.push(root);
    await checkpointsUnderWrites(new NodeFileSystem(), root, 7, 3);
  });

  it("hard-links tables on the node file system and copies the rest", async () => {
    const root = mkdtempSync(join(tmpdir(), "shale-ck-"));
    roots.push(root);
    const fs = new NodeFileSystem();
    const db = await DB.open(`${root}/db`, { fs });
    for (let i = 0; i < 1000; i++) db.put(`k${i}`, `v${i}`);
    await db.flush();
    db.put("in-wal", "yes");
    const info = await db.checkpoint(`${root}/ck`);
    const live = db.getLiveFiles();
    expect(info.linked).toBe(live.tables.length);
    expect(info.linked).toBeGreaterThan(0);
    for (const t of live.tables)
      expect(statSync(`${root}/ck/${t.name}`).ino).toBe(statSync(`${root}/db/${t.name}`).ino);
    expect(info.files).toContain("CURRENT");
    expect(info.files).toContain(live.manifest.name);
    expect(info.files.some((f) => f.startsWith("OPTIONS-"))).toBe(true);
    expect(info.files.filter((f) => f.endsWith(".log"))).toEqual(live.wals.map((w) => w.name));
    expect(info.sequence).toBe(db.latestSequence);
    await db.close();
    const copy = await DB.open(`${root}/ck`, { fs, createIfMissing: false });
    expect(new TextDecoder().decode(copy.get("in-wal"))).toBe("yes");
    expect(new TextDecoder().decode(copy.get("k999"))).toBe("v999");
    await copy.close();
  });

  it("refuses a target that holds anything; accepts an empty directory", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    fs.mkdir("/full");
    fs.writeFile("/full/x", new Uint8Array(1));
    await expect(db.checkpoint("/full")).rejects.toThrow(/InvalidArgument.*not empty/);
    await expect(db.checkpoint("/db")).rejects.toThrow(/InvalidArgument/);
    await expect(db.checkpoint("")).rejects.toThrow(TypeError);
    await expect(db.checkpoint("/e", { flush: 1 as never })).rejects.toThrow(TypeError);
    await expect(db.checkpoint("/e", { other: true } as never)).rejects.toThrow(/unknown option/);
    fs.mkdir("/empty");
    await db.checkpoint("/empty");
    await db.close();
    const copy = await DB.open("/empty", { fs, createIfMissing: false });
    expect(copy.get("a")).toBeDefined();
    await copy.close();
  });

  it("with flush: true holds writes made without the WAL", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("nowal", "1", { disableWAL: true });
    await db.checkpoint("/plain");
    await db.checkpoint("/flushed", { flush: true });
    await db.close();
    const plain = await DB.open("/plain", { fs });
    expect(plain.get("nowal")).toBeUndefined();
    await plain.close();
    const flushed = await DB.open("/flushed", { fs });
    expect(flushed.get("nowal")).toBeDefined();
    await flushed.close();
  });

  it("an interrupted checkpoint leaves nothing at the target; the next one succeeds", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 3000; i++) db.put(`k${i}`, `v${i}`.repeat(10));
    await db.flush();
    for (let i = 0; i < 100; i++) db.put(`w${i}`, "x");
    fs.failAfter("write", 3, "EIO");
    let failure: unknown;
    try {
      await db.checkpoint("/ck");
    } catch (e) {
      failure = e;
    }
    fs.clearFaults();
    expect(isShaleError(failure, "IOError")).toBe(true);
    expect(fs.exists("/ck")).toBe(false);
    // Nothing the checkpoint held is kept back: the database goes on.
    db.put("after", "1");
    await db.checkpoint("/ck");
    expect(fs.exists("/ck.tmp")).toBe(false);
    await db.close();
    const copy = await DB.open("/ck", { fs, createIfMissing: false });
    expect(copy.get("after")).toBeDefined();
    expect(copy.get("k2999")).toBeDefined();
    await copy.close();
  });

  it("a leftover staging directory (a crash mid-checkpoint) does not open as a database at the target", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    fs.mkdir("/ck.tmp");
    fs.writeFile("/ck.tmp/000099.sst", new Uint8Array(10));
    await db.checkpoint("/ck");
    expect(fs.exists("/ck.tmp")).toBe(false);
    expect(fs.list("/ck")).not.toContain("000099.sst");
    await db.close();
  });

  it("holds file deletions while it copies: WALs a flush retires meanwhile stay until it is done", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    // A WAL of several copy chunks: the copy yields to the event loop between them.
    for (let i = 0; i < 4000; i++) db.put(`k${i}`, "v".repeat(1000));
    const walsBefore = db.getLiveFiles().wals.map((w) => w.name);
    let finished = false;
    const done = db.checkpoint("/ck").then(() => {
      finished = true;
    });
    await db.flush(); // retires the WAL the checkpoint captured
    expect(finished).toBe(false);
    expect(fs.list("/db").filter((f) => walsBefore.includes(f))).toEqual(walsBefore);
    await done;
    await db.waitForCompactions();
    expect(fs.list("/db").filter((f) => walsBefore.includes(f))).toEqual([]);
    await db.close();
    const copy = await DB.open("/ck", { fs });
    expect(copy.get("k3999")).toBeDefined();
    await copy.close();
  });
});

describe("db.checkpoint of a RocksDB directory with another column family", () => {
  it("copies that family's tables too: the checkpoint opens with both families", async () => {
    const fixture = new URL("../../testdata/manifest/rocksdb-7.8.3-cf-dir/", import.meta.url);
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    for (const n of readdirSync(fixture))
      fs.writeFile(`/db/${n}`, new Uint8Array(readFileSync(new URL(n, fixture))));
    const spy = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      const db = await DB.open("/db", { fs, mergeOperator: "max" });
      const live = db.getLiveFiles();
      expect(live.tables.filter((t) => t.columnFamily === 1).map((t) => t.number)).toEqual([18]);
      expect(db.verifyChecksums().tables).toBe(live.tables.length); // every family's
      const engine = BackupEngine.open("/backups", { fs });
      const { id } = await engine.createBackup(db);
      await db.checkpoint("/ck");
      const want = contents(db);
      await db.close();
      await engine.restoreBackup(id, "/restored");
      for (const dir of ["/ck", "/restored"]) {
        const copy = await DB.open(dir, { fs, mergeOperator: "max", createIfMissing: false });
        expect(copy.listColumnFamilies()).toEqual(["default", "other"]);
        expect(contents(copy)).toEqual(want);
        await copy.close();
        expect(fs.exists(`${dir}/000018.sst`)).toBe(true);
      }
    } finally {
      spy.mockRestore();
    }
  });
});
