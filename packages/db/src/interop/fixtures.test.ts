/**
 * shale reads the databases RocksDB 7.8.3 wrote (testdata/rocksdb/, see its README), on every
 * machine: every key, scans both ways equal to `ldb scan`'s dump, then shale keeps writing
 * (puts, deletes, a range deletion, merges, a flush and a compaction), closes, and reopens
 * what it wrote. Where RocksDB's tools are on the PATH, `ldb scan` also reopens the result
 * and must see exactly shale's view (tools.test.ts has the rest of the interop matrix).
 */
import { toHex } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import {
  copyFixture,
  expectedEntries,
  fromHex,
  ldbScan,
  missingToolsReason,
  shaleReverseScan,
  shaleScan,
  sortedEntries,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) {
  console.log(`interop fixtures: RocksDB's reopen checks skipped — ${toolsMissing}`);
}

const tmp = tempDir("fixtures");
afterAll(() => tmp.remove());

const utf8 = (s: string) => toHex(new TextEncoder().encode(s));

/** Every check of one opened database against the model. */
function expectMatches(
  db: Pick<DB, "iterator" | "get">,
  model: Map<string, string>,
  absent: string[] = [],
): void {
  const want = sortedEntries(model);
  expect(shaleScan(db)).toEqual(want);
  expect(shaleReverseScan(db)).toEqual([...want].reverse());
  for (const { key, value } of want) {
    const got = db.get(fromHex(key));
    expect(got === undefined ? undefined : toHex(got)).toBe(value);
  }
  for (const key of absent) expect(db.get(fromHex(key))).toBeUndefined();
}

interface FixtureCase {
  name: string;
  options?: DbOptions;
  /** Keys the fixture's history deleted (hex): get must miss them. */
  absent: string[];
  /** More writes after open, applied to the db and the model. */
  write(db: DB, model: Map<string, string>): void;
}

function putBoth(
  db: Pick<DB, "put">,
  model: Map<string, string>,
  key: string,
  value: string,
): void {
  db.put(key, value);
  model.set(utf8(key), utf8(value));
}

/** 8 little-endian bytes of n modulo 2^64 (RocksDB's uint64add encoding). */
function uint64Bytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}

/** The counter in a hex uint64add value. */
function uint64Of(hex: string): bigint {
  return BigInt(`0x${Buffer.from(hex, "hex").reverse().toString("hex")}`);
}

/** db_bench's key n as hex. */
function benchKeyHex(n: number): string {
  return n.toString(16).padStart(16, "0") + "30".repeat(8);
}

const cases: FixtureCase[] = [
  {
    name: "fillrandom",
    absent: [benchKeyHex(300), benchKeyHex(1_000_000)],
    write(db, model) {
      const first = sortedEntries(model)[0]!.key;
      db.delete(fromHex(first));
      model.delete(first);
      for (let i = 0; i < 50; i++) putBoth(db, model, `shale-${i}`, `value-${i}`);
    },
  },
  {
    name: "put-delete",
    absent: [utf8("cherry"), utf8("zzz-never-written")],
    write(db, model) {
      putBoth(db, model, "cherry", "back again");
      db.delete("fig");
      model.delete(utf8("fig"));
      db.deleteRange("b", "e");
      for (const k of [...model.keys()]) if (k >= utf8("b") && k < utf8("e")) model.delete(k);
    },
  },
  {
    name: "delete-range",
    absent: Array.from({ length: 20 }, (_, i) => benchKeyHex(100 + i)),
    write(db, model) {
      // A range over keys of both tables and the WAL, and a put back into the hidden range.
      db.deleteRange(fromHex(benchKeyHex(10)), fromHex(benchKeyHex(20)));
      for (const k of [...model.keys()])
        if (k >= benchKeyHex(10) && k < benchKeyHex(20)) model.delete(k);
      db.put(fromHex(benchKeyHex(105)), "revived");
      model.set(benchKeyHex(105), utf8("revived"));
    },
  },
  {
    name: "merge-uint64add",
    options: { mergeOperator: "uint64add" },
    absent: [benchKeyHex(2), benchKeyHex(50)],
    write(db, model) {
      for (const { key, value } of sortedEntries(model).slice(0, 10)) {
        db.merge(fromHex(key), uint64Bytes(5n));
        model.set(key, toHex(uint64Bytes(uint64Of(value) + 5n)));
      }
      db.merge("fresh-counter", uint64Bytes(7n));
      model.set(utf8("fresh-counter"), toHex(uint64Bytes(7n)));
    },
  },
];

