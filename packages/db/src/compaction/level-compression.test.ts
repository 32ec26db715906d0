/**
 * Per-level compression in a running database (`compressionPerLevel`,
 * `bottommostCompression`): every table carries the codec RocksDB's rule gives its level
 * (output-compression.ts) after flushes, manual and automatic compactions and trivial moves,
 * inline (memory file system) and in worker threads (node file system); the OPTIONS file
 * records the options as RocksDB writes them and reads back; bad values are refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToString, type FileSystem, MemoryFileSystem, NodeFileSystem } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { parseOptionsFile, recordedCompression } from "../core/options-file.js";
import { DB } from "../db.js";

/** `level:codec` of every live table (RocksDB's names: NoCompression, Snappy, LZ4), by level. */
function codecs(db: DB, fs: FileSystem, dir: string): string[] {
  return db.getLiveFiles().tables.map((t) => {
    const path = join(dir, t.name);
    const r = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
    const c = r.properties.compression;
    r.close();
    return `L${t.level}:${c}`;
  });
}

function tableNumbers(db: DB): number[] {
  return db.getLiveFiles().tables.map((t) => t.number);
}

const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const value = (i: number, round: number) => `value ${round} ${i} ${"abcdefgh".repeat(8)}`;

function write(db: DB, from: number, to: number, round: number): void {
  for (let i = from; i < to; i++) db.put(key(i), value(i, round));
}

function expectValues(db: DB, n: number, round: (i: number) => number): void {
  let count = 0;
  const it = db.iterator();
  try {
    for (it.seekToFirst(); it.valid(); it.next()) {
      const i = Number(bytesToString(it.key()).slice(3));
      expect(bytesToString(it.value())).toBe(value(i, round(i)));
      count++;
    }
  } finally {
    it.close();
  }
  expect(count).toBe(n);
}

