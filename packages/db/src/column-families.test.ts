/**
 * A directory with column families other than `default` (as RocksDB leaves it): shale opens
 * every family, replays each family's WAL records into its own memtable, never deletes their
 * tables or the WALs they still need, and writes them into its own MANIFEST.
 */
import { readdirSync, readFileSync } from "node:fs";
import { MemoryFileSystem } from "@shale/base";
import { LogReader, LogWriter } from "@shale/wal";
import { describe, expect, it, vi } from "vitest";
import { DB } from "./db.js";
import { VersionEdit } from "./version/version-edit.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const text = (s: string) => new TextEncoder().encode(s);

function currentManifest(fs: MemoryFileSystem): string {
  return `/db/${new TextDecoder().decode(fs.readFile("/db/CURRENT")).trim()}`;
}

function readEdits(fs: MemoryFileSystem, path: string): VersionEdit[] {
  const reader = new LogReader(fs.openSequential(path));
  const out: VersionEdit[] = [];
  for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord())
    out.push(VersionEdit.decode(r));
  return out;
}

/** A RocksDB-style batch: `records` are [cf, key, value]; cf 0 as a plain Value record. */
function batch(seq: number, records: [number, string, string][]): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push(Math.floor(seq / 2 ** (8 * i)) & 0xff);
  out.push(records.length, 0, 0, 0);
  for (const [cf, k, v] of records) {
    if (cf === 0) out.push(0x01);
    else out.push(0x05, cf);
    out.push(k.length, ...text(k), v.length, ...text(v));
  }
  return Uint8Array.from(out);
}

/** A shale database, then column families "other" (with a table and WAL data) and "gone" (dropped) added. */
async function withFamilies(): Promise<{ fs: MemoryFileSystem; lastSeq: number }> {
  const fs = new MemoryFileSystem();
  const db = await DB.open("/db", { fs });
  db.put("a", "1");
  await db.flush();
  db.put("b", "2");
  const lastSeq = db.latestSequence;
  await db.close();
  const path = currentManifest(fs);
  const edits = readEdits(fs, path);
  const logNumber = Math.max(...edits.map((e) => e.logNumber ?? 0));
  const add = new VersionEdit();
  add.comparator = "leveldb.BytewiseComparator";
  add.columnFamily = 1;
  add.columnFamilyAdd = "other";
  add.logNumber = logNumber;
  const files = new VersionEdit();
  files.columnFamily = 1;
  files.logNumber = logNumber;
  files.addFile(0, {
    number: 900,
    size: 123,
    smallest: Uint8Array.from([...text("ck"), 0x01, 1, 0, 0, 0, 0, 0, 0]),
    largest: Uint8Array.from([...text("ck"), 0x01, 1, 0, 0, 0, 0, 0, 0]),
    smallestSeq: 1,
    largestSeq: 1,
  });
  const gone = new VersionEdit();
  gone.columnFamily = 2;
  gone.columnFamilyAdd = "gone";
  const drop = new VersionEdit();
  drop.columnFamily = 2;
  drop.columnFamilyDrop = true;
  drop.maxColumnFamily = 2;
  const counters = new VersionEdit();
  counters.nextFileNumber = 1000;
  counters.lastSequence = lastSeq;
  const w = new LogWriter(fs.openWritable("/db/MANIFEST-000901"));
  for (const e of [...edits, add, files, gone, drop, counters]) w.addRecord(e.encode());
  w.close();
  fs.writeFile("/db/CURRENT", text("MANIFEST-000901\n"));
  fs.remove(path);
  fs.writeFile("/db/000900.sst", new Uint8Array(123));
  // A WAL holding a write to "other" beside one to default.
  const wal = new LogWriter(fs.openWritable("/db/000950.log"));
  wal.addRecord(
    batch(lastSeq + 1, [
      [1, "ck2", "cv2"],
      [0, "d", "dv"],
    ]),
  );
  wal.close();
  return { fs, lastSeq };
}

