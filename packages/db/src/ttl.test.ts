/**
 * TTL (core/ttl.ts, RocksDB's DBWithTTL) with a fake clock: the stored suffix, expiry by
 * compaction only (reads do not hide stale values), across flush, compaction and reopen, in
 * the worker threads and on the database's thread; merges; the OPTIONS record and the
 * checks at open.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem, ShaleError } from "@shale/base";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "./core/options.js";
import { TTL_MIN_TIMESTAMP } from "./core/ttl.js";
import { DB } from "./db.js";
import { WriteBatch } from "./write/write-batch.js";

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-ttl-"));
  dirs.push(d);
  return d;
}

/** A clock the test moves. */
class FakeClock {
  constructor(public now: number) {}
  nowSeconds(): number {
    return this.now;
  }
}

const T0 = 1_800_000_000;

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return ShaleError.isInstance(e) ? e.code : (e as Error).name;
  }
  return undefined;
}

const where = [
  { name: "worker threads", dir: () => tmp(), fs: (): DbOptions => ({}) },
  {
    name: "the database's thread",
    dir: () => "/db",
    fs: (): DbOptions => ({ fs: new MemoryFileSystem() }),
  },
] as const;

describe.each(where)("ttl with compactions in $name", ({ dir, fs }) => {
  it("values expire by compaction (not on read), across flush, compaction and reopen", async () => {
    const d = dir();
    const clock = new FakeClock(T0);
    const options: DbOptions = { ...fs(), ttl: 10, clock };
    const db = await DB.open(d, options);
    db.put("a", "1");
    db.write(new WriteBatch().put("b", "2").delete("zz"));
    clock.now = T0 + 5;
    db.put("c", "3");
    await db.flush();
    clock.now = T0 + 11; // a and b: 11 > 10 seconds old; c: 6
    expect(text(db.get("a"))).toBe("1"); // stale, still read (RocksDB's rule)
    expect(db.getMany(["a", "b", "c", "d"]).map(text)).toEqual(["1", "2", "3", undefined]);
    await db.compactRange();
    expect(db.get("a")).toBeUndefined();
    expect(db.get("b")).toBeUndefined();
    expect(text(db.get("c"))).toBe("3");
    await db.close();
    const again = await DB.open(d, options);
    expect([...again.iterator()].map(([k, v]) => `${text(k)}=${text(v)}`)).toEqual(["c=3"]);
    clock.now = T0 + 16;
    again.put("e", "5"); // fresh, overlapping c's table so the compaction reads it
    again.put("b", "again");
    await again.flush();
    await again.compactRange();
    expect([...again.iterator()].map(([k, v]) => `${text(k)}=${text(v)}`)).toEqual([
      "b=again",
      "e=5",
    ]);
    await again.close();
  });

  it("merges strip and restamp (RocksDB's TtlMergeOperator)", async () => {
    const clock = new FakeClock(T0);
    const db = await DB.open(dir(), { ...fs(), ttl: 100, clock, mergeOperator: "stringappend" });
    db.put("k", "a");
    db.merge("k", "b");
    clock.now = T0 + 50;
    db.merge("k", "c");
    expect(text(db.get("k"))).toBe("a,b,c");
    await db.flush();
    clock.now = T0 + 90;
    await db.compactRange(); // merged at T0 + 90: the result carries that time
    expect(text(db.get("k"))).toBe("a,b,c");
    db.put("j", "x");
    await db.flush();
    clock.now = T0 + 150; // 60 s after the merge: kept; j is fresh too
    await db.compactRange();
    expect(text(db.get("k"))).toBe("a,b,c");
    db.put("l", "y");
    await db.flush();
    clock.now = T0 + 195; // 105 s after the merge: dropped; j (written at T0 + 90) too
    await db.compactRange();
    expect(db.get("k")).toBeUndefined();
    expect(db.get("j")).toBeUndefined();
    expect(text(db.get("l"))).toBe("y");
    await db.close();
  });

  it("layers a user's compaction filter over TTL's: it sees values without the timestamp", async () => {
    const clock = new FakeClock(T0);
    const db = await DB.open(dir(), {
      ...fs(),
      ttl: 10,
      clock,
      compactionFilter: {
        module: new URL("./test-fixtures/compaction-filters.mjs", import.meta.url),
        name: "rules",
      },
    });
    db.put("chg", "v");
    db.put("tmp", "v");
    await db.flush();
    clock.now = T0 + 5;
    await db.compactRange();
    expect(text(db.get("chg"))).toBe("v!");
    expect(db.get("tmp")).toBeUndefined();
    db.put("x", "1");
    await db.flush();
    clock.now = T0 + 11; // chg kept its original timestamp when it changed: now stale
    await db.compactRange();
    expect(db.get("chg")).toBeUndefined();
    expect(text(db.get("x"))).toBe("1");
    await db.close();
  });
});

