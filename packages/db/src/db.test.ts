import { isShaleError, MemoryFileSystem, ShaleError, Statistics, Ticker } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import { decodeUint64, encodeUint64 } from "./core/merge-operator.js";
import { DB } from "./db.js";
import { WriteBatch } from "./write/write-batch.js";

const enc = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

let open: DB[] = [];
async function openDb(
  fs = new MemoryFileSystem(),
  options: Parameters<typeof DB.open>[1] = {},
  dir = "/db",
) {
  const db = await DB.open(dir, { fs, ...options });
  open.push(db);
  return db;
}
afterEach(async () => {
  for (const db of open) await db.close();
  open = [];
});

describe("DB basics", () => {
  it("puts, gets, overwrites and deletes", async () => {
    const db = await openDb();
    expect(db.get("a")).toBeUndefined();
    db.put("a", "1");
    db.put(enc("b"), enc("2"));
    expect(str(db.get("a"))).toBe("1");
    expect(str(db.get(enc("b")))).toBe("2");
    db.put("a", "3");
    expect(str(db.get("a"))).toBe("3");
    db.delete("a");
    expect(db.get("a")).toBeUndefined();
    db.delete("never-there");
    expect(db.getMany(["a", "b", "c"]).map(str)).toEqual([undefined, "2", undefined]);
    expect(db.latestSequence).toBe(5);
  });

  it("accepts empty keys and values and Buffers", async () => {
    const db = await openDb();
    db.put("", "");
    expect(db.get("")).toEqual(new Uint8Array(0));
    db.put(Buffer.from("k"), Buffer.from("v"));
    expect(str(db.get("k"))).toBe("v");
  });

  it("writes batches atomically with consecutive sequence numbers", async () => {
    const db = await openDb();
    const batch = new WriteBatch().put("x", "1").put("y", "2").delete("x").merge("z", "m");
    expect(() => db.write(batch)).toThrowError(/mergeOperator/);
    batch.clear().put("x", "1").put("y", "2").delete("x");
    expect(batch.count).toBe(3);
    db.write(batch);
    expect(db.latestSequence).toBe(3);
    expect(db.get("x")).toBeUndefined();
    expect(str(db.get("y"))).toBe("2");
    db.write(new WriteBatch());
    expect(db.latestSequence).toBe(3);
  });

  it("reads at a snapshot", async () => {
    const db = await openDb();
    db.put("k", "v1");
    const s1 = db.snapshot();
    db.put("k", "v2");
    db.delete("gone");
    const s2 = db.snapshot();
    db.delete("k");
    expect(str(db.get("k", { snapshot: s1 }))).toBe("v1");
    expect(str(db.get("k", { snapshot: s2 }))).toBe("v2");
    expect(db.get("k")).toBeUndefined();
    expect(db.getProperty("shale.num-snapshots")).toBe("2");
    s1.release();
    s1.release();
    expect(db.getProperty("shale.num-snapshots")).toBe("1");
    expect(() => db.get("k", { snapshot: s1 })).toThrowError(/released/);
  });

  it("deleteRange hides older keys in [start, end) only", async () => {
    const db = await openDb();
    for (const k of ["a", "b", "c", "d"]) db.put(k, k);
    const before = db.snapshot();
    db.deleteRange("b", "d");
    expect(db.getMany(["a", "b", "c", "d"]).map(str)).toEqual(["a", undefined, undefined, "d"]);
    expect(str(db.get("b", { snapshot: before }))).toBe("b");
    db.put("c", "new");
    expect(str(db.get("c"))).toBe("new");
    db.deleteRange("x", "x");
    expect(() => db.deleteRange("z", "a")).toThrowError(/InvalidArgument/);
  });

  it("applies the merge operator on get", async () => {
    const db = await openDb(new MemoryFileSystem(), { mergeOperator: "uint64add" });
    db.merge("n", encodeUint64(5));
    db.merge("n", encodeUint64(7));
    expect(decodeUint64(db.get("n")!)).toBe(12);
    db.put("n", encodeUint64(100));
    db.merge("n", encodeUint64(1));
    expect(decodeUint64(db.get("n")!)).toBe(101);
    db.delete("n");
    db.merge("n", encodeUint64(2));
    expect(decodeUint64(db.get("n")!)).toBe(2);
    db.merge("bad", enc("not eight bytes"));
    expect(() => db.get("bad")).toThrowError(/Corruption/);
  });

  it("refuses merge without an operator", async () => {
    const db = await openDb();
    expect(() => db.merge("k", "v")).toThrowError(/InvalidArgument/);
  });

  it("switches memtables at writeBufferSize, flushes them to L0, and reads everything", async () => {
    const db = await openDb(new MemoryFileSystem(), { writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 3000; i++) db.put(`key${i}`, `value${i}`.repeat(5));
    expect(Number(db.getProperty("shale.num-files-at-level0"))).toBeGreaterThan(0);
    expect(Number(db.getProperty("shale.num-immutable-mem-table"))).toBeLessThanOrEqual(1);
    for (let i = 0; i < 3000; i += 97) expect(str(db.get(`key${i}`))).toBe(`value${i}`.repeat(5));
  });

  it("counts in statistics when on", async () => {
    const stats = new Statistics();
    const db = await openDb(new MemoryFileSystem(), { statistics: stats });
    db.put("a", "b");
    db.put("a", "c", { sync: true });
    db.get("a");
    expect(stats.getTicker(Ticker.KeysWritten)).toBe(2);
    expect(stats.getTicker(Ticker.WalSyncs)).toBe(1);
    expect(stats.getTicker(Ticker.KeysRead)).toBe(1);
    expect(db.getProperty("shale.stats")).toContain("KeysWritten COUNT : 2");
  });
});

describe("DB bad input", () => {
  it("throws TypeError for keys and values of the wrong type", async () => {
    const db = await openDb();
    expect(() => db.put(42 as unknown as string, "v")).toThrow(TypeError);
    expect(() => db.put("k", null as unknown as string)).toThrow(TypeError);
    expect(() => db.get({} as unknown as string)).toThrow(TypeError);
    expect(() => db.getMany("abc" as unknown as string[])).toThrow(TypeError);
    expect(() => db.write({} as WriteBatch)).toThrow(TypeError);
    expect(() => db.get("k", { snapshot: { seq: 1 } as never })).toThrow(TypeError);
  });

  it("rejects unknown and malformed options", async () => {
    await expect(
      DB.open("/x", { fs: new MemoryFileSystem(), bogus: 1 } as never),
    ).rejects.toThrowError(/unknown option/);
    await expect(
      DB.open("/x", { fs: new MemoryFileSystem(), writeBufferSize: 10 }),
    ).rejects.toThrowError(/InvalidArgument/);
    await expect(
      DB.open("/x", { fs: new MemoryFileSystem(), mergeOperator: "nope" as never }),
    ).rejects.toThrowError(/unknown merge operator/);
    await expect(DB.open("", {})).rejects.toThrow(TypeError);
    await expect(
      DB.open("/x", { fs: new MemoryFileSystem(), sync: true } as never),
    ).rejects.toThrowError(/unknown option/);
  });

  it("throws Closed after close, and close is idempotent", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem() });
    await db.close();
    await db.close();
    for (const op of [
      () => db.put("a", "b"),
      () => db.get("a"),
      () => db.delete("a"),
      () => db.snapshot(),
    ]) {
      try {
        op();
        expect.unreachable();
      } catch (e) {
        expect(isShaleError(e, "Closed")).toBe(true);
      }
    }
  });

  it("refuses a second open of the same directory with Busy", async () => {
    const fs = new MemoryFileSystem();
    await openDb(fs);
    await expect(DB.open("/db", { fs })).rejects.toSatisfy((e) => isShaleError(e, "Busy"));
  });

  it("honours createIfMissing and errorIfExists", async () => {
    const fs = new MemoryFileSystem();
    await expect(DB.open("/nope", { fs, createIfMissing: false })).rejects.toThrowError(
      /InvalidArgument/,
    );
    const db = await DB.open("/db", { fs });
    await db.close();
    await expect(DB.open("/db", { fs, errorIfExists: true })).rejects.toThrowError(
      /already exists/,
    );
  });

  it("rejects sync together with disableWAL", async () => {
    const db = await openDb();
    expect(() => db.put("a", "b", { sync: true, disableWAL: true })).toThrowError(
      /InvalidArgument/,
    );
  });

  it("is ShaleError-typed for every engine error", async () => {
    const db = await openDb();
    try {
      db.deleteRange("b", "a");
    } catch (e) {
      expect(e).toBeInstanceOf(ShaleError);
    }
  });
});
