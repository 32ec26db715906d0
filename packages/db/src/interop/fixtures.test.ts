/**
 * shale reads the databases RocksDB wrote (testdata/rocksdb/, see its README): RocksDB
 * 7.8.3's tools, RocksDB 10.5.1 (rocksdb-native: table format_version 6 and 7) and RocksDB
 * 9.7 through @nxtedition/rocksdb (the zstd WAL and dictionary ones), on every machine: every
 * key, scans both ways equal to the writer's own scan, then shale keeps writing (puts,
 * deletes, a range deletion, merges, a flush and a compaction), closes, and reopens what it
 * wrote. Where RocksDB's tools are on the PATH, `ldb scan` (7.8.3) also reopens the result
 * and must see exactly shale's view — or, for tables shale wrote at format 6 or 7, refuse
 * them as 7.8.3 does (tools.test.ts has the rest of the interop matrix).
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
  runTool,
  shaleReverseScan,
  shaleScan,
  sortedEntries,
  tempDir,
} from "./interop.test-support.js";
import { fillEntry } from "./producers.test-support.js";

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
  /** The contents (hex) when the fixture has no expected.jsonl. */
  model?: () => Map<string, string>;
  /** Keys the fixture's history deleted (hex): get must miss them. */
  absent: string[];
  /** More writes after open, applied to the db and the model. */
  write(db: DB, model: Map<string, string>): void;
  /**
   * The format_version of the tables shale leaves (options.formatVersion): RocksDB 7.8.3's
   * ldb reads up to 5 and must refuse 6 and 7. Default: 5.
   */
  tableVersion?: number;
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

