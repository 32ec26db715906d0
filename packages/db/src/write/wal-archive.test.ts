/**
 * The WAL archive (walTtlSeconds / walSizeLimitMb): obsolete WALs move into archive/,
 * pruned by age (a fake clock) and by total size; the change feed reads them until pruned
 * and then says which sequence is the oldest left; checkpoints, backups and secondaries
 * work with archive/ in the directory.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem, ShaleError } from "@shale/base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DB } from "../db.js";
import { BackupEngine } from "../ops/backup/engine.js";
import { WalArchive } from "./wal-archive.js";

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-wal-archive-"));
  temps.push(d);
  return d;
}
afterEach(() => {
  vi.useRealTimers();
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

const names = (fs: MemoryFileSystem, dir: string) =>
  fs.exists(dir) ? fs.list(dir).filter((n) => n.endsWith(".log")) : [];

function notFound(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (ShaleError.isInstance(e) && e.code === "NotFound") return e.message;
    throw e;
  }
  throw new Error("expected NotFound");
}

describe("WalArchive", () => {
  it("archives WALs only, and only when a limit is set", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    for (const n of ["000003.log", "000005.log", "000006.sst"])
      fs.writeFile(`/db/${n}`, new Uint8Array(10));
    const paths = ["/db/000003.log", "/db/000005.log", "/db/000006.sst"];
    expect(new WalArchive(fs, "/db", { ttlSeconds: 0, sizeLimitMb: 0 }).take(paths)).toEqual(paths);
    const archive = new WalArchive(fs, "/db", { ttlSeconds: 10, sizeLimitMb: 0 });
    expect(archive.take(paths)).toEqual(["/db/000006.sst"]);
    expect(names(fs, "/db/archive")).toEqual(["000003.log", "000005.log"]);
    expect(WalArchive.all(fs, "/db").map((f) => [f.number, f.archived])).toEqual([
      [3, true],
      [5, true],
    ]);
  });

  it("prunes by age on its clock (no mtimes: aged from when first seen)", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    let now = 1_000_000;
    const archive = new WalArchive(fs, "/db", { ttlSeconds: 60, sizeLimitMb: 0 }, () => now);
    fs.writeFile("/db/000003.log", new Uint8Array(10));
    archive.take(["/db/000003.log"]);
    now += 30_000;
    fs.writeFile("/db/000007.log", new Uint8Array(10));
    archive.take(["/db/000007.log"]);
    expect(names(fs, "/db/archive")).toEqual(["000003.log", "000007.log"]);
    now += 31_000; // 61 s after the first, 31 s after the second
    archive.prune();
    expect(names(fs, "/db/archive")).toEqual(["000007.log"]);
    now += 30_000;
    archive.prune();
    expect(names(fs, "/db/archive")).toEqual([]);
  });

  it("prunes the oldest WALs while the archive is over its size limit", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const archive = new WalArchive(fs, "/db", { ttlSeconds: 0, sizeLimitMb: 1 });
    for (const n of [4, 8, 9, 12]) {
      const path = `/db/${String(n).padStart(6, "0")}.log`;
      fs.writeFile(path, new Uint8Array(400 * 1024));
      archive.take([path]);
    }
    // 4 x 400 KiB: the two oldest go, 800 KiB <= 1 MiB stays.
    expect(names(fs, "/db/archive")).toEqual(["000009.log", "000012.log"]);
  });
});

describe("WAL archive in a database", () => {
  it("keeps the feed readable until the TTL passes (mtimes, a fake clock)", async () => {
    const dir = tempDir();
    const db = await DB.open(dir, { walTtlSeconds: 60 });
    db.put("a", "1");
    await db.flush();
    db.put("b", "2");
    await db.flush();
    expect(readdirSync(join(dir, "archive")).length).toBe(2);
    expect([...db.getUpdatesSince(1)].map((u) => u.sequence)).toEqual([1, 2]);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(start + 30_000);
    db.put("c", "3");
    await db.flush();
    expect(readdirSync(join(dir, "archive")).length).toBe(3);
    vi.setSystemTime(start + 120_000); // every archived WAL is now older than 60 s
    db.put("d", "4");
    await db.flush();
    expect(readdirSync(join(dir, "archive"))).toEqual([]);
    db.put("e", "5");
    expect(notFound(() => db.getUpdatesSince(1))).toMatch(/oldest sequence available is 5/);
    await db.close();
  });

  it("records the limits in the OPTIONS file under RocksDB's names", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/o", { fs, walTtlSeconds: 90, walSizeLimitMb: 7 });
    await db.close();
    const name = fs
      .list("/o")
      .filter((n) => n.startsWith("OPTIONS-"))
      .sort()
      .pop()!;
    const text = new TextDecoder().decode(fs.readFile(`/o/${name}`));
    expect(text).toMatch(/^\s*WAL_ttl_seconds=90$/m);
    expect(text).toMatch(/^\s*WAL_size_limit_MB=7$/m);
  });

  it("prunes by size: the feed then starts at the oldest WAL left, and says so", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, walSizeLimitMb: 1 });
    const value = "x".repeat(300 * 1024);
    for (let i = 0; i < 6; i++) {
      db.put(`k${i}`, value);
      await db.flush();
    }
    const archived = WalArchive.archived(fs, "/db");
    expect(archived.length).toBeLessThan(6);
    let total = 0;
    for (const f of archived) total += fs.fileSize(f.path);
    expect(total).toBeLessThanOrEqual(1024 * 1024);
    const oldest = 6 - archived.length + 1;
    expect(notFound(() => db.getUpdatesSince(1))).toMatch(
      new RegExp(`oldest sequence available is ${oldest}\\b`),
    );
    expect([...db.getUpdatesSince(oldest)].map((u) => u.sequence)).toEqual(
      Array.from({ length: archived.length }, (_, i) => oldest + i),
    );
    await db.close();
  });

  it("archives the WALs an open flushes (avoidFlushDuringRecovery false), and prunes at open", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/r", { fs, walTtlSeconds: 3600 });
    db.put("a", "1");
    db.put("b", "2");
    await db.close();
    db = await DB.open("/r", { fs, walTtlSeconds: 3600, avoidFlushDuringRecovery: false });
    expect(names(fs, "/r/archive").length).toBe(1);
    db.put("c", "3");
    expect([...db.getUpdatesSince(0)].map((u) => u.sequence)).toEqual([1, 2, 3]);
    await db.close();
    // Opened without the limits: the archive is left as it is, not read for recovery.
    db = await DB.open("/r", { fs });
    expect(names(fs, "/r/archive").length).toBe(1);
    expect(db.get("c")).toBeDefined();
    await db.close();
  });

  it("checkpoints, backups and secondaries work with archive/ present", async () => {
    const root = tempDir();
    const dir = join(root, "db");
    const db = await DB.open(dir, { walTtlSeconds: 3600 });
    for (let i = 0; i < 3; i++) {
      db.put(`k${i}`, `v${i}`);
      await db.flush();
    }
    db.put("live", "in the WAL");
    expect(readdirSync(join(dir, "archive")).length).toBe(3);

    await db.checkpoint(join(root, "checkpoint"));
    const copy = await DB.open(join(root, "checkpoint"), { createIfMissing: false });
    expect(Buffer.from(copy.get("k2")!).toString()).toBe("v2");
    expect(Buffer.from(copy.get("live")!).toString()).toBe("in the WAL");
    await copy.close();

    const engine = BackupEngine.open(join(root, "backups"));
    const { id } = await engine.createBackup(db);
    await engine.restoreBackup(id, join(root, "restored"));
    const restored = await DB.open(join(root, "restored"), { createIfMissing: false });
    expect(Buffer.from(restored.get("live")!).toString()).toBe("in the WAL");
    await restored.close();

    const secondary = await DB.openAsSecondary(dir, join(root, "secondary"));
    db.put("later", "x");
    await db.flush();
    secondary.tryCatchUpWithPrimary();
    expect(Buffer.from(secondary.get("later")!).toString()).toBe("x");
    expect(Buffer.from(secondary.get("k0")!).toString()).toBe("v0");
    await secondary.close();
    await db.close();
  });
});
