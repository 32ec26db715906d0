/**
 * Compaction filters named by module (core/compaction-filter.ts): keep / remove / change,
 * in the worker threads and on the database's thread, a filter that throws, modules that
 * cannot be loaded, merge operators by module, and a model test of the contract.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem, ShaleError } from "@shale/base";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";

const FILTERS = new URL("./test-fixtures/compaction-filters.mjs", import.meta.url);
const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-cfilter-"));
  dirs.push(d);
  return d;
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return ShaleError.isInstance(e) ? e.code : (e as Error).name;
  }
  return undefined;
}

const where = [
  { name: "worker threads", dir: () => tmp(), fs: () => ({}) },
  { name: "the database's thread", dir: () => "/db", fs: () => ({ fs: new MemoryFileSystem() }) },
] as const;

describe.each(where)("a compaction filter in $name", ({ name, dir, fs }) => {
  const thread = name === "worker threads" ? "worker" : "main";

  it("keeps, removes and changes values; the results survive a reopen", async () => {
    const d = dir();
    const base: DbOptions = { ...fs(), compactionFilter: { module: FILTERS, name: "rules" } };
    const db = await DB.open(d, base);
    for (const k of ["tmp1", "keep1", "chg1", "tag1", "plain1"]) db.put(k, `v-${k}`);
    await db.flush();
    expect(text(db.get("tmp1"))).toBe("v-tmp1"); // flushes do not filter
    await db.compactRange();
    expect(text(db.get("tmp1"))).toBeUndefined();
    expect(text(db.get("keep1"))).toBe("v-keep1");
    expect(text(db.get("chg1"))).toBe("v-chg1!");
    expect(text(db.get("tag1"))).toBe(`v-tag1:${thread}`);
    expect(text(db.get("plain1"))).toBe("v-plain1");
    const options = { ...base, fs: (base as { fs?: MemoryFileSystem }).fs };
    await db.close();
    const again = await DB.open(d, options.fs === undefined ? {} : { fs: options.fs });
    expect([...again.iterator()].map(([k, v]) => `${text(k)}=${text(v)}`)).toEqual([
      "chg1=v-chg1!",
      "keep1=v-keep1",
      "plain1=v-plain1",
      `tag1=v-tag1:${thread}`,
    ]);
    await again.close();
  });

  it("a merge operator named by module merges there too", async () => {
    const db = await DB.open(dir(), {
      ...fs(),
      mergeOperator: { module: FILTERS.href, name: "threadMerge" },
    });
    db.put("m", "a");
    db.merge("m", "b");
    db.merge("m", "c");
    expect(text(db.get("m"))).toBe("a+b+c@main"); // a read merges here
    await db.flush();
    await db.compactRange();
    expect(text(db.get("m"))).toBe(`a+b+c@${thread}`); // the compaction merged it
    await db.close();
  });

  it("a filter that throws fails the compaction as a background error; nothing is lost", async () => {
    const d = dir();
    const { fs: mem } = fs() as { fs?: MemoryFileSystem };
    const db = await DB.open(d, {
      ...(mem === undefined ? {} : { fs: mem }),
      compactionFilter: { module: FILTERS, name: "throws" },
    });
    for (let i = 0; i < 20; i++) db.put(`k${i}`, `v${i}`);
    await db.flush();
    db.put("k0", "newer");
    await db.flush();
    expect(await codeOf(db.compactRange())).toBe("IOError");
    expect(() => db.put("x", "y")).toThrow(/background job failed/);
    expect(text(db.get("k0"))).toBe("newer");
    await db.close().catch(() => undefined);
    const again = await DB.open(d, mem === undefined ? {} : { fs: mem });
    expect(text(again.get("k0"))).toBe("newer");
    for (let i = 1; i < 20; i++) expect(text(again.get(`k${i}`))).toBe(`v${i}`);
    await again.close();
  });

  it("a filter returning something else fails the compaction too", async () => {
    const db = await DB.open(dir(), {
      ...fs(),
      compactionFilter: { module: FILTERS, name: "badDecision" },
    });
    db.put("a", "1");
    await db.flush();
    expect(await codeOf(db.compactRange())).toBe("InvalidArgument");
    expect(text(db.get("a"))).toBe("1");
    await db.close().catch(() => undefined);
  });

  it("is told the compaction's start level", async () => {
    const db = await DB.open(dir(), {
      ...fs(),
      compactionFilter: { module: FILTERS, name: "levels" },
    });
    db.put("lvl", "x");
    await db.flush();
    await db.compactRange(); // L0 -> L1 (the bottommost level with data)
    expect(text(db.get("lvl"))).toBe("x@0");
    await db.close();
  });
});

describe("what a compaction filter sees (RocksDB's contract)", () => {
  it("removal is a Deletion: a snapshot keeps the older version, the latest state loses the key", async () => {
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      compactionFilter: { module: FILTERS, name: "rules" },
    });
    db.put("tmpA", "old");
    const snap = db.snapshot();
    db.put("tmpA", "new");
    await db.flush();
    await db.compactRange();
    expect(text(db.get("tmpA"))).toBeUndefined();
    expect(text(db.get("tmpA", { snapshot: snap }))).toBe("old");
    snap.release();
    await db.compactRange();
    expect(text(db.get("tmpA"))).toBeUndefined();
    await db.close();
  });

  it("merge operands and deletions are not shown to it", async () => {
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      compactionFilter: { module: FILTERS, name: "rules" },
      mergeOperator: "stringappend",
    });
    db.put("chgM", "x");
    db.merge("chgM", "y"); // the newest entry is an operand: no filter
    db.put("chgD", "x");
    db.delete("chgD");
    await db.flush();
    await db.compactRange();
    expect(text(db.get("chgM"))).toBe("x,y");
    expect(db.get("chgD")).toBeUndefined();
    // Now a Value at the bottom level: compactRange rewrites that level in place through
    // the filter (RocksDB's kIfHaveCompactionFilter).
    await db.compactRange();
    expect(text(db.get("chgM"))).toBe("x,y!");
    expect(db.getProperty("shale.num-files-at-level1")).toBe("1");
    await db.close();
  });

  it("model: after a full compaction each key is its latest value, filtered once", async () => {
    const key = fc.constantFrom("tmp1", "tmp2", "chg1", "chg2", "keep1", "x1", "x2");
    const op = fc.oneof(
      fc.record({ t: fc.constant("put" as const), k: key, v: fc.string({ maxLength: 4 }) }),
      fc.record({ t: fc.constant("del" as const), k: key }),
      fc.record({ t: fc.constant("flush" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        // Everything stays in L0 until the one compaction: each value is filtered once.
        const db = await DB.open("/db", {
          fs: new MemoryFileSystem(),
          compactionFilter: { module: FILTERS, name: "rules" },
          disableAutoCompactions: true,
        });
        const model = new Map<string, string>();
        for (const o of ops) {
          if (o.t === "put") {
            db.put(o.k, o.v);
            model.set(o.k, o.v);
          } else if (o.t === "del") {
            db.delete(o.k);
            model.delete(o.k);
          } else await db.flush();
        }
        await db.flush();
        await db.compactRange();
        const expected: string[] = [];
        for (const k of [...model.keys()].sort()) {
          if (k.startsWith("tmp")) continue;
          expected.push(`${k}=${model.get(k)}${k.startsWith("chg") ? "!" : ""}`);
        }
        expect([...db.iterator()].map(([k, v]) => `${text(k)}=${text(v)}`)).toEqual(expected);
        await db.close();
      }),
      { numRuns: 30 },
    );
  });
});

describe("compactRange with a compaction filter (RocksDB's kIfHaveCompactionFilter)", () => {
  it("rewrites the bottommost level in place; data only in L0 is filtered once", async () => {
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      compactionFilter: { module: FILTERS, name: "rules" },
      disableAutoCompactions: true,
    });
    db.put("chg1", "a");
    await db.flush();
    await db.compactRange(); // L0 -> L1 only
    expect(text(db.get("chg1"))).toBe("a!");
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    await db.compactRange(); // L1 -> L1
    expect(text(db.get("chg1"))).toBe("a!!");
    expect(db.getProperty("shale.num-files-at-level1")).toBe("1");
    db.put("chg2", "b");
    await db.flush();
    // L0 -> L1 and then L1 -> L1: a value moved down is filtered twice, as in RocksDB.
    await db.compactRange("chg2", "chg3");
    expect(text(db.get("chg2"))).toBe("b!!");
    await db.close();
  });

  it("a family without a filter keeps its bottommost level as it is", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), disableAutoCompactions: true });
    db.put("a", "1");
    await db.flush();
    await db.compactRange();
    const before = db.getLiveFiles().tables.map((f) => f.name);
    await db.compactRange();
    expect(db.getLiveFiles().tables.map((f) => f.name)).toEqual(before);
    await db.close();
  });
});

describe("compactionFilter and mergeOperator by module: bad input at open", () => {
  const cases: [string, unknown, string][] = [
    [
      "a missing module",
      { module: new URL("./no-such-file.mjs", FILTERS), name: "x" },
      "InvalidArgument",
    ],
    ["a missing export", { module: FILTERS, name: "noSuchExport" }, "InvalidArgument"],
    [
      "an export that is not a function",
      { module: FILTERS, name: "notAFunction" },
      "InvalidArgument",
    ],
    ["a relative specifier", { module: "./filters.mjs", name: "rules" }, "InvalidArgument"],
    ["an empty name", { module: FILTERS, name: "" }, "InvalidArgument"],
    ["a function", () => true, "TypeError"],
    ["no name", { module: FILTERS }, "TypeError"],
  ];
  it.each(cases)("compactionFilter: %s", async (_what, filter, code) => {
    const d = join(tmp(), "new");
    expect(await codeOf(DB.open(d, { compactionFilter: filter } as unknown as DbOptions))).toBe(
      code,
    );
    expect(existsSync(d)).toBe(false); // nothing written
  });

  it("a column family's compactionFilter is loaded and checked too", async () => {
    const d = join(tmp(), "new");
    const open = (name: string) =>
      DB.open(d, {
        createMissingColumnFamilies: true,
        columnFamilies: { users: { compactionFilter: { module: FILTERS, name } } },
      });
    expect(await codeOf(open("nope"))).toBe("InvalidArgument");
    expect(existsSync(d)).toBe(false);
    const db = await open("rules");
    const users = db.columnFamily("users");
    users.put("tmpU", "1");
    db.put("tmpD", "1");
    await users.flush();
    await db.flush();
    await users.compactRange();
    await db.compactRange();
    expect(users.get("tmpU")).toBeUndefined();
    expect(text(db.get("tmpD"))).toBe("1"); // default has no filter
    expect(
      await codeOf(
        db.createColumnFamily("other", { compactionFilter: { module: FILTERS, name: "nope" } }),
      ),
    ).toBe("InvalidArgument");
    await db.close();
  });

  it("mergeOperator: a module export that is not a MergeOperator", async () => {
    const d = join(tmp(), "new");
    expect(await codeOf(DB.open(d, { mergeOperator: { module: FILTERS, name: "rules" } }))).toBe(
      "InvalidArgument",
    );
    expect(existsSync(d)).toBe(false);
  });
});
