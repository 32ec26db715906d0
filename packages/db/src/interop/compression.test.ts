/**
 * Databases shale writes with LZ4 tables (`compression: "lz4"`, and per-level codecs), read
 * by RocksDB: 7.8.3's tools (`sst_dump --command=check --verify_checksum` on every table,
 * `ldb scan`, and `ldb --try_load_options` parsing shale's OPTIONS with
 * compression_per_level / bottommost_compression), and the npm builds RocksDB users run in
 * Node — rocksdb-native (RocksDB 10.5.1) and @nxtedition/rocksdb (9.7) — where they load.
 * A build compiled without LZ4 must refuse the tables ("LZ4 not supported"), never misread
 * them; which build does what is in the db README ("Sharing a directory with RocksDB").
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import {
  copyDir,
  dbBenchKey,
  filesEnding,
  type HexEntry,
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";
import { type Producer, producerUnavailableReason, runProducer } from "./producers.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`lz4 interop: tools skipped — ${toolsMissing}`);

const tmp = tempDir("lz4");
afterAll(() => tmp.remove());

/** A shale database of LZ4 tables (flushes, a compaction, more flushes); its scan. */
async function shaleLz4(dir: string, options: DbOptions): Promise<HexEntry[]> {
  const db = await DB.open(dir, { writeBufferSize: 64 * 1024, ...options });
  try {
    for (let i = 0; i < 3000; i++) db.put(dbBenchKey(i), `value-${i}-${"x".repeat(i % 90)}`);
    await db.flush();
    for (let i = 0; i < 3000; i += 7) db.delete(dbBenchKey(i));
    await db.flush();
    await db.compactRange();
    for (let i = 2000; i < 2400; i++) db.put(dbBenchKey(i), `overwritten-${i}-${"y".repeat(40)}`);
    await db.flush();
    return shaleScan(db);
  } finally {
    await db.close();
  }
}

const LZ4_OPTIONS: DbOptions = { compression: "lz4" };
const PER_LEVEL_OPTIONS: DbOptions = {
  compression: "snappy",
  compressionPerLevel: ["lz4", "lz4", "lz4"],
  bottommostCompression: "lz4",
};

describe.skipIf(toolsMissing !== undefined)("RocksDB 7.8.3's tools read shale's LZ4 tables", () => {
  for (const [name, options] of [
    ["compression lz4", LZ4_OPTIONS],
    ["compressionPerLevel + bottommostCompression lz4", PER_LEVEL_OPTIONS],
  ] as const) {
    it(`${name}: sst_dump check, ldb scan, ldb --try_load_options`, async () => {
      const dir = join(tmp.path, name.replace(/\W+/g, "-"));
      const want = await shaleLz4(dir, options);
      const tables = filesEnding(dir, ".sst");
      expect(tables.length).toBeGreaterThan(1);
      for (const t of tables) {
        const path = join(dir, t);
        const check = mustRun("sst_dump", [
          `--file=${path}`,
          "--command=check",
          "--verify_checksum",
        ]);
        expect(check).not.toMatch(/corrupt|error|mismatch|not supported/i);
        const props = mustRun("sst_dump", [`--file=${path}`, "--show_properties"]);
        expect(props).toContain("SST file compression algo: LZ4");
        const scan = mustRun("sst_dump", [`--file=${path}`, "--command=scan", "--verify_checksum"]);
        expect(scan).not.toMatch(/corrupt|error|mismatch|not supported/i);
      }
      expect(ldbScan(copyDir(dir, `${dir}-ldb`))).toEqual(want);
      // ldb parses shale's OPTIONS file (compression_per_level, bottommost_compression) and
      // opens with it; RocksDB then compacts with those options and shale reads the result.
      const copy = copyDir(dir, `${dir}-options`);
      mustRun("ldb", [`--db=${copy}`, "--try_load_options", "compact"]);
      const db = await DB.open(copy, { ...options, createIfMissing: false });
      try {
        expect(shaleScan(db)).toEqual(want);
      } finally {
        await db.close();
      }
    });
  }
});

/** What each npm build of RocksDB does with shale's LZ4 tables. */
for (const producer of ["rocksdb-native", "nxtedition-rocksdb"] as Producer[]) {
  const unavailable = producerUnavailableReason(producer);
  if (unavailable !== undefined) console.log(`lz4 interop: ${producer} skipped — ${unavailable}`);
  describe.skipIf(unavailable !== undefined)(`${producer} opens shale's LZ4 tables`, () => {
    it("scans every entry, or refuses LZ4 as not supported in its build", async () => {
      const dir = join(tmp.path, `producer-${producer}`);
      const want = await shaleLz4(dir, LZ4_OPTIONS);
      let results: ReturnType<typeof runProducer> | undefined;
      let failure = "";
      try {
        results = runProducer(producer, { dir, steps: [{ op: "scan" }] });
      } catch (e) {
        failure = String((e as Error).message);
      }
      if (results !== undefined) {
        expect(results[0]).toEqual(want.map((e) => [e.key, e.value]));
      } else {
        // The only acceptable failure: a build without LZ4 saying so (10.5.1: "LZ4 not
        // supported in this build"; 9.7: "Unsupported compression method for this build: LZ4").
        expect(failure).toMatch(/LZ4 not supported|Unsupported compression method.*LZ4/);
      }
      console.log(
        `lz4 interop: ${producer} ${results !== undefined ? "reads LZ4 tables" : "has no LZ4 (refuses the tables: LZ4 not supported)"}`,
      );
    });
  });
}
