/**
 * deleteRange through the whole engine, the hard cases: a tombstone spanning many
 * files and levels, empty ranges, and a key written again after a tombstone covered it —
 * each read through get, getMany and both iterator directions, at snapshots, after
 * flushes, compactions and a reopen.
 */
import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const key = (i: number) => `key${String(i).padStart(6, "0")}`;

/** Small sizes so that a few hundred KB make several files on several levels. */
const SMALL: DbOptions = {
  writeBufferSize: 64 * 1024,
  targetFileSizeBase: 16 * 1024,
  maxBytesForLevelBase: 64 * 1024,
  maxBytesForLevelMultiplier: 4,
  level0FileNumCompactionTrigger: 2,
  compression: "none",
};

function scan(db: DB, reverse: boolean, snapshot?: ReturnType<DB["snapshot"]>): string[] {
  const it = db.iterator(snapshot !== undefined ? { snapshot } : {});
  const out: string[] = [];
  if (reverse) for (it.seekToLast(); it.valid(); it.prev()) out.push(str(it.key())!);
  else for (it.seekToFirst(); it.valid(); it.next()) out.push(str(it.key())!);
  it.close();
  return reverse ? out.reverse() : out;
}

/** Every read path agrees that exactly `expected` keys of [0, n) are present. */
function expectKeys(db: DB, n: number, expected: (i: number) => boolean): void {
  const want: string[] = [];
  for (let i = 0; i < n; i++) if (expected(i)) want.push(key(i));
  expect(scan(db, false)).toEqual(want);
  expect(scan(db, true)).toEqual(want);
  const keys = Array.from({ length: n }, (_, i) => key(i));
  const many = db.getMany(keys);
  for (let i = 0; i < n; i++) {
    expect(db.get(key(i)) !== undefined, key(i)).toBe(expected(i));
    expect(many[i] !== undefined, key(i)).toBe(expected(i));
  }
}

function fileCount(db: DB): number {
  return db.debugVersion().levels.reduce((n, files) => n + files.length, 0);
}

describe("range deletions through the engine", () => {
  it("a tombstone spanning many files on several levels hides them all, before and after compaction", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, ...SMALL });
    const N = 6000;
    for (let i = 0; i < N; i++) {
      db.put(key(i), `value-${i}-${"x".repeat(60)}`);
      if (i % 500 === 0) await new Promise((r) => setImmediate(r));
    }
    await db.flush();
    await db.compactRange();
    // Newer versions of every third key, on files above the bottom level.
    for (let i = 0; i < N; i += 3) db.put(key(i), `newer-${i}`);
    await db.flush();
    const before = fileCount(db);
    expect(before).toBeGreaterThan(10);
    expect(db.debugVersion().levels.filter((files) => files.length > 0).length).toBeGreaterThan(1);
    const snapshot = db.snapshot();
    db.deleteRange(key(100), key(5900));
    const live = (i: number) => i < 100 || i >= 5900;
    expectKeys(db, N, live);
    expect(scan(db, false, snapshot).length).toBe(N);
    await db.flush(); // the tombstone now sits in an L0 table above every level
    expectKeys(db, N, live);
    snapshot.release();
    await db.compactRange();
    expectKeys(db, N, live);
    expect(fileCount(db)).toBeLessThan(before);
    await db.close();
    const again = await DB.open("/db", { fs, ...SMALL });
    expectKeys(again, N, live);
    await again.close();
  });

  it("empty ranges delete nothing", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, ...SMALL });
    for (let i = 0; i < 50; i++) db.put(key(i), `v${i}`);
    db.deleteRange(key(10), key(10)); // [k, k) is empty
    db.deleteRange("", ""); // so is ["", "")
    db.deleteRange(key(20), `${key(20)}`); // the same, as another string
    expectKeys(db, 50, () => true);
    await db.flush();
    await db.compactRange();
    expectKeys(db, 50, () => true);
    await db.close();
  });

  it("a key written again after a tombstone covered it is visible; older snapshots still see the deletion", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, ...SMALL });
    for (let i = 0; i < 100; i++) db.put(key(i), `old${i}`);
    await db.flush();
    db.deleteRange(key(0), key(100));
    const deleted = db.snapshot();
    db.put(key(42), "new42");
    const rewritten = (i: number) => i === 42;
    expectKeys(db, 100, rewritten);
    expect(str(db.get(key(42)))).toBe("new42");
    expect(db.get(key(42), { snapshot: deleted })).toBeUndefined();
    for (const step of ["flush", "compact"] as const) {
      if (step === "flush") await db.flush();
      else await db.compactRange();
      expectKeys(db, 100, rewritten);
      expect(str(db.get(key(42)))).toBe("new42");
      expect(db.get(key(42), { snapshot: deleted })).toBeUndefined();
      expect(scan(db, false, deleted)).toEqual([]);
    }
    deleted.release();
    await db.close();
    const again = await DB.open("/db", { fs, ...SMALL });
    expectKeys(again, 100, rewritten);
    expect(str(again.get(key(42)))).toBe("new42");
    await again.close();
  });
});
