/**
 * Atomic flush with RocksDB 7.8.3, both ways:
 * - RocksDB's atomically flushed database (testdata/rocksdb/atomic-flush: db_bench over three
 *   families with atomic_flush=true, its MANIFEST ending in an atomic group) opens in shale on
 *   every machine, every family as `ldb scan` read it, with atomic_flush read back from its
 *   OPTIONS file (shale's next flush is an atomic group too);
 * - where the tools are on the PATH, `ldb` reads shale's atomically flushed databases: its
 *   `manifest_dump` shows shale's groups, and each family scans as shale reads it.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import {
  copyDir,
  copyFixture,
  expectedEntries,
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) {
  console.log(`interop atomic flush: the ldb checks skipped — ${toolsMissing}`);
}

const tmp = tempDir("atomic-flush");
afterAll(() => tmp.remove());

const FAMILIES = ["default", "column_family_name_000001", "column_family_name_000002"];

/** `ldb manifest_dump` of the database's MANIFEST: each edit's family and group count. */
function dumpGroups(dir: string): string[] {
  const manifest = readdirSync(dir).find((n) => n.startsWith("MANIFEST-"))!;
  const out = mustRun("ldb", ["manifest_dump", "--verbose", `--path=${join(dir, manifest)}`]);
  const groups: string[] = [];
  for (const edit of out.split("VersionEdit {").slice(1)) {
    const group = /AtomicGroup: (\d+) entries remains/.exec(edit);
    if (group === null) continue;
    const cf = /ColumnFamily: (\d+)/.exec(edit);
    groups.push(`${cf === null ? 0 : cf[1]}:${group[1]}`);
  }
  return groups;
}

describe("atomic flush interop (RocksDB 7.8.3)", () => {
  it("RocksDB's atomically flushed database opens in shale with every family, and keeps atomic_flush", async () => {
    const dir = copyFixture("atomic-flush", tmp.path);
    const db = await DB.open(dir, { createIfMissing: false });
    try {
      expect(db.listColumnFamilies()).toEqual(FAMILIES);
      for (const cf of FAMILIES) {
        const file = cf === "default" ? "expected.jsonl" : `expected-${cf}.jsonl`;
        expect(shaleScan(db.columnFamily(cf)), cf).toEqual(expectedEntries("atomic-flush", file));
      }
      // atomic_flush=true from RocksDB's OPTIONS file: one family's flush takes the others.
      db.put("shale-default", "d");
      db.columnFamily(FAMILIES[2]!).put("shale-two", "2");
      const l0 = (cf: string) =>
        Number(db.columnFamily(cf).getProperty("shale.num-files-at-level0"));
      const before = FAMILIES.map(l0);
      await db.columnFamily(FAMILIES[1]!).flush();
      // Every family had WAL data from RocksDB's last run, so every family flushed.
      expect(FAMILIES.map(l0)).toEqual(before.map((n) => n + 1));
    } finally {
      await db.close();
    }
  });

  it.skipIf(toolsMissing !== undefined)(
    "a database db_bench fills with atomic_flush (groups from its flushes, more writes in the WAL) reads in shale as in ldb",
    async () => {
      const options = join(tmp.path, "atomic.ini");
      writeFileSync(
        options,
        [
          "[Version]",
          "  rocksdb_version=7.8.3",
          "  options_file_version=1.1",
          "[DBOptions]",
          "  atomic_flush=true",
          "  create_if_missing=true",
          "  create_missing_column_families=true",
          '[CFOptions "default"]',
          "  write_buffer_size=65536",
          "  disable_auto_compactions=true",
          '[TableOptions/BlockBasedTable "default"]',
          "",
        ].join("\n"),
      );
      const dir = join(tmp.path, "db-bench-atomic");
      mustRun("db_bench", [
        "--benchmarks=fillrandom,flush,overwrite",
        `--options_file=${options}`,
        "--num_column_families=3",
        "--num=4000",
        "--value_size=50",
        "--seed=7",
        `--db=${dir}`,
      ]);
      // Every flush (of a full memtable, or the explicit one) took every family: groups.
      expect(dumpGroups(dir).filter((g) => g.endsWith(":0")).length).toBeGreaterThan(0);
      // ldb on a copy (its open replays and flushes the WAL); shale on the original.
      const scanned = copyDir(dir, join(tmp.path, "db-bench-atomic-ldb"));
      const want = FAMILIES.map((cf) => ldbScan(scanned, cf));
      const db = await DB.open(dir, { createIfMissing: false });
      try {
        expect(db.listColumnFamilies()).toEqual(FAMILIES);
        FAMILIES.forEach((cf, i) => {
          expect(shaleScan(db.columnFamily(cf)), cf).toEqual(want[i]);
        });
        expect(want.every((entries) => entries.length > 0)).toBe(true);
      } finally {
        await db.close();
      }
    },
  );

  it.skipIf(toolsMissing !== undefined)(
    "ldb reads shale's atomic groups and every family of the database",
    async () => {
      const dir = join(tmp.path, "shale-atomic");
      const names = ["default", "busy", "idle", "other"];
      const db = await DB.open(dir, {
        atomicFlush: true,
        createMissingColumnFamilies: true,
        columnFamilies: { busy: {}, idle: {}, other: {} },
      });
      const busy = db.columnFamily("busy");
      const other = db.columnFamily("other");
      for (let i = 0; i < 40; i++) {
        const b = new WriteBatch();
        const k = `k${String(i).padStart(3, "0")}`;
        b.put(k, `d${i}`).put(k, `b${i}`, busy).put(k, `o${i}`, other);
        db.write(b);
      }
      await db.flush(); // default, busy, other: 0:2, 1:1, 3:0
      busy.put("late", "in the WAL only");
      other.delete("k000");
      await busy.flush(); // busy, other: 1:1, 3:0
      db.put("wal-only", "unflushed");
      await db.close();
      expect(dumpGroups(dir)).toEqual(["0:2", "1:1", "3:0", "1:1", "3:0"]);
      const again = await DB.open(dir, { createIfMissing: false });
      const views = new Map(names.map((name) => [name, shaleScan(again.columnFamily(name))]));
      await again.close();
      for (const name of names) expect(ldbScan(dir, name), name).toEqual(views.get(name));
      expect(ldbScan(dir, "idle")).toEqual([]);
      expect(ldbScan(dir, "busy")).toHaveLength(41);
      expect(ldbScan(dir, "other")).toHaveLength(39);
    },
  );
});
