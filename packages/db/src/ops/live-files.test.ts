import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("db.getLiveFiles", () => {
  it("names every table with level, size and key range, the MANIFEST with its size, and the live WALs", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    for (let i = 0; i < 100; i++) db.put(`a${String(i).padStart(3, "0")}`, "v");
    await db.flush();
    await db.compactRange(); // -> L1
    for (let i = 0; i < 50; i++) db.put(`b${String(i).padStart(3, "0")}`, "v");
    await db.flush(); // -> L0
    db.put("c", "in the WAL");
    const live = db.getLiveFiles();
    expect(live.tables.map((t) => t.level)).toEqual([1, 0].sort((x, y) => x - y));
    const l1 = live.tables.find((t) => t.level === 1)!;
    const l0 = live.tables.find((t) => t.level === 0)!;
    expect([text(l1.smallestKey), text(l1.largestKey)]).toEqual(["a000", "a099"]);
    expect([text(l0.smallestKey), text(l0.largestKey)]).toEqual(["b000", "b049"]);
    for (const t of live.tables) {
      expect(fs.fileSize(`/db/${t.name}`)).toBe(t.size);
      expect(t.name).toBe(`${String(t.number).padStart(6, "0")}.sst`);
    }
    expect(l0.largestSeq).toBe(150);
    expect(live.manifest.name).toMatch(/^MANIFEST-\d{6}$/);
    expect(live.manifest.size).toBe(fs.fileSize(`/db/${live.manifest.name}`));
    expect(live.current).toBe("CURRENT");
    expect(live.options).toMatch(/^OPTIONS-\d{6}$/);
    expect(live.wals).toHaveLength(1);
    expect(live.wals[0]!.size).toBe(fs.fileSize(`/db/${live.wals[0]!.name}`));
    expect(live.wals[0]!.size).toBeGreaterThan(0);
    expect(live.sequence).toBe(151);
    // The MANIFEST grows with the next edit; the list said how much of it was the state then.
    await db.flush();
    expect(fs.fileSize(`/db/${live.manifest.name}`)).toBeGreaterThan(live.manifest.size);
    await db.close();
    expect(() => db.getLiveFiles()).toThrow(/Closed/);
  });
});
