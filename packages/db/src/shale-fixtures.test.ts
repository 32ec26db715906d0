/**
 * shale's own binary fixtures (testdata/shale/): small tables, logs and a MANIFEST as shale
 * writes them today, made here from fixed inputs (every id and time pinned) and compared byte
 * for byte with the committed files, so a change of any on-disk format shows up as a fixture
 * diff in review. Each file is also read back and checked against the input.
 *
 * Regenerate (after a deliberate format change): `tooling/scripts/make-shale-fixtures.sh`
 * (runs this file with SHALE_REWRITE=1). The RocksDB-written fixtures (testdata/rocksdb,
 * testdata/manifest, and those of @shale/sstable, @shale/wal and @shale/bloom) are the other
 * direction: shale reading what RocksDB 7.8.3 wrote.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { internalKeyText, rewriteRequested } from "@shale/base/testing";
import { TableBuilder, type TableBuilderOptions, TableReader } from "@shale/sstable";
import { LogReader, LogWriter } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { replayManifest } from "./version/manifest-replay.js";
import { type FileMetaData, VersionEdit } from "./version/version-edit.js";
import { WriteBatch } from "./write/write-batch.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const dir = fileURLToPath(new URL("../testdata/shale/", import.meta.url));

/** Every field that would otherwise vary (time, host, ids) pinned. */
const PINNED: TableBuilderOptions = {
  creationTime: 1_764_547_200, // 2025-12-01
  dbId: "shale-fixture-db",
  dbSessionId: "SHALEFIXTURE0000001",
  dbHostId: "fixture-host",
  fileNumber: 7,
};

/** Entries of every kind, with shared prefixes, over several blocks when blocks are small. */
function tableEntries(): { key: Uint8Array; value: Uint8Array }[] {
  const out: { key: Uint8Array; value: Uint8Array }[] = [];
  for (let i = 0; i < 60; i++) {
    const user = enc(`key${String(i).padStart(3, "0")}`);
    const kind =
      i % 10 === 3
        ? ValueKind.Deletion
        : i % 10 === 7
          ? ValueKind.Merge
          : i % 17 === 5
            ? ValueKind.SingleDeletion
            : ValueKind.Value;
    const value =
      kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion
        ? new Uint8Array(0)
        : enc(`value ${i} `.repeat(1 + (i % 4)));
    out.push({ key: makeInternalKey(user, 1000 - i, kind), value });
  }
  return out;
}
const TOMBSTONES = [
  { start: enc("key010"), end: enc("key020"), seq: 2000 },
  { start: enc("key015"), end: enc("key030"), seq: 1500 },
];

function buildTable(options: TableBuilderOptions): Uint8Array {
  const fs = new MemoryFileSystem();
  const file = fs.openWritable("/t.sst");
  const b = new TableBuilder(file, { ...PINNED, ...options });
  for (const e of tableEntries()) b.add(e.key, e.value);
  for (const t of TOMBSTONES) b.addRangeTombstone(t.start, t.end, t.seq);
  b.finish();
  file.close();
  return fs.readFile("/t.sst");
}

function batches(): Uint8Array[] {
  const out: Uint8Array[] = [];
  let seq = 1;
  for (let n = 0; n < 5; n++) {
    const batch = new WriteBatch();
    batch.put(`user${n}`, `value${n}`).merge("counter", `+${n}`);
    if (n % 2 === 1) batch.delete(`user${n - 1}`);
    if (n === 3) batch.deleteRange("a", "b");
    out.push(batch.seal(seq));
    seq += batch.count;
  }
  // One record that spans blocks (32 KiB each), fragmented FIRST / MIDDLE / LAST.
  const big = new WriteBatch();
  big.put("big", "x".repeat(70_000));
  out.push(big.seal(seq));
  return out;
}

function buildLog(records: Uint8Array[]): Uint8Array {
  const fs = new MemoryFileSystem();
  const file = fs.openWritable("/000003.log");
  const w = new LogWriter(file);
  for (const r of records) w.addRecord(r);
  file.close();
  return fs.readFile("/000003.log");
}

function manifestFile(n: number, lo: string, hi: string, seq: number): FileMetaData {
  return {
    number: n,
    size: 4096 + n,
    smallest: makeInternalKey(enc(lo), seq, ValueKind.Value),
    largest: makeInternalKey(enc(hi), seq, ValueKind.Value),
    smallestSeq: seq,
    largestSeq: seq,
  };
}

