/**
 * Column families against RocksDB 7.8.3's `ldb`, both ways, where the tools are on the PATH
 * (elsewhere skipped with the reason printed; fixtures.test.ts reads the checked-in
 * column-families database on every machine):
 *
 * | direction                   | RocksDB's side                                     | shale's side |
 * |-----------------------------|----------------------------------------------------|--------------|
 * | RocksDB writes, shale reads | `ldb create_column_family`, `--column_family=X put/batchput/delete` (a batch left in the WAL) | every family: gets and scans both ways equal `ldb --column_family=X scan` |
 * | shale writes, RocksDB reads | `ldb list_column_families`, `--column_family=X scan/get` | puts, deletes, a range deletion and one batch across the families, a family created and one dropped |
 * | shale checkpoints, RocksDB reads | `ldb list_column_families`, `--column_family=X scan` of the checkpoint | a checkpoint of a database with families (tables and WAL) |
 * | RocksDB writes, shale follows | `ldb create_column_family`, `--column_family=X put`, a batch left in the WAL | read-only and secondary opens read every family as `ldb scan` |
 * | both                        | `ldb --column_family=X put` into shale's family     | reopens and reads it |
 * | shale writes, RocksDB repairs | `ldb manifest_dump`, `sst_dump --show_properties`, `ldb repair` | each table names its family; the repaired families read the same |
 */
import { join } from "node:path";
import { toHex } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import {
  copyDir,
  filesEnding,
  fromHex,
  ldbScan,
  missingToolsReason,
  mustRun,
  type Scannable,
  shaleReverseScan,
  shaleScan,
  sortedEntries,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`column families with ldb: skipped — ${toolsMissing}`);

const tmp = tempDir("cf-tools");
afterAll(() => tmp.remove());

const utf8 = (s: string) => toHex(new TextEncoder().encode(s));
type Model = Map<string, string>;

/** Gets of every key and both scans of one family equal the model. */
function expectFamily(h: Scannable & Pick<DB, "get">, model: Model, name: string): void {
  const want = sortedEntries(model);
  expect(shaleScan(h), `${name} forwards`).toEqual(want);
  expect(shaleReverseScan(h), `${name} backwards`).toEqual([...want].reverse());
  for (const { key, value } of want) {
    const got = h.get(fromHex(key));
    expect(got === undefined ? undefined : toHex(got), `${name} get`).toBe(value);
  }
}

/** `ldb list_column_families`: "Column families in DIR: \n{default, a, b}". */
function ldbFamilies(dir: string): string[] {
  const out = mustRun("ldb", [`--db=${dir}`, "list_column_families"]);
  const m = /\{([^}]*)\}/.exec(out);
  expect(m, out).not.toBeNull();
  return m![1]!.split(",").map((s) => s.trim());
}

function ldb(dir: string, cf: string | undefined, ...args: string[]): string {
  const all = [`--db=${dir}`];
  if (cf !== undefined) all.push(`--column_family=${cf}`);
  return mustRun("ldb", [...all, ...args]);
}

function put(h: Pick<DB, "put">, model: Model, key: string, value: string): void {
  h.put(key, value);
  model.set(utf8(key), utf8(value));
}