describe("shale opens RocksDB-written databases (fixtures)", () => {
  for (const c of cases) {
    it(`${c.name}: every key, both scans, more writes, flush, compaction, reopen`, async () => {
      const dir = copyFixture(c.name, tmp.path);
      const model = new Map(expectedEntries(c.name).map((e) => [e.key, e.value]));
      const options: DbOptions = { createIfMissing: false, ...c.options };
      let db = await DB.open(dir, options);
      try {
        expectMatches(db, model, c.absent);
        c.write(db, model);
        expectMatches(db, model);
        await db.flush();
        expectMatches(db, model);
        await db.compactRange();
        expectMatches(db, model);
        putBoth(db, model, "zz-after-compaction", "in the WAL only");
      } finally {
        await db.close();
      }
      db = await DB.open(dir, options);
      try {
        expectMatches(db, model);
      } finally {
        await db.close();
      }
      if (toolsMissing === undefined) {
        // RocksDB reopens what shale wrote and sees the same.
        expect(ldbScan(dir)).toEqual(sortedEntries(model));
      }
    });
  }

  it("column-families: every family is read (cf2's WAL batch replayed), written, reopened, and read by ldb", async () => {
    const dir = copyFixture("column-families", tmp.path);
    const families = ["default", "cf1", "cf2"];
    const models = new Map(
      families.map((cf) => [
        cf,
        new Map(
          expectedEntries(
            "column-families",
            cf === "default" ? "expected.jsonl" : `expected-${cf}.jsonl`,
          ).map((e) => [e.key, e.value]),
        ),
      ]),
    );
    const handle = (db: DB, cf: string) => db.columnFamily(cf);
    const expectAll = (db: DB) => {
      expect(db.listColumnFamilies()).toEqual(families);
      for (const cf of families) expectMatches(handle(db, cf), models.get(cf)!);
      // Each family's keys stay in it.
      expect(db.get("cf1-key")).toBeUndefined();
      expect(handle(db, "cf1").get("cf2-key")).toBeUndefined();
    };
    expect(DB.listColumnFamilies(dir)).toEqual(families);
    let db = await DB.open(dir, { createIfMissing: false });
    try {
      expectAll(db);
      // The batch RocksDB left in the WAL (cf2's id on its records) went to cf2 alone.
      expect(toHex(handle(db, "cf2").get("cf2-wal1")!)).toBe(utf8("in-the-wal"));
      // Writes into every family: puts, a delete, a range deletion, one batch across all three.
      for (const cf of families) {
        const h = handle(db, cf);
        const model = models.get(cf)!;
        putBoth(h, model, `${cf}-shale`, `written by shale into ${cf}`);
        const first = sortedEntries(model)[0]!.key;
        h.delete(fromHex(first));
        model.delete(first);
      }
      handle(db, "cf1").deleteRange("cf1-key2", "cf1-z");
      for (const k of [...models.get("cf1")!.keys()])
        if (k >= utf8("cf1-key2") && k < utf8("cf1-z")) models.get("cf1")!.delete(k);
      const batch = new WriteBatch();
      for (const cf of families) {
        batch.put(`batch-${cf}`, `atomic ${cf}`, handle(db, cf));
        models.get(cf)!.set(utf8(`batch-${cf}`), utf8(`atomic ${cf}`));
      }
      db.write(batch);
      expectAll(db);
      await handle(db, "cf1").flush();
      expectAll(db);
      // cf2 and default keep theirs in the WAL only.
      putBoth(handle(db, "cf2"), models.get("cf2")!, "cf2-in-wal", "unflushed");
    } finally {
      await db.close();
    }
    db = await DB.open(dir, { createIfMissing: false });
    try {
      expectAll(db);
    } finally {
      await db.close();
    }
    if (toolsMissing === undefined) {
      // RocksDB reopens what shale wrote and sees the same in every family.
      expect(ldbScan(dir)).toEqual(sortedEntries(models.get("default")!));
      expect(ldbScan(dir, "cf1")).toEqual(sortedEntries(models.get("cf1")!));
      expect(ldbScan(dir, "cf2")).toEqual(sortedEntries(models.get("cf2")!));
    }
  });
});
