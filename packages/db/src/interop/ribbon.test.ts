/**
 * Ribbon filters between shale and RocksDB 10.5.1 (rocksdb-native, `RibbonFilterPolicy`):
 * - shale's `filterPolicy: { type: "ribbon" }` writes Bloom for flushes and Ribbon for
 *   compactions (bloomBeforeLevel 0, RocksDB's default), records `ribbonfilter` in each
 *   table and `filter_policy=ribbonfilter:10:0` in OPTIONS, and answers from the filters;
 * - a database rocksdb-native wrote with Ribbon filters opens in shale, whose readers use
 *   them (about 1 % of absent keys pass, never a present one fails);
 * - a database shale wrote with Ribbon filters opens in rocksdb-native, which reads every
 *   key, and `sst_dump` (RocksDB 7.8.3) shows the tables' filter policy.
 * The producer and tool parts skip, with the reason printed, where they are unavailable.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { filesEnding, missingToolsReason, mustRun, tempDir } from "./interop.test-support.js";
import { producerUnavailableReason, runProducer } from "./producers.test-support.js";

const fs = new NodeFileSystem();
const enc = new TextEncoder();
const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const hex = (s: string) => Buffer.from(s).toString("hex");

interface TableFilter {
  policy: string;
  bitsPerKey: number;
  absentPass: number;
  presentFail: number;
}

/** Each table's filter policy property, filter bits per key, and its answers. */
function tableFilters(dir: string): TableFilter[] {
  return filesEnding(dir, ".sst").map((name) => {
    const reader = TableReader.open(fs.openRandomAccess(join(dir, name)));
    try {
      const p = reader.properties;
      let absentPass = 0;
      for (let i = 0; i < 20000; i++) if (reader.mayContain(enc.encode(`absent${i}`))) absentPass++;
      // Every key of the table must pass its filter.
      let presentFail = 0;
      const it = reader.newIterator();
      for (it.seekToFirst(); it.valid(); it.next()) {
        const internal = it.key();
        if (!reader.mayContain(internal.subarray(0, internal.length - 8))) presentFail++;
      }
      it.close();
      return {
        policy: p.filterPolicy,
        bitsPerKey: (p.filterSize * 8) / p.numFilterEntries,
        absentPass: absentPass / 20000,
        presentFail,
      };
    } finally {
      reader.close();
    }
  });
}

