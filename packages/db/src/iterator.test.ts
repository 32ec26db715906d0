import { isShaleError, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("db.iterator()", () => {
  it("scans memtables and tables in order, with bounds, seeks and both directions", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), mergeOperator: "stringappend" });
    for (let i = 0; i < 300; i++) db.put(`k${String(i).padStart(3, "0")}`, `v${i}`);
    await db.flush();
    for (let i = 0; i < 300; i += 3) db.delete(`k${String(i).padStart(3, "0")}`);
    db.merge("k001", "m");
    await db.compactRange();
    db.deleteRange("k100", "k200");
    db.put("k150", "back");
    const all = [...db.iterator()].map(([k]) => dec(k));
    // 300 keys, every third deleted (200 left), [k100, k200) removes the 67 left there,
    // and k150 is written again after the range deletion.
    expect(all.length).toBe(300 - 100 - 67 + 1);
    expect(all).toEqual([...all].sort());
    const it = db.iterator({ lowerBound: "k050", upperBound: "k060" });
    it.seekToFirst();
    expect(dec(it.key())).toBe("k050");
    it.seekToLast();
    expect(dec(it.key())).toBe("k059");
    it.seek("k100");
    expect(it.valid()).toBe(false);
    it.seekForPrev("k051");
    expect(dec(it.key())).toBe("k050");
    it.close();
    const it2 = db.iterator();
    it2.seek("k001");
    expect(dec(it2.value())).toBe("v1,m");
    it2.seek("k100");
    expect(dec(it2.key())).toBe("k150");
    expect(dec(it2.value())).toBe("back");
    it2.prev();
    expect(dec(it2.key())).toBe("k098");
    it2.close();
    expect(() => it2.key()).toThrowError(/Closed/);
    await db.close();
  });

  it("keeps reading its files while compactions delete them, and releases them on close", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      writeBufferSize: 64 * 1024,
      level0FileNumCompactionTrigger: 2,
    });
    for (let i = 0; i < 5000; i++) db.put(`key${String(i).padStart(5, "0")}`, "x".repeat(50));
    await db.flush();
    const snap = db.snapshot();
    const it = db.iterator({ snapshot: snap });
    it.seekToFirst();
    for (let i = 0; i < 5000; i++) db.put(`key${String(i).padStart(5, "0")}`, "y".repeat(50));
    await db.compactRange();
    let n = 0;
    for (; it.valid(); it.next()) {
      expect(dec(it.value())).toBe("x".repeat(50));
      n++;
    }
    expect(n).toBe(5000);
    it.close();
    snap.release();
    expect([...db.iterator()].every(([, v]) => dec(v) === "y".repeat(50))).toBe(true);
    await db.close();
  });

  it("rejects bad input and use after close", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem() });
    expect(() => db.iterator({ lowerBound: 5 as unknown as string })).toThrow(TypeError);
    const it = db.iterator();
    it.seekToFirst();
    expect(it.valid()).toBe(false);
    expect(() => it.key()).toThrow();
    await db.close();
    try {
      db.iterator();
      expect.unreachable();
    } catch (e) {
      expect(isShaleError(e, "Closed")).toBe(true);
    }
  });
});