function manifestEdits(): VersionEdit[] {
  const first = new VersionEdit();
  first.dbId = "shale-fixture-db";
  first.comparator = bytewiseComparator.name;
  first.logNumber = 3;
  first.nextFileNumber = 4;
  first.lastSequence = 0;
  const flush = new VersionEdit();
  flush.logNumber = 5;
  flush.nextFileNumber = 9;
  flush.lastSequence = 120;
  flush.addFile(0, manifestFile(6, "a", "m", 100));
  flush.addFile(0, manifestFile(7, "c", "z", 120));
  const compaction = new VersionEdit();
  compaction.nextFileNumber = 11;
  compaction.deleteFile(0, 6);
  compaction.deleteFile(0, 7);
  compaction.addFile(1, manifestFile(9, "a", "k", 120));
  compaction.addFile(1, manifestFile(10, "l", "z", 110));
  return [first, flush, compaction];
}

function buildManifest(): Uint8Array {
  return buildLog(manifestEdits().map((e) => e.encode()));
}

const FIXTURES: Record<string, () => Uint8Array> = {
  "table-snappy.sst": () => buildTable({ compression: "snappy" }),
  "table-uncompressed.sst": () => buildTable({ compression: "none" }),
  "table-small-blocks.sst": () =>
    buildTable({ compression: "none", blockSize: 256, blockRestartInterval: 4 }),
  "table-format-v2.sst": () => buildTable({ compression: "none", formatVersion: 2, bitsPerKey: 0 }),
  "wal-batches.log": () => buildLog(batches()),
  "MANIFEST-000001": buildManifest,
};

describe("shale's binary fixtures (testdata/shale)", () => {
  for (const [name, make] of Object.entries(FIXTURES)) {
    it(`${name} is what shale writes today`, () => {
      const bytes = make();
      const path = `${dir}${name}`;
      if (rewriteRequested()) {
        mkdirSync(dirname(path), { recursive: true });
        if (!existsSync(path) || !Buffer.from(readFileSync(path)).equals(Buffer.from(bytes))) {
          writeFileSync(path, bytes);
        }
      }
      const committed = new Uint8Array(readFileSync(path));
      if (!Buffer.from(committed).equals(Buffer.from(bytes))) {
        let at = 0;
        while (at < bytes.length && committed[at] === bytes[at]) at++;
        throw new Error(
          `${name}: shale now writes ${bytes.length} bytes where the fixture has ${committed.length}, first difference at byte ${at} — a format change? Regenerate with tooling/scripts/make-shale-fixtures.sh and review the diff`,
        );
      }
    });
  }

  it("the tables read back with their entries and tombstones", () => {
    const expected = tableEntries().map((e) => `${internalKeyText(e.key)}=${dec(e.value)}`);
    for (const name of Object.keys(FIXTURES).filter((n) => n.endsWith(".sst"))) {
      const fs = new MemoryFileSystem();
      fs.writeFile("/t.sst", new Uint8Array(readFileSync(`${dir}${name}`)));
      const reader = TableReader.open(fs.openRandomAccess("/t.sst"), {
        fileName: name,
        fileSize: fs.fileSize("/t.sst"),
      });
      const it = reader.newIterator();
      const got: string[] = [];
      for (it.seekToFirst(); it.valid(); it.next())
        got.push(`${internalKeyText(it.key())}=${dec(it.value())}`);
      it.close();
      expect(got, name).toEqual(expected);
      expect(reader.rangeTombstones().toString(), name).toBe(
        "key010-key015:{2000} key015-key020:{2000,1500} key020-key030:{1500}",
      );
      expect(reader.properties.dbId, name).toBe("shale-fixture-db");
      reader.close();
    }
  });

  it("the log reads back record by record", () => {
    const fs = new MemoryFileSystem();
    fs.writeFile("/000003.log", new Uint8Array(readFileSync(`${dir}wal-batches.log`)));
    const reader = new LogReader(fs.openSequential("/000003.log"), { fileName: "000003.log" });
    const got: Uint8Array[] = [];
    for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) got.push(r.slice());
    expect(got.map((r) => Buffer.from(r).toString("hex"))).toEqual(
      batches().map((r) => Buffer.from(r).toString("hex")),
    );
    expect(got.map((r) => WriteBatch.sequence(r))).toEqual([1, 3, 6, 8, 12, 14]);
  });

  it("the MANIFEST replays to its version", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    fs.writeFile("/db/MANIFEST-000001", new Uint8Array(readFileSync(`${dir}MANIFEST-000001`)));
    const { state } = replayManifest("/db/MANIFEST-000001", { fs, dir: "/db", icmp });
    expect(state.version.toString()).toBe(
      "L1: 9[a#120,SET .. k#120,SET] 10[l#110,SET .. z#110,SET]",
    );
    expect([state.logNumber, state.nextFileNumber, state.lastSequence]).toEqual([5, 11, 120]);
  });
});
