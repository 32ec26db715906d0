/**
 * The operations with several column families: checkpoints, backups and restores, live
 * files, deleting files in a range, verifying checksums, repair, and properties and
 * statistics per family. Each family's data must come through whole, and an operation on
 * one family must leave the others alone.
 */
import { MemoryFileSystem, Statistics, Ticker } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { repair } from "../repair/repair.js";
import { BackupEngine } from "./backup/engine.js";

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : Buffer.from(v).toString();
const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const FAMILIES = ["default", "users", "logs"];
type Models = Map<string, Map<string, string>>;

const OPTIONS = {
  createMissingColumnFamilies: true,
  columnFamilies: { users: {}, logs: {} },
  disableAutoCompactions: true,
};

/**
 * A database with three families: each with tables (one flushed, one compacted to L6 for
 * users) and writes in the WAL only.
 */
async function filled(fs: MemoryFileSystem, dir = "/db", extra: object = {}) {
  const db = await DB.open(dir, { fs, ...OPTIONS, ...extra });
  const models: Models = new Map(FAMILIES.map((f) => [f, new Map()]));
  const write = (f: string, from: number, to: number, tag: string) => {
    const h = db.columnFamily(f);
    for (let i = from; i < to; i++) {
      h.put(key(i), `${f}-${tag}-${i}`);
      models.get(f)!.set(key(i), `${f}-${tag}-${i}`);
    }
  };
  for (const f of FAMILIES) write(f, 0, 300, "a");
  for (const f of FAMILIES) await db.columnFamily(f).flush();
  await db.columnFamily("users").compactRange();
  for (const f of FAMILIES) write(f, 200, 400, "wal");
  return { db, models };
}

function contents(db: DB, family: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of db.columnFamily(family).iterator()) out.set(text(k)!, text(v)!);
  return out;
}

function expectModels(db: DB, models: Models): void {
  expect(db.listColumnFamilies()).toEqual([...models.keys()]);
  for (const [f, model] of models) expect(contents(db, f), f).toEqual(model);
}

describe("operations with column families", () => {
  it("a checkpoint opens with every family's tables and WAL data", async () => {
    const fs = new MemoryFileSystem();
    const { db, models } = await filled(fs);
    await db.checkpoint("/cp");
    db.columnFamily("logs").put("after", "not in the checkpoint");
    await db.close();
    const copy = await DB.open("/cp", { fs, createIfMissing: false });
    expectModels(copy, models);
    await copy.close();
  });

  it("a backup restores every family", async () => {
    const fs = new MemoryFileSystem();
    const { db, models } = await filled(fs);
    const engine = BackupEngine.open("/backups", { fs });
    const { id } = await engine.createBackup(db);
    await db.close();
    await engine.verifyBackup(id);
    await engine.restoreBackup(id, "/restored");
    const copy = await DB.open("/restored", { fs, createIfMissing: false });
    expectModels(copy, models);
    await copy.close();
  });

  it("getLiveFiles lists every family's tables, each with its family", async () => {
    const fs = new MemoryFileSystem();
    const { db } = await filled(fs);
    const live = db.getLiveFiles();
    const byFamily = new Map<number, number>();
    for (const t of live.tables)
      byFamily.set(t.columnFamily, (byFamily.get(t.columnFamily) ?? 0) + 1);
    const ids = FAMILIES.map((f) => db.columnFamily(f).id);
    for (const id of ids) expect(byFamily.get(id), `family ${id}`).toBe(1);
    for (const t of live.tables) expect(fs.exists(`/db/${t.name}`)).toBe(true);
    expect(live.wals.length).toBeGreaterThan(0);
    await db.close();
  });

  it("deleteFilesInRange drops the tables of the family it is given, and only those", async () => {
    const fs = new MemoryFileSystem();
    const { db, models } = await filled(fs);
    const users = db.columnFamily("users");
    await db.columnFamily("logs").compactRange(); // logs has an L6 table over the same keys
    const before = db.getLiveFiles().tables;
    const deleted = db.deleteFilesInRange(undefined, undefined, users);
    expect(deleted.files).toBe(1);
    const after = db.getLiveFiles().tables;
    const dropped = before.filter((t) => !after.some((a) => a.name === t.name));
    expect(dropped.map((t) => t.columnFamily)).toEqual([users.id]);
    // users keeps only what the WAL holds; the others everything.
    for (let i = 0; i < 200; i++) models.get("users")!.delete(key(i));
    expectModels(db, models);
    // Without a handle: the default family (whose table is in L0: nothing to drop).
    expect(db.deleteFilesInRange(undefined, undefined).files).toBe(0);
    expect(() => db.deleteFilesInRange("a", "b", "users" as never)).toThrow(TypeError);
    await db.close();
  });

  it("verifyChecksums reads every family's tables", async () => {
    const fs = new MemoryFileSystem();
    const { db } = await filled(fs);
    const report = db.verifyChecksums();
    expect(report.ok).toBe(true);
    expect(report.tables).toBe(db.getLiveFiles().tables.length);
    expect(report.tables).toBe(3);
    await db.close();
  });

  it("repair keeps every family (tables and WALs)", async () => {
    const fs = new MemoryFileSystem();
    const { db, models } = await filled(fs);
    await db.close();
    for (const name of fs.list("/db")) if (name.startsWith("MANIFEST-")) fs.remove(`/db/${name}`);
    await repair("/db", { fs, ...OPTIONS });
    const again = await DB.open("/db", { fs, ...OPTIONS });
    expectModels(again, models);
    await again.close();
  });

  it("repair keeps a family whose data is only in the WAL, named by the old MANIFEST", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, ...OPTIONS });
    db.columnFamily("users").put("u", "in the WAL only");
    db.columnFamily("logs").put("l", "in the WAL only");
    db.put("d", "default");
    await db.close();
    fs.remove("/db/CURRENT");
    const report = await repair("/db", { fs, ...OPTIONS });
    expect(report.logs.flatMap((l) => l.tables)).toHaveLength(3);
    const again = await DB.open("/db", { fs, ...OPTIONS });
    expectModels(
      again,
      new Map([
        ["default", new Map([["d", "default"]])],
        ["users", new Map([["u", "in the WAL only"]])],
        ["logs", new Map([["l", "in the WAL only"]])],
      ]),
    );
    await again.close();
  });

  it("properties and statistics are per family", async () => {
    const fs = new MemoryFileSystem();
    const statistics = new Statistics();
    const { db } = await filled(fs, "/db", { statistics });
    const users = db.columnFamily("users");
    const logs = db.columnFamily("logs");
    expect(users.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(logs.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(Number(users.getProperty("shale.num-entries-active-mem-table"))).toBe(200);
    const moved = (h: Pick<DB, "getProperty">) =>
      Number(h.getProperty("shale.num-compactions")) +
      Number(h.getProperty("shale.num-trivial-moves"));
    expect(moved(users)).toBe(1);
    expect(moved(logs)).toBe(0);
    expect(moved(db)).toBe(0);
    expect(Number(users.getProperty("shale.flush-write-bytes"))).toBeGreaterThan(0);
    expect(statistics.getTicker(Ticker.CompactWriteBytes)).toBeGreaterThan(0);
    await db.close();
  });
});
