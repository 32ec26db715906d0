/**
 * Worker readers (reader.ts): a database written here and read from worker threads (the
 * BUILT @shale/db in test-fixtures/reader-worker.mjs) and from this thread (`openReader`
 * of src): gets, getMany, iterators both ways with bounds, snapshots, acknowledged writes
 * seen at once, iterators that outlive the files a compaction deletes, Closed after the
 * writer closes, and the checks of bad handles.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, MemoryFileSystem, ShaleError } from "@shale/base";
import { SharedBlockCache } from "@shale/block-cache";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { openReader } from "./open-reader.js";
import { ReaderWorker, type WorkerError } from "./reader-worker.test-support.js";

const dirs: string[] = [];
const workers: ReaderWorker[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-reader-"));
  dirs.push(d);
  return d;
}
function worker(db: DB, options?: Record<string, unknown>): ReaderWorker {
  const w = new ReaderWorker(db.readerHandle(), options);
  workers.push(w);
  return w;
}
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const key = (i: number) => `key${String(i).padStart(5, "0")}`;
const tables = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith(".sst"))
    .sort();

async function rejection(p: Promise<unknown>): Promise<WorkerError> {
  try {
    await p;
  } catch (e) {
    return e as WorkerError;
  }
  throw new Error("expected a rejection");
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

describe("openReader in a worker thread", () => {
  it("reads what the writer acknowledged: gets, getMany, scans both ways with bounds", async () => {
    const db = await DB.open(tempDir(), { writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 2000; i++) db.put(key(i), `v${i}`);
    await db.flush();
    for (let i = 2000; i < 2500; i++) db.put(key(i), `v${i}`); // in the memtable only
    db.delete(key(7));
    db.deleteRange(key(100), key(200));
    const w = worker(db);
    await w.ready;
    expect(await w.call("get", { keys: [key(1), key(7), key(150), key(2400), "nope"] })).toEqual([
      "v1",
      null,
      null,
      "v2400",
      null,
    ]);
    expect(await w.call("getMany", { keys: [key(2499), key(99)] })).toEqual(["v2499", "v99"]);
    const all = await w.call<[string, string][]>("scan");
    expect(all.length).toBe(2500 - 1 - 100);
    const back = await w.call<[string, string][]>("scan", { options: { reverse: true } });
    expect(back).toEqual([...all].reverse());
    const bounded = await w.call<[string, string][]>("scan", {
      options: { gte: key(95), lt: key(205) },
    });
    expect(bounded.map(([k]) => k)).toEqual([
      ...[95, 96, 97, 98, 99].map(key),
      ...[200, 201, 202, 203, 204].map(key),
    ]);
    // Written after the reader opened: seen by the next read, without any wait.
    db.put(key(1), "changed");
    db.put("zzz", "new");
    expect(await w.call("get", { keys: [key(1), "zzz"] })).toEqual(["changed", "new"]);
    await db.flush();
    db.put("zzz", "newer");
    expect(await w.call("get", { keys: [key(1), "zzz"] })).toEqual(["changed", "newer"]);
    expect(await w.call<number>("sequence")).toBe(db.latestSequence);
    await w.call("close");
    await db.close();
  });

  it("an iterator reads on while a compaction deletes the files it reads", async () => {
    const dir = tempDir();
    const db = await DB.open(dir, { writeBufferSize: 64 * 1024, disableAutoCompactions: true });
    for (let i = 0; i < 3000; i++) db.put(key(i), `old${i}`);
    await db.flush();
    const before = tables(dir);
    const w = worker(db);
    await w.ready;
    const it = await w.call<number>("iterOpen");
    const first = await w.call<[string, string][]>("iterTake", { iterator: it, count: 1000 });
    const back = await w.call<number>("iterOpen", { options: { reverse: true } });
    const last = await w.call<[string, string][]>("iterTake", {
      iterator: back,
      count: 10,
      reverse: true,
    });
    for (let i = 0; i < 3000; i += 2) db.put(key(i), `new${i}`);
    for (let i = 1; i < 3000; i += 2) db.delete(key(i));
    await db.flush();
    await db.compactRange();
    // The tables the worker's iterators read are obsolete now, but kept for the reader.
    for (const name of before) expect(existsSync(join(dir, name)), name).toBe(true);
    const rest = await w.call<[string, string][]>("iterTake", { iterator: it, count: 5000 });
    const seen = [...first, ...rest];
    expect(seen.length).toBe(3000);
    seen.forEach(([k, v], i) => {
      expect(k).toBe(key(i));
      expect(v).toBe(`old${i}`);
    });
    const more = await w.call<[string, string][]>("iterTake", {
      iterator: back,
      count: 5,
      reverse: true,
    });
    expect([...last, ...more].map(([, v]) => v)).toEqual(
      Array.from({ length: 15 }, (_, j) => `old${2999 - j}`),
    );
    // A new read sees the compacted state.
    expect(await w.call("get", { keys: [key(2), key(3)] })).toEqual(["new2", null]);
    await w.call("iterClose", { iterator: it });
    await w.call("iterClose", { iterator: back });
    await w.call("close");
    // Released: the writer deletes the old tables (its pins look again every second).
    await db.put("poke", "x");
    await db.flush();
    const deadline = Date.now() + 10_000;
    while (before.some((n) => existsSync(join(dir, n))) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    for (const name of before) expect(existsSync(join(dir, name)), name).toBe(false);
    await db.close();
  });

  it("a snapshot in a worker keeps its state across writes, flushes and compactions", async () => {
    const db = await DB.open(tempDir(), {
      writeBufferSize: 64 * 1024,
      disableAutoCompactions: true,
    });
    for (let i = 0; i < 500; i++) db.put(key(i), `a${i}`);
    const w = worker(db);
    await w.ready;
    const snap = await w.call<{ id: number; seq: number }>("snapshot");
    expect(snap.seq).toBe(db.latestSequence);
    for (let i = 0; i < 500; i++) db.put(key(i), `b${i}`);
    db.deleteRange(key(0), key(250));
    await db.flush();
    await db.compactRange();
    expect(await w.call("get", { keys: [key(1), key(300)] })).toEqual([null, "b300"]);
    expect(await w.call("getAt", { snapshot: snap.id, keys: [key(1), key(300)] })).toEqual([
      "a1",
      "a300",
    ]);
    const at = await w.call<[string, string][]>("scanAt", {
      snapshot: snap.id,
      options: { gte: key(248), lt: key(252), reverse: true },
    });
    expect(at).toEqual([251, 250, 249, 248].map((i) => [key(i), `a${i}`]));
    await w.call("release", { snapshot: snap.id });
    expect((await rejection(w.call("getAt", { snapshot: snap.id, keys: [key(1)] }))).code).toBe(
      ErrorCode.InvalidArgument,
    );
    await w.call("close");
    await db.close();
  });

  it("after the writer closes: reads and new opens reject with Closed", async () => {
    const db = await DB.open(tempDir());
    db.put("a", "1");
    const handle = db.readerHandle();
    const w = worker(db);
    await w.ready;
    const it = await w.call<number>("iterOpen");
    expect(await w.call("get", { keys: ["a"] })).toEqual(["1"]);
    await db.close();
    for (const op of ["get", "getMany", "scan", "snapshot", "sequence"]) {
      const e = await rejection(w.call(op, { keys: ["a"] }));
      expect(e.code, op).toBe(ErrorCode.Closed);
    }
    expect(await w.call("openAgain")).toEqual({ code: ErrorCode.Closed, type: "ShaleError" });
    await w.call("iterClose", { iterator: it });
    await w.call("close");
    await expect(openReader(handle)).rejects.toMatchObject({ code: ErrorCode.Closed });
    const e = thrown(() => db.readerHandle());
    expect(ShaleError.isInstance(e) && e.code === ErrorCode.Closed).toBe(true);
  });
});

describe("a shared block cache (sharedBlockCache)", () => {
  it("one copy of each block: the worker fills it, the writer and a reader hit it", async () => {
    const db = await DB.open(tempDir(), { sharedBlockCache: true, blockCacheSize: 4 << 20 });
    const keys = Array.from({ length: 3000 }, (_, i) => key(i));
    for (const k of keys) db.put(k, `value-${k}-${"v".repeat(40)}`);
    await db.flush();
    const handle = db.readerHandle();
    expect(handle.sharedBlockCache).not.toBeNull();
    const cache = SharedBlockCache.attach(handle.sharedBlockCache!);
    const w = worker(db);
    await w.ready;
    const values = await w.call<(string | null)[]>("get", { keys });
    expect(values).toEqual(keys.map((k) => `value-${k}-${"v".repeat(40)}`));
    const inserted = cache.stats().inserts;
    expect(inserted).toBeGreaterThan(10); // the table's data blocks, read by the worker
    // The writer and a reader in this thread find them: nothing more is inserted.
    for (const k of keys)
      expect(new TextDecoder().decode(db.get(k)!)).toBe(`value-${k}-${"v".repeat(40)}`);
    const reader = await openReader(handle);
    expect(reader.getMany(keys.slice(0, 500)).every((v) => v !== undefined)).toBe(true);
    expect(cache.stats().inserts).toBe(inserted);
    expect(cache.stats().usage).toBeLessThanOrEqual(cache.stats().capacity);
    // A reader may decline the shared cache; a bad value is a TypeError.
    const own = await openReader(handle, { sharedBlockCache: false });
    expect(own.get(keys[7]!)).toBeDefined();
    await expect(openReader(handle, { sharedBlockCache: 1 } as never)).rejects.toBeInstanceOf(
      TypeError,
    );
    await own.close();
    await reader.close();
    await w.call("close");
    await db.close();
    expect(thrown(() => reader.get(keys[0]!))).toMatchObject({ code: ErrorCode.Closed });
    await expect(openReader(handle)).rejects.toMatchObject({ code: ErrorCode.Closed });
  });

  it("is checked at open: a boolean or a SharedBlockCache", async () => {
    await expect(DB.open(tempDir(), { sharedBlockCache: "yes" } as never)).rejects.toBeInstanceOf(
      TypeError,
    );
    const mine = SharedBlockCache.create(1 << 20);
    const db = await DB.open(tempDir(), { sharedBlockCache: mine });
    db.put("k", "v");
    await db.flush();
    expect(new TextDecoder().decode(db.get("k")!)).toBe("v");
    expect(mine.stats().inserts).toBe(1);
    await db.close();
  });
});

describe("openReader in the writer's thread and its checks", () => {
  it("reads, snapshots and closes like a worker's", async () => {
    const db = await DB.open(tempDir(), { mergeOperator: "uint64add" });
    const reader = await openReader(db.readerHandle());
    const one = new Uint8Array(8);
    one[0] = 1;
    db.merge("n", one);
    db.merge("n", one);
    expect(reader.get("n")?.[0]).toBe(2);
    expect(reader.getView("n")?.[0]).toBe(2);
    const s = reader.snapshot();
    db.merge("n", one);
    expect(reader.get("n")?.[0]).toBe(3);
    expect(reader.get("n", { snapshot: s })?.[0]).toBe(2);
    expect(reader.getMany(["n", "m"], { snapshot: s }).map((v) => v?.[0])).toEqual([2, undefined]);
    expect(thrown(() => reader.get("n", { snapshot: db.snapshot() as never }))).toBeInstanceOf(
      TypeError,
    );
    await reader.close();
    await reader.close(); // idempotent
    expect(thrown(() => reader.get("n"))).toMatchObject({ code: ErrorCode.Closed });
    await db.close();
  });

  it("refuses bad handles, unknown options and databases it cannot follow", async () => {
    const db = await DB.open(tempDir());
    const handle = db.readerHandle();
    await expect(openReader(null as never)).rejects.toBeInstanceOf(TypeError);
    await expect(openReader({} as never)).rejects.toBeInstanceOf(TypeError);
    await expect(openReader({ ...handle, dir: 3 } as never)).rejects.toBeInstanceOf(TypeError);
    await expect(
      openReader({ ...handle, control: new ArrayBuffer(32) } as never),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      openReader({ ...handle, control: new SharedArrayBuffer(32) }),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    await expect(openReader(handle, { cacheSize: 1 } as never)).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
    });
    await expect(openReader({ ...handle, comparatorName: "my.order" })).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
    });
    await expect(openReader({ ...handle, mergeOperatorName: "mine" })).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
    });
    expect(structuredClone(handle)).toEqual(handle);
    await db.close();
    const mem = await DB.open("/db", { fs: new MemoryFileSystem() });
    expect(thrown(() => mem.readerHandle())).toMatchObject({ code: ErrorCode.NotSupported });
    await mem.close();
  });
});
