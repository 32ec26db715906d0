/**
 * Checkpoints and restored backups are RocksDB databases: `ldb scan` (RocksDB 7.8.3) opens a
 * shale checkpoint and a restored backup — their MANIFEST prefix, OPTIONS and WAL prefixes —
 * and sees exactly the keys of the moment they were taken; a checkpoint of a directory
 * RocksDB wrote (the fillrandom fixture) reads the same in ldb as the fixture's dump.
 * Skipped, with the reason printed, where the tools are not on the PATH.
 */
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { BackupEngine } from "../ops/backup/engine.js";
import {
  copyFixture,
  expectedEntries,
  ldbScan,
  missingToolsReason,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`interop ops: skipped — ${toolsMissing}`);

describe.skipIf(toolsMissing !== undefined)("checkpoints and backups open in RocksDB's ldb", () => {
  const tmp = tempDir("ops");
  afterAll(() => tmp.remove());
  const fs = new NodeFileSystem();

  it("a checkpoint and a restored backup of a live shale database: ldb sees the state of their moment", async () => {
    const dir = join(tmp.path, "live");
    const db = await DB.open(dir, { fs, writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 3000; i++)
      db.put(`key${String(i).padStart(5, "0")}`, `value-${i}`.repeat(3));
    await db.flush();
    for (let i = 0; i < 200; i++) db.delete(`key${String(i * 7).padStart(5, "0")}`);
    db.deleteRange("key02000", "key02100");
    db.put("wal-only", "in the WAL"); // not in any table: from the copied WAL prefix
    const want = shaleScan(db);
    const checkpoint = db.checkpoint(join(tmp.path, "ck"));
    const engine = BackupEngine.open(join(tmp.path, "backups"), { fs });
    const backup = engine.createBackup(db);
    for (let i = 0; i < 500; i++) db.put(`later${i}`, "after the moment");
    await checkpoint;
    const { id } = await backup;
    await engine.restoreBackup(id, join(tmp.path, "restored"));
    await db.close();
    expect(want.some((e) => e.key === Buffer.from("wal-only").toString("hex"))).toBe(true);
    expect(ldbScan(join(tmp.path, "ck"))).toEqual(want);
    expect(ldbScan(join(tmp.path, "restored"))).toEqual(want);
  });

  it("a checkpoint of a directory RocksDB wrote reads in ldb as the fixture's dump", async () => {
    const dir = copyFixture("fillrandom", tmp.path);
    const db = await DB.open(dir, { fs });
    await db.checkpoint(join(tmp.path, "fixture-ck"));
    await db.close();
    expect(ldbScan(join(tmp.path, "fixture-ck"))).toEqual(expectedEntries("fillrandom"));
  });
});
