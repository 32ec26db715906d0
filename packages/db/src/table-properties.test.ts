/**
 * The RocksDB table properties the database fills in when it builds a table (flush, inline
 * or in a worker, and compaction): `rocksdb.column.family.id`/`.name` (0, "default"),
 * `rocksdb.merge.operator` (RocksDB's name of the merge operator, "nullptr" without one) and
 * `rocksdb.original.file.number`, `rocksdb.db.id` (the IDENTITY) and `rocksdb.db.session.id`
 * (20 base-36 characters, new for every open) — what RocksDB's own tables carry and sst_dump
 * shows.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToString, MemoryFileSystem, NodeFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";

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

/** The ids every table of `dir` must carry: the IDENTITY, and one session id per open. */
function expectIdentity(fs: Fs, dir: string, tables: ReturnType<typeof tableProperties>) {
  const id = bytesToString(fs.readFile(join(dir, "IDENTITY"))).trim();
  for (const { properties } of tables) {
    expect(properties.dbId).toBe(id);
    expect(properties.dbSessionId).toMatch(/^[0-9A-Z]{20}$/);
  }
  expect(new Set(tables.map((t) => t.properties.dbSessionId)).size).toBe(1); // one open
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
    expectIdentity(fs, "/db", tables);
  });

  it("a new session id for every open", async () => {
    const fs = new MemoryFileSystem();
    await writeTables(fs, "/db", {});
    const first = tableProperties(fs, "/db")[0]!.properties.dbSessionId;
    const db = await DB.open("/db", { fs });
    db.put("z", "1");
    await db.flush();
    await db.close();
    const sessions = new Set(tableProperties(fs, "/db").map((t) => t.properties.dbSessionId));
    expect(sessions.has(first)).toBe(true);
    expect(sessions.size).toBe(2);
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
      expectIdentity(fs, dir, tables);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
