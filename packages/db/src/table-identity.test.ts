/**
 * The tables a database writes say who wrote them, under RocksDB's property names (what
 * `sst_dump --show_properties` prints): column family 0 "default", the merge operator's
 * RocksDB name, the database's IDENTITY, this open's session id and the file's number.
 */
import { bytesToString, MemoryFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

function tableProperties(fs: MemoryFileSystem, path: string) {
  const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
  try {
    return reader.properties;
  } finally {
    reader.close();
  }
}

describe("table identity properties", () => {
  it("flushes and compactions record column family, merge operator, db and session ids, file number", async () => {
    const fs = new MemoryFileSystem();
    const sessions: string[] = [];
    for (let open = 0; open < 2; open++) {
      const db = await DB.open("/db", { fs, mergeOperator: "uint64add" });
      for (let i = 0; i < 100; i++) db.put(`k${i}-${open}`, "v");
      await db.flush();
      if (open === 1) await db.compactRange();
      const numbers = db
        .debugVersion()
        .levels.flat()
        .map((f) => f.number);
      const id = bytesToString(fs.readFile("/db/IDENTITY")).trim();
      for (const number of numbers) {
        const p = tableProperties(fs, db.tablePath(number));
        expect(p.columnFamilyId).toBe(0);
        expect(p.columnFamilyName).toBe("default");
        expect(p.mergeOperatorName).toBe("UInt64AddOperator");
        expect(p.dbId).toBe(id);
        expect(p.dbSessionId).toMatch(/^[0-9A-Z]{20}$/);
        expect(p.originalFileNumber).toBe(number);
        if (open === 0 || numbers.length === 1) sessions.push(p.dbSessionId);
      }
      await db.close();
    }
    expect(new Set(sessions).size).toBe(2); // a new session id per open
  });

  it("without a merge operator the table says nullptr", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.flush();
    const [file] = db.debugVersion().levels[0]!;
    expect(tableProperties(fs, db.tablePath(file!.number)).mergeOperatorName).toBe("nullptr");
    await db.close();
  });
});
