/**
 * The interop matrix against RocksDB 7.8.3's own tools, run where `db_bench`, `ldb` and
 * `sst_dump` are on the PATH (CI installs Debian's rocksdb-tools; elsewhere these are
 * skipped with the reason printed):
 *
 * | direction                  | tool                         | check                                  |
 * |----------------------------|------------------------------|----------------------------------------|
 * | RocksDB writes, shale reads | db_bench fillrandom+compact, ldb put/delete/deleterange, db_bench mergerandom uint64add | shale reads every key of `ldb scan`, scans both ways equal it, keeps writing; `ldb scan` then sees shale's writes |
 * | shale writes, RocksDB reads | ldb scan                     | equals shale's scan (merges, range deletions included) |
 * |                            | sst_dump --command=check     | passes for every table                 |
 * |                            | ldb manifest_dump            | decodes the MANIFEST                   |
 * |                            | ldb dump_wal                 | decodes every WAL                      |
 * |                            | db_bench readrandom          | finds N of N keys (filter hash)        |
 * |                            | the same, for partitioned indexes and filters and first-key indexes | sst_dump shows index type 2/3 and the partitions; readmissing is ruled out by the filter |
 *
 * The tools report damage in their output while exiting 0, so every run's output is also
 * searched for their error words.
 */
import { join } from "node:path";
import { toHex } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import {
  copyDir,
  dbBenchKey,
  filesEnding,
  fromHex,
  type HexEntry,
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleReverseScan,
  shaleScan,
  sortedEntries,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
const run = toolsMissing === undefined;
if (toolsMissing !== undefined) {
  console.log(`interop tools: skipped — ${toolsMissing}`);
}

const tmp = tempDir("tools");
afterAll(() => tmp.remove());

/** Words RocksDB's tools print for damage (they often exit 0 anyway). */
const TOOL_ERROR =
  /corruption|checksum mismatch|not a valid|error|failed|invalid argument|not supported/i;

function expectClean(what: string, out: string): void {
  const bad = out.split("\n").find((line) => TOOL_ERROR.test(line));
  expect(bad, `${what} reported: ${bad}`).toBeUndefined();
}

const utf8 = (s: string) => toHex(new TextEncoder().encode(s));

function uint64Bytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}

function uint64Of(hex: string): bigint {
  return BigInt(`0x${Buffer.from(hex, "hex").reverse().toString("hex")}`);
}

function expectShaleSees(db: DB, want: HexEntry[]): void {
  expect(shaleScan(db)).toEqual(want);
  expect(shaleReverseScan(db)).toEqual([...want].reverse());
  for (const { key, value } of want) {
    const got = db.get(fromHex(key));
    expect(got === undefined ? undefined : toHex(got)).toBe(value);
  }
}

interface RocksWriter {
  name: string;
  options: DbOptions;
  /** Writes a RocksDB database into `dir` with the tools. */
  make(dir: string): void;
}

