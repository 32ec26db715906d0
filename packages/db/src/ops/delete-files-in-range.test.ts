import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import type { Version } from "../version/version.js";
import type { FileMetaData, VersionEdit } from "../version/version-edit.js";
import { deleteFilesInRange } from "./delete-files-in-range.js";
import type { OpsFamily, OpsHost } from "./host.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const ik = (k: string, seq: number) =>
  makeInternalKey(new TextEncoder().encode(k), seq, ValueKind.Value);
const meta = (number: number, lo: string, hi: string): FileMetaData => ({
  number,
  size: 100,
  smallest: ik(lo, 10),
  largest: ik(hi, 5),
  smallestSeq: 5,
  largestSeq: 10,
});

const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** L1 tables of ~keys 0..9999 in small files, then a newer L0 table. */
async function setUp() {
  const fs = new MemoryFileSystem();
  const db = await DB.open("/db", {
    fs,
    disableAutoCompactions: true,
    targetFileSizeBase: 16 * 1024,
  });
  for (let i = 0; i < 10_000; i++) db.put(key(i), `old-${i}`.repeat(4));
  await db.flush();
  await db.compactRange();
  return { fs, db };
}

describe("db.deleteFilesInRange", () => {
  it("drops the L1+ tables wholly inside [start, end] and frees their files", async () => {
    const { fs, db } = await setUp();
    const before = db.getLiveFiles().tables;
    expect(before.length).toBeGreaterThan(5);
    expect(before.every((t) => t.level === 1)).toBe(true);
    const start = key(2000);
    const end = key(7000);
    const inside = before.filter(
      (t) => text(t.smallestKey)! >= start && text(t.largestKey)! <= end,
    );
    expect(inside.length).toBeGreaterThan(0);
    const r = db.deleteFilesInRange(start, end);
    expect(r.files).toBe(inside.length);
    expect(r.bytes).toBe(inside.reduce((n, t) => n + t.size, 0));
    expect(r.tables.map((t) => t.name).sort()).toEqual(inside.map((t) => t.name).sort());
    await db.waitForCompactions();
    for (const t of inside) expect(fs.exists(`/db/${t.name}`)).toBe(false);
    // Keys of dropped tables are gone; keys of partly overlapping tables and outside stay.
    const gone = text(inside[0]!.smallestKey)!;
    expect(db.get(gone)).toBeUndefined();
    expect(text(db.get(key(0)))).toBe("old-0".repeat(4));
    expect(text(db.get(key(9999)))).toBe("old-9999".repeat(4));
    const firstKept = before.find((t) => !inside.includes(t) && text(t.largestKey)! >= start)!;
    expect(db.get(text(firstKept.largestKey)!)).toBeDefined();
    await db.close();
    const reopened = await DB.open("/db", { fs });
    expect(reopened.get(gone)).toBeUndefined();
    await reopened.close();
  });

  it("is not a consistent delete: snapshots lose the keys, L0 and memtables keep theirs", async () => {
    const { db } = await setUp();
    const snap = db.snapshot();
    db.put(key(5000), "memtable");
    const tables = db.getLiveFiles().tables.length;
    const r = db.deleteFilesInRange(undefined, undefined); // everything in L1
    expect(r.files).toBe(tables);
    expect(db.getLiveFiles().tables).toEqual([]);
    expect(db.get(key(10), { snapshot: snap })).toBeUndefined();
    expect(text(db.get(key(5000)))).toBe("memtable");
    snap.release();
    await db.close();
  });

  it("uncovers older versions in deeper levels (documented), and never drops L0", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, disableAutoCompactions: true });
    db.put("a", "old");
    db.put("z", "old");
    await db.flush();
    await db.compactRange(); // L1
    await db.compactRange(); // still L1 (the deepest non-empty level)
    const l1 = db.getLiveFiles().tables;
    expect(l1.map((t) => t.level)).toEqual([1]);
    db.put("m", "new");
    await db.flush(); // L0
    expect(db.deleteFilesInRange("l", "n").files).toBe(0); // the L0 table stays
    expect(text(db.get("m"))).toBe("new");
    expect(db.deleteFilesInRange("a", "z").files).toBe(1);
    expect(db.get("a")).toBeUndefined();
    expect(db.getLiveFiles().tables.map((t) => t.level)).toEqual([0]);
    await db.close();
  });

  it("cuts cleanly: a table whose edge user key continues in a table that stays is kept; busy tables stay", () => {
    // L1: [a..c] [c..e] [f..h] [h..j] [k..m] — c and h span two tables each.
    const files = [
      meta(1, "a", "c"),
      meta(2, "c", "e"),
      meta(3, "f", "h"),
      meta(4, "h", "j"),
      meta(5, "k", "m"),
    ];
    const run = (start: string, end: string, busy: number[] = []) => {
      let applied: VersionEdit | undefined;
      const family: OpsFamily = {
        icmp,
        current: () => ({ levels: [[], files, [], [], [], [], []] }) as unknown as Version,
        busyFiles: () => new Set(busy),
        applyEdit: (e: VersionEdit) => {
          applied = e;
        },
      };
      const host = {
        dir: "/db",
        family: () => family,
        checkWritable: () => {},
        takeFinished: () => {},
      } as unknown as OpsHost;
      const r = deleteFilesInRange(host, start, end);
      expect(applied?.deletedFiles.map((d) => d.number) ?? []).toEqual(
        r.tables.map((t) => Number(t.name.slice(0, 6))),
      );
      return r.tables.map((t) => Number(t.name.slice(0, 6)));
    };
    expect(run("a", "m")).toEqual([1, 2, 3, 4, 5]);
    expect(run("c", "m")).toEqual([3, 4, 5]); // 2 shares c with 1, which stays
    expect(run("a", "e")).toEqual([1, 2]);
    expect(run("a", "d")).toEqual([]); // 1 shares c with 2, which is not inside
    expect(run("f", "i")).toEqual([]); // 3 shares h with 4 (not inside)
    expect(run("f", "z")).toEqual([3, 4, 5]);
    expect(run("a", "m", [4])).toEqual([1, 2, 5]); // busy 4: 3 shares h with it
    expect(run("b", "z")).toEqual([3, 4, 5]);
  });

  it("validates and refuses on a closed database", async () => {
    const { db } = await setUp();
    expect(() => db.deleteFilesInRange("b", "a")).toThrow(/InvalidArgument/);
    expect(() => db.deleteFilesInRange(1 as never, "a")).toThrow(TypeError);
    await db.close();
    expect(() => db.deleteFilesInRange("a", "b")).toThrow(/Closed/);
  });
});
