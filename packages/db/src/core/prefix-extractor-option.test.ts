/**
 * The `prefixExtractor` and `wholeKeyFiltering` options: validation, where they are recorded
 * (OPTIONS `prefix_extractor=` and `whole_key_filtering=`, every table's
 * `rocksdb.prefix.extractor.name`), per column family, in worker and inline flushes, and
 * the open rules against a recorded extractor (prefix-extractor-option.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bytesToString,
  type FileSystem,
  MemoryFileSystem,
  NodeFileSystem,
  ShaleError,
  toBytes,
} from "@shale/base";
import { cappedPrefix, fixedPrefix, type PrefixExtractor, TableReader } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { readNewestOptions } from "./options-file.js";

const text = (b: Uint8Array) => bytesToString(b);

function tables(fs: FileSystem, dir: string) {
  return fs
    .list(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => {
      const path = join(dir, f);
      const r = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
      const p = r.properties;
      r.close();
      return p;
    });
}

function cfOption(fs: FileSystem, dir: string, family: string, key: string, section = "CFOptions") {
  const found = readNewestOptions(fs, dir)!;
  return found.sections.find((s) => s.title === `${section} "${family}"`)?.entries.get(key);
}

/** Keys of one prefix after a seek with prefixSameAsStart. */
function samePrefixKeys(db: DB, target: string): string[] {
  const it = db.iterator({ prefixSameAsStart: true });
  const out: string[] = [];
  for (it.seek(target); it.valid(); it.next()) out.push(text(it.key()));
  it.close();
  return out;
}

async function fill(db: DB) {
  for (const k of ["aa1", "aa2", "ab1", "b", "ba1"]) db.put(k, "v");
  await db.flush();
}

