/**
 * Fractional Bloom bits per key between shale and RocksDB 10.5.1 (rocksdb-native):
 * - a database shale wrote with `filterPolicy: { type: "bloom", bitsPerKey: 9.9 }` opens in
 *   rocksdb-native, whose own filter reader and key hash pass every key shale wrote;
 * - a database rocksdb-native wrote with `BloomFilterPolicy(9.9)`: its OPTIONS file says
 *   `filter_policy=bloomfilter:9.9:false`, as shale's does, its filters are sized by 9900
 *   millibits, and shale's readers pass every key of them.
 * Skipped, with the reason printed, where rocksdb-native is unavailable.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { filesEnding, tempDir } from "./interop.test-support.js";
import { producerUnavailableReason, runProducer } from "./producers.test-support.js";

const fs = new NodeFileSystem();
const enc = new TextEncoder();
const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const hex = (s: string) => Buffer.from(s).toString("hex");
const N = 1500;

/** The newest OPTIONS file's filter_policy value. */
function optionsFilterPolicy(dir: string): string | undefined {
  const names = filesEnding(dir, "")
    .filter((f) => /^OPTIONS-\d+$/.test(f))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  const text = readFileSync(join(dir, names.at(-1)!), "utf8");
  return /^\s*filter_policy=(.*)$/m.exec(text)?.[1]?.trim();
}

const nativeMissing = producerUnavailableReason("rocksdb-native");
if (nativeMissing !== undefined)
  console.log(`fractional bloom interop: skipped — ${nativeMissing}`);

describe.skipIf(nativeMissing !== undefined)(
  "fractional Bloom bits per key with RocksDB 10.5.1 (rocksdb-native)",
  () => {
    const tmp = tempDir("fractional-bloom");
    afterAll(() => tmp.remove());

    it("shale writes bloomfilter:9.9:false; RocksDB reads every key through shale's filters", async () => {
      const dir = join(tmp.path, "shale");
      const db = await DB.open(dir, {
        fs,
        filterPolicy: { type: "bloom", bitsPerKey: 9.9 },
        compression: "none",
      });
      for (let i = 0; i < N; i++) db.put(key(i), `v${i}`);
      await db.flush();
      await db.close();
      expect(optionsFilterPolicy(dir)).toBe("bloomfilter:9.9:false");
      const keys = Array.from({ length: N }, (_, i) => hex(key(i)));
      const [got] = runProducer("rocksdb-native", {
        dir,
        columnFamilies: { default: { bloomBitsPerKey: 9.9, tableFormatVersion: 5 } },
        steps: [{ op: "get", keys: [...keys, hex("absent")] }],
      });
      expect(got).toEqual([...Array.from({ length: N }, (_, i) => hex(`v${i}`)), null]);
    });

    it("RocksDB's BloomFilterPolicy(9.9): its OPTIONS say bloomfilter:9.9:false; shale passes every key", async () => {
      const dir = join(tmp.path, "native");
      runProducer("rocksdb-native", {
        dir,
        columnFamilies: { default: { bloomBitsPerKey: 9.9, tableFormatVersion: 5 } },
        steps: [
          ...Array.from({ length: N }, (_, i) => ({
            op: "put" as const,
            key: hex(key(i)),
            value: hex(`v${i}`),
          })),
          { op: "flush" },
          { op: "close" },
        ],
      });
      expect(optionsFilterPolicy(dir)).toBe("bloomfilter:9.9:false");
      const tables = filesEnding(dir, ".sst");
      expect(tables.length).toBeGreaterThan(0);
      for (const name of tables) {
        const reader = TableReader.open(fs.openRandomAccess(join(dir, name)));
        try {
          const p = reader.properties;
          expect(p.filterPolicy).toBe("bloomfilter");
          expect(p.filterSize).toBe(Math.ceil((p.numFilterEntries * 9900) / 512000) * 64 + 5);
          const it = reader.newIterator();
          let present = 0;
          for (it.seekToFirst(); it.valid(); it.next()) {
            const internal = it.key();
            expect(reader.mayContain(internal.subarray(0, internal.length - 8))).toBe(true);
            present++;
          }
          it.close();
          expect(present).toBeGreaterThan(0);
          let absentPass = 0;
          for (let i = 0; i < 20000; i++)
            if (reader.mayContain(enc.encode(`absent${i}`))) absentPass++;
          expect(absentPass / 20000).toBeLessThan(0.02);
        } finally {
          reader.close();
        }
      }
      const db = await DB.open(dir, { fs, readOnly: true });
      for (let i = 0; i < N; i += 7) expect(Buffer.from(db.get(key(i))!).toString()).toBe(`v${i}`);
      await db.close();
    });
  },
);
