/**
 * Compaction styles against RocksDB 7.8.3's own tools (skipped, with the reason printed,
 * where `db_bench`, `ldb` and `sst_dump` are not on the PATH):
 *
 * | RocksDB writes                                  | shale                                                    |
 * |-------------------------------------------------|----------------------------------------------------------|
 * | db_bench fillrandom `--compaction_style=1`      | opens it universal (from OPTIONS), reads what `ldb scan` |
 * |   (universal: tables in L0 and deeper levels)   | reads, writes on, compactRange into the last level; then |
 * |                                                 | `ldb scan` reads shale's tree and OPTIONS                |
 * | db_bench fillrandom `--compaction_style=2`      | opens it FIFO (every table in L0), reads it, deletes the |
 * |   (FIFO: every table in L0)                     | oldest tables over a smaller maxTableFilesSize; `ldb     |
 * |                                                 | scan` then reads the newest tables' keys                 |
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { NUM_LEVELS } from "../version/version-edit.js";
import {
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleReverseScan,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
const run = toolsMissing === undefined;
if (toolsMissing !== undefined) console.log(`compaction-style interop: skipped — ${toolsMissing}`);

const tmp = tempDir("styles");
afterAll(() => tmp.remove());

function newestOptions(dir: string): string {
  const out = mustRun("ls", [dir])
    .split("\n")
    .filter((n) => n.startsWith("OPTIONS-"))
    .sort();
  return readFileSync(join(dir, out[out.length - 1]!), "utf8");
}

function fillrandom(dir: string, style: number, extra: string[]): void {
  mustRun("db_bench", [
    "--benchmarks=fillrandom",
    "--num=20000",
    "--value_size=100",
    "--seed=7",
    "--write_buffer_size=65536",
    "--level0_file_num_compaction_trigger=2",
    `--compaction_style=${style}`,
    ...extra,
    `--db=${dir}`,
  ]);
}

describe.skipIf(!run)("RocksDB's universal and FIFO trees in shale (live tools)", () => {
  it("db_bench --compaction_style=1 (universal): shale opens, reads, compacts; ldb reads back", async () => {
    const dir = join(tmp.path, "universal");
    fillrandom(dir, 1, []);
    expect(newestOptions(dir)).toContain("compaction_style=kCompactionStyleUniversal");
    const want = ldbScan(dir);
    expect(want.length).toBeGreaterThan(10000);
    // No style given: the OPTIONS file's (universal).
    const db = await DB.open(dir);
    try {
      const levels = db.debugVersion().levels;
      const nonEmpty = levels.filter((l) => l.length > 0).length;
      expect(nonEmpty + levels[0]!.length).toBeGreaterThan(1);
      expect(shaleScan(db)).toEqual(want);
      expect(shaleReverseScan(db)).toEqual([...want].reverse());
      db.put("shale-key", "shale-value");
      await db.compactRange();
      const after = db.debugVersion().levels;
      for (let l = 0; l < NUM_LEVELS - 1; l++) expect(after[l]!.length, `L${l}`).toBe(0);
    } finally {
      await db.close();
    }
    expect(newestOptions(dir)).toContain("compaction_style=kCompactionStyleUniversal");
    const back = ldbScan(dir);
    expect(back.length).toBe(want.length + 1);
    expect(back.filter((e) => Buffer.from(e.key, "hex").toString() !== "shale-key")).toEqual(want);
    // RocksDB's own reader opens shale's universal tree and its OPTIONS.
    mustRun("ldb", [`--db=${dir}`, "--try_load_options", "get", "shale-key"]);
  });

  it("db_bench --compaction_style=2 (FIFO): shale opens, reads, deletes the oldest; ldb reads back", async () => {
    const dir = join(tmp.path, "fifo");
    fillrandom(dir, 2, [
      "--fifo_compaction_max_table_files_size_mb=1024",
      "--fifo_compaction_allow_compaction=false",
    ]);
    const options = newestOptions(dir);
    expect(options).toContain("compaction_style=kCompactionStyleFIFO");
    const want = ldbScan(dir);
    let db = await DB.open(dir);
    let tables: number;
    try {
      const levels = db.debugVersion().levels;
      tables = levels[0]!.length;
      expect(tables).toBeGreaterThan(3);
      for (let l = 1; l < NUM_LEVELS; l++) expect(levels[l]!.length).toBe(0);
      expect(shaleScan(db)).toEqual(want);
    } finally {
      await db.close();
    }
    // A smaller limit: the oldest tables go, the newest stay.
    db = await DB.open(dir, { fifo: { maxTableFilesSize: 200_000, ttl: 0 } });
    let kept: ReturnType<typeof shaleScan>;
    try {
      await db.waitForCompactions();
      const l0 = db.debugVersion().levels[0]!;
      expect(l0.length).toBeLessThan(tables);
      expect(l0.reduce((n, f) => n + f.size, 0)).toBeLessThanOrEqual(200_000);
      kept = shaleScan(db);
      expect(kept.length).toBeLessThan(want.length);
      expect(kept.length).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    expect(newestOptions(dir)).toContain("max_table_files_size=200000;");
    expect(ldbScan(dir)).toEqual(kept);
  });
});