const writers: RocksWriter[] = [
  {
    name: "db_bench fillrandom + compaction (+ WAL of overwrites)",
    options: {},
    make(dir) {
      mustRun("db_bench", [
        "--benchmarks=fillrandom,compact",
        "--num=2000",
        "--seed=11",
        "--bloom_bits=10",
        "--compression_type=snappy",
        `--db=${dir}`,
      ]);
      mustRun("db_bench", [
        "--benchmarks=overwrite",
        "--use_existing_db",
        "--num=100",
        "--seed=12",
        "--bloom_bits=10",
        `--db=${dir}`,
      ]);
    },
  },
  {
    name: "ldb put/delete/deleterange",
    options: {},
    make(dir) {
      mustRun("ldb", [`--db=${dir}`, "--create_if_missing", "put", "k00", "v00"]);
      const kv: string[] = [];
      for (let i = 1; i < 40; i++) kv.push(`k${String(i).padStart(2, "0")}`, `v${i}`);
      mustRun("ldb", [`--db=${dir}`, "batchput", ...kv]);
      mustRun("ldb", [`--db=${dir}`, "compact"]);
      mustRun("ldb", [`--db=${dir}`, "delete", "k03"]);
      mustRun("ldb", [`--db=${dir}`, "deleterange", "k10", "k20"]);
      mustRun("ldb", [`--db=${dir}`, "put", "k15", "after the range"]);
      mustRun("ldb", [`--db=${dir}`, "batchput", "k30", "v30-new", "k99", "v99"]);
    },
  },
  {
    // Each ldb run flushes the WAL it recovers: only the last command stays in the WAL.
    name: "ldb: a range deletion left in the WAL",
    options: {},
    make(dir) {
      const kv: string[] = [];
      for (let i = 0; i < 40; i++) kv.push(`r${String(i).padStart(2, "0")}`, `v${i}`);
      mustRun("ldb", [`--db=${dir}`, "--create_if_missing", "batchput", ...kv]);
      mustRun("ldb", [`--db=${dir}`, "deleterange", "r05", "r25"]);
    },
  },
  {
    name: "ldb: a delete left in the WAL",
    options: {},
    make(dir) {
      mustRun("ldb", [
        `--db=${dir}`,
        "--create_if_missing",
        "batchput",
        "d1",
        "x",
        "d2",
        "y",
        "d3",
        "z",
      ]);
      for (let i = 0; i < 10; i++) mustRun("ldb", [`--db=${dir}`, "put", `e${i}`, `w${i}`]);
      mustRun("ldb", [`--db=${dir}`, "delete", "d2"]);
    },
  },
  {
    name: "db_bench mergerandom uint64add",
    options: { mergeOperator: "uint64add" },
    make(dir) {
      mustRun("db_bench", [
        "--benchmarks=mergerandom,flush,mergerandom",
        "--merge_operator=uint64add",
        "--num=300",
        "--value_size=8",
        "--seed=13",
        `--db=${dir}`,
      ]);
    },
  },
];

/** db_bench fillrandom + compaction with table options varied (each a RocksDB writer). */
function fillWith(label: string, flags: string[]): RocksWriter {
  return {
    name: `db_bench fillrandom + compaction, ${label}`,
    options: {},
    make(dir) {
      mustRun("db_bench", [
        "--benchmarks=fillrandom,compact",
        "--num=1500",
        "--seed=21",
        "--bloom_bits=10",
        ...flags,
        `--db=${dir}`,
      ]);
    },
  };
}

writers.push(
  fillWith("lz4", ["--compression_type=lz4"]),
  fillWith("lz4hc", ["--compression_type=lz4hc"]),
  fillWith("zstd", ["--compression_type=zstd"]),
  fillWith("zlib", ["--compression_type=zlib"]),
  fillWith("format_version 2, CRC32C", ["--format_version=2", "--checksum_type=1"]),
  fillWith("format_version 3, xxHash32", ["--format_version=3", "--checksum_type=2"]),
  fillWith("format_version 4, xxHash64", ["--format_version=4", "--checksum_type=3"]),
  fillWith("1 KiB blocks, restart interval 4", ["--block_size=1024", "--block_restart_interval=4"]),
  {
    name: "db_bench fillrandom into several levels (L0 files, L1.., range tombstones, no final compaction)",
    options: {},
    make(dir) {
      mustRun("db_bench", [
        "--benchmarks=fillrandom",
        "--num=20000",
        "--seed=31",
        "--bloom_bits=10",
        "--write_buffer_size=65536",
        "--target_file_size_base=65536",
        "--max_bytes_for_level_base=262144",
        "--level0_file_num_compaction_trigger=2",
        "--writes_per_range_tombstone=500",
        "--range_tombstone_width=50",
        "--max_num_range_tombstones=20",
        `--db=${dir}`,
      ]);
    },
  },
);

