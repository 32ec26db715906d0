/**
 * The change feed and RocksDB's WALs: a batch RocksDB 7.8.3's `ldb` wrote to its WAL is
 * taken by `WriteBatch.fromData` as it is (its `data()` the record byte for byte), and
 * `db.getUpdatesSince` on the RocksDB directory hands it out; and the other way, `ldb
 * dump_wal` reads the WAL records shale's `data()` describes. Skipped, with the reason
 * printed, where the tools are not on the PATH.
 */
import { join } from "node:path";
import { NodeFileSystem, toHex } from "@shale/base";
import { LogReader } from "@shale/wal";
import { afterAll, describe, expect, it } from "vitest";
import { WAL_DECOMPRESSOR } from "../core/wal-codecs.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import { missingToolsReason, mustRun, tempDir } from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`interop change feed: skipped — ${toolsMissing}`);

const text = (b: Uint8Array) => Buffer.from(b).toString();

/** Every record of every WAL in `dir` (copies). */
function walRecords(fs: NodeFileSystem, dir: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const name of fs.list(dir).filter((n) => n.endsWith(".log"))) {
    const file = fs.openSequential(join(dir, name));
    try {
      const reader = new LogReader(file, { decompressor: WAL_DECOMPRESSOR });
      for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord())
        out.push(r.slice());
    } finally {
      file.close();
    }
  }
  return out;
}

describe.skipIf(toolsMissing !== undefined)("the change feed and RocksDB's WALs", () => {
  const tmp = tempDir("change-feed");
  afterAll(() => tmp.remove());
  const fs = new NodeFileSystem();

  it("fromData takes a batch RocksDB wrote; getUpdatesSince hands it out", async () => {
    const dir = join(tmp.path, "rocks");
    mustRun("ldb", [`--db=${dir}`, "--create_if_missing", "put", "first", "flushed"]);
    // Each ldb run flushes what it recovered: this batch is the one left in the WAL.
    mustRun("ldb", [`--db=${dir}`, "batchput", "a", "1", "bb", "22", "ccc", "333"]);
    const records = walRecords(fs, dir).filter((r) => WriteBatch.countOf(r) > 0);
    expect(records.length).toBe(1);
    const rec = records[0]!;
    const batch = WriteBatch.fromData(rec);
    expect(toHex(batch.data())).toBe(toHex(rec));
    expect(batch.count).toBe(3);
    expect(
      [...batch].map((op) => [op.type, text(op.key), "value" in op ? text(op.value) : ""]),
    ).toEqual([
      ["put", "a", "1"],
      ["put", "bb", "22"],
      ["put", "ccc", "333"],
    ]);
    const seq = WriteBatch.sequence(rec);
    const db = await DB.open(dir, { fs, walTtlSeconds: 3600 });
    const feed = [...db.getUpdatesSince(seq + 1)];
    expect(feed.map((u) => u.sequence)).toEqual([seq]);
    expect(toHex(feed[0]!.batch.data())).toBe(toHex(rec));
    await db.close();
  });

  it("RocksDB loads the OPTIONS file that records WAL_ttl_seconds and WAL_size_limit_MB", async () => {
    const dir = join(tmp.path, "options");
    const db = await DB.open(dir, { fs, walTtlSeconds: 60, walSizeLimitMb: 16 });
    db.put("k", "v");
    await db.flush(); // a WAL into archive/
    await db.close();
    expect(fs.list(join(dir, "archive")).length).toBe(1);
    const out = mustRun("ldb", [`--db=${dir}`, "--try_load_options", "scan"]);
    expect(out).toContain("k : v");
  });

  it("ldb dump_wal reads the batches shale wrote as data() has them", async () => {
    const dir = join(tmp.path, "shale");
    const db = await DB.open(dir, { fs, mergeOperator: "stringappend" });
    const batch = new WriteBatch()
      .put("k1", "v1")
      .delete("k2")
      .merge("k3", "m")
      .deleteRange("a", "b");
    db.write(batch);
    const data = batch.data();
    await db.close();
    expect(walRecords(fs, dir).map(toHex)).toContain(toHex(data));
    let dump = "";
    for (const name of fs.list(dir).filter((n) => n.endsWith(".log")))
      dump += mustRun("ldb", [
        "dump_wal",
        `--walfile=${join(dir, name)}`,
        "--header",
        "--print_value",
      ]);
    const seq = WriteBatch.sequence(data);
    expect(dump).toMatch(new RegExp(`^${seq},4,${data.length},`, "m"));
    expect(dump).toContain(
      "PUT(0) : 0x6B31 : 0x7631 DELETE(0) : 0x6B32 MERGE(0) : 0x6B33 : 0x6D DELETE_RANGE(0) : 0x61 0x62",
    );
  });
});