describe("column families other than default", () => {
  it("opens every family, replays each one's WAL records, and keeps their files", async () => {
    const { fs, lastSeq } = await withFamilies();
    const warnings: string[] = [];
    const spy = vi.spyOn(process, "emitWarning").mockImplementation((w) => {
      warnings.push(String(w));
    });
    const db = await DB.open("/db", { fs });
    spy.mockRestore();
    expect(db.getProperty("shale.ignored-column-families")).toBe("");
    expect(warnings).toEqual([]);
    expect(db.listColumnFamilies()).toEqual(["default", "other"]);
    expect(str(db.get("a"))).toBe("1");
    expect(str(db.get("b"))).toBe("2");
    // Each family's record of the WAL went to its own memtable.
    expect(str(db.get("d"))).toBe("dv");
    expect(db.get("ck2")).toBeUndefined();
    expect(str(db.columnFamily("other").get("ck2"))).toBe("cv2");
    expect(db.latestSequence).toBe(lastSeq + 2);
    db.put("x", "1");
    expect(str(db.get("x"))).toBe("1");
    await db.close();
    // Their table and the WAL they still need are kept; the new MANIFEST carries them.
    expect(fs.exists("/db/000900.sst")).toBe(true);
    expect(fs.exists("/db/000950.log")).toBe(true);
    const edits = readEdits(fs, currentManifest(fs));
    const added = edits.filter((e) => e.columnFamilyAdd !== undefined);
    expect(added.map((e) => [e.columnFamily, e.columnFamilyAdd])).toEqual([[1, "other"]]);
    const theirs = edits.filter((e) => e.columnFamily === 1 && e.newFiles.length > 0);
    expect(theirs.flatMap((e) => e.newFiles.map((f) => f.file.number))).toEqual([900]);
    expect(edits.some((e) => e.maxColumnFamily === 2)).toBe(true);
    // And again: nothing of theirs is lost across opens.
    const again = await DB.open("/db", { fs });
    expect(again.getProperty("shale.ignored-column-families")).toBe("");
    expect(str(again.get("d"))).toBe("dv");
    expect(str(again.columnFamily("other").get("ck2"))).toBe("cv2");
    await again.close();
    expect(fs.exists("/db/000900.sst")).toBe(true);
    expect(fs.exists("/db/000950.log")).toBe(true);
  });

  it("opens the directory RocksDB 7.8.3 left (families default and other, a WAL to replay)", async () => {
    const fixture = new URL("../testdata/manifest/rocksdb-7.8.3-cf-dir/", import.meta.url);
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    for (const n of readdirSync(fixture))
      fs.writeFile(`/db/${n}`, new Uint8Array(readFileSync(new URL(n, fixture))));
    const spy = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const db = await DB.open("/db", { fs, mergeOperator: "max" });
    spy.mockRestore();
    expect(db.listColumnFamilies()).toEqual(["default", "other"]);
    // 14; 'tail', replayed from the WAL, stays in the memtable (avoidFlushDuringRecovery).
    expect(db.getProperty("shale.num-files-at-level0")).toBe("1");
    expect(db.getProperty("shale.num-files-at-level1")).toBe("1"); // 12
    expect(db.latestSequence).toBe(204);
    expect(str(db.get("tail"))).toBe("y"); // RocksDB's WAL record, replayed
    db.put("x", "1");
    await db.close();
    // "other"'s table and the WAL its data may still need (its log number is 17) are kept.
    expect(fs.exists("/db/000018.sst")).toBe(true);
    expect(fs.exists("/db/000017.log")).toBe(true);
    const edits = readEdits(fs, currentManifest(fs));
    expect(edits.find((e) => e.columnFamilyAdd !== undefined)?.columnFamilyAdd).toBe("other");
    expect(
      edits
        .filter((e) => e.columnFamily === 1)
        .flatMap((e) => e.newFiles.map((f) => f.file.number)),
    ).toEqual([18]);
  });

  it("a missing table of another family is Corruption too", async () => {
    const { fs } = await withFamilies();
    fs.remove("/db/000900.sst");
    await expect(DB.open("/db", { fs })).rejects.toThrow(/000900\.sst is missing/);
  });

  it("a database with only default reports no ignored families", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    expect(db.getProperty("shale.ignored-column-families")).toBe("");
    db.put("a", "1");
    await db.close();
  });

  it("carries RocksDB's db id (into IDENTITY too), compact cursors and MinLogNumberToKeep into its MANIFEST", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.flush();
    await db.close();
    const path = currentManifest(fs);
    const edits = readEdits(fs, path);
    const extra = new VersionEdit();
    extra.dbId = "5a8bb4c6-0000-4000-8000-00000000abcd";
    extra.compactCursors.push({
      level: 1,
      key: Uint8Array.from([...text("m"), 0x01, 9, 0, 0, 0, 0, 0, 0]),
    });
    extra.minLogNumberToKeep = 2;
    // An ignorable record RocksDB may write (8198, full_history_ts_low): skipped.
    const ignorable = Uint8Array.from([0x86, 0x40, 2, 0xab, 0xcd]);
    const w = new LogWriter(fs.openWritable("/db/MANIFEST-000901"));
    for (const e of edits) w.addRecord(e.encode());
    w.addRecord(Uint8Array.from([...extra.encode(), ...ignorable]));
    w.close();
    fs.writeFile("/db/CURRENT", text("MANIFEST-000901\n"));
    fs.remove(path);
    const again = await DB.open("/db", { fs });
    expect(str(again.get("a"))).toBe("1");
    await again.close();
    expect(new TextDecoder().decode(fs.readFile("/db/IDENTITY"))).toBe(extra.dbId);
    const rewritten = readEdits(fs, currentManifest(fs));
    expect(rewritten[0]!.dbId).toBe(extra.dbId);
    expect(rewritten.flatMap((e) => e.compactCursors.map((c) => c.level))).toEqual([1]);
    expect(rewritten.some((e) => e.minLogNumberToKeep !== undefined)).toBe(true);
  });
});
