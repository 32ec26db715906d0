/**
 * A MANIFEST append that fails after part of its record reached the file (a disk that
 * fills mid-write). The MANIFEST is read strictly (a torn last record is Corruption, since
 * it cannot be told from a flipped length byte), so the failed append must not leave those
 * bytes behind: `logAndApply` cuts the file back to its last whole record. The reopen then
 * opens at the previous version and replays the WALs the failed flush kept: every
 * acknowledged write is there.
 */
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

const KEYS = 200;
const options = { disableAutoCompactions: true, compression: "none" } as const;

/** A database on `fs` with KEYS acknowledged puts in its memtable. */
async function filled(fs: FaultInjectionFileSystem): Promise<DB> {
  const db = await DB.open("/db", { fs, ...options });
  for (let i = 0; i < KEYS; i++) db.put(`k${String(i).padStart(4, "0")}`, `v${i}`);
  return db;
}

/** The bytes a fault-free flush of `filled` writes (table, then MANIFEST record). */
async function flushBytes(): Promise<{ table: number; manifest: number }> {
  const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
  const db = await filled(fs);
  const manifest = () =>
    fs
      .list("/db")
      .filter((n) => n.startsWith("MANIFEST-"))
      .reduce((sum, n) => sum + fs.fileSize(`/db/${n}`), 0);
  const before = manifest();
  await db.flush();
  const table = db.debugVersion().levels[0]![0]!;
  const after = manifest();
  await db.close();
  return { table: table.size, manifest: after - before };
}

describe("a MANIFEST record cut short by a failed write", () => {
  it("leaves a directory that reopens with every acknowledged write", async () => {
    const { table, manifest } = await flushBytes();
    expect(manifest).toBeGreaterThan(8);
    let torn = 0;
    // Budgets that end inside the MANIFEST record (and a few around it).
    for (let n = table - 2; n <= table + manifest + 2; n++) {
      const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
      const db = await filled(fs);
      fs.failWritesAfterBytes(n);
      const flushed = await db.flush().then(
        () => true,
        () => false,
      );
      await db.close().catch(() => undefined);
      fs.clearFaults();
      if (!flushed && n > table) torn++;
      const again = await DB.open("/db", { fs, ...options });
      try {
        for (let i = 0; i < KEYS; i++) {
          expect(str(again.get(`k${String(i).padStart(4, "0")}`)), `n=${n} key ${i}`).toBe(`v${i}`);
        }
      } finally {
        await again.close();
      }
    }
    expect(torn).toBeGreaterThan(0);
  });
});
