/**
 * shale's zstd writes on their own: `walCompression: "zstd"`, `compression: "zstd"`,
 * `zstdLevel` and `zstdMaxDictBytes`. shale writes, closes with records only in its
 * compressed WAL, reopens and reads them, flushes tables with dictionaries and records the
 * options in its OPTIONS file. Where RocksDB 7.8.3's tools are on the PATH, `ldb dump_wal`
 * decodes the compressed WAL, `sst_dump` verifies and scans the dictionary tables and
 * `ldb scan` sees exactly shale's view (nxtedition-zstd.test.ts does the same with RocksDB 9.7).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import {
  copyDir,
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleReverseScan,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined)
  console.log(`zstd-writes: RocksDB's checks skipped — ${toolsMissing}`);

const tmp = tempDir("zstd-writes");
afterAll(() => tmp.remove());

const OPTIONS: DbOptions = {
  compression: "zstd",
  zstdLevel: 5,
  zstdMaxDictBytes: 8192,
  walCompression: "zstd",
};
const META_DICT = Buffer.from("rocksdb.compression_dict");

function files(dir: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort();
}

describe("zstd tables with dictionaries and a zstd WAL, written by shale", () => {
  it("reopens from its compressed WAL, flushes dictionary tables, records the options", async () => {
    const dir = join(tmp.path, "db");
    const record = (i: number) => `{"order":${i},"customer":"c-${i % 97}","status":"open"}`;
    let db = await DB.open(dir, OPTIONS);
    try {
      for (let i = 0; i < 3000; i++) db.put(`order-${String(i).padStart(6, "0")}`, record(i));
      db.delete("order-000007");
    } finally {
      await db.close();
    }
    // Only the WAL holds the data: a SetCompressionType record (type 9, zstd) comes first.
    const [wal] = files(dir, ".log");
    const walBytes = readFileSync(join(dir, wal!));
    expect(walBytes[6]).toBe(9);
    expect(walBytes.readUInt32LE(7)).toBe(7);
    expect(files(dir, ".sst")).toEqual([]);
    if (toolsMissing === undefined) {
      const dump = mustRun("ldb", ["dump_wal", `--walfile=${join(dir, wal!)}`, "--print_value"]);
      expect(dump).not.toMatch(/corrupt|error/i);
      expect(dump).toContain("PUT(0) : 0x6F726465722D303030303030");
    }

    db = await DB.open(dir, { ...OPTIONS, createIfMissing: false });
    let want: ReturnType<typeof shaleScan>;
    try {
      want = shaleScan(db);
      expect(want.length).toBe(2999);
      expect(shaleReverseScan(db)).toEqual([...want].reverse());
      await db.flush();
      expect(shaleScan(db)).toEqual(want);
      expect(db.verifyChecksums().ok).toBe(true);
    } finally {
      await db.close();
    }
    const tables = files(dir, ".sst");
    expect(tables.length).toBeGreaterThan(0);
    for (const t of tables) expect(readFileSync(join(dir, t)).includes(META_DICT)).toBe(true);
    const [optionsFile] = files(dir, "")
      .filter((f) => f.startsWith("OPTIONS-"))
      .slice(-1);
    const text = readFileSync(join(dir, optionsFile!), "utf8");
    expect(text).toContain("wal_compression=kZSTD");
    expect(text).toContain("compression=kZSTD");
    expect(text).toMatch(/compression_opts=\{[^}]*level=5;[^}]*max_dict_bytes=8192;/);

    if (toolsMissing === undefined) {
      for (const t of tables) {
        const file = `--file=${join(dir, t)}`;
        const props = mustRun("sst_dump", [file, "--show_properties"]);
        expect(props).toContain("SST file compression algo: ZSTD");
        expect(props).toMatch(/max_dict_bytes=8192/);
        const scan = mustRun("sst_dump", [file, "--command=scan", "--verify_checksum"]);
        expect(scan).not.toMatch(/corrupt|error|mismatch/i);
      }
      // RocksDB opens the directory (--try_load_options reads shale's OPTIONS file).
      expect(ldbScan(copyDir(dir, `${dir}-ldb`))).toEqual(want);
      const loaded = mustRun("ldb", [
        `--db=${copyDir(dir, `${dir}-ldb-options`)}`,
        "--try_load_options",
        "--hex",
        "scan",
      ]);
      expect(loaded).not.toMatch(/error|invalid/i);
    }
  });
});