describe("prefixExtractor option", () => {
  it("is recorded in OPTIONS and in every table, with wholeKeyFiltering", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      prefixExtractor: fixedPrefix(2),
      wholeKeyFiltering: false,
    });
    await fill(db);
    expect(cfOption(fs, "/db", "default", "prefix_extractor")).toBe("rocksdb.FixedPrefix.2");
    expect(
      cfOption(fs, "/db", "default", "whole_key_filtering", "TableOptions/BlockBasedTable"),
    ).toBe("false");
    const [p] = tables(fs, "/db");
    expect(p!.prefixExtractorName).toBe("rocksdb.FixedPrefix.2");
    expect(p!.wholeKeyFiltering).toBe(false);
    // Point lookups still find every key (the filter holds prefixes only).
    for (const k of ["aa1", "aa2", "ab1", "b", "ba1"]) expect(text(db.get(k)!)).toBe("v");
    expect(db.get("aa3")).toBeUndefined();
    expect(samePrefixKeys(db, "aa")).toEqual(["aa1", "aa2"]);
    await db.close();
  });

  it("records nullptr without an extractor", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    await fill(db);
    expect(cfOption(fs, "/db", "default", "prefix_extractor")).toBe("nullptr");
    expect(tables(fs, "/db")[0]!.prefixExtractorName).toBe("nullptr");
    // prefixSameAsStart without an extractor bounds nothing (RocksDB's).
    expect(samePrefixKeys(db, "aa")).toEqual(["aa1", "aa2", "ab1", "b", "ba1"]);
    await db.close();
  });

  it("reopens with the recorded built-in one when none is given", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", { fs, prefixExtractor: cappedPrefix(2) });
    await fill(db);
    await db.close();
    db = await DB.open("/db", { fs });
    expect(samePrefixKeys(db, "ab")).toEqual(["ab1"]);
    db.put("ab2", "v");
    await db.flush();
    expect(tables(fs, "/db").map((p) => p.prefixExtractorName)).toEqual([
      "rocksdb.CappedPrefix.2",
      "rocksdb.CappedPrefix.2",
    ]);
    expect(cfOption(fs, "/db", "default", "prefix_extractor")).toBe("rocksdb.CappedPrefix.2");
    await db.close();
    db = await DB.open("/db", { fs, prefixExtractor: cappedPrefix(2) }); // the same: fine
    await db.close();
  });

  it("refuses another extractor, or an unknown recorded one, before anything is written", async () => {
    const fs = new MemoryFileSystem();
    const mine: PrefixExtractor = {
      name: "app.FirstByte",
      transform: (k) => k.subarray(0, 1),
      inDomain: (k) => k.length > 0,
    };
    let db = await DB.open("/db", { fs, prefixExtractor: mine });
    await fill(db);
    await db.close();
    const before = fs.list("/db").sort();
    const refused = [
      DB.open("/db", { fs }),
      DB.open("/db", { fs, prefixExtractor: fixedPrefix(1) }),
      DB.open("/db", { fs, prefixExtractor: { ...mine, name: "app.Other" } }),
    ];
    for (const p of refused) {
      const e = await p.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(ShaleError.isInstance(e) && e.code === "InvalidArgument").toBe(true);
      expect(String((e as Error).message)).toMatch(/app\.FirstByte/);
    }
    expect(fs.list("/db").sort()).toEqual(before);
    db = await DB.open("/db", { fs, prefixExtractor: mine });
    expect(samePrefixKeys(db, "a")).toEqual(["aa1", "aa2", "ab1"]);
    await db.close();
  });

  it("a read-only open takes the recorded extractor too", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, prefixExtractor: fixedPrefix(2) });
    await fill(db);
    await db.close();
    const ro = await DB.open("/db", { fs, readOnly: true });
    expect(samePrefixKeys(ro, "aa")).toEqual(["aa1", "aa2"]);
    await ro.close();
    await expect(
      DB.open("/db", { fs, readOnly: true, prefixExtractor: fixedPrefix(3) }),
    ).rejects.toThrow(/FixedPrefix\.2/);
  });

  it("lives in a column family's options", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { users: { prefixExtractor: fixedPrefix(3), wholeKeyFiltering: false } },
    });
    const users = db.columnFamily("users");
    for (const k of ["usr1", "usr2", "uss1"]) users.put(k, "v");
    await users.flush();
    expect(cfOption(fs, "/db", "users", "prefix_extractor")).toBe("rocksdb.FixedPrefix.3");
    expect(cfOption(fs, "/db", "default", "prefix_extractor")).toBe("nullptr");
    const it = users.iterator({ prefixSameAsStart: true });
    const got: string[] = [];
    for (it.seek("usr"); it.valid(); it.next()) got.push(text(it.key()));
    it.close();
    expect(got).toEqual(["usr1", "usr2"]);
    await db.close();
    const again = await DB.open("/db", { fs }); // the family's recorded extractor is reused
    expect(cfOption(fs, "/db", "users", "prefix_extractor")).toBe("rocksdb.FixedPrefix.3");
    await again.close();
  });

  it("checks its values", async () => {
    const fs = new MemoryFileSystem();
    const open = (o: object) => DB.open("/db", { fs, ...o });
    await expect(open({ prefixExtractor: {} })).rejects.toThrow(TypeError);
    await expect(open({ prefixExtractor: "fixed:8" })).rejects.toThrow(TypeError);
    await expect(
      open({
        prefixExtractor: { name: "nullptr", transform: (k: Uint8Array) => k, inDomain: () => true },
      }),
    ).rejects.toThrow(/nullptr/);
    await expect(open({ wholeKeyFiltering: 1 })).rejects.toThrow(TypeError);
    await expect(
      open({ prefixExtractor: fixedPrefix(2), indexType: "twoLevelIndex", partitionFilters: true }),
    ).rejects.toThrow(/not supported/);
    expect(() => fixedPrefix(0)).toThrow(/length/);
    expect(fs.exists("/db/CURRENT")).toBe(false);
  });
});

describe("flushes and compactions with an extractor on the node file system", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it.each([
    ["built-in (in a worker)", fixedPrefix(2)],
    [
      "user (on the main thread)",
      {
        name: "app.Two",
        transform: (k: Uint8Array) => k.subarray(0, 2),
        inDomain: (k: Uint8Array) => k.length >= 2,
      },
    ],
  ] as const)("%s write tables with prefix filters", async (_what, e) => {
    const dir = mkdtempSync(join(tmpdir(), "shale-prefix-"));
    dirs.push(dir);
    const db = await DB.open(dir, { prefixExtractor: e });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 50; i++) db.put(`k${i % 5}${round}${i}`, "v");
      await db.flush();
    }
    await db.compactRange();
    await db.waitForCompactions(); // the compaction's inputs are deleted in the background
    const props = tables(new NodeFileSystem(), dir);
    expect(props.length).toBeGreaterThan(0);
    for (const p of props) expect(p.prefixExtractorName).toBe(e.name);
    const it = db.iterator({ prefixSameAsStart: true });
    let n = 0;
    for (it.seek(toBytes("k3")); it.valid(); it.next()) n++;
    it.close();
    expect(n).toBe(20);
    await db.close();
  });
});
