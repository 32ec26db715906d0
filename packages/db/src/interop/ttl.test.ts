/**
 * TTL databases across RocksDB 7.8.3's `ldb` (run where the tools are on the PATH; skipped
 * with the reason printed elsewhere):
 *
 * | direction                   | how                                  | check                               |
 * |-----------------------------|--------------------------------------|-------------------------------------|
 * | shale writes, RocksDB reads | `ldb --ttl scan --timestamp`         | every key and value, with the write time shale stamped |
 * |                             | `ldb --hex scan` (no --ttl)          | the stored values end with the 4-byte LE timestamp |
 * | RocksDB writes, shale reads | `ldb --ttl put` (and a merge)        | shale opens with `ttl`, reads the values without suffix; refuses to open without `ttl` |
 *
 * ldb 7.8.3 prints "Failed: ldb doesn't support TTL DB with multiple column families" and
 * exits 1 after a `--ttl` command that worked (it reopens the database to list families):
 * the checks read its output, not its status.
 */
import { ShaleError } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import { missingToolsReason, mustRun, runTool, tempDir } from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`ttl interop: skipped — ${toolsMissing}`);
const tmp = tempDir("ttl");
afterAll(() => tmp.remove());

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** `ldb --ttl` output lines that are entries (`key : value`, optionally after a date). */
function ttlLines(dir: string, args: string[]): string[] {
  const r = runTool("ldb", [`--db=${dir}`, "--ttl", ...args]);
  return r.stdout
    .split("\n")
    .filter((l) => l.includes(" : "))
    .map((l) => l.trim());
}

describe.skipIf(toolsMissing !== undefined)("TTL databases with RocksDB's ldb", () => {
  it("ldb --ttl reads a shale TTL database, with shale's write times", async () => {
    const dir = `${tmp.path}/shale-ttl`;
    const written = 0x6b151c31; // 2026-12-06, stored as 31 1c 15 6b
    const db = await DB.open(dir, { ttl: 3600, clock: { nowSeconds: () => written } });
    db.put("apple", "red");
    db.write(new WriteBatch().put("banana", "yellow").put("cherry", ""));
    db.put("gone", "x");
    db.delete("gone");
    await db.flush();
    db.put("date", "brown"); // in the WAL only
    await db.close();

    expect(ttlLines(dir, ["scan"])).toEqual([
      "apple : red",
      "banana : yellow",
      "cherry :", // an empty value (the line trimmed)
      "date : brown",
    ]);
    // --timestamp prints each value's time (ctime of the suffix, in the local zone).
    const stamped = ttlLines(dir, ["scan", "--timestamp"]);
    expect(stamped).toHaveLength(4);
    const when = new Date(written * 1000);
    for (const l of stamped) expect(l).toContain(String(when.getFullYear()));
    // Without --ttl the suffix is part of the value: 31 1c 15 6b = 1796532389 LE.
    const raw = mustRun("ldb", [`--db=${dir}`, "--hex", "scan"]);
    expect(raw).toContain("0x6170706C65 : 0x726564311C156B");
  });

  it("shale reads a TTL database ldb wrote, and refuses it without ttl", async () => {
    const dir = `${tmp.path}/rocksdb-ttl`;
    ttlLines(dir, ["--create_if_missing", "put", "k1", "v1"]);
    ttlLines(dir, ["put", "k2", "value two"]);
    let refused: unknown;
    try {
      await DB.open(dir);
    } catch (e) {
      refused = e;
    }
    expect(ShaleError.isInstance(refused) && refused.code).toBe("InvalidArgument");
    const db = await DB.open(dir, { ttl: 3600 });
    expect(text(db.get("k1"))).toBe("v1");
    expect([...db.iterator()].map(([k, v]) => `${text(k)}=${text(v)}`)).toEqual([
      "k1=v1",
      "k2=value two",
    ]);
    db.put("k3", "from shale");
    await db.flush();
    await db.compactRange(); // nothing is stale: all kept
    expect(db.getMany(["k1", "k2", "k3"]).map(text)).toEqual(["v1", "value two", "from shale"]);
    await db.close();
    expect(ttlLines(dir, ["scan"])).toEqual(["k1 : v1", "k2 : value two", "k3 : from shale"]);
  });

  it("expired values ldb wrote are dropped by shale's compaction", async () => {
    const dir = `${tmp.path}/rocksdb-expire`;
    ttlLines(dir, ["--create_if_missing", "put", "old", "1"]);
    const now = Math.floor(Date.now() / 1000);
    const db = await DB.open(dir, { ttl: 60, clock: { nowSeconds: () => now + 3600 } });
    expect(text(db.get("old"))).toBe("1"); // not hidden on read
    db.put("new", "2"); // stamped an hour ahead: fresh
    await db.flush();
    await db.compactRange();
    expect(db.get("old")).toBeUndefined();
    expect(text(db.get("new"))).toBe("2");
    await db.close();
  });
});
