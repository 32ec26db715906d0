/**
 * The MANIFEST across engines: shale replays the MANIFEST RocksDB 7.8.3 wrote (column
 * families and all, as the file RocksDB wrote: log framing with masked CRC32C) to the state
 * `ldb manifest_dump` prints, and `ldb manifest_dump` (when installed) decodes the MANIFEST
 * shale writes, read from the database directory as it is.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytewiseComparator, InternalKeyComparator, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { replayManifest } from "./manifest-replay.js";

describe("RocksDB's MANIFEST in shale", () => {
  it("replays RocksDB 7.8.3's MANIFEST to the state ldb manifest_dump prints", () => {
    const data = readFileSync(
      new URL("../../testdata/manifest/rocksdb-7.8.3-column-families.MANIFEST", import.meta.url),
    );
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    fs.writeFile("/db/MANIFEST-000005", new Uint8Array(data));
    const icmp = new InternalKeyComparator(bytewiseComparator);
    const { state } = replayManifest("/db/MANIFEST-000005", { fs, dir: "/db", icmp });
    // ldb: Column family "default" (ID 0): log number 13; 14 at L0, 12 at L1.
    expect(state.logNumber).toBe(13);
    expect(state.version.toString()).toBe(
      ["L0: 14[last#202,SET .. last#202,SET]", "L1: 12[key0000#0,SET .. m#0,SET]"].join("\n"),
    );
    // Column family "other" (ID 1): log number 17; 18 at L0. "gone" was dropped.
    expect([...state.families.values()].map((f) => [f.id, f.name, f.logNumber])).toEqual([
      [1, "other", 17],
    ]);
    expect(state.families.get(1)!.version.levels[0]!.map((f) => f.number)).toEqual([18]);
    // next_file_number (as recorded) 21, last_sequence 203, max_column_family 2,
    // min_log_number_to_keep 17.
    expect(state.nextFileNumber).toBe(21);
    expect(state.lastSequence).toBe(203);
    expect(state.maxColumnFamily).toBe(2);
    expect(state.minLogNumberToKeep).toBe(17);
    expect(state.comparator).toBe("leveldb.BytewiseComparator");
  });
});

const ldb = spawnSync("ldb", ["--version"], { encoding: "utf8" });
const haveLdb = ldb.status === 0 || /ldb/.test(`${ldb.stdout}${ldb.stderr}`);
if (!haveLdb) console.log("skipping ldb manifest_dump: RocksDB's ldb is not on the PATH");

describe.skipIf(!haveLdb)("shale's MANIFEST in RocksDB's ldb", () => {
  it("ldb manifest_dump decodes every edit and the version shale wrote", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-manifest-ldb-"));
    try {
      const db = await DB.open(dir, { mergeOperator: "max" });
      for (let i = 0; i < 200; i++) db.put(`key${String(i).padStart(4, "0")}`, `v${i}`);
      await db.flush();
      for (let i = 100; i < 300; i++) db.put(`key${String(i).padStart(4, "0")}`, `w${i}`);
      await db.flush();
      await db.compactRange();
      const tables = db
        .debugVersion()
        .levels.flatMap((files, level) => files.map((f) => [level, f.number] as const));
      await db.close();
      const current = readFileSync(join(dir, "CURRENT"), "utf8").trim();
      const r = spawnSync("ldb", ["manifest_dump", `--path=${join(dir, current)}`, "--verbose"], {
        encoding: "utf8",
      });
      const out = `${r.stdout}${r.stderr}`;
      expect(out, out).not.toMatch(/Corruption|checksum mismatch|error/i);
      expect(out).toMatch(/comparator: leveldb\.BytewiseComparator/);
      expect(out).toMatch(/DeleteFile: 0 /);
      expect(tables.length).toBeGreaterThan(0);
      for (const [level, n] of tables) {
        expect(out).toMatch(new RegExp(`AddFile: ${level} ${n} `));
        expect(out).toMatch(new RegExp(`^ ${n}:\\d+\\[`, "m")); // in the dumped version
      }
      expect(out).toMatch(/last_sequence 400/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("ldb opens a shale directory through its MANIFEST and OPTIONS (merge operator included)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-manifest-ldb-"));
    try {
      // No table: what ldb reads is the MANIFEST, the OPTIONS file and the WAL.
      const db = await DB.open(dir, { mergeOperator: "max" });
      for (let i = 0; i < 10; i++) db.put(`k${i}`, `v${i}`);
      db.merge("m", "3");
      db.merge("m", "7");
      await db.close();
      const ldbOut = (...args: string[]) => {
        const r = spawnSync("ldb", [`--db=${dir}`, ...args], { encoding: "utf8" });
        return `${r.stdout}${r.stderr}`.trim();
      };
      expect(ldbOut("get", "k5")).toBe("v5");
      // MaxOperator came from shale's OPTIONS file (ldb's --try_load_options default).
      expect(ldbOut("get", "m")).toBe("7");
      expect(ldbOut("list_column_families")).toMatch(/\{default\}/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
