/**
 * `db_write_buffer_size` in the OPTIONS file both ways: RocksDB 7.8.3's `ldb` loads the
 * OPTIONS file of a shale database opened with `dbWriteBufferSize` (every family), writes
 * the budget into the OPTIONS file of its own open, and shale takes it from that file when an
 * open gives none. (db_bench's `--db_write_buffer_size` passes a WriteBufferManager instead,
 * so its OPTIONS files record 0.) Skipped, with the reason printed, where the tools are not on the PATH.
 */
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { missingToolsReason, mustRun, tempDir } from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`interop write budget: skipped — ${toolsMissing}`);

describe.skipIf(toolsMissing !== undefined)("db_write_buffer_size and RocksDB", () => {
  const tmp = tempDir("write-budget");
  afterAll(() => tmp.remove());
  const fs = new NodeFileSystem();

  it("ldb loads the OPTIONS file of a database with a budget", async () => {
    const dir = join(tmp.path, "shale");
    const db = await DB.open(dir, {
      fs,
      dbWriteBufferSize: 8 << 20,
      createMissingColumnFamilies: true,
      columnFamilies: { cf1: {} },
    });
    db.put("a", "1");
    db.columnFamily("cf1").put("b", "2");
    await db.flush();
    await db.close();
    expect(mustRun("ldb", [`--db=${dir}`, "--try_load_options", "scan"])).toContain("a : 1");
    expect(
      mustRun("ldb", [`--db=${dir}`, "--try_load_options", "--column_family=cf1", "scan"]),
    ).toContain("b : 2");
  });

  it("RocksDB keeps the budget in the OPTIONS file it writes, and shale takes it from there", async () => {
    const dir = join(tmp.path, "round-trip");
    const db = await DB.open(dir, { fs, dbWriteBufferSize: 4 << 20 });
    db.put("a", "1");
    await db.close();
    // ldb opens with the loaded options and writes its own OPTIONS file.
    mustRun("ldb", [`--db=${dir}`, "--try_load_options", "put", "b", "2"]);
    const names = fs.list(dir).filter((n) => n.startsWith("OPTIONS-"));
    names.sort();
    const newest = new TextDecoder().decode(fs.readFile(join(dir, names[names.length - 1]!)));
    expect(newest).toMatch(/rocksdb_version=7\./);
    expect(newest).toMatch(/^\s*db_write_buffer_size=4194304$/m);
    const again = await DB.open(dir, { fs });
    expect(again.getProperty("shale.db-write-buffer-size")).toBe(String(4 << 20));
    expect(Number(again.getProperty("shale.db-write-buffer-usage"))).toBeGreaterThan(0);
    await again.close();
  });
});
