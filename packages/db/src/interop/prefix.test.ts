/**
 * Prefix extractors and prefix Bloom filters across RocksDB 7.8.3's tools (run where
 * `db_bench`, `ldb` and `sst_dump` are on the PATH; skipped with the reason printed elsewhere):
 *
 * | direction                   | how                                    | check                                  |
 * |-----------------------------|----------------------------------------|----------------------------------------|
 * | RocksDB writes, shale reads | db_bench --prefix_size=8 --keys_per_prefix=10 fillrandom | shale opens with the recorded FixedPrefix.8, prefix seeks equal the model from `ldb scan`, tables are skipped by RocksDB's prefix filters |
 * |                             | a RocksDB table rebuilt by shale       | the same filter block, byte for byte   |
 * | shale writes, RocksDB reads | ldb scan (and --try_load_options)      | equals shale's scan                    |
 * |                             | sst_dump --show_properties             | names rocksdb.FixedPrefix.8, prefix filtering 1 |
 * |                             | db_bench seekrandom --prefix_size=8    | finds every key through shale's prefix filters |
 * |                             | db_bench readrandom --whole_key_filtering=0 on wholeKeyFiltering: false tables | finds every key through the prefixes-only filters |
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NodeFileSystem, Statistics, Ticker, toHex } from "@shale/base";
import { fixedPrefix, MetaBlockName, TableBuilder, TableReader, tableLayout } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  dbBenchKey,
  filesEnding,
  fromHex,
  type HexEntry,
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`prefix interop: skipped — ${toolsMissing}`);
const tmp = tempDir("prefix");
afterAll(() => tmp.remove());

/** Keys of `entries` (hex) with the 8-byte prefix of `prefixHex`, from `startHex` on. */
function modelSeek(entries: HexEntry[], startHex: string): string[] {
  const prefix = startHex.slice(0, 16);
  return entries.filter((e) => e.key >= startHex && e.key.startsWith(prefix)).map((e) => e.key);
}

function shaleSeek(db: DB, startHex: string, ro: object): string[] {
  const it = db.iterator({ prefixSameAsStart: true, ...ro });
  const out: string[] = [];
  for (it.seek(fromHex(startHex)); it.valid(); it.next()) out.push(toHex(it.key()));
  it.close();
  return out;
}

/** The raw contents of `file`'s full filter block. */
function filterBlock(path: string): Uint8Array {
  const fs = new NodeFileSystem();
  const r = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
  try {
    const meta = tableLayout(r).metaBlocks.find((m) =>
      m.name.startsWith(MetaBlockName.FULL_FILTER_PREFIX),
    );
    expect(meta).toBeDefined();
    const bytes = readFileSync(path);
    return bytes.subarray(meta!.handle.offset, meta!.handle.offset + meta!.handle.size);
  } finally {
    r.close();
  }
}

