import { isShaleError, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** A database in `fs` at /db with `n` keys flushed to a table; returns the table's path. */
async function withTable(fs: MemoryFileSystem, n = 100): Promise<string> {
  const db = await DB.open("/db", { fs });
  for (let i = 0; i < n; i++) db.put(`k${i}`, `v${i}`);
  await db.flush();
  const table = db.tablePath(db.debugVersion().levels[0]![0]!.number);
  await db.close();
  return table;
}

async function openError(fs: MemoryFileSystem, options: object = {}): Promise<unknown> {
  try {
    const db = await DB.open("/db", { fs, ...options });
    await db.close();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("paranoidChecks (Default: true)", () => {
  it("a table the MANIFEST names but that is missing is Corruption naming it", async () => {
    const fs = new MemoryFileSystem();
    const table = await withTable(fs);
    fs.remove(table);
    const err = await openError(fs);
    expect(isShaleError(err, "Corruption"), String(err)).toBe(true);
    expect(table.endsWith(String((err as { file?: string }).file))).toBe(true);
  });

  it("a table of another size than recorded is Corruption naming it; paranoidChecks false opens", async () => {
    for (const change of ["truncate", "extend"] as const) {
      const fs = new MemoryFileSystem();
      const table = await withTable(fs);
      const size = fs.fileSize(table);
      fs.truncate(table, change === "truncate" ? size - 1 : size + 10);
      const err = await openError(fs);
      expect(isShaleError(err, "Corruption"), `${change}: ${err}`).toBe(true);
      expect(table.endsWith(String((err as { file?: string }).file))).toBe(true);
      // The file is untouched by the refused open.
      expect(fs.fileSize(table)).toBe(change === "truncate" ? size - 1 : size + 10);
      // Without paranoid checks the size is not checked at open (as in RocksDB); the table
      // is only read, and its damage found, when a read needs it.
      expect(await openError(fs, { paranoidChecks: false })).toBeUndefined();
    }
  });

  it("a damaged WAL record: Corruption by default; paranoidChecks false skips it and goes on", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    for (let i = 0; i < 50; i++) db.put(`k${i}`, "y".repeat(200));
    await db.close();
    const wal = `/db/${fs
      .list("/db")
      .filter((n) => n.endsWith(".log"))
      .at(-1)!}`;
    const bytes = fs.readFile(wal).slice();
    bytes[2000]! ^= 0xff; // inside the 10th record or so
    fs.writeFile(wal, bytes);
    for (const mode of ["PointInTime", "TolerateCorruptedTail", "AbsoluteConsistency"]) {
      const err = await openError(fs, { walRecoveryMode: mode });
      expect(isShaleError(err, "Corruption"), `${mode}: ${err}`).toBe(true);
    }
    const lenient = await DB.open("/db", { fs, paranoidChecks: false });
    expect(str(lenient.get("k0"))).toBe("y".repeat(200));
    expect(str(lenient.get("k49"))).toBe("y".repeat(200)); // after the damage
    let present = 0;
    for (let i = 0; i < 50; i++) if (lenient.get(`k${i}`) !== undefined) present++;
    expect(present).toBe(49); // exactly the damaged record is gone
    await lenient.close();
  });
});