describe("shale's Ribbon filter policy", () => {
  const tmp = tempDir("ribbon");
  afterAll(() => tmp.remove());

  it("flushes write Bloom, compactions Ribbon (bloomBeforeLevel 0); OPTIONS records ribbonfilter:10:0", async () => {
    const dir = join(tmp.path, "shale");
    const db = await DB.open(dir, {
      fs,
      filterPolicy: { type: "ribbon", bitsPerKey: 10 },
      compression: "none",
    });
    for (let i = 0; i < 4000; i++) db.put(key(i), `v${i}`);
    await db.flush();
    const [flushed] = tableFilters(dir);
    expect(flushed!.policy).toBe("ribbonfilter");
    expect(flushed!.bitsPerKey).toBeGreaterThan(9.5); // Bloom: 10 bits/key
    expect(flushed!.presentFail).toBe(0);
    await db.compactRange();
    for (let i = 0; i < 4000; i += 7) expect(Buffer.from(db.get(key(i))!).toString()).toBe(`v${i}`);
    expect(db.get("absent")).toBeUndefined();
    await db.close(); // the compaction's inputs are deleted by then
    const compacted = tableFilters(dir);
    expect(compacted).toHaveLength(1);
    const [ribbon] = compacted;
    expect(ribbon!.policy).toBe("ribbonfilter");
    expect(ribbon!.bitsPerKey).toBeLessThan(8); // Ribbon: ~7 bits/key
    expect(ribbon!.presentFail).toBe(0);
    expect(ribbon!.absentPass).toBeGreaterThan(0.003);
    expect(ribbon!.absentPass).toBeLessThan(0.02);
    const options = filesEnding(dir, "").filter((f) => /^OPTIONS-\d+$/.test(f));
    const text = readFileSync(join(dir, options.at(-1)!), "utf8");
    expect(text).toMatch(/^\s*filter_policy=ribbonfilter:10:0$/m);
  });

  it("bloomBeforeLevel -1 writes Ribbon for flushes too", async () => {
    const dir = join(tmp.path, "always");
    const db = await DB.open(dir, {
      fs,
      filterPolicy: { type: "ribbon", bitsPerKey: 10, bloomBeforeLevel: -1 },
    });
    for (let i = 0; i < 3000; i++) db.put(key(i), "v");
    await db.flush();
    const [t] = tableFilters(dir);
    expect(t!.bitsPerKey).toBeLessThan(8);
    await db.close();
  });

  it("refuses both filterPolicy and bloomBitsPerKey, and bad values", async () => {
    const dir = join(tmp.path, "bad");
    await expect(
      DB.open(dir, { fs, bloomBitsPerKey: 10, filterPolicy: { type: "ribbon" } }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
    await expect(
      DB.open(dir, { fs, filterPolicy: { type: "ribbon", bitsPerKey: 0.5 } }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
    await expect(
      DB.open(dir, { fs, filterPolicy: { type: "cuckoo" } as never }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
  });
});

const nativeMissing = producerUnavailableReason("rocksdb-native");
if (nativeMissing !== undefined) console.log(`ribbon interop: skipped — ${nativeMissing}`);

describe.skipIf(nativeMissing !== undefined)(
  "Ribbon filters with RocksDB 10.5.1 (rocksdb-native)",
  () => {
    const tmp = tempDir("ribbon-native");
    afterAll(() => tmp.remove());
    // Plans go in one command-line argument (at most 128 KiB): 1500 puts fit.
    const N = 1500;

    it("a database rocksdb-native wrote with RibbonFilterPolicy(10, -1): shale reads its filters and keys", async () => {
      const dir = join(tmp.path, "native");
      runProducer("rocksdb-native", {
        dir,
        // -1: Ribbon for the flush too (a one-table compactRange is a trivial move, which
        // keeps the flush's filter).
        columnFamilies: {
          default: { ribbonBitsPerKey: 10, ribbonBloomBeforeLevel: -1, tableFormatVersion: 5 },
        },
        steps: [
          ...Array.from({ length: N }, (_, i) => ({
            op: "put" as const,
            key: hex(key(i)),
            value: hex(`v${i}`),
          })),
          { op: "flush" },
          { op: "compact" },
          { op: "close" },
        ],
      });
      const tables = tableFilters(dir);
      expect(tables.length).toBeGreaterThan(0);
      for (const t of tables) {
        expect(t.policy).toBe("ribbonfilter");
        expect(t.bitsPerKey).toBeLessThan(8); // Ribbon after the compaction
        expect(t.presentFail).toBe(0);
        expect(t.absentPass).toBeLessThan(0.02);
      }
      const db = await DB.open(dir, { fs, readOnly: true });
      for (let i = 0; i < N; i += 5) expect(Buffer.from(db.get(key(i))!).toString()).toBe(`v${i}`);
      await db.close();
    });

    it("a database shale wrote with Ribbon filters: rocksdb-native reads every key; sst_dump names the policy", async () => {
      const dir = join(tmp.path, "shale");
      const db = await DB.open(dir, {
        fs,
        filterPolicy: { type: "ribbon", bitsPerKey: 10, bloomBeforeLevel: -1 },
        compression: "none",
      });
      for (let i = 0; i < N; i++) db.put(key(i), `v${i}`);
      await db.flush();
      await db.compactRange();
      await db.close();
      expect(tableFilters(dir).every((t) => t.bitsPerKey < 8)).toBe(true);
      const keys = Array.from({ length: N }, (_, i) => hex(key(i)));
      const [got] = runProducer("rocksdb-native", {
        dir,
        columnFamilies: { default: { ribbonBitsPerKey: 10, tableFormatVersion: 5 } },
        steps: [{ op: "get", keys: [...keys, hex("absent")] }],
      });
      expect(got).toEqual([...Array.from({ length: N }, (_, i) => hex(`v${i}`)), null]);
      if (missingToolsReason() === undefined) {
        for (const sst of filesEnding(dir, ".sst")) {
          const out = mustRun("sst_dump", [`--file=${join(dir, sst)}`, "--show_properties"]);
          expect(out).toMatch(/filter policy name: ribbonfilter/);
        }
      }
    });
  },
);