describe.skipIf(toolsMissing !== undefined)("column families with RocksDB's ldb", () => {
  it("ldb's families open in shale; shale's writes, created and dropped families read back in ldb", async () => {
    const dir = join(tmp.path, "from-ldb");
    ldb(dir, undefined, "--create_if_missing", "put", "d1", "default-1");
    ldb(dir, undefined, "create_column_family", "users");
    ldb(dir, undefined, "create_column_family", "logs");
    ldb(dir, "users", "put", "alice", "a@x");
    ldb(dir, "users", "put", "bob", "b@x");
    ldb(dir, "users", "put", "carol", "c@x");
    ldb(dir, "users", "delete", "bob");
    ldb(dir, "logs", "put", "0001", "started");
    ldb(dir, undefined, "put", "d2", "default-2");
    // The last run's batch stays in the WAL (every ldb run flushes what it recovered).
    // A family RocksDB made, wrote and dropped: gone for shale too.
    ldb(dir, undefined, "create_column_family", "scratch");
    ldb(dir, "scratch", "put", "s", "dropped with its family");
    ldb(dir, undefined, "drop_column_family", "scratch");
    ldb(dir, "logs", "batchput", "0002", "running", "0003", "stopped");
    const families = ["default", "users", "logs"];
    expect(ldbFamilies(dir)).toEqual(families);
    const models = new Map<string, Model>(
      families.map((cf) => [cf, new Map(ldbScan(dir, cf).map((e) => [e.key, e.value]))]),
    );
    expect(models.get("users")!.size).toBe(2);
    expect(models.get("logs")!.size).toBe(3);

    expect(DB.listColumnFamilies(dir)).toEqual(families);
    let db = await DB.open(dir, { createIfMissing: false });
    try {
      expect(db.listColumnFamilies()).toEqual(families);
      for (const cf of families) expectFamily(db.columnFamily(cf), models.get(cf)!, cf);
      expect(db.columnFamily("users").get("bob")).toBeUndefined();
      // Writes into every family, one batch across three, a family made and one dropped.
      const users = db.columnFamily("users");
      const logs = db.columnFamily("logs");
      put(db, models.get("default")!, "d3", "from shale");
      put(users, models.get("users")!, "dave", "d@x");
      users.delete("alice");
      models.get("users")!.delete(utf8("alice"));
      logs.deleteRange("0002", "0003");
      models.get("logs")!.delete(utf8("0002"));
      const made = await db.createColumnFamily("made-by-shale");
      const madeModel: Model = new Map();
      models.set("made-by-shale", madeModel);
      const batch = new WriteBatch()
        .put("batched", "default", db.columnFamily("default"))
        .put("batched", "users", users)
        .put("batched", "made", made);
      db.write(batch);
      models.get("default")!.set(utf8("batched"), utf8("default"));
      models.get("users")!.set(utf8("batched"), utf8("users"));
      madeModel.set(utf8("batched"), utf8("made"));
      for (let i = 0; i < 20; i++) put(made, madeModel, `m${String(i).padStart(3, "0")}`, `v${i}`);
      await users.flush();
      put(users, models.get("users")!, "erin", "in the WAL only");
      await db.dropColumnFamily("logs");
      models.delete("logs");
      for (const [cf, model] of models) expectFamily(db.columnFamily(cf), model, cf);
    } finally {
      await db.close();
    }
    const now = ["default", "users", "made-by-shale"];
    expect(ldbFamilies(dir)).toEqual(now);
    for (const cf of now)
      expect(ldbScan(dir, cf), `ldb scan ${cf}`).toEqual(sortedEntries(models.get(cf)!));
    expect(ldb(dir, "made-by-shale", "get", "m007").trim()).toBe("v7");
    expect(ldb(dir, "users", "get", "erin").trim()).toBe("in the WAL only");

    // RocksDB writes into shale's family; shale reads it.
    ldb(dir, "made-by-shale", "put", "from-rocksdb", "hello");
    models.get("made-by-shale")!.set(utf8("from-rocksdb"), utf8("hello"));
    db = await DB.open(dir, { createIfMissing: false });
    try {
      expect(db.listColumnFamilies()).toEqual(now);
      for (const cf of now) expectFamily(db.columnFamily(cf), models.get(cf)!, cf);
    } finally {
      await db.close();
    }
  });

  it("a database shale made with families opens in ldb (WAL and tables), its tables name their family, and ldb repair keeps every family", async () => {
    const dir = join(tmp.path, "from-shale");
    const db = await DB.open(dir, {
      createMissingColumnFamilies: true,
      columnFamilies: { a: {}, b: { writeBufferSize: 64 * 1024 } },
    });
    const models = new Map<string, Model>([
      ["default", new Map()],
      ["a", new Map()],
      ["b", new Map()],
    ]);
    try {
      for (let i = 0; i < 300; i++) {
        const batch = new WriteBatch();
        for (const cf of ["default", "a", "b"]) {
          const key = `${cf}-${String(i).padStart(4, "0")}`;
          const value = `${cf}:${i}:${"x".repeat(i % 50)}`;
          batch.put(key, value, db.columnFamily(cf));
          models.get(cf)!.set(utf8(key), utf8(value));
        }
        db.write(batch);
        if (i === 150) await db.columnFamily("a").flush();
      }
      await db.columnFamily("b").flush();
      db.columnFamily("b").delete("b-0007");
      models.get("b")!.delete(utf8("b-0007"));
    } finally {
      await db.close();
    }
    expect(ldbFamilies(dir)).toEqual(["default", "a", "b"]);
    for (const [cf, model] of models)
      expect(ldbScan(dir, cf), `ldb scan ${cf}`).toEqual(sortedEntries(model));
    expect(ldb(dir, "a", "get", "a-0299").trim()).toBe(`a:299:${"x".repeat(299 % 50)}`);

    // Every family flushed (RocksDB's repair turns every WAL into tables whatever the
    // families' log numbers, so a WAL kept for one family would overlap another's tables).
    const flushed = await DB.open(dir, { createIfMissing: false });
    try {
      for (const cf of models.keys()) await flushed.columnFamily(cf).flush();
    } finally {
      await flushed.close();
    }
    // Each table names its family (rocksdb.column.family.id/name) as the MANIFEST lists it.
    const manifest = mustRun("ldb", [
      "manifest_dump",
      `--path=${join(dir, filesEnding(dir, "").find((f) => f.startsWith("MANIFEST-"))!)}`,
    ]);
    const placed = new Map<number, string>(); // table number -> family in the MANIFEST
    let family = "";
    for (const line of manifest.split("\n")) {
      const header = /^-+ Column family "([^"]+)"/.exec(line);
      if (header !== null) family = header[1]!;
      const file = /^ (\d+):\d+\[/.exec(line);
      if (file !== null) placed.set(Number(file[1]), family);
    }
    expect(new Set(placed.values())).toEqual(new Set(["default", "a", "b"]));
    for (const [number, cf] of placed) {
      const props = mustRun("sst_dump", [
        `--file=${join(dir, `${String(number).padStart(6, "0")}.sst`)}`,
        "--show_properties",
      ]);
      expect(props, `table ${number}`).toMatch(new RegExp(`column family name: ${cf}\n`));
    }
    // RocksDB's repair places every table by those properties (and the WAL's records by
    // their family ids): every family reads the same afterwards.
    const repaired = copyDir(dir, `${dir}-repaired`);
    mustRun("ldb", [`--db=${repaired}`, "repair"]);
    expect(ldbFamilies(repaired).sort()).toEqual(["a", "b", "default"]);
    for (const [cf, model] of models)
      expect(ldbScan(repaired, cf), `ldb scan ${cf} after repair`).toEqual(sortedEntries(model));
  });

  it("ldb's families open read-only and as a secondary, each reading as ldb scans it", async () => {
    const dir = join(tmp.path, "follow-ldb");
    ldb(dir, undefined, "--create_if_missing", "put", "d1", "default-1");
    ldb(dir, undefined, "create_column_family", "users");
    ldb(dir, undefined, "create_column_family", "logs");
    ldb(dir, "users", "put", "alice", "a@x");
    ldb(dir, "users", "put", "bob", "b@x");
    ldb(dir, "logs", "put", "0001", "started");
    ldb(dir, "users", "delete", "bob");
    ldb(dir, "logs", "batchput", "0002", "running", "0003", "stopped"); // left in the WAL
    const families = ["default", "users", "logs"];
    const models = new Map<string, Model>(
      families.map((cf) => [cf, new Map(ldbScan(dir, cf).map((e) => [e.key, e.value]))]),
    );
    expect(models.get("logs")!.size).toBe(3);
    const ro = await DB.open(dir, { readOnly: true });
    const secondary = await DB.openAsSecondary(dir);
    try {
      for (const db of [ro, secondary]) {
        expect(db.listColumnFamilies()).toEqual(families);
        for (const cf of families) expectFamily(db.columnFamily(cf), models.get(cf)!, cf);
        expect(() => db.columnFamily("logs").put("x", "y")).toThrow(/not supported/);
      }
    } finally {
      await ro.close();
      await secondary.close();
    }
  });

  it("a shale checkpoint of a database with families reads in ldb, every family", async () => {
    const dir = join(tmp.path, "cp-source");
    const db = await DB.open(dir, {
      createMissingColumnFamilies: true,
      columnFamilies: { users: {}, logs: {} },
    });
    const families = ["default", "users", "logs"];
    const models = new Map<string, Model>(families.map((cf) => [cf, new Map()]));
    try {
      for (const cf of families) {
        const h = db.columnFamily(cf);
        for (let i = 0; i < 50; i++) put(h, models.get(cf)!, `${cf}-${i}`, `v${i}`);
        if (cf !== "logs") await h.flush(); // logs: in the WAL only
        put(h, models.get(cf)!, `${cf}-wal`, "in the WAL");
      }
      await db.checkpoint(join(tmp.path, "cp"));
    } finally {
      await db.close();
    }
    const cp = join(tmp.path, "cp");
    expect(ldbFamilies(cp)).toEqual(families);
    for (const cf of families)
      expect(ldbScan(cp, cf), `ldb scan ${cf}`).toEqual(sortedEntries(models.get(cf)!));
  });
});
