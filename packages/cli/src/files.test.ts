// The file tools (sst, manifest, wal) through the built bin, on files of a real database —
// whole and damaged.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DB } from "@shale/db";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonLines, shale, tempDir } from "./bin.test-support.js";
import { ExitCode } from "./exit-codes.js";

const key = (i: number) => `key${String(i).padStart(4, "0")}`;

let dir: string;
let table: string;
let wal: string;

function flipByte(file: string, offset: number): string {
  const copy = join(tempDir(), file.split("/").pop()!);
  const bytes = readFileSync(file);
  bytes[offset]! ^= 0x40;
  writeFileSync(copy, bytes);
  return copy;
}

beforeAll(async () => {
  dir = join(tempDir(), "db");
  const db = await DB.open(dir, {
    disableAutoCompactions: true,
    blockSize: 256,
    compression: "none",
  });
  for (let i = 0; i < 100; i++) db.put(key(i), `value${i}`);
  db.delete(key(7));
  db.deleteRange(key(50), key(60));
  await db.flush();
  // Left in the WAL (close does not flush): a batch, a put, a merge-free delete.
  db.write(
    new (await import("@shale/db")).WriteBatch().put("w1", "one").put("w2", "two").delete(key(1)),
  );
  db.put("w3", "three");
  db.deleteRange("a", "b");
  await db.close();
  const files = readdirSync(dir);
  table = join(dir, files.find((f) => f.endsWith(".sst"))!);
  wal = join(
    dir,
    files
      .filter((f) => f.endsWith(".log"))
      .sort()
      .pop()!,
  );
});

