/**
 * BackupEngine (engine.ts): backups taken while writes go on restore to exactly the state
 * of their moment (model-checked); incremental backups share tables; a flipped byte fails
 * verifyBackup naming the file; an interrupted restore leaves a directory that refuses to
 * open, saying why; purge keeps the newest n and removes only what no backup uses.
 */
import { mkdtempSync, rmSync } from "node:fs";
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
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../../db.js";
import { contents, ModelWorkload, tick } from "../model-workload.test-support.js";
import { BackupEngine } from "./engine.js";

const small = {
  writeBufferSize: 64 * 1024,
  targetFileSizeBase: 64 * 1024,
  maxBytesForLevelBase: 256 * 1024,
};

async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

async function backupsUnderWrites(fs: FileSystem, root: string, seed: number, rounds: number) {
  const db = await DB.open(`${root}/db`, { fs, ...small });
  const engine = BackupEngine.open(`${root}/backups`, { fs });
  const w = new ModelWorkload(db, seed);
  const taken: { expected: Map<string, string>; done: Promise<{ id: number }> }[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 400; i++) w.step();
    const done = engine.createBackup(db, { metadata: `round ${round}` });
    taken.push({ expected: w.snapshot(), done });
    for (let i = 0; i < 200; i++) {
      w.step();
      if (i % 20 === 0) await tick();
    }
  }
  const ids = [];
  for (const t of taken) ids.push((await t.done).id);
  expect(ids).toEqual(Array.from({ length: rounds }, (_, i) => i + 1));
  expect(engine.listBackups().map((b) => b.metadata)).toEqual(ids.map((_, i) => `round ${i}`));
  expect(contents(db)).toEqual(w.model);
  await db.close();
  for (let i = 0; i < taken.length; i++) {
    await engine.verifyBackup(ids[i]!);
    const dir = `${root}/restored${i}`;
    await engine.restoreBackup(ids[i]!, dir);
    const copy = await DB.open(dir, { fs, createIfMissing: false });
    expect(contents(copy)).toEqual(taken[i]!.expected);
    await copy.close();
  }
}

/** A database with tables that stay (no compactions), and its backup engine. */
async function setUp(fs: FileSystem = new MemoryFileSystem()) {
  const db = await DB.open("/db", { fs, disableAutoCompactions: true });
  const engine = BackupEngine.open("/backups", { fs });
  return { fs, db, engine };
}

async function addTable(db: DB, tag: string, n = 200): Promise<void> {
  for (let i = 0; i < n; i++) db.put(`${tag}-${i}`, `${tag}-value-${i}`.repeat(5));
  await db.flush();
}

const shared = (fs: FileSystem) => fs.list("/backups/shared_checksum");

