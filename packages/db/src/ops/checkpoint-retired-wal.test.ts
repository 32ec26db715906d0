/**
 * A checkpoint (and a backup) while a WAL retired just before it is still being deleted (on Node's file
 * system the deletion runs off the main thread): the capture may list the WAL (the MANIFEST's
 * MinLogNumberToKeep is held back by a family that was never written), then the deletion
 * completes and the copy finds it gone; or it completes between the capture's directory
 * listing and its reading of the WAL's size. The checkpoint goes on without it — the
 * captured tables hold its writes — and opens with every acknowledged write. (Both failed
 * with IOError ENOENT; the metamorphic test found them.)
 */
import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { BackupEngine } from "./backup/engine.js";

/** A memory file system whose WAL removals wait until the WAL is next opened for reading. */
class LateWalRemovals extends MemoryFileSystem {
  readonly pending = new Set<string>();
  removed = 0;
  override remove(path: string): void {
    if (path.endsWith(".log")) this.pending.add(path);
    else super.remove(path);
  }
  override openRandomAccess(path: string) {
    this.completeRemoval(path);
    return super.openRandomAccess(path);
  }
  /** Completes the removal of `path` if it is pending. */
  protected completeRemoval(path: string): void {
    if (this.pending.delete(path)) {
      super.remove(path);
      this.removed++;
    }
  }
}

/**
 * The same, with a removal completing when the WAL's size is read after a listing of the
 * directory (the capture's listing, then its stat).
 */
class WalRemovalsAtStat extends LateWalRemovals {
  private listed = false;
  override list(path: string): string[] {
    this.listed = true;
    return super.list(path);
  }
  override fileSize(path: string): number {
    if (this.listed) this.completeRemoval(path);
    return super.fileSize(path);
  }
}

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** A database whose default family flushed (retiring its WAL) beside a never-written family. */
async function flushedBesideEmpty(fs: MemoryFileSystem): Promise<DB> {
  const db = await DB.open("/db", {
    fs,
    createMissingColumnFamilies: true,
    columnFamilies: { empty: {} },
  });
  const cf = await db.createColumnFamily("cf1");
  for (let i = 0; i < 50; i++) db.put(`k${i}`, `v${i}`);
  cf.put("c", "1");
  await db.flush();
  await cf.flush();
  db.put("after", "flush");
  return db;
}

async function checkCopy(fs: MemoryFileSystem, dir: string): Promise<void> {
  const copy = await DB.open(dir, { fs, createIfMissing: false });
  try {
    for (let i = 0; i < 50; i++) expect(str(copy.get(`k${i}`))).toBe(`v${i}`);
    expect(str(copy.get("after"))).toBe("flush");
    expect(str(copy.columnFamily("cf1").get("c"))).toBe("1");
  } finally {
    await copy.close();
  }
}

describe("checkpoint racing a retired WAL's deletion", () => {
  it("a backup skips the WAL that vanished and restores every write", async () => {
    const fs = new LateWalRemovals();
    const db = await flushedBesideEmpty(fs);
    try {
      const engine = BackupEngine.open("/backups", { fs });
      const { id } = await engine.createBackup(db);
      expect(fs.removed).toBeGreaterThan(0);
      await engine.restoreBackup(id, "/restored");
    } finally {
      await db.close();
    }
    await checkCopy(fs, "/restored");
  });

  it("skips the WAL that vanished and the copy holds every write", async () => {
    const fs = new LateWalRemovals();
    const db = await flushedBesideEmpty(fs);
    try {
      await db.checkpoint("/copy");
      // The race happened: a WAL the capture listed was gone when its copy began.
      expect(fs.removed).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    await checkCopy(fs, "/copy");
  });

  for (const [what, make] of [
    ["a checkpoint", (db: DB, _fs: MemoryFileSystem) => db.checkpoint("/copy").then(() => "/copy")],
    [
      "a backup",
      async (db: DB, fs: MemoryFileSystem) => {
        const engine = BackupEngine.open("/backups", { fs });
        const { id } = await engine.createBackup(db);
        await engine.restoreBackup(id, "/restored");
        return "/restored";
      },
    ],
  ] as const) {
    it(`${what}: a WAL gone between the capture's listing and its size is left out`, async () => {
      const fs = new WalRemovalsAtStat();
      const db = await flushedBesideEmpty(fs);
      let dir: string;
      try {
        dir = await make(db, fs);
        expect(fs.removed).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
      await checkCopy(fs, dir);
    });
  }
});
