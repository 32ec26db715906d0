/**
 * RocksDB's own sst_dump reads the tables shale writes: `--command=check` iterates every
 * entry, `--show_properties` decodes the properties block, and `--command=scan
 * --verify_checksum` lists the entries shale wrote with every block checksum verified (in
 * 7.8.3, `check` does not report a bad data-block checksum; the scan does, see the damage
 * test). Runs when `sst_dump` (rocksdb-tools) is
 * on the PATH; otherwise the tests are skipped with the reason printed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toBytes, ValueKind } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { ChecksumType } from "../format/format.js";
import type { TableBuilderOptions } from "./builder-options.js";
import { buildTable, ikey } from "./table.test-support.js";

function findSstDump(): string | undefined {
  const r = spawnSync("sst_dump", ["--help"], { encoding: "utf8" });
  return r.error === undefined ? "sst_dump" : undefined;
}

const sstDump = findSstDump();
if (sstDump === undefined) {
  console.log("sst-dump.test.ts skipped: sst_dump (rocksdb-tools) is not on the PATH");
}

function sample(options: TableBuilderOptions): { bytes: Uint8Array; entries: number } {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < 2000; i++) {
    const kind =
      i % 7 === 3 ? ValueKind.Deletion : i % 11 === 5 ? ValueKind.Merge : ValueKind.Value;
    keys.push(ikey(`key${String(i).padStart(6, "0")}`, 5000 - i, kind));
    values.push(
      kind === ValueKind.Deletion ? new Uint8Array(0) : toBytes(`value-${i}-${"y".repeat(i % 50)}`),
    );
  }
  // Several versions of one user key, so that (with small blocks) it spans blocks.
  const t = buildTable(
    keys,
    values,
    { blockSize: 1024, creationTime: 1764547200, fileNumber: 7, ...options },
    [
      { start: toBytes("key000100"), end: toBytes("key000150"), seq: 9000 },
      { start: toBytes("key001000"), end: toBytes("key001001"), seq: 9001 },
    ],
  );
  return { bytes: t.fs.readFile(t.path), entries: keys.length };
}

function versions(): Uint8Array {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let s = 100; s > 0; s--) {
    keys.push(ikey("k", s, ValueKind.Value));
    values.push(toBytes(`version-${s}-${"v".repeat(30)}`));
  }
  const t = buildTable(keys, values, { blockSize: 256, compression: "none" });
  return t.fs.readFile(t.path);
}

const dir = mkdtempSync(join(tmpdir(), "shale-sst-dump-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** sst_dump's stdout and stderr (it reports errors on stderr and exits 0 on corruption). */
function run(file: string, ...args: string[]): string {
  const r = spawnSync(sstDump!, [`--file=${file}`, ...args], { encoding: "utf8" });
  if (r.error !== undefined) throw r.error;
  expect(r.status).toBe(0);
  return r.stdout + r.stderr;
}

const variants: [string, TableBuilderOptions][] = [
  ["fv5-crc32c-snappy", { compression: "snappy" }],
  ["fv5-lz4", { compression: "lz4" }],
  ["fv5-crc32c-none-nofilter", { compression: "none", bitsPerKey: 0 }],
  ["fv5-xxhash", { checksumType: ChecksumType.xxHash, compression: "none" }],
  ["fv5-xxh3", { checksumType: ChecksumType.XXH3 }],
  ["fv5-restart1", { blockRestartInterval: 1, compression: "none" }],
  ["fv4", { formatVersion: 4, compression: "none" }],
  ["fv3", { formatVersion: 3, compression: "none" }],
  ["fv2", { formatVersion: 2, compression: "none", bitsPerKey: 0 }],
  ["fv5-zstd", { compression: "zstd", zstdLevel: 1 }],
  ["fv5-zstd-dict", { compression: "zstd", zstdMaxDictBytes: 4096 }],
];

/** RocksDB's names of the codecs, as sst_dump prints them. */
const ALGO_NAMES: Record<string, string> = {
  none: "NoCompression",
  snappy: "Snappy",
  lz4: "LZ4",
  zstd: "ZSTD",
};

describe.skipIf(sstDump === undefined)("sst_dump reads shale's tables", () => {
  for (const [name, options] of variants) {
    it(`${name}: check, show_properties, scan`, () => {
      const { bytes, entries } = sample(options);
      const file = join(dir, `${name}.sst`);
      writeFileSync(file, bytes);
      const check = run(file, "--command=check", "--verify_checksum");
      expect(check).not.toMatch(/corrupt|error|mismatch|not supported/i);
      const props = run(file, "--show_properties");
      expect(props).not.toMatch(/corrupt|error|mismatch/i);
      // RocksDB counts the two range tombstones as entries.
      expect(props).toContain(`# entries: ${entries + 2}`);
      expect(props).toContain("# range deletions: 2");
      expect(props).toContain("comparator name: leveldb.BytewiseComparator");
      expect(props).toContain("creation time: 1764547200");
      expect(props).toContain("original file number: 7");
      expect(props).toContain(
        `SST file compression algo: ${ALGO_NAMES[options.compression ?? "snappy"] ?? "Snappy"}`,
      );
      if (options.zstdMaxDictBytes !== undefined) {
        expect(props).toContain(`max_dict_bytes=${options.zstdMaxDictBytes};`);
      }
      expect(props).toMatch(/# shale\.smallest\.key: 0x6B6579303030303030/);
      const scan = run(file, "--command=scan", "--output_hex", "--verify_checksum");
      expect(scan).not.toMatch(/corrupt|error|mismatch/i);
      const lines = scan.split("\n").filter((l) => l.includes(" seq:"));
      // The point entries, each once, in order (sst_dump prints range tombstones apart).
      const points = lines.filter((l) => !l.includes("type:15"));
      expect(points.length).toBe(entries);
      expect(points[0]).toMatch(/^'6B6579303030303030' seq:5000, type:1 =>/);
    });
  }

  it("the checks see damage: a flipped data byte is reported by the scan", () => {
    const { bytes } = sample({ compression: "none" });
    const damaged = bytes.slice();
    damaged[20] = damaged[20]! ^ 0x10;
    const file = join(dir, "damaged.sst");
    writeFileSync(file, damaged);
    expect(run(file, "--command=scan", "--verify_checksum")).toMatch(
      /Corruption: block checksum mismatch/,
    );
  });

  it("a user key spanning blocks (index keys with sequence numbers)", () => {
    const file = join(dir, "versions.sst");
    writeFileSync(file, versions());
    expect(run(file, "--command=check", "--verify_checksum")).not.toMatch(/corrupt|error/i);
    expect(run(file, "--command=scan", "--verify_checksum")).not.toMatch(/corrupt|error/i);
    const props = run(file, "--show_properties");
    expect(props).toContain("index block size (user-key? 0, delta-value? 1)");
    const scan = run(file, "--command=scan");
    expect(scan.split("\n").filter((l) => l.includes(" seq:")).length).toBe(100);
  });
});
