/**
 * `db.clear(range?)`: one atomic batch — a range tombstone from the first to the last live
 * key of the range plus a point tombstone of the last — for every kind of range, open or
 * not; point deletions with a limit. (The model-based test is range-options.property.test.ts.)
 */
import {
  MemoryFileSystem,
  reverseBytewiseComparator,
  Statistics,
  Ticker,
  ValueKind,
} from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const keys = (db: DB) => [...db.iterator()].map(([k]) => dec(k));

let dbs: DB[] = [];
afterEach(async () => {
  for (const db of dbs) await db.close();
  dbs = [];
});
async function openDb(options: Parameters<typeof DB.open>[1] = {}): Promise<DB> {
  const db = await DB.open("/db", { fs: new MemoryFileSystem(), ...options });
  dbs.push(db);
  for (const k of ["a", "b", "c", "d", "e"]) db.put(k, k);
  return db;
}

describe("clear", () => {
  it("without a range removes everything, in one write of two records", async () => {
    const db = await openDb();
    await db.flush();
    db.put("f", "f"); // in the memtable
    const seq = db.latestSequence;
    db.clear();
    expect(keys(db)).toEqual([]);
    expect(db.latestSequence).toBe(seq + 2); // deleteRange(a, f) + delete(f)
    await db.compactRange();
    expect(keys(db)).toEqual([]);
    db.put("a", "again");
    expect(keys(db)).toEqual(["a"]);
  });

  it.each([
    [{ gt: "b" }, ["a", "b"]],
    [{ gte: "b" }, ["a"]],
    [{ lt: "d" }, ["d", "e"]],
    [{ lte: "d" }, ["e"]],
    [{ gt: "a", lt: "e" }, ["a", "e"]],
    [{ gte: "b", lte: "b" }, ["a", "c", "d", "e"]],
    [{ lowerBound: "c" }, ["a", "b"]],
    [{ upperBound: "c" }, ["c", "d", "e"]],
    [{ gt: "e" }, ["a", "b", "c", "d", "e"]],
    [{ gt: "d", lt: "b" }, ["a", "b", "c", "d", "e"]],
    [{ limit: 2 }, ["c", "d", "e"]],
    [{ limit: 2, reverse: true }, ["a", "b", "c"]],
    [{ gt: "a", limit: 1 }, ["a", "c", "d", "e"]],
    [{ lt: "e", limit: 2, reverse: true }, ["a", "b", "e"]],
    [{ limit: 0 }, ["a", "b", "c", "d", "e"]],
    [{ limit: -1 }, []],
  ])("%j leaves %j", async (range, left) => {
    const db = await openDb();
    db.clear(range);
    expect(keys(db)).toEqual(left);
    await db.flush();
    await db.compactRange();
    expect(keys(db)).toEqual(left);
  });

  it("an empty range writes nothing; a snapshot still sees what clear removed", async () => {
    const db = await openDb();
    const seq = db.latestSequence;
    db.clear({ gt: "e" });
    expect(db.latestSequence).toBe(seq);
    const s = db.snapshot();
    db.clear({ gte: "b", lt: "d" });
    expect(keys(db)).toEqual(["a", "d", "e"]);
    expect([...db.iterator({ snapshot: s })].map(([k]) => dec(k))).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
    s.release();
  });

  it("uses a range tombstone, not one deletion per key", async () => {
    const statistics = new Statistics();
    const db = await openDb({ statistics });
    for (let i = 0; i < 1000; i++) db.put(`k${String(i).padStart(4, "0")}`, "v");
    const before = statistics.getTicker(Ticker.BytesWritten);
    db.clear({ gte: "k" });
    expect(keys(db)).toEqual(["a", "b", "c", "d", "e"]);
    expect(statistics.getTicker(Ticker.BytesWritten) - before).toBeLessThan(40);
  });

  it("works under a reverse comparator (the order of the range tombstone is the database's)", async () => {
    const db = await openDb({ comparator: reverseBytewiseComparator });
    expect(keys(db)).toEqual(["e", "d", "c", "b", "a"]);
    db.clear({ gt: "d" }); // after d in this order: c, b, a
    expect(keys(db)).toEqual(["e", "d"]);
    db.clear();
    expect(keys(db)).toEqual([]);
  });

  it("a write batch with a range deletion works under a non-bytewise comparator (it was refused as damaged)", async () => {
    const db = await openDb({ comparator: reverseBytewiseComparator });
    // [b, a) in reverse order (WriteBatch.deleteRange checks bytewise order: add it raw)
    const enc = (x: string) => new TextEncoder().encode(x);
    db.write(new WriteBatch().add(ValueKind.RangeDeletion, enc("b"), enc("a")).put("z", "z"));
    expect(keys(db)).toEqual(["z", "e", "d", "c", "a"]);
    // start after end in the database's order: InvalidArgument, not Corruption.
    expect(() =>
      db.write(
        new WriteBatch().add(
          ValueKind.RangeDeletion,
          new Uint8Array([0x61]),
          new Uint8Array([0x62]),
        ),
      ),
    ).toThrow(/start is after end/);
  });

  it("is refused when the database is closed, and takes write options", async () => {
    const db = await openDb();
    db.clear({ sync: true, lt: "b" });
    expect(keys(db)).toEqual(["b", "c", "d", "e"]);
    expect(() => db.clear({ sync: true, disableWAL: true })).toThrow(/sync/);
    await db.close();
    expect(() => db.clear()).toThrow(/closed/);
  });
});
