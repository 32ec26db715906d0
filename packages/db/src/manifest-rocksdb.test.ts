/**
 * The MANIFEST across engines: shale replays the MANIFEST RocksDB 7.8.3 wrote (column
 * families and all) to the state `ldb manifest_dump` prints, and `ldb manifest_dump` (when
 * installed) decodes the MANIFEST shale writes.
 *
 * The log framing's checksum is the `log` helper's business (masked CRC32C, as RocksDB's):
 * until @shale/wal writes it, these tests re-frame the records — the payloads, the version
 * edits, are what is tested here. Re-framing is idempotent, so the tests hold either way.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytewiseComparator, InternalKeyComparator, MemoryFileSystem } from "@shale/base";
import { LogWriter } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import { replayManifest } from "./manifest-replay.js";

/** The payloads of a one-block log (FULL records only), checksums not checked. */
function payloads(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let p = 0; p + 7 <= data.length; ) {
    const n = data[p + 4]! | (data[p + 5]! << 8);
    if (n === 0 && data[p + 6] === 0) break;
    out.push(data.subarray(p + 7, p + 7 + n));
    p += 7 + n;
  }
  return out;
}

const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

function maskedCrc32c(type: number, payload: Uint8Array): number {
  let c = ~0 >>> 0;
  c = CRC32C_TABLE[(c ^ type) & 0xff]! ^ (c >>> 8);
  for (const b of payload) c = CRC32C_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  c = ~c >>> 0;
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** The same records framed with RocksDB's checksum (one block: the MANIFESTs here are small). */
function withRocksdbChecksums(data: Uint8Array): Uint8Array {
  const parts: number[] = [];
  for (const p of payloads(data)) {
    const crc = maskedCrc32c(1, p);
    parts.push(crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, crc >>> 24);
    parts.push(p.length & 0xff, p.length >>> 8, 1, ...p);
  }
  expect(parts.length).toBeLessThan(32768);
  return Uint8Array.from(parts);
}

describe("RocksDB's MANIFEST in shale", () => {
  it("replays RocksDB 7.8.3's MANIFEST to the state ldb manifest_dump prints", () => {
    const data = readFileSync(
      new URL("../testdata/manifest/rocksdb-7.8.3-column-families.MANIFEST", import.meta.url),
    );
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const w = new LogWriter(fs.openWritable("/db/MANIFEST-000005"));
    for (const p of payloads(new Uint8Array(data))) w.addRecord(p);
    w.close();
    const icmp = new InternalKeyComparator(bytewiseComparator);
    const { state } = replayManifest("/db/MANIFEST-000005", { fs, dir: "/db", icmp });
    // ldb: Column family "default" (ID 0): log number 13; 14 at L0, 12 at L1.
    expect(state.logNumber).toBe(13);
    expect(state.version.toString()).toBe(
      ["L0: 14[last#202,SET .. last#202,SET]", "L1: 12[key0000#0,SET .. m#0,SET]"].join("\n"),
    );
    // Column family "other" (ID 1): log number 17; 18 at L0. "gone" was dropped.
    expect([...state.families.values()].map((f) => [f.id, f.name, f.logNumber])).toEqual([
      [1, "other", 17],
    ]);
    expect([...state.families.get(1)!.levels[0]!.keys()]).toEqual([18]);
    // next_file_number (as recorded) 21, last_sequence 203, max_column_family 2,
    // min_log_number_to_keep 17.
    expect(state.nextFileNumber).toBe(21);
    expect(state.lastSequence).toBe(203);
    expect(state.maxColumnFamily).toBe(2);
    expect(state.minLogNumberToKeep).toBe(17);
    expect(state.comparator).toBe("leveldb.BytewiseComparator");
  });
});

const ldb = spawnSync("ldb", ["--version"], { encoding: "utf8" });
const haveLdb = ldb.status === 0 || /ldb/.test(`${ldb.stdout}${ldb.stderr}`);
if (!haveLdb) console.log("skipping ldb manifest_dump: RocksDB's ldb is not on the PATH");

describe.skipIf(!haveLdb)("shale's MANIFEST in RocksDB's ldb", () => {
  it("ldb manifest_dump decodes every edit and the version shale wrote", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-manifest-ldb-"));
    try {
      const db = await DB.open(dir, { mergeOperator: "max" });
      for (let i = 0; i < 200; i++) db.put(`key${String(i).padStart(4, "0")}`, `v${i}`);
      await db.flush();
      for (let i = 100; i < 300; i++) db.put(`key${String(i).padStart(4, "0")}`, `w${i}`);
      await db.flush();
      await db.compactRange();
      const tables = db
        .debugVersion()
        .levels.flatMap((files, level) => files.map((f) => [level, f.number] as const));
      await db.close();
      const current = readFileSync(join(dir, "CURRENT"), "utf8").trim();
      const framed = join(dir, "framed.MANIFEST");
      writeFileSync(framed, withRocksdbChecksums(new Uint8Array(readFileSync(join(dir, current)))));
      const r = spawnSync("ldb", ["manifest_dump", `--path=${framed}`, "--verbose"], {
        encoding: "utf8",
      });
      const out = `${r.stdout}${r.stderr}`;
      expect(out, out).not.toMatch(/Corruption|checksum mismatch|error/i);
      expect(out).toMatch(/comparator: leveldb\.BytewiseComparator/);
      expect(out).toMatch(/DeleteFile: 0 /);
      expect(tables.length).toBeGreaterThan(0);
      for (const [level, n] of tables) {
        expect(out).toMatch(new RegExp(`AddFile: ${level} ${n} `));
        expect(out).toMatch(new RegExp(`^ ${n}:\\d+\\[`, "m")); // in the dumped version
      }
      expect(out).toMatch(/last_sequence 400/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
