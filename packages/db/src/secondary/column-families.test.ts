/**
 * Read-only and secondary opens of databases with several column families: every family
 * the directory has is opened and read (gets, views, getMany, has, iterators, properties,
 * sizes, `db.iterators` and snapshots across families), writes through any handle are
 * refused, and a secondary follows each family's writes, flushes and compactions, and the
 * families the primary creates and drops after it opened.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, MemoryFileSystem, ShaleError } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import type { ColumnFamilyHandle } from "../column-family/handle.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-follow-cf-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : Buffer.from(v).toString();
const key = (i: number) => `key${String(i).padStart(6, "0")}`;
type Model = Map<string, string>;
type Reader = Pick<DB, "get" | "getView" | "getMany" | "has" | "iterator">;

/** Every read of `h` equals `model` (scans both ways, gets, views, getMany, has). */
function expectModel(h: Reader, model: Model, what: string): void {
  const want = [...model].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const seen: [string, string][] = [];
  for (const [k, v] of h.iterator()) seen.push([text(k)!, text(v)!]);
  expect(seen, `${what} scan`).toEqual(want);
  const back: [string, string][] = [];
  for (const [k, v] of h.iterator({ reverse: true })) back.push([text(k)!, text(v)!]);
  expect(back, `${what} reverse scan`).toEqual([...want].reverse());
  const keys = want.slice(0, 50).map(([k]) => k);
  keys.push("absent-key");
  expect(h.getMany(keys).map(text), `${what} getMany`).toEqual(keys.map((k) => model.get(k)));
  for (const k of keys) {
    expect(text(h.get(k)), `${what} get ${k}`).toBe(model.get(k));
    expect(text(h.getView(k)), `${what} getView ${k}`).toBe(model.get(k));
    expect(h.has(k), `${what} has ${k}`).toBe(model.has(k));
  }
}

function expectCode(f: () => unknown, code: string, what: RegExp): void {
  try {
    f();
  } catch (e) {
    expect(ShaleError.isInstance(e) && e.code === code, String(e)).toBe(true);
    expect((e as Error).message).toMatch(what);
    return;
  }
  throw new Error(`expected ${code}`);
}

const FAMILIES = ["default", "users", "logs"];

async function openPrimary(dir: string, extra: object = {}): Promise<DB> {
  return DB.open(dir, {
    createMissingColumnFamilies: true,
    columnFamilies: { users: {}, logs: {} },
    writeBufferSize: 64 * 1024,
    level0FileNumCompactionTrigger: 2,
    ...extra,
  });
}

