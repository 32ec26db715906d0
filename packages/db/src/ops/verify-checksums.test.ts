import { FaultInjectionFileSystem, isShaleError, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

async function setUp() {
  const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
  const db = await DB.open("/db", { fs, disableAutoCompactions: true, blockSize: 1024 });
  for (let t = 0; t < 3; t++) {
    for (let i = 0; i < 500; i++) db.put(`t${t}-${String(i).padStart(4, "0")}`, "v".repeat(100));
    await db.flush();
  }
  for (let i = 0; i < 50; i++) db.put(`wal-${i}`, "w");
  return { fs, db };
}

describe("db.verifyChecksums", () => {
  it("reads every block of every live table and every record of the WALs and the MANIFEST", async () => {
    const { db } = await setUp();
    const live = db.getLiveFiles();
    const r = db.verifyChecksums();
    expect(r.ok).toBe(true);
    expect(r.tables).toBe(3);
    expect(r.blocks).toBeGreaterThan(3 * 50); // ~60 KB of data per table in 1 KiB blocks
    expect(r.logs).toBe(live.wals.length + 1);
    expect(r.records).toBeGreaterThanOrEqual(50);
    expect(r.files.map((f) => f.kind).sort()).toEqual(
      [...Array(3).fill("table"), ...live.wals.map(() => "wal"), "manifest"].sort(),
    );
    expect(r.problems).toEqual([]);
    await db.close();
  });

  it("a flipped byte in a cached data block is found (read from the file), with file and offset", async () => {
    const { fs, db } = await setUp();
    for (let i = 0; i < 500; i++) db.get(`t1-${String(i).padStart(4, "0")}`); // every block cached
    const table = db.getLiveFiles().tables.find((t) => t.smallestKey[1] === "1".charCodeAt(0))!;
    fs.corrupt(`/db/${table.name}`, 3000);
    expect(db.get("t1-0100")).toBeDefined(); // reads are served from the cache
    let error: unknown;
    try {
      db.verifyChecksums();
    } catch (e) {
      error = e;
    }
    expect(isShaleError(error, "Corruption")).toBe(true);
    expect((error as { file?: string }).file).toBe(table.name);
    expect((error as { offset?: number }).offset).toBeLessThanOrEqual(3000);
    await db.close();
  });

  it("collect: every damaged file reported, tables, WALs and size mismatches alike", async () => {
    const { fs, db } = await setUp();
    const live = db.getLiveFiles();
    const [a, b, c] = live.tables;
    fs.corrupt(`/db/${a!.name}`, 10);
    fs.truncate(`/db/${b!.name}`, b!.size - 1);
    fs.corrupt(`/db/${live.wals[0]!.name}`, 20);
    const r = db.verifyChecksums({ collect: true });
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.file).sort()).toEqual(
      [a!.name, b!.name, live.wals[0]!.name].sort(),
    );
    expect(r.problems.find((p) => p.file === b!.name)!.message).toMatch(/the MANIFEST says/);
    expect(r.files.map((f) => f.name)).toContain(c!.name);
    expect(() => db.verifyChecksums({ collect: "yes" as never })).toThrow(TypeError);
    expect(() => db.verifyChecksums({ nope: 1 } as never)).toThrow(/unknown option/);
    await db.close();
  });
});
