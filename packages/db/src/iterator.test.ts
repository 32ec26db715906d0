import { isShaleError, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import type { DBIterator } from "./iterator/index.js";

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

  // An iterator reads as of its creation: range deletions written later (live memtable,
  // whose fragmented tombstone list is cached and rebuilt only on change) must not hide
  // keys from it, and iterators created after them must see them.
  for (const before of [0, 3, 12]) {
    it(`is not affected by a deleteRange after it was created (${before} tombstones before)`, async () => {
      const db = await DB.open("/db", { fs: new MemoryFileSystem() });
      const key = (i: number) => `k${String(i).padStart(2, "0")}`;
      for (let i = 0; i < 40; i++) db.put(key(i), `v${i}`);
      // Earlier tombstones over [k30, k31), [k31, k32), ... (more than the memtable scans
      // linearly when `before` is 12).
      for (let i = 0; i < before; i++) db.deleteRange(key(30 + (i % 10)), key(31 + (i % 10)));
      const deleted = Math.min(before, 10);
      const warm = db.iterator(); // builds and caches the fragmented list, if any
      expect([...warm].length).toBe(40 - deleted);
      const early = db.iterator();
      const positioned = db.iterator();
      positioned.seek(key(5));
      db.deleteRange(key(0), key(20));
      const late = db.iterator();
      const keys = (it: DBIterator) => {
        const out: string[] = [];
        for (it.seekToFirst(); it.valid(); it.next()) out.push(dec(it.key()));
        return out;
      };
      const expectedBefore = Array.from({ length: 40 - deleted }, (_, i) =>
        key(i < 30 ? i : i + deleted),
      );
      expect(keys(early)).toEqual(expectedBefore);
      expect(dec(positioned.key())).toBe(key(5));
      positioned.next();
      expect(dec(positioned.key())).toBe(key(6));
      expect(keys(positioned)).toEqual(expectedBefore);
      expect(keys(late)).toEqual(expectedBefore.slice(20));
      // The memtable is sealed and flushed under the open iterators: nothing changes for them.
      await db.flush();
      db.deleteRange(key(0), key(40));
      expect(keys(early)).toEqual(expectedBefore);
      expect(keys(late)).toEqual(expectedBefore.slice(20));
      expect([...db.iterator()].length).toBe(0);
      for (const it of [warm, early, positioned, late]) it.close();
      await db.close();
    });
  }

  it("reads at a snapshot older than tombstones already in the memtable", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem() });
    for (const k of ["a", "b", "c", "d", "e", "f"]) db.put(k, k);
    const snap = db.snapshot();
    for (let i = 0; i < 8; i++) db.deleteRange("a", "z"); // past the linear-scan limit
    expect([...db.iterator()].length).toBe(0);
    const it = db.iterator({ snapshot: snap });
    expect([...it].map(([k]) => dec(k))).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(dec(db.get("c", { snapshot: snap })!)).toBe("c");
    snap.release();
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