describe("sst", () => {
  it("properties: the table's properties, in text and JSON", () => {
    const text = shale(["sst", "properties", table]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Table Properties (${table}`);
    expect(text.stdout).toContain("  numEntries: 90\n");
    expect(text.stdout).toContain("  numRangeDeletions: 1\n");
    expect(text.stdout).toContain("  comparatorName: leveldb.BytewiseComparator\n");
    const json = jsonLines(shale(["--json", "sst", "properties", table]).stdout)[0] as {
      properties: Record<string, unknown>;
      smallestKey: unknown;
      largestKey: unknown;
    };
    expect(json.properties).toMatchObject({ numEntries: 90, numDeletions: 1, formatVersion: 5 });
    expect(json.smallestKey).toEqual({ key: key(0), seq: 1, kind: "SET" });
    expect(json.largestKey).toEqual({ key: key(99), seq: 100, kind: "SET" });
  });

  it("layout and index: the footer, the meta blocks, one line per data block", () => {
    const layout = jsonLines(shale(["--json", "sst", "layout", table]).stdout)[0] as {
      formatVersion: number;
      metaBlocks: { name: string }[];
    };
    expect(layout.formatVersion).toBe(5);
    expect(layout.metaBlocks.map((m) => m.name)).toEqual([
      "fullfilter.rocksdb.BuiltinBloomFilter",
      "rocksdb.properties",
      "rocksdb.range_del",
    ]);
    const index = jsonLines(shale(["--json", "sst", "index", table]).stdout)[0] as {
      blocks: { offset: number; size: number; separator: { key: string } }[];
    };
    expect(index.blocks.length).toBeGreaterThan(5); // 256-byte blocks
    expect(index.blocks[0]!.offset).toBe(0);
    for (let i = 1; i < index.blocks.length; i++) {
      const prev = index.blocks[i - 1]!;
      expect(index.blocks[i]!.offset).toBe(prev.offset + prev.size + 5); // 5-byte block trailers
    }
    const text = shale(["sst", "index", table]).stdout.split("\n");
    expect(text[0]).toBe(`Index (${index.blocks.length} data blocks):`);
    expect(text[1]).toMatch(/^ {2}block 0: key\d+ @ \d+ : \w+ {2}offset 0 size \d+$/);
  });

  it("scan: every entry with its seq and kind, then the range tombstones", () => {
    const lines = shale(["sst", "scan", table]).stdout.trimEnd().split("\n");
    expect(lines.length).toBe(91); // key0007's put and key0050..59 were dropped by the flush
    expect(lines[0]).toBe(`${key(0)} @ 1 : SET => value0`);
    expect(lines).toContain(`${key(7)} @ 101 : DEL => `);
    expect(lines[90]).toBe(`[${key(50)}, ${key(60)}) @ 102 : RANGEDEL`);
    const json = jsonLines(shale(["--json", "sst", "scan", table, "--limit", "2"]).stdout);
    expect(json).toEqual([
      { key: key(0), seq: 1, kind: "SET", value: "value0" },
      { key: key(1), seq: 2, kind: "SET", value: "value1" },
      { rangeDeletion: true, start: key(50), end: key(60), seq: 102 },
    ]);
  });

  it("check: 0 for a whole table; 3 naming the file and offset for a flipped byte", () => {
    const ok = shale(["sst", "check", table]);
    expect(ok.code).toBe(ExitCode.Ok);
    expect(ok.stdout).toMatch(
      /^OK .*: 90 entries in \d+ data blocks; \d+ blocks, checksums verified\n$/,
    );
    const damaged = flipByte(table, 20);
    const bad = shale(["sst", "check", damaged]);
    expect(bad.code).toBe(ExitCode.Corruption);
    expect(bad.stderr).toContain("Corruption");
    expect(bad.stderr).toContain(damaged);
    const json = jsonLines(shale(["--json", "sst", "check", damaged]).stderr)[0] as {
      error: Record<string, unknown>;
    };
    expect(json.error).toMatchObject({ exitCode: 3, code: "Corruption", file: damaged, offset: 0 });
    expect(shale(["sst", "check", join(tempDir(), "none.sst")]).code).toBe(ExitCode.NotFound);
  });

  it.skipIf(spawnSync("ldb", ["--version"]).status !== 0)(
    "reads a table RocksDB wrote (ldb)",
    () => {
      const rocks = join(tempDir(), "rocks");
      expect(
        spawnSync("ldb", [`--db=${rocks}`, "--create_if_missing", "put", "rk", "rv"]).status,
      ).toBe(0);
      expect(spawnSync("ldb", [`--db=${rocks}`, "compact"]).status).toBe(0);
      const sst = readdirSync(rocks).find((f) => f.endsWith(".sst"))!;
      const scan = shale(["sst", "scan", join(rocks, sst)]);
      expect(scan.code, scan.stderr).toBe(0);
      expect(scan.stdout).toBe("rk @ 0 : SET => rv\n");
      expect(shale(["sst", "check", join(rocks, sst)]).code).toBe(0);
    },
  );
});

describe("manifest", () => {
  it("dumps the edits and the version they make; a directory means its current MANIFEST", () => {
    const text = shale(["manifest", dir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^VersionEdit #0 @ 0 \{\n {2}Comparator: leveldb\.BytewiseComparator\n/,
    );
    expect(text.stdout).toMatch(
      /--- level 0 --- 1 files\n \d+:\d+\[1 \.\. 102\]\['key0000 @ 1 : SET' \.\. 'key0099 @ 100 : SET'\]\n$/,
    );
    const json = jsonLines(shale(["--json", "manifest", dir]).stdout)[0] as {
      file: string;
      edits: { offset: number; newFiles?: unknown[] }[];
      levels: { level: number; files: { number: number }[] }[];
      lastSequence: number;
      torn: string[];
    };
    expect(json.file).toMatch(/MANIFEST-\d+$/);
    expect(json.torn).toEqual([]);
    expect(json.levels).toEqual([
      { level: 0, files: [expect.objectContaining({ size: readFileSync(table).length })] },
    ]);
    expect(shale(["manifest", json.file, "--edits-only"]).stdout).not.toContain("--- level");
  });

  it("exits 3 for a damaged record, 1 for a missing file", () => {
    const json = jsonLines(shale(["--json", "manifest", dir]).stdout)[0] as {
      file: string;
      edits: { offset: number }[];
    };
    const damaged = flipByte(json.file, json.edits[1]!.offset + 9);
    const bad = shale(["manifest", damaged]);
    expect(bad.code).toBe(ExitCode.Corruption);
    expect(bad.stderr).toContain("checksum mismatch");
    expect(shale(["manifest", join(tempDir(), "MANIFEST-000001")]).code).toBe(ExitCode.NotFound);
  });
});

describe("wal", () => {
  it("dumps each record's batch: seq, count and operations", () => {
    const text = shale(["wal", wal]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      [
        "@0 seq 103 count 3 bytes 37",
        "  PUT w1 => one",
        "  PUT w2 => two",
        `  DELETE ${key(1)}`,
        "@44 seq 106 count 1 bytes 22",
        "  PUT w3 => three",
        "@73 seq 107 count 1 bytes 17",
        "  DELETE_RANGE [a, b)",
        "3 records, 5 operations",
        "",
      ].join("\n"),
    );
    const json = jsonLines(shale(["--json", "--hex", "wal", wal]).stdout);
    expect(json[1]).toEqual({
      offset: 44,
      seq: 106,
      count: 1,
      bytes: 22,
      ops: [{ op: "PUT", keyHex: "7733", valueHex: "7468726565" }],
    });
    expect(shale(["wal", wal, "--no-values"]).stdout).toContain("  PUT w3\n");
  });

  it("exits 3 at a damaged record followed by good ones; --skip-corrupted skips and reports it", () => {
    const damaged = flipByte(wal, 10);
    const bad = shale(["wal", damaged]);
    expect(bad.code).toBe(ExitCode.Corruption);
    expect(bad.stderr).toContain(damaged);
    const skipped = shale(["wal", damaged, "--skip-corrupted"]);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain("2 records, 2 operations");
    expect(skipped.stderr).toMatch(/dropped \d+ bytes at offset 0 \(checksum mismatch\)/);
  });
});