describe("BackupEngine", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });

  it("backups under concurrent writes restore to the state of their moment (memory fs)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
        await backupsUnderWrites(new MemoryFileSystem(), "/m", seed, 3);
      }),
      { numRuns: 3 },
    );
  });

  it("backups under concurrent writes with background workers (node fs)", async () => {
    const root = mkdtempSync(join(tmpdir(), "shale-backup-"));
    roots.push(root);
    await backupsUnderWrites(new NodeFileSystem(), root, 11, 3);
  });

  it("is incremental: a table already backed up is stored once", async () => {
    const { fs, db, engine } = await setUp();
    await addTable(db, "a");
    await addTable(db, "b");
    const first = await engine.createBackup(db);
    const tables1 = db.getLiveFiles().tables.map((t) => t.name);
    expect(tables1).toHaveLength(2);
    expect(shared(fs)).toHaveLength(2);
    await addTable(db, "c");
    db.put("memtable-only", "x");
    const second = await engine.createBackup(db);
    // Three tables live, two of them shared with the first backup: one new file.
    expect(shared(fs)).toHaveLength(3);
    expect(first.numFiles).toBe(2 + 4); // the tables, MANIFEST, OPTIONS, WAL and CURRENT
    expect(second.numFiles).toBeGreaterThan(first.numFiles);
    expect(fs.list("/backups/private")).toEqual(["1", "2"]);
    const third = await engine.createBackup(db);
    expect(shared(fs)).toHaveLength(3);
    expect(third.sequence).toBe(db.latestSequence);
    await db.close();
  });

  it("verifyBackup: a flipped byte in any file fails with Corruption naming it", async () => {
    const { fs, db, engine } = await setUp();
    await addTable(db, "a");
    db.put("wal", "1");
    const { id } = await engine.createBackup(db);
    await engine.verifyBackup(id);
    const files = [
      ...shared(fs).map((n) => `/backups/shared_checksum/${n}`),
      ...fs.list(`/backups/private/${id}`).map((n) => `/backups/private/${id}/${n}`),
    ];
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const bytes = fs.readFile(file);
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at]! ^ 0x01;
      fs.writeFile(file, bytes);
      const e = await thrown(engine.verifyBackup(id));
      expect(isShaleError(e, "Corruption"), String(e)).toBe(true);
      expect((e as { file?: string }).file).toBe(file);
      expect(String(e)).toMatch(/checksum mismatch/);
      bytes[at] = bytes[at]! ^ 0x01;
      fs.writeFile(file, bytes);
      await engine.verifyBackup(id);
    }
    // A missing file and a short one are named too.
    const victim = files[0]!;
    const saved = fs.readFile(victim);
    fs.truncate(victim, saved.length - 1);
    expect(String(await thrown(engine.verifyBackup(id)))).toMatch(/bytes, the backup meta says/);
    fs.remove(victim);
    expect(String(await thrown(engine.verifyBackup(id)))).toMatch(/missing/);
    await db.close();
  });

  it("a restore checks every file: a damaged backup does not restore, and the target says so", async () => {
    const { fs, db, engine } = await setUp();
    await addTable(db, "a");
    const { id } = await engine.createBackup(db);
    await db.close();
    const table = `/backups/shared_checksum/${shared(fs)[0]}`;
    const bytes = fs.readFile(table);
    bytes[100] = bytes[100]! ^ 0x04;
    fs.writeFile(table, bytes);
    const e = await thrown(engine.restoreBackup(id, "/restored"));
    expect(isShaleError(e, "Corruption")).toBe(true);
    expect((e as { file?: string }).file).toBe(table);
    const open = await thrown(DB.open("/restored", { fs }));
    expect(isShaleError(open, "Incomplete")).toBe(true);
  });

  it("an interrupted restore (a write fails midway) leaves a directory that refuses to open, then a new restore completes", async () => {
    const mem = new MemoryFileSystem();
    const fs = new FaultInjectionFileSystem(mem);
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    await addTable(db, "a");
    await addTable(db, "b");
    db.put("wal", "1");
    const engine = BackupEngine.open("/backups", { fs });
    const { id } = await engine.createBackup(db);
    await db.close();
    const files = engine.listBackups()[0]!.numFiles;
    for (let failAt = 2; failAt <= files + 1; failAt++) {
      fs.failAfter("write", failAt, "EIO");
      const e = await thrown(engine.restoreBackup(id, `/r${failAt}`));
      fs.clearFaults();
      expect(isShaleError(e, "IOError"), String(e)).toBe(true);
      const open = await thrown(DB.open(`/r${failAt}`, { fs }));
      expect(isShaleError(open, "Incomplete"), String(open)).toBe(true);
      expect(String(open)).toMatch(/interrupted restore \(RESTORE-IN-PROGRESS: restoring backup 1/);
      // Restoring into it again clears it and completes.
      await engine.restoreBackup(id, `/r${failAt}`);
      const restored = await DB.open(`/r${failAt}`, { fs, createIfMissing: false });
      expect(restored.get("wal")).toBeDefined();
      expect(restored.get("b-199")).toBeDefined();
      await restored.close();
    }
  });

  it("restore refuses a directory that holds anything else", async () => {
    const { fs, db, engine } = await setUp();
    db.put("a", "1");
    const { id } = await engine.createBackup(db);
    await expect(engine.restoreBackup(id, "/db")).rejects.toThrow(/InvalidArgument.*not empty/);
    await expect(engine.restoreBackup(99, "/x")).rejects.toThrow(/no backup 99/);
    await expect(engine.restoreBackup(0, "/x")).rejects.toThrow(TypeError);
    await expect(engine.purgeOldBackups(-1)).rejects.toThrow(TypeError);
    await expect(engine.createBackup(db, { flush: "yes" as never })).rejects.toThrow(TypeError);
    await expect(engine.createBackup(db, { other: 1 } as never)).rejects.toThrow(/unknown option/);
    expect(fs.exists("/x")).toBe(false);
    await db.close();
    await expect(engine.createBackup(db)).rejects.toThrow(/Closed/);
  });

  it("purgeOldBackups keeps the newest n and deletes only the shared files no kept backup uses", async () => {
    const { fs, db, engine } = await setUp();
    const tablesAt: string[][] = [];
    for (const tag of ["a", "b", "c", "d"]) {
      await addTable(db, tag);
      if (tag === "c") await db.compactRange(); // a, b, c merge into new tables
      await engine.createBackup(db);
      tablesAt.push(engine.listBackups().length > 0 ? [...shared(fs)] : []);
    }
    expect(engine.listBackups().map((b) => b.id)).toEqual([1, 2, 3, 4]);
    const before = shared(fs);
    expect(await engine.purgeOldBackups(2)).toEqual([1, 2]);
    expect(engine.listBackups().map((b) => b.id)).toEqual([3, 4]);
    expect(fs.list("/backups/private")).toEqual(["3", "4"]);
    const meta = (id: number) =>
      new TextDecoder()
        .decode(fs.readFile(`/backups/meta/${id}`))
        .split("\n")
        .filter((l) => l.startsWith("file ") && l.includes("shared_checksum/"))
        .map((l) => l.split(" ")[2]!.slice("shared_checksum/".length));
    const kept = new Set([...meta(3), ...meta(4)]);
    expect(shared(fs).sort()).toEqual([...kept].sort());
    expect(before.length).toBeGreaterThan(kept.size); // something was deleted ...
    for (const n of before) expect(fs.exists(`/backups/shared_checksum/${n}`)).toBe(kept.has(n));
    await engine.verifyBackup(3);
    await engine.verifyBackup(4);
    await engine.deleteBackup(3);
    expect(shared(fs).sort()).toEqual([...new Set(meta(4))].sort());
    await engine.verifyBackup(4);
    await expect(engine.deleteBackup(3)).rejects.toThrow(/no backup 3/);
    expect(await engine.purgeOldBackups(0)).toEqual([4]);
    expect(shared(fs)).toEqual([]);
    await db.close();
  });

  it("a damaged meta file: listed as corrupted, its files never garbage-collected", async () => {
    const { fs, db, engine } = await setUp();
    await addTable(db, "a");
    await engine.createBackup(db);
    await addTable(db, "b");
    await engine.createBackup(db);
    const metaBytes = fs.readFile("/backups/meta/1");
    metaBytes[20] = metaBytes[20]! ^ 0x01;
    fs.writeFile("/backups/meta/1", metaBytes);
    expect(engine.listBackups().map((b) => b.id)).toEqual([2]);
    const corrupted = engine.getCorruptedBackups();
    expect(corrupted.map((c) => c.id)).toEqual([1]);
    expect(isShaleError(corrupted[0]!.error, "Corruption")).toBe(true);
    expect(corrupted[0]!.error.file).toBe("/backups/meta/1");
    await expect(engine.verifyBackup(1)).rejects.toThrow(/checksum mismatch/);
    const sharedBefore = shared(fs);
    await engine.purgeOldBackups(0); // deletes backup 2, leaves the damaged 1 and every table
    expect(engine.listBackups()).toEqual([]);
    expect(shared(fs)).toEqual(sharedBefore);
    await engine.deleteBackup(1);
    expect(shared(fs)).toEqual([]);
    await db.close();
  });

  it("operations on one backup directory from two engines exclude each other (Busy)", async () => {
    const { fs, db } = await setUp();
    for (let i = 0; i < 3000; i++) db.put(`k${i}`, "v".repeat(1000)); // a WAL of several chunks
    const a = BackupEngine.open("/backups", { fs });
    const b = BackupEngine.open("/backups", { fs });
    const first = a.createBackup(db);
    await tick();
    const e = await thrown(b.createBackup(db));
    expect(isShaleError(e, "Busy")).toBe(true);
    await first;
    // The refused backup held nothing back: its capture was released.
    await b.createBackup(db);
    expect(a.listBackups().map((x) => x.id)).toEqual([1, 2]);
    // One engine queues its own operations.
    const [x, y] = await Promise.all([a.createBackup(db), a.createBackup(db)]);
    expect([x.id, y.id]).toEqual([3, 4]);
    await db.close();
  });

  it("an interrupted backup is invisible and its files are collected later", async () => {
    const mem = new MemoryFileSystem();
    const fs = new FaultInjectionFileSystem(mem);
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    await addTable(db, "a");
    const engine = BackupEngine.open("/backups", { fs });
    await engine.createBackup(db);
    await addTable(db, "b");
    fs.failAfter("write", 4, "ENOSPC");
    await expect(engine.createBackup(db)).rejects.toThrow(/IOError/);
    fs.clearFaults();
    expect(engine.listBackups().map((b) => b.id)).toEqual([1]);
    const next = await engine.createBackup(db);
    expect(next.id).toBeGreaterThan(1);
    await engine.purgeOldBackups(1);
    expect(fs.list("/backups/private")).toEqual([String(next.id)]);
    expect(fs.list("/backups/shared_checksum").every((n) => !n.endsWith(".tmp"))).toBe(true);
    await engine.verifyBackup(next.id);
    await db.close();
  });
});
