/**
 * External SST files between shale and RocksDB 7.8.3's own tools:
 *
 * | direction                 | tool                                          | checked                                  |
 * |---------------------------|-----------------------------------------------|------------------------------------------|
 * | shale writes, RocksDB reads | sst_dump --command=scan --show_properties   | every entry at seq 0, external_sst_file.version 2, global_seqno 0 |
 * | shale writes, RocksDB ingests | ldb ingest_extern_sst, then ldb scan and idump | the keys, the deletion and range deletion applied to older data; a global seqno when overlapping, 0 kept otherwise |
 * | RocksDB writes, shale reads | ldb write_extern_sst                        | TableReader reads the entries; externalFileInfo is { version 2, globalSeqno 0 } |
 *
 * Runs when `sst_dump` and `ldb` (Debian rocksdb-tools) are on the PATH; otherwise the tests
 * are skipped with the reason printed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToString, NodeFileSystem, parseInternalKey, ValueKind } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { externalFileInfo } from "../format/external-file.js";
import { SstFileWriter } from "./sst-file-writer.js";
import { TableReader } from "./table-reader.js";

function onPath(tool: string): boolean {
  return spawnSync(tool, ["--help"], { encoding: "utf8" }).error === undefined;
}

const missing = ["sst_dump", "ldb"].filter((t) => !onPath(t));
if (missing.length > 0) {
  console.log(
    `sst-file-writer-interop.test.ts skipped: ${missing.join(" and ")} (rocksdb-tools) not on the PATH`,
  );
}

const dir = mkdtempSync(join(tmpdir(), "shale-sst-file-writer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(tool: string, args: string[], input?: string): string {
  const r = spawnSync(tool, args, { encoding: "utf8", input });
  if (r.error !== undefined) throw r.error;
  const out = r.stdout + r.stderr;
  expect(r.status, out).toBe(0);
  return out;
}

describe.skipIf(missing.length > 0)("SstFileWriter and RocksDB 7.8.3's tools", () => {
  function shaleFile(name: string): string {
    const path = join(dir, name);
    const w = new SstFileWriter({ compression: "snappy" });
    w.open(path);
    for (let i = 0; i < 300; i++) {
      const key = `key${String(i).padStart(4, "0")}`;
      if (i >= 100 && i < 200) continue;
      if (i === 7) w.delete(key);
      else w.put(key, `value${i}`);
    }
    // Every entry has the same sequence number, so this deletes only what the database held
    // before the file came in, never the file's own keys.
    w.deleteRange("key0100", "key0200");
    expect(w.finish()).toMatchObject({ entries: 200, rangeDelEntries: 1 });
    return path;
  }

  it("sst_dump scans shale's external file and shows its external-file properties", () => {
    const path = shaleFile("dump.sst");
    const out = run("sst_dump", [`--file=${path}`, "--command=scan", "--show_properties"]);
    expect(out).toContain("'key0000' seq:0, type:1 => value0");
    expect(out).toContain("'key0007' seq:0, type:0 =>");
    expect(out).toContain("'key0299' seq:0, type:1 => value299");
    expect(out).toContain("# rocksdb.external_sst_file.version: 0x02000000");
    expect(out).toContain("# rocksdb.external_sst_file.global_seqno: 0x0000000000000000");
    expect(out).toContain("column family ID: N/A");
    expect(out).toContain("# range deletions: 1");
  });

  it("ldb ingest_extern_sst takes shale's file, and ldb scan shows its keys", () => {
    const path = shaleFile("ingest.sst");
    const db = join(dir, "ingest-db");
    run("ldb", [`--db=${db}`, "--create_if_missing", "put", "aaa", "before"]);
    run("ldb", [`--db=${db}`, "put", "key0150", "deleted by the file's range deletion"]);
    run("ldb", [`--db=${db}`, "put", "key0007", "deleted by the file's deletion"]);
    run("ldb", [`--db=${db}`, "put", "key0008", "overwritten by the file"]);
    run("ldb", [`--db=${db}`, "ingest_extern_sst", path]);
    const lines = run("ldb", [`--db=${db}`, "scan"])
      .trim()
      .split("\n");
    const expected = ["aaa : before"];
    for (let i = 0; i < 300; i++) {
      if (i === 7 || (i >= 100 && i < 200)) continue;
      expected.push(`key${String(i).padStart(4, "0")} : value${i}`);
    }
    expect(lines).toEqual(expected);
    // It overlapped what the database held, so RocksDB gave it a global sequence number
    // above those (shown for each of its keys), instead of the 0 it was written with.
    const dump = run("ldb", [`--db=${db}`, "idump"]);
    expect(dump).toMatch(/'key0008' seq:[1-9]\d*, type:1 => value8/);
  });

  it("ldb ingest_extern_sst takes shale's file into an empty database (no global seqno)", () => {
    const path = shaleFile("fresh.sst");
    const db = join(dir, "fresh-db");
    run("ldb", [`--db=${db}`, "--create_if_missing", "put", "zzz", "after"]);
    run("ldb", [`--db=${db}`, "delete", "zzz"]);
    run("ldb", [`--db=${db}`, "compact"]);
    run("ldb", [`--db=${db}`, "ingest_extern_sst", path]);
    const lines = run("ldb", [`--db=${db}`, "scan"])
      .trim()
      .split("\n");
    expect(lines).toHaveLength(199); // 200 entries, one of them a deletion
    expect(lines[0]).toBe("key0000 : value0");
    expect(lines.at(-1)).toBe("key0299 : value299");
    const dump = run("ldb", [`--db=${db}`, "idump"]);
    expect(dump).toContain("'key0008' seq:0, type:1 => value8");
  });

  it("shale reads a file ldb write_extern_sst wrote, with its external-file properties", () => {
    const db = join(dir, "write-db");
    run("ldb", [`--db=${db}`, "--create_if_missing", "put", "x", "y"]);
    const path = join(dir, "rocksdb.sst");
    run("ldb", [`--db=${db}`, "write_extern_sst", path], "k1 ==> v1\nk2 ==> v2\nk3 ==> v3\n");
    const fs = new NodeFileSystem();
    const reader = TableReader.open(fs.openRandomAccess(path), { fileName: path });
    try {
      expect(externalFileInfo(reader.properties)).toEqual({ version: 2, globalSeqno: 0 });
      const it = reader.newIterator();
      const entries: string[] = [];
      for (it.seekToFirst(); it.valid(); it.next()) {
        const p = parseInternalKey(it.key());
        expect(p.seq).toBe(0);
        expect(p.kind).toBe(ValueKind.Value);
        entries.push(`${bytesToString(p.userKey)}=${bytesToString(it.value())}`);
      }
      it.close();
      expect(entries).toEqual(["k1=v1", "k2=v2", "k3=v3"]);
    } finally {
      reader.close();
    }
  });
});