describe("a read-only open of a database with column families", () => {
  it("opens every family; reads, properties, sizes, iterators and snapshots work; writes are refused", async () => {
    const dir = tempDir();
    const primary = await openPrimary(dir);
    const models = new Map<string, Model>(FAMILIES.map((f) => [f, new Map()]));
    const handles = new Map(FAMILIES.map((f) => [f, primary.columnFamily(f)]));
    for (let i = 0; i < 1500; i++) {
      const f = FAMILIES[i % 3]!;
      handles.get(f)!.put(key(i), `${f}-${i}`);
      models.get(f)!.set(key(i), `${f}-${i}`);
    }
    await handles.get("users")!.flush(); // users: in a table; the others: in the WAL
    handles.get("users")!.delete(key(1));
    models.get("users")!.delete(key(1));
    primary.write(
      new WriteBatch()
        .put("batched", "d", handles.get("default"))
        .put("batched", "u", handles.get("users"))
        .put("batched", "l", handles.get("logs")),
    );
    models.get("default")!.set("batched", "d");
    models.get("users")!.set("batched", "u");
    models.get("logs")!.set("batched", "l");

    const ro = await DB.open(dir, { readOnly: true });
    expect(ro.listColumnFamilies()).toEqual(FAMILIES);
    for (const f of FAMILIES) expectModel(ro.columnFamily(f), models.get(f)!, f);
    expectModel(ro, models.get("default")!, "db");
    expectCode(() => ro.columnFamily("nope"), ErrorCode.InvalidArgument, /nope/);
    const users = ro.columnFamily("users");
    const logs = ro.columnFamily("logs");
    expect(users.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(logs.getProperty("shale.num-files-at-level0")).toBe("0");
    expect(Number(logs.getProperty("shale.size-all-mem-tables"))).toBeGreaterThan(0);
    // Sizes per family: users' keys are in a table, logs' in memtables only.
    const all = [{ start: key(0), end: key(999_999) }];
    expect(users.getApproximateSizes(all)[0]).toBeGreaterThan(0);
    expect(logs.getApproximateSizes(all)).toEqual([0]);
    expect(logs.getApproximateSizes(all, { includeMemtables: true })[0]).toBeGreaterThan(0);
    // One sequence for every family.
    const [u, l] = ro.iterators([users, logs]);
    let n = 0;
    for (const it of [u!, l!]) {
      for (it.seekToFirst(); it.valid(); it.next()) n++;
      it.close();
    }
    expect(n).toBe(models.get("users")!.size + models.get("logs")!.size);
    const snapshot = ro.snapshot();
    expect(text(logs.get("batched", { snapshot }))).toBe("l");
    snapshot.release();

    // Writes through any family are refused, as the default family's.
    expectCode(() => users.put("a", "b"), ErrorCode.NotSupported, /read-only/);
    expectCode(() => logs.delete("a"), ErrorCode.NotSupported, /read-only/);
    expectCode(() => logs.deleteRange("a", "b"), ErrorCode.NotSupported, /read-only/);
    expectCode(
      () => ro.write(new WriteBatch().put("a", "b", users)),
      ErrorCode.NotSupported,
      /read-only/,
    );
    await expect(users.flush()).rejects.toMatchObject({ code: ErrorCode.NotSupported });
    await expect(logs.compactRange()).rejects.toMatchObject({ code: ErrorCode.NotSupported });
    await expect(ro.createColumnFamily("more")).rejects.toMatchObject({
      code: ErrorCode.NotSupported,
    });
    await expect(ro.dropColumnFamily("logs")).rejects.toMatchObject({
      code: ErrorCode.NotSupported,
    });
    await ro.close();
    await primary.close();
  });
});

describe("families named in the options of a read-only or secondary open", () => {
  it("must exist: InvalidArgument naming the missing ones; their options apply to those that do", async () => {
    const dir = tempDir();
    const primary = await openPrimary(dir);
    primary.columnFamily("users").put("k", "v");
    for (const open of [
      (o: object) => DB.open(dir, { readOnly: true, ...o }),
      (o: object) => DB.openAsSecondary(dir, undefined, o),
    ]) {
      await expect(open({ columnFamilies: { users: {}, typo: {} } })).rejects.toMatchObject({
        code: ErrorCode.InvalidArgument,
        message: expect.stringMatching(/"typo"/),
      });
      const ok = await open({ columnFamilies: { users: { blockSize: 8192 } } });
      expect(text(ok.columnFamily("users").get("k"))).toBe("v");
      await ok.close();
    }
    await primary.close();
  });
});

describe("a secondary of a database with column families", () => {
  it("follows every family's writes, flushes and compactions, and families created and dropped", async () => {
    const dir = tempDir();
    let primary = await openPrimary(dir);
    const models = new Map<string, Model>(FAMILIES.map((f) => [f, new Map()]));
    const secondary = await DB.openAsSecondary(dir, join(tempDir(), "s"));
    expect(secondary.listColumnFamilies()).toEqual(FAMILIES);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let dropped: ColumnFamilyHandle | undefined;
    for (let round = 0; round < 7; round++) {
      const live = primary.listColumnFamilies();
      for (let i = 0; i < 1200; i++) {
        const f = live[random(live.length)]!;
        const h = primary.columnFamily(f);
        const k = key(random(3000));
        if (random(9) === 0) {
          h.delete(k);
          models.get(f)!.delete(k);
        } else if (random(50) === 0) {
          // One batch across every family, one WAL record.
          const batch = new WriteBatch();
          for (const g of live) {
            batch.put(k, `batch-${round}-${i}`, primary.columnFamily(g));
            models.get(g)!.set(k, `batch-${round}-${i}`);
          }
          primary.write(batch);
        } else {
          h.put(k, `${f}-${round}-${i}`, { sync: i % 200 === 0 });
          models.get(f)!.set(k, `${f}-${round}-${i}`);
        }
      }
      if (round === 1) await primary.columnFamily("users").flush();
      if (round === 2) {
        const made = await primary.createColumnFamily("made");
        models.set("made", new Map([["first", "in made"]]));
        made.put("first", "in made");
      }
      if (round === 3) await primary.waitForCompactions();
      if (round === 4) {
        dropped = secondary.columnFamily("logs");
        await primary.dropColumnFamily("logs");
        models.delete("logs");
      }
      if (round === 5) {
        await primary.close(); // a new MANIFEST and WAL on reopen, every family kept
        primary = await openPrimary(dir, { columnFamilies: { users: {}, made: {} } });
      }
      secondary.tryCatchUpWithPrimary();
      expect(secondary.listColumnFamilies()).toEqual([...models.keys()]);
      for (const [f, model] of models)
        expectModel(secondary.columnFamily(f), model, `${f}@${round}`);
      if (dropped !== undefined)
        expectCode(() => dropped!.get("x"), ErrorCode.InvalidArgument, /column family dropped/);
    }
    expect(secondary.tryCatchUpWithPrimary()).toMatchObject({ manifestEdits: 0, walRecords: 0 });
    expectCode(
      () => secondary.columnFamily("users").put("x", "y"),
      ErrorCode.NotSupported,
      /secondary instance/,
    );
    await secondary.close();
    await primary.close();
  });

  it("snapshots and db.iterators span families across a catch-up", async () => {
    const dir = tempDir();
    const primary = await openPrimary(dir);
    const [users, logs] = [primary.columnFamily("users"), primary.columnFamily("logs")];
    users.put("k", "old-u");
    logs.put("k", "old-l");
    const secondary = await DB.openAsSecondary(dir);
    const [su, sl] = [secondary.columnFamily("users"), secondary.columnFamily("logs")];
    const snapshot = secondary.snapshot();
    primary.write(new WriteBatch().put("k", "new-u", users).put("k", "new-l", logs));
    secondary.tryCatchUpWithPrimary();
    expect([text(su.get("k")), text(sl.get("k"))]).toEqual(["new-u", "new-l"]);
    expect([text(su.get("k", { snapshot })), text(sl.get("k", { snapshot }))]).toEqual([
      "old-u",
      "old-l",
    ]);
    const values = (iterators: { seekToFirst(): void; value(): Uint8Array; close(): void }[]) =>
      iterators.map((it) => {
        it.seekToFirst();
        const v = text(it.value());
        it.close();
        return v;
      });
    expect(values(secondary.iterators([su, sl], { snapshot }))).toEqual(["old-u", "old-l"]);
    expect(values(secondary.iterators([su, sl]))).toEqual(["new-u", "new-l"]);
    snapshot.release();
    await secondary.close();
    await primary.close();
  });

  it("a family created (and written) while the catch-up lists the WALs is read, after the MANIFEST again", async () => {
    const fs = new MemoryFileSystem();
    const primary = await DB.open("/db", { fs });
    primary.put("a", "1");
    let arm = false;
    const racing = new Proxy(fs, {
      get(target, prop, receiver) {
        if (prop === "list")
          return (dir: string) => {
            if (arm && dir === "/db") {
              arm = false;
              // Between the MANIFEST read and the WAL read: a new family and a batch into it.
              void primary.createColumnFamily("late");
              const late = primary.columnFamily("late");
              primary.write(new WriteBatch().put("k", "in late", late).put("b", "2"));
            }
            return target.list(dir);
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    const secondary = await DB.openAsSecondary("/db", undefined, { fs: racing });
    arm = true;
    secondary.tryCatchUpWithPrimary();
    expect(arm).toBe(false);
    expect(secondary.listColumnFamilies()).toEqual(["default", "late"]);
    expect(text(secondary.columnFamily("late").get("k"))).toBe("in late");
    expect(text(secondary.get("b"))).toBe("2");
    await secondary.close();
    await primary.close();
  });

  it("keeps up while one family is idle and another flushes its WALs away", async () => {
    const dir = tempDir();
    const primary = await openPrimary(dir);
    const idle = primary.columnFamily("logs");
    idle.put("idle", "once");
    await idle.flush(); // its log number stays here from now on
    const secondary = await DB.openAsSecondary(dir);
    const busy = primary.columnFamily("users");
    const model: Model = new Map();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1500; i++) {
        busy.put(key(i), `r${round}`);
        model.set(key(i), `r${round}`);
      }
      await busy.flush();
      secondary.tryCatchUpWithPrimary();
      expectModel(secondary.columnFamily("users"), model, `users@${round}`);
      expect(text(secondary.columnFamily("logs").get("idle"))).toBe("once");
    }
    await secondary.close();
    await primary.close();
  });
});