describe("ttl: format and checks", () => {
  it("stores each value with its 4-byte little-endian write time (docs/formats/ttl.md)", async () => {
    const clock = new FakeClock(0x6b151c31);
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), ttl: 60, clock });
    db.put("k1", "v1");
    const [update] = [...db.getUpdatesSince(0)];
    const [op] = [...update!.batch] as { value: Uint8Array }[];
    expect(Buffer.from(op!.value).toString("hex")).toBe("7631" + "311c156b");
    expect(text(db.get("k1"))).toBe("v1");
    const it = db.iterator();
    it.seekToFirst();
    expect(text(it.value())).toBe("v1");
    it.close();
    expect(text(db.getView("k1"))).toBe("v1");
    await db.close();
  });

  it("records TTL in OPTIONS as RocksDB does, and refuses an open that disagrees", async () => {
    const d = tmp();
    const db = await DB.open(d, { ttl: 30, mergeOperator: "uint64add" });
    db.put("a", "1");
    await db.close();
    const name = readdirSync(d)
      .filter((n) => n.startsWith("OPTIONS-"))
      .sort()
      .pop()!;
    const options = readFileSync(join(d, name), "utf8");
    expect(options).toContain(
      "compaction_filter_factory={id=TtlCompactionFilterFactory;user_filter_factory=nullptr;ttl=30;}",
    );
    expect(options).toContain(
      "merge_operator={id=TtlMergeOperator;user_operator={id=UInt64AddOperator;};}",
    );
    expect(await codeOf(DB.open(d, {}))).toBe("InvalidArgument");
    expect(await codeOf(DB.open(d, { readOnly: true }))).toBe("InvalidArgument");
    expect(await codeOf(DB.open(d, { ttl: 30, mergeOperator: "max" }))).toBe("InvalidArgument");
    const again = await DB.open(d, { ttl: 5, mergeOperator: "uint64add" });
    expect(text(again.get("a"))).toBe("1");
    await again.close();

    const plain = tmp();
    await (await DB.open(plain)).close();
    expect(await codeOf(DB.open(plain, { ttl: 30 }))).toBe("InvalidArgument");
  });

  it("per column family: only the family with ttl stamps its values", async () => {
    const clock = new FakeClock(T0);
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      clock,
      createMissingColumnFamilies: true,
      columnFamilies: { short: { ttl: 1 } },
    });
    const short = db.columnFamily("short");
    db.write(new WriteBatch().put("k", "default").put("k", "short", short));
    const [update] = [...db.getUpdatesSince(0)];
    const ops = [...update!.batch] as { value: Uint8Array }[];
    expect(ops.map((o) => o.value.length)).toEqual([7, 5 + 4]);
    await short.flush();
    await db.flush();
    clock.now = T0 + 5;
    await short.compactRange();
    await db.compactRange();
    expect(short.get("k")).toBeUndefined();
    expect(text(db.get("k"))).toBe("default");
    await db.close();
  });

  it("bad input: a negative or fractional ttl, ttl with transactionDB, transactions on ttl", async () => {
    expect(await codeOf(DB.open("/db", { fs: new MemoryFileSystem(), ttl: -1 }))).toBe(
      "InvalidArgument",
    );
    expect(await codeOf(DB.open("/db", { fs: new MemoryFileSystem(), ttl: 1.5 }))).toBe(
      "InvalidArgument",
    );
    expect(
      await codeOf(DB.open("/db", { fs: new MemoryFileSystem(), ttl: 1, clock: {} as never })),
    ).toBe("TypeError");
    expect(
      await codeOf(DB.open("/db", { fs: new MemoryFileSystem(), ttl: 1, transactionDB: {} })),
    ).toBe("NotSupported");
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), ttl: 1 });
    expect(await codeOf(() => db.beginTransaction())).toBe("NotSupported");
    await db.close();
  });

  it("a value too short or too old for a timestamp is Corruption", async () => {
    const fs = new MemoryFileSystem();
    const clock = new FakeClock(TTL_MIN_TIMESTAMP - 10);
    const db = await DB.open("/db", { fs, ttl: 0, clock });
    db.put("old", "x"); // stamped before 2013-05-10: not a timestamp RocksDB accepts
    expect(await codeOf(() => db.get("old"))).toBe("Corruption");
    await db.close();
  });

  it("model: after a compaction, exactly the values written within ttl are left", async () => {
    const op = fc.record({
      k: fc.constantFrom("a", "b", "c", "d", "e"),
      del: fc.boolean(),
      advance: fc.integer({ min: 0, max: 4 }),
      flush: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 30 }),
        fc.integer({ min: 0, max: 12 }),
        async (ops, wait) => {
          const clock = new FakeClock(T0);
          const ttl = 6;
          const db = await DB.open("/db", { fs: new MemoryFileSystem(), ttl, clock });
          const model = new Map<string, { v: string; at: number }>();
          let i = 0;
          for (const o of ops) {
            clock.now += o.advance;
            if (o.del) {
              db.delete(o.k);
              model.delete(o.k);
            } else {
              const v = `v${i++}`;
              db.put(o.k, v);
              model.set(o.k, { v, at: clock.now });
            }
            if (o.flush) await db.flush();
          }
          await db.flush();
          clock.now += wait;
          await db.compactRange();
          const expected = [...model.entries()]
            .filter(([, e]) => !(e.at + ttl < clock.now))
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, e]) => `${k}=${e.v}`);
          expect([...db.iterator()].map(([k, v]) => `${text(k)}=${text(v)}`)).toEqual(expected);
          await db.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