/** The nxtedition-zstd-dict fixture's history (see its README row), replayed as a model. */
function nxteditionDictModel(): Map<string, string> {
  const model = new Map<string, string>();
  for (let i = 0; i < 300; i++) {
    const [key, value] = fillEntry(utf8("k"), i, 100);
    model.set(key, value);
  }
  for (let i = 5; i < 300; i += 30) model.delete(fillEntry(utf8("k"), i, 100)[0]);
  for (let i = 0; i < 300; i += 25) model.set(fillEntry(utf8("k"), i, 100)[0], utf8(`wal-${i}`));
  model.delete(fillEntry(utf8("k"), 7, 100)[0]);
  model.set(utf8("zz-wal-only"), utf8("in the compressed WAL"));
  return model;
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
    name: "blob-files",
    absent: [utf8("cherry"), utf8("fig")],
    write(db, model) {
      // Overwrite a blob value, delete another, and put cherry back (inline, in the memtable).
      putBoth(db, model, "apple", "apple written by shale");
      db.delete("banana");
      model.delete(utf8("banana"));
      putBoth(db, model, "cherry", "back again");
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
  ...[6, 7].map(
    (version): FixtureCase => ({
      // Written by rocksdb-native (RocksDB 10.5.1): XXH3, context checksums, the index
      // handle in the metaindex; format 7's compression_name ";;". shale writes its own
      // tables at the same version; after the compaction none of RocksDB's is left.
      name: `format-${version}`,
      options: { formatVersion: version, checksum: "xxh3" },
      tableVersion: version,
      absent: [utf8("key-001"), utf8("key-010"), utf8("key-020"), utf8("key-024"), utf8("nope")],
      write(db, model) {
        putBoth(db, model, "key-001", "written by shale");
        db.delete("key-050");
        model.delete(utf8("key-050"));
        for (let i = 0; i < 30; i++) putBoth(db, model, `shale-${i}`, `value-${i}`);
      },
    }),
  ),
  {
    // A partitioned index and filters; shale writes its own tables the same way.
    name: "partitioned",
    options: { indexType: "twoLevelIndex", partitionFilters: true, metadataBlockSize: 128 },
    absent: [benchKeyHex(300), benchKeyHex(1_000_000)],
    write(db, model) {
      const keys = sortedEntries(model);
      for (const { key } of keys.filter((_, i) => i % 9 === 0)) {
        db.delete(fromHex(key));
        model.delete(key);
      }
      for (let i = 0; i < 80; i++) putBoth(db, model, `shale-${i}`, `value-${i}`);
    },
  },
  {
    // First keys in the index; shale goes on with first-key tables.
    name: "first-key-index",
    options: { indexType: "binarySearchWithFirstKey" },
    absent: [benchKeyHex(200), benchKeyHex(1_000_000)],
    write(db, model) {
      db.deleteRange(fromHex(benchKeyHex(50)), fromHex(benchKeyHex(70)));
      for (const k of [...model.keys()])
        if (k >= benchKeyHex(50) && k < benchKeyHex(70)) model.delete(k);
      for (let i = 0; i < 40; i++) putBoth(db, model, `shale-${i}`, `value-${i}`);
    },
  },
  // Tables of the codecs shale reads besides snappy; shale's own flush and compaction write
  // lz4 (compress-lz4) or the default snappy, and ldb reads the mix back.
  ...(["zlib", "lz4", "lz4hc"] as const).map(
    (codec): FixtureCase => ({
      name: `compress-${codec}`,
      ...(codec === "lz4" ? { options: { compression: "lz4" } } : {}),
      absent: [benchKeyHex(200), benchKeyHex(1_000_000)],
      write(db, model) {
        for (let i = 0; i < 30; i++)
          putBoth(db, model, `shale-${codec}-${i}`, `value-${i}`.repeat(8));
        const first = sortedEntries(model)[0]!.key;
        db.delete(fromHex(first));
        model.delete(first);
      },
    }),
  ),
  {
    // RocksDB 9.7's compressed WAL, read with shale's defaults (its own WAL uncompressed).
    name: "nxtedition-zstd-wal",
    absent: [utf8("wal-001"), utf8("wal-037"), utf8("wal-040")],
    write(db, model) {
      for (let i = 0; i < 40; i += 3)
        putBoth(db, model, `wal-${String(i).padStart(3, "0")}`, "shale");
      db.delete("wal-002");
      model.delete(utf8("wal-002"));
    },
  },
  {
    // A table with a trained zstd dictionary and a compressed WAL; shale's writes are zstd too.
    name: "nxtedition-zstd-dict",
    options: { compression: "zstd", walCompression: "zstd", zstdMaxDictBytes: 4096 },
    model: nxteditionDictModel,
    absent: [fillEntry(utf8("k"), 5, 100)[0], fillEntry(utf8("k"), 7, 100)[0], utf8("k00000300")],
    write(db, model) {
      for (let i = 1; i < 300; i += 11) putBoth(db, model, `k${String(i).padStart(8, "0")}`, "s");
      db.deleteRange("k00000100", "k00000120");
      for (const k of [...model.keys()])
        if (k >= utf8("k00000100") && k < utf8("k00000120")) model.delete(k);
    },
  },
];

describe("shale opens RocksDB-written databases (fixtures)", () => {
  for (const c of cases) {
    it(`${c.name}: every key, both scans, more writes, flush, compaction, reopen`, async () => {
      const dir = copyFixture(c.name, tmp.path);
      const model = c.model?.() ?? new Map(expectedEntries(c.name).map((e) => [e.key, e.value]));
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
      if (toolsMissing === undefined && (c.tableVersion ?? 5) <= 5) {
        // RocksDB reopens what shale wrote and sees the same.
        expect(ldbScan(dir)).toEqual(sortedEntries(model));
      } else if (toolsMissing === undefined) {
        // RocksDB 7.8.3 reads format_version 2-5 only (6 needs 8.6, 7 needs 10.4).
        const r = runTool("ldb", [`--db=${dir}`, "--hex", "scan"]);
        expect(r.status).not.toBe(0);
        expect(r.stdout + r.stderr).toMatch(`unsupported format_version: ${c.tableVersion}`);
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
