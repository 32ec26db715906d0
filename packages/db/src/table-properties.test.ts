/**
 * The RocksDB table properties the database fills in when it builds a table (flush, inline
 * or in a worker, and compaction): `rocksdb.column.family.id`/`.name` (0, "default"),
 * `rocksdb.merge.operator` (RocksDB's name of the merge operator, "nullptr" without one) and
 * `rocksdb.original.file.number` — what RocksDB's own tables carry and sst_dump shows.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem, NodeFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import type { DbOptions } from "./options.js";

type Fs = MemoryFileSystem | NodeFileSystem;

function tableProperties(fs: Fs, dir: string) {
  return fs
    .list(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => {
      const path = join(dir, f);
      const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
      const p = reader.properties;
      reader.close();
      return { number: Number.parseInt(f, 10), properties: p };
    });
}

async function writeTables(fs: Fs, dir: string, options: DbOptions): Promise<void> {
  const db = await DB.open(dir, { fs, ...options });
  try {
    for (let i = 0; i < 100; i++) db.put(`k${i}`, "v");
    if (options.mergeOperator !== undefined) db.merge("counter", new Uint8Array(8));
    await db.flush();
    for (let i = 50; i < 150; i++) db.put(`k${i}`, "w");
    await db.flush();
    await db.compactRange();
  } finally {
    await db.close();
  }
}

describe("table properties the database writes", () => {
  it("column family, file number; no merge operator is 'nullptr' (memory fs, inline)", async () => {
    const fs = new MemoryFileSystem();
    await writeTables(fs, "/db", {});
    const tables = tableProperties(fs, "/db");
    expect(tables.length).toBeGreaterThan(0);
    for (const { number, properties } of tables) {
      expect(properties.columnFamilyId).toBe(0);
      expect(properties.columnFamilyName).toBe("default");
      expect(properties.mergeOperatorName).toBe("nullptr");
      expect(properties.originalFileNumber).toBe(number);
    }
  });

  it("the same from worker threads (node fs), with the merge operator's RocksDB name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-props-"));
    try {
      const fs = new NodeFileSystem();
      await writeTables(fs, dir, { mergeOperator: "uint64add" });
      const tables = tableProperties(fs, dir);
      expect(tables.length).toBeGreaterThan(0);
      for (const { number, properties } of tables) {
        expect(properties.columnFamilyId).toBe(0);
        expect(properties.columnFamilyName).toBe("default");
        expect(properties.mergeOperatorName).toBe("UInt64AddOperator");
        expect(properties.originalFileNumber).toBe(number);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