const tmp = mkdtempSync(join(tmpdir(), "shale-level-compression-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PER_LEVEL: DbOptions = {
  compression: "snappy",
  compressionPerLevel: ["none", "snappy", "lz4"],
  disableAutoCompactions: true,
};

for (const where of ["inline", "workers"] as const) {
  describe(`per-level compression (${where})`, () => {
    it("flush: per_level[0]; L1: per_level[1]; deeper: the last entry; moves keep the codec", async () => {
      const fs = where === "inline" ? new MemoryFileSystem() : new NodeFileSystem();
      const dir = where === "inline" ? "/db" : join(tmp, "levels");
      let db = await DB.open(dir, { ...PER_LEVEL, fs });
      write(db, 0, 400, 1);
      await db.flush();
      expect(codecs(db, fs, dir)).toEqual(["L0:NoCompression"]);
      await db.compactRange(); // L0 -> L1, rewritten
      expect(codecs(db, fs, dir)).toEqual(["L1:Snappy"]);
      const l1 = tableNumbers(db)[0]!;
      await db.close();

      // Every level over its target: L1 -> L2 must rewrite (snappy -> lz4), L2 -> L3 ... L5
      // -> L6 are trivial moves (lz4 both sides), so the L2 table ends in L6 unchanged.
      db = await DB.open(dir, {
        ...PER_LEVEL,
        fs,
        disableAutoCompactions: false,
        maxBytesForLevelBase: 1,
        maxBytesForLevelMultiplier: 1.5,
      });
      await db.waitForCompactions();
      expect(codecs(db, fs, dir)).toEqual(["L6:LZ4"]);
      const l6 = tableNumbers(db)[0]!;
      expect(l6).not.toBe(l1);
      expectValues(db, 400, () => 1);
      await db.close();

      // bottommostCompression: compaction outputs at the deepest level (L6) take it; a flush
      // still writes per_level[0], and the levels between keep per_level.
      db = await DB.open(dir, { ...PER_LEVEL, fs, bottommostCompression: "snappy" });
      write(db, 200, 600, 2);
      await db.flush();
      expect(codecs(db, fs, dir)).toEqual(["L0:NoCompression", "L6:LZ4"]);
      // A manual compaction goes level by level down to L6; only its last step is bottommost.
      await db.compactRange();
      expect(codecs(db, fs, dir)).toEqual(["L6:Snappy"]);
      await db.close();
      db = await DB.open(dir, {
        ...PER_LEVEL,
        fs,
        bottommostCompression: "none",
        disableAutoCompactions: false,
        level0FileNumCompactionTrigger: 1,
        maxBytesForLevelBase: 1,
        maxBytesForLevelMultiplier: 1.5,
      });
      write(db, 500, 700, 3);
      await db.flush();
      await db.waitForCompactions();
      // L0 -> L1 rewrites (none -> snappy), L1 -> L2 too (lz4), moves to L5, and L5 -> L6
      // merges into the bottommost level.
      expect(codecs(db, fs, dir)).toEqual(["L6:NoCompression"]);
      expectValues(db, 700, (i) => (i >= 500 ? 3 : i >= 200 ? 2 : 1));
      await db.close();
    });
  });
}

describe("per-level compression options", () => {
  it("a trivial move L0 -> L1 happens when both levels share the codec, not otherwise", async () => {
    for (const [perLevel, moved] of [
      [["lz4", "lz4"], true],
      [["none", "lz4"], false],
    ] as const) {
      const fs = new MemoryFileSystem();
      const db = await DB.open("/db", {
        fs,
        compressionPerLevel: [...perLevel],
        level0FileNumCompactionTrigger: 1,
      });
      write(db, 0, 100, 1);
      await db.flush();
      await db.waitForCompactions();
      expect(codecs(db, fs, "/db")).toEqual([perLevel[1] === "lz4" ? "L1:LZ4" : "L1:None"]);
      expect(db.getProperty("shale.num-compactions")).toBe(moved ? "0" : "1");
      await db.close();
    }
  });

  it("the OPTIONS file records them as RocksDB writes them, and reads back", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", {
      fs,
      compression: "lz4",
      compressionPerLevel: ["none", "lz4", "snappy"],
      bottommostCompression: "none",
    });
    await db.close();
    const text = () => {
      const name = fs
        .list("/db")
        .filter((n) => n.startsWith("OPTIONS-"))
        .sort()
        .pop()!;
      return { name, text: bytesToString(fs.readFile(`/db/${name}`)) };
    };
    let file = text();
    expect(file.text).toContain("  compression=kLZ4Compression\n");
    expect(file.text).toContain(
      "  compression_per_level=kNoCompression:kLZ4Compression:kSnappyCompression\n",
    );
    expect(file.text).toContain("  bottommost_compression=kNoCompression\n");
    expect(file.text).toContain("  level_compaction_dynamic_level_bytes=false\n");
    let cf = parseOptionsFile(file.text, file.name).find((s) => s.title === 'CFOptions "default"')!;
    expect(recordedCompression(cf, file.name)).toEqual({
      compression: "lz4",
      compressionPerLevel: ["none", "lz4", "snappy"],
      bottommostCompression: "none",
    });
    // Without them: no compression_per_level line (as RocksDB 7.8.3), bottommost disabled.
    db = await DB.open("/db", { fs });
    await db.close();
    file = text();
    expect(file.text).not.toContain("compression_per_level");
    expect(file.text).toContain("  bottommost_compression=kDisableCompressionOption\n");
    cf = parseOptionsFile(file.text, file.name).find((s) => s.title === 'CFOptions "default"')!;
    expect(recordedCompression(cf, file.name)).toEqual({
      compression: "snappy",
      compressionPerLevel: [],
      bottommostCompression: undefined,
    });
  });

  it("reads RocksDB 7.8.3's own OPTIONS (db_bench --min_level_to_compress=2 --compression_type=lz4)", () => {
    const text = [
      "[Version]",
      "  rocksdb_version=7.8.3",
      '[CFOptions "default"]',
      "  compression_per_level=kNoCompression:kNoCompression:kLZ4Compression:kLZ4Compression:kLZ4Compression:kLZ4Compression:kLZ4Compression",
      "  compression=kLZ4Compression",
      "  bottommost_compression=kDisableCompressionOption",
    ].join("\n");
    const cf = parseOptionsFile(text, "OPTIONS-000007")[1]!;
    expect(recordedCompression(cf, "OPTIONS-000007")).toEqual({
      compression: "lz4",
      compressionPerLevel: ["none", "none", "lz4", "lz4", "lz4", "lz4", "lz4"],
      bottommostCompression: undefined,
    });
    const zstd = parseOptionsFile(
      `${text.replace("bottommost_compression=kDisableCompressionOption", "bottommost_compression=kZSTD")}\n  compression_per_level=kLZ4Compression:kBrotli`,
      "OPTIONS-000009",
    )[1]!;
    expect(() => recordedCompression(zstd, "OPTIONS-000009")).toThrow(
      expect.objectContaining({ code: "Corruption", file: "OPTIONS-000009" }),
    );
  });

  it("an unknown codec is InvalidArgument naming the option and the value; a wrong type TypeError", async () => {
    const fs = new MemoryFileSystem();
    const cases: [DbOptions, RegExp | typeof TypeError][] = [
      [
        { compressionPerLevel: ["lz4", "lz5" as "lz4"] },
        /options\.compressionPerLevel entry \[1\] is "lz5"/,
      ],
      [
        { compressionPerLevel: ["lz4hc" as "lz4"] },
        /options\.compressionPerLevel entry \[0\] is "lz4hc"/,
      ],
      [
        { bottommostCompression: "brotli" as "lz4" },
        /bottommostCompression must be one of .*brotli/,
      ],
      [{ compressionPerLevel: "lz4" as unknown as ["lz4"] }, TypeError],
      [{ compressionPerLevel: [4] as unknown as ["lz4"] }, TypeError],
      [{ bottommostCompression: 4 as unknown as "lz4" }, TypeError],
    ];
    for (const [options, want] of cases) {
      const open = DB.open("/db", { fs, ...options });
      if (want === TypeError) await expect(open).rejects.toThrow(TypeError);
      else
        await expect(open).rejects.toThrow(
          expect.objectContaining({
            code: "InvalidArgument",
            message: expect.stringMatching(want as RegExp),
          }),
        );
    }
  });
});