describe.skipIf(toolsMissing !== undefined)("prefix extractors with RocksDB's tools", () => {
  it("RocksDB's db_bench --prefix_size=8 directory opens in shale and prefix-seeks", async () => {
    const dir = join(tmp.path, "rocks");
    mustRun("db_bench", [
      `--db=${dir}`,
      "--benchmarks=fillrandom",
      "--num=20000",
      "--prefix_size=8",
      "--keys_per_prefix=10",
      "--bloom_bits=10",
      "--compression_type=none",
      "--write_buffer_size=131072",
      "--target_file_size_base=131072",
      "--disable_auto_compactions=1",
      "--seed=1",
    ]);
    expect(
      readFileSync(join(dir, filesEnding(dir, "").find((f) => f.startsWith("OPTIONS-"))!), "utf8"),
    ).toMatch(/prefix_extractor=rocksdb\.FixedPrefix\.8/);
    const model = ldbScan(dir);
    expect(model.length).toBeGreaterThan(1000);

    // One of RocksDB's tables rebuilt by shale with the same extractor: the same filter.
    const sst = join(dir, filesEnding(dir, ".sst")[0]!);
    const fs = new NodeFileSystem();
    const rocks = TableReader.open(fs.openRandomAccess(sst), { fileSize: fs.fileSize(sst) });
    const copy = join(tmp.path, "rebuilt.sst");
    const out = fs.openWritable(copy);
    const builder = new TableBuilder(out, {
      prefixExtractor: fixedPrefix(8),
      bitsPerKey: 10,
      formatVersion: rocks.properties.formatVersion,
      compression: "none",
    });
    const it = rocks.newIterator();
    for (it.seekToFirst(); it.valid(); it.next()) builder.add(it.key(), it.value());
    it.close();
    const built = builder.finish();
    out.close();
    expect(built.numFilterEntries).toBe(rocks.properties.numFilterEntries);
    expect(rocks.prefixExtractorName).toBe("rocksdb.FixedPrefix.8");
    rocks.close();
    expect(toHex(filterBlock(copy))).toBe(toHex(filterBlock(sst)));

    // shale opens it with the recorded extractor and seeks by prefix.
    const stats = new Statistics();
    const db = await DB.open(dir, { statistics: stats });
    try {
      expect(shaleScan(db)).toEqual(model);
      for (let i = 0; i < 200; i += 7) {
        const start = model[(i * 97) % model.length]!.key;
        expect(shaleSeek(db, start, {})).toEqual(modelSeek(model, start));
        const prefixOnly = start.slice(0, 16);
        expect(shaleSeek(db, prefixOnly, {})).toEqual(modelSeek(model, prefixOnly));
      }
      // A prefix no key has: RocksDB's prefix filters rule out (nearly) every table.
      const before = stats.getTicker(Ticker.BloomPrefixUseful);
      expect(shaleSeek(db, "00000000ffffffff", {})).toEqual([]);
      expect(stats.getTicker(Ticker.BloomPrefixUseful)).toBeGreaterThan(before);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a shale directory with a prefix extractor opens in ldb, sst_dump and db_bench", async () => {
    const dir = join(tmp.path, "shale");
    const n = 5000;
    const db = await DB.open(dir, { prefixExtractor: fixedPrefix(8), compression: "none" });
    // Five tables of interleaved keys: a prefix seek must pass the right ones.
    for (let t = 0; t < 5; t++) {
      for (let i = t; i < n; i += 5) db.put(dbBenchKey(i), `value-${i}`);
      await db.flush();
    }
    const mine = shaleScan(db);
    await db.close();
    expect(ldbScan(dir)).toEqual(mine);
    const loaded = mustRun("ldb", [`--db=${dir}`, "--try_load_options", "scan", "--hex"]);
    expect(loaded.trim().split("\n")).toHaveLength(n);
    for (const sst of filesEnding(dir, ".sst")) {
      const props = mustRun("sst_dump", [`--file=${join(dir, sst)}`, "--show_properties"]);
      expect(props).toMatch(/prefix extractor name: rocksdb\.FixedPrefix\.8/);
      expect(props).toMatch(/rocksdb\.block\.based\.table\.prefix\.filtering: 0x31/);
    }
    // RocksDB seeks every key through shale's prefix filters (a wrong prefix hash would skip
    // the table holding it: fewer found).
    const bench = mustRun("db_bench", [
      `--db=${dir}`,
      "--use_existing_db=1",
      "--benchmarks=seekrandom",
      `--num=${n}`,
      `--reads=${n}`,
      "--prefix_size=8",
      "--seek_nexts=0",
      "--bloom_bits=10",
      "--threads=1",
    ]);
    const m = /\((\d+) of (\d+) found\)/.exec(bench);
    expect(m, bench).not.toBeNull();
    expect(m![1]).toBe(m![2]);
  }, 120_000);

  it("shale's prefixes-only filters (wholeKeyFiltering false) serve RocksDB's point lookups", async () => {
    const dir = join(tmp.path, "shale-prefix-only");
    const n = 3000;
    const db = await DB.open(dir, {
      prefixExtractor: fixedPrefix(8),
      wholeKeyFiltering: false,
      compression: "none",
    });
    for (let t = 0; t < 3; t++) {
      for (let i = t; i < n; i += 3) db.put(dbBenchKey(i), `value-${i}`);
      await db.flush();
    }
    await db.close();
    for (const sst of filesEnding(dir, ".sst")) {
      const props = mustRun("sst_dump", [`--file=${join(dir, sst)}`, "--show_properties"]);
      expect(props).toMatch(/rocksdb\.block\.based\.table\.whole\.key\.filtering: 0x30/);
    }
    // RocksDB's Get asks a prefixes-only filter for the key's prefix: every key is found.
    const bench = mustRun("db_bench", [
      `--db=${dir}`,
      "--use_existing_db=1",
      "--benchmarks=readrandom",
      `--num=${n}`,
      `--reads=${n}`,
      "--prefix_size=8",
      "--whole_key_filtering=0",
      "--bloom_bits=10",
      "--threads=1",
    ]);
    const m = /\((\d+) of (\d+) found\)/.exec(bench);
    expect(m, bench).not.toBeNull();
    expect(m![1]).toBe(m![2]);
    // And shale reads them back through the same filters.
    const again = await DB.open(dir);
    try {
      for (let i = 0; i < n; i += 37) expect(again.get(dbBenchKey(i))).toBeDefined();
      expect(again.get(new Uint8Array(16).fill(0xee))).toBeUndefined();
    } finally {
      await again.close();
    }
  }, 120_000);
});
