import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

const key = (i: number) => `key${String(i).padStart(6, "0")}`;

describe("db.getApproximateSizes", () => {
  it("measures table bytes by index offsets: proportional to the range, the whole table when it covers it", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, compression: "none", disableAutoCompactions: true });
    for (let i = 0; i < 10_000; i++) db.put(key(i), "v".repeat(100));
    await db.flush();
    const [table] = db.getLiveFiles().tables;
    const [all, half, quarter, none, outside] = db.getApproximateSizes([
      { start: "", end: "z" },
      { start: key(0), end: key(5000) },
      { start: key(2500), end: key(5000) },
      { start: key(100), end: key(100) },
      { start: "zz", end: "zzz" },
    ]);
    expect(all).toBe(table!.size);
    expect(half! / all!).toBeGreaterThan(0.45);
    expect(half! / all!).toBeLessThan(0.55);
    expect(quarter! / all!).toBeGreaterThan(0.2);
    expect(quarter! / all!).toBeLessThan(0.3);
    expect(none).toBe(0);
    expect(outside).toBe(0);
    await db.close();
  });

  it("sums over tables of every level, and counts memtables only when asked", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    for (let i = 0; i < 2000; i++) db.put(key(i), "v".repeat(50));
    await db.flush();
    await db.compactRange();
    for (let i = 2000; i < 4000; i++) db.put(key(i), "v".repeat(50));
    await db.flush();
    const total = db.getLiveFiles().tables.reduce((n, t) => n + t.size, 0);
    expect(db.getApproximateSizes([{ start: "", end: "z" }])).toEqual([total]);
    for (let i = 4000; i < 4100; i++) db.put(key(i), "m".repeat(50));
    const range = [{ start: key(4000), end: key(5000) }];
    expect(db.getApproximateSizes(range)).toEqual([0]);
    const [mem] = db.getApproximateSizes(range, { includeMemtables: true, includeFiles: false });
    // 100 entries of an 9-byte key + 8-byte trailer + 50-byte value.
    expect(mem).toBe(100 * (9 + 8 + 50));
    await db.close();
  });

  it("validates its arguments", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem() });
    expect(() => db.getApproximateSizes([{ start: "b", end: "a" }])).toThrow(/InvalidArgument/);
    expect(() => db.getApproximateSizes("x" as never)).toThrow(TypeError);
    expect(() => db.getApproximateSizes([{ start: 1, end: "a" } as never])).toThrow(TypeError);
    expect(() =>
      db.getApproximateSizes([], { includeFiles: false, includeMemtables: false }),
    ).toThrow(/both false/);
    expect(() => db.getApproximateSizes([], { x: 1 } as never)).toThrow(/unknown option/);
    await db.close();
  });
});