describe.skipIf(!run)("RocksDB writes, shale opens (live tools)", () => {
  writers.forEach((w, i) => {
    it(w.name, async () => {
      const dir = join(tmp.path, `rocks-${i}`);
      w.make(dir);
      // ldb may recover and flush: the dump comes from a copy.
      const dump = ldbScan(copyDir(dir, `${dir}-dump`));
      expect(dump.length).toBeGreaterThan(10);
      const model = new Map(dump.map((e) => [e.key, e.value]));
      const db = await DB.open(dir, { createIfMissing: false, ...w.options });
      try {
        expectShaleSees(db, dump);
        // shale keeps writing: puts, a delete, a range deletion, merges where configured.
        for (let k = 0; k < 200; k++) {
          db.put(`shale-${k}`, `value-${k}`);
          model.set(utf8(`shale-${k}`), utf8(`value-${k}`));
        }
        const first = dump[0]!.key;
        db.delete(fromHex(first));
        model.delete(first);
        db.deleteRange("shale-1", "shale-2");
        for (const key of [...model.keys()])
          if (key >= utf8("shale-1") && key < utf8("shale-2")) model.delete(key);
        if (w.options.mergeOperator === "uint64add") {
          for (const { key, value } of dump.slice(1, 20)) {
            db.merge(fromHex(key), uint64Bytes(3n));
            model.set(key, toHex(uint64Bytes(uint64Of(value) + 3n)));
          }
        }
        await db.flush();
        await db.compactRange();
        db.put("zz-in-the-wal", "unflushed");
        model.set(utf8("zz-in-the-wal"), utf8("unflushed"));
        expectShaleSees(db, sortedEntries(model));
      } finally {
        await db.close();
      }
      // RocksDB reopens the result and sees shale's writes.
      expect(ldbScan(dir)).toEqual(sortedEntries(model));
    });
  });
});

describe.skipIf(!run)("RocksDB's codecs shale does not read (live tools)", () => {
  it("a bzip2 database: reading its blocks is NotSupported, naming the table", async () => {
    const dir = join(tmp.path, "rocks-bzip2");
    mustRun("db_bench", [
      "--benchmarks=fillrandom,compact",
      "--num=500",
      "--seed=5",
      "--compression_type=bzip2",
      `--db=${dir}`,
    ]);
    let error: unknown;
    try {
      const db = await DB.open(dir, { createIfMissing: false });
      try {
        shaleScan(db);
      } finally {
        await db.close();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "NotSupported" });
    expect(String((error as Error).message)).toMatch(/bzip2.*\.sst|\.sst.*bzip2/);
  });
});

describe.skipIf(!run)("shale writes, RocksDB's tools read (live tools)", () => {
  /** A shale database with fills, flushes, compactions, range deletions and merges. */
  async function shaleMixed(dir: string): Promise<HexEntry[]> {
    const db = await DB.open(dir, {
      mergeOperator: "uint64add",
      writeBufferSize: 64 * 1024,
      compression: "snappy",
    });
    let want: HexEntry[];
    try {
      for (let i = 0; i < 3000; i++) db.put(dbBenchKey(i), `value-${i}-${"x".repeat(i % 90)}`);
      await db.flush();
      for (let i = 0; i < 3000; i += 7) db.delete(dbBenchKey(i));
      db.deleteRange(dbBenchKey(1000), dbBenchKey(1100));
      await db.flush();
      for (let i = 0; i < 50; i++) {
        db.merge(`counter-${i % 10}`, uint64Bytes(BigInt(i + 1)));
        if (i === 25) await db.flush();
      }
      await db.compactRange();
      for (let i = 2000; i < 2100; i++) db.put(dbBenchKey(i), `overwritten-${i}`);
      db.deleteRange(dbBenchKey(2050), dbBenchKey(2060));
      await db.flush();
      // Edge entries: an empty value, an empty key, 0xff keys, a value larger than a block.
      db.put("empty-value", "");
      db.put(new Uint8Array(0), "the empty key");
      db.put(new Uint8Array([0xff, 0xff, 0xff]), "high bytes");
      db.put("big-value", "b".repeat(100_000));
      await db.flush();
      db.merge("counter-0", uint64Bytes(1000n));
      db.put("in-the-wal", "not flushed");
      want = shaleScan(db);
    } finally {
      await db.close();
    }
    return want;
  }

  it("ldb scan equals shale's scan; sst_dump check, manifest_dump and dump_wal pass", async () => {
    const dir = join(tmp.path, "shale-mixed");
    const want = await shaleMixed(dir);
    expect(want.length).toBeGreaterThan(2000);

    const tables = filesEnding(dir, ".sst");
    expect(tables.length).toBeGreaterThan(0);
    for (const t of tables) {
      const out = mustRun("sst_dump", [
        `--file=${join(dir, t)}`,
        "--command=check",
        "--verify_checksum",
      ]);
      expectClean(`sst_dump --command=check ${t}`, out);
      // RocksDB reads the properties a table of its own would carry.
      const props = mustRun("sst_dump", [`--file=${join(dir, t)}`, "--show_properties"]);
      expectClean(`sst_dump --show_properties ${t}`, props);
      expect(props).toMatch(/column family ID: 0\n/);
      expect(props).toMatch(/column family name: default\n/);
      expect(props).toMatch(/merge operator name: UInt64AddOperator\n/);
      expect(props).toMatch(/comparator name: leveldb\.BytewiseComparator\n/);
      // The table's entries decode too (keys, values, range deletions).
      const scan = mustRun("sst_dump", [
        `--file=${join(dir, t)}`,
        "--command=scan",
        "--output_hex",
      ]);
      expectClean(`sst_dump --command=scan ${t}`, scan);
    }
    const manifests = filesEnding(dir, "").filter((f) => f.startsWith("MANIFEST-"));
    expect(manifests.length).toBe(1);
    const manifest = mustRun("ldb", ["manifest_dump", `--path=${join(dir, manifests[0]!)}`]);
    expectClean("ldb manifest_dump", manifest);
    expect(manifest).toMatch(/comparator: leveldb\.BytewiseComparator/);
    for (const t of tables) expect(manifest).toContain(` ${Number.parseInt(t, 10)}:`);
    const wals = filesEnding(dir, ".log");
    expect(wals.length).toBeGreaterThan(0);
    let walRecords = 0;
    for (const w of wals) {
      const out = mustRun("ldb", [
        "dump_wal",
        `--walfile=${join(dir, w)}`,
        "--header",
        "--print_value",
      ]);
      expectClean(`ldb dump_wal ${w}`, out);
      walRecords += out.split("\n").filter((l) => /^\d+,\d+,/.test(l)).length;
    }
    expect(walRecords).toBeGreaterThanOrEqual(2); // the last merge and the last put

    expectClean(
      "ldb checkconsistency",
      mustRun("ldb", [`--db=${copyDir(dir, `${dir}-cc`)}`, "checkconsistency"]),
    );

    // ldb opens the database (with the merge operator named in shale's OPTIONS file).
    expect(ldbScan(copyDir(dir, `${dir}-ldb`))).toEqual(want);
  });

  it("RocksDB compacts shale's database (merges, range deletions), and shale reopens it", async () => {
    const dir = join(tmp.path, "shale-compacted-by-rocksdb");
    const want = await shaleMixed(dir);
    mustRun("ldb", [`--db=${dir}`, "compact"]);
    mustRun("ldb", [`--db=${dir}`, "put", "put-by-rocksdb", "after shale"]);
    const after = [...want, { key: utf8("put-by-rocksdb"), value: utf8("after shale") }].sort(
      (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    expect(ldbScan(copyDir(dir, `${dir}-ldb`))).toEqual(after);
    for (const t of filesEnding(dir, ".sst")) {
      expectClean(
        `sst_dump --command=check ${t}`,
        mustRun("sst_dump", [`--file=${join(dir, t)}`, "--command=check", "--verify_checksum"]),
      );
    }
    const db = await DB.open(dir, { createIfMissing: false, mergeOperator: "uint64add" });
    try {
      expectShaleSees(db, after);
      db.merge("counter-1", uint64Bytes(1n));
    } finally {
      await db.close();
    }
  });

  it("db_bench readrandom finds every key shale wrote (N of N: the filter hashes agree)", async () => {
    const dir = join(tmp.path, "shale-fill");
    const n = 20000;
    // Small memtables, files and level targets: tables on L0 and several levels below.
    const db = await DB.open(dir, {
      writeBufferSize: 64 * 1024,
      targetFileSizeBase: 64 * 1024,
      maxBytesForLevelBase: 256 * 1024,
      level0FileNumCompactionTrigger: 2,
      bloomBitsPerKey: 10,
      compression: "none", // the other shale database here is snappy
    });
    try {
      for (let i = 0; i < n; i++)
        db.put(dbBenchKey((i * 7919) % n), `value-${i}-${"y".repeat(80)}`);
      await db.flush();
      await db.waitForCompactions();
      for (let i = 0; i < n; i += 3) db.put(dbBenchKey(i), `again-${i}`);
      await db.flush();
      await db.waitForCompactions();
      const levels = [0, 1, 2, 3].map((l) =>
        Number(db.getProperty(`shale.num-files-at-level${l}`)),
      );
      expect(
        levels.filter((c) => c > 0).length,
        `files per level ${levels}`,
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await db.close();
    }
    const out = mustRun("db_bench", [
      "--use_existing_db",
      "--benchmarks=readrandom",
      `--num=${n}`,
      `--reads=${n}`,
      "--bloom_bits=10",
      "--statistics",
      `--db=${dir}`,
    ]);
    for (const t of filesEnding(dir, ".sst")) {
      expectClean(
        `sst_dump --command=check ${t}`,
        mustRun("sst_dump", [`--file=${join(dir, t)}`, "--command=check", "--verify_checksum"]),
      );
    }
    const found = /\((\d+) of (\d+) found\)/.exec(out);
    expect(found, out.slice(-2000)).not.toBeNull();
    expect(Number(found![1])).toBe(n);
    expect(Number(found![2])).toBe(n);
    // The filter was consulted (not bypassed): every lookup of a present key passed it.
    const useful = /rocksdb\.bloom\.filter\.full\.positive COUNT : (\d+)/.exec(out);
    expect(useful, "db_bench --statistics printed no full-filter counters").not.toBeNull();
    expect(Number(useful![1])).toBeGreaterThan(0);
  });

  for (const [name, options, type] of [
    [
      "partitioned index and filters",
      { indexType: "twoLevelIndex", partitionFilters: true, metadataBlockSize: 256 },
      /rocksdb\.block\.based\.table\.index\.type: 0x02000000/,
    ],
    ["partitioned index", { indexType: "twoLevelIndex", metadataBlockSize: 128 }, /0x02000000/],
    ["first-key index", { indexType: "binarySearchWithFirstKey" }, /0x03000000/],
  ] as const) {
    it(`${name}: sst_dump check and properties, ldb scan, db_bench readrandom N of N`, async () => {
      const dir = join(tmp.path, `shale-${name.replaceAll(" ", "-")}`);
      const n = 6000;
      const db = await DB.open(dir, {
        writeBufferSize: 128 * 1024,
        bloomBitsPerKey: 10,
        compression: "snappy",
        ...(options as DbOptions),
      });
      let want: HexEntry[];
      try {
        for (let i = 0; i < n; i++)
          db.put(dbBenchKey((i * 7919) % n), `value-${i}-${"z".repeat(i % 60)}`);
        await db.flush();
        await db.compactRange();
        for (let i = 0; i < n; i += 5) db.put(dbBenchKey(i), `again-${i}`);
        await db.flush();
        want = shaleScan(db);
      } finally {
        await db.close();
      }
      const tables = filesEnding(dir, ".sst");
      expect(tables.length).toBeGreaterThan(1);
      for (const t of tables) {
        const path = join(dir, t);
        expectClean(
          `sst_dump --command=check ${t}`,
          mustRun("sst_dump", [`--file=${path}`, "--command=check", "--verify_checksum"]),
        );
        const props = mustRun("sst_dump", [`--file=${path}`, "--show_properties"]);
        expectClean(`sst_dump --show_properties ${t}`, props);
        expect(props).toMatch(type);
        if ("metadataBlockSize" in options) expect(props).toMatch(/# index partitions: [1-9]/);
      }
      expect(ldbScan(copyDir(dir, `${dir}-ldb`))).toEqual(want);
      // RocksDB's reads through shale's indexes and filters: every key found, and keys
      // not written ruled out by the filter (partitioned filters probe one partition).
      const out = mustRun("db_bench", [
        "--use_existing_db",
        "--benchmarks=readrandom,readmissing",
        `--num=${n}`,
        `--reads=${n}`,
        "--bloom_bits=10",
        "--statistics",
        `--db=${dir}`,
      ]);
      const found = /\((\d+) of (\d+) found\)/.exec(out);
      expect(found, out.slice(-2000)).not.toBeNull();
      expect(Number(found![1])).toBe(n);
      const useful = /rocksdb\.bloom\.filter\.useful COUNT : (\d+)/.exec(out);
      expect(useful, "db_bench --statistics printed no filter counters").not.toBeNull();
      expect(Number(useful![1])).toBeGreaterThan(n / 2);
    });
  }
});
