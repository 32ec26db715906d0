/**
 * `ingestExternalFile`: placement and global sequence numbers, snapshots, flushes, options,
 * bad input (the database unchanged), moving and copying, column families, reopen and
 * compaction. The model test (ingest.model.test.ts) mixes it with writes at random.
 */
import {
  bytewiseComparator,
  type Comparator,
  type FileSystem,
  MemoryFileSystem,
} from "@shale/base";
import { SstFileWriter, TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "../../db.js";

const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const invalidArgument = expect.objectContaining({ code: "InvalidArgument" });
const corruption = expect.objectContaining({ code: "Corruption" });

interface FileSpec {
  puts?: [number, string][];
  deletes?: number[];
  ranges?: [number, number][];
  comparator?: Comparator;
  columnFamilyId?: number;
}

function writeSst(fs: FileSystem, path: string, spec: FileSpec): string {
  const w = new SstFileWriter({
    fs,
    ...(spec.comparator !== undefined ? { comparator: spec.comparator } : {}),
    ...(spec.columnFamilyId !== undefined ? { columnFamilyId: spec.columnFamilyId } : {}),
  });
  w.open(path);
  const ops: [number, string | undefined][] = [
    ...(spec.puts ?? []),
    ...(spec.deletes ?? []).map((k): [number, undefined] => [k, undefined]),
  ].sort((a, b) => a[0] - b[0]);
  for (const [k, v] of ops) {
    if (v === undefined) w.delete(key(k));
    else w.put(key(k), v);
  }
  for (const [a, b] of spec.ranges ?? []) w.deleteRange(key(a), key(b));
  w.finish();
  return path;
}

const puts = (from: number, to: number, tag: string): [number, string][] =>
  Array.from({ length: to - from }, (_, i) => [from + i, `${tag}${from + i}`]);

async function openDb(fs = new MemoryFileSystem()) {
  const db = await DB.open("/db", { fs, disableAutoCompactions: true });
  return { fs, db };
}

function scan(db: DB, snapshot?: ReturnType<DB["snapshot"]>): [string, string][] {
  const out: [string, string][] = [];
  const it = db.iterator(snapshot !== undefined ? { snapshot } : {});
  try {
    for (it.seekToFirst(); it.valid(); it.next()) out.push([text(it.key())!, text(it.value())!]);
  } finally {
    it.close();
  }
  return out;
}

function levelsOf(db: DB): number[] {
  return db
    .getLiveFiles()
    .tables.map((t) => t.level)
    .sort();
}

/** The last sequence number used. */
function lastSeq(db: DB): number {
  return Number(db.getProperty("shale.latest-sequence"));
}

describe("db.ingestExternalFile", () => {
  it("puts a file that overlaps nothing at the bottom level, at sequence 0", async () => {
    const { fs, db } = await openDb();
    db.put(key(1), "a");
    await db.flush();
    const seqBefore = lastSeq(db);
    await db.ingestExternalFile(writeSst(fs, "/ext.sst", { puts: puts(100, 200, "x") }));
    expect(lastSeq(db)).toBe(seqBefore);
    const tables = db.getLiveFiles().tables;
    const ingested = tables.find((t) => text(t.smallestKey) === key(100))!;
    expect(ingested.level).toBe(6);
    expect(text(db.get(key(150)))).toBe("x150");
    expect(text(db.get(key(1)))).toBe("a");
    expect(scan(db).length).toBe(101);
    await db.close();
  });

  it("numbers a file that overlaps older data (last sequence + 1) and places it above it", async () => {
    const { fs, db } = await openDb();
    for (let i = 0; i < 300; i++) db.put(key(i), `old${i}`);
    await db.flush();
    await db.compactRange(); // L1
    const snap = db.snapshot();
    const seqBefore = lastSeq(db);
    await db.ingestExternalFile(
      writeSst(fs, "/ext.sst", {
        puts: puts(100, 150, "new"),
        deletes: [160],
        ranges: [[200, 210]],
      }),
    );
    expect(lastSeq(db)).toBe(seqBefore + 1);
    expect(text(db.get(key(120)))).toBe("new120");
    expect(db.get(key(160))).toBeUndefined();
    expect(db.get(key(205))).toBeUndefined();
    expect(text(db.get(key(210)))).toBe("old210");
    expect(text(db.get(key(99)))).toBe("old99");
    // The snapshot taken before sees none of it.
    expect(text(db.get(key(120), { snapshot: snap }))).toBe("old120");
    expect(text(db.get(key(205), { snapshot: snap }))).toBe("old205");
    expect(scan(db, snap).length).toBe(300);
    expect(scan(db).length).toBe(300 - 1 - 10);
    snap.release();
    expect(levelsOf(db)).toEqual([0, 1]);
    await db.close();
  });

  it("stops above the first level holding data in the file's range: L5 over an L6 file", async () => {
    const { fs, db } = await openDb();
    await db.ingestExternalFile(writeSst(fs, "/a.sst", { puts: puts(0, 100, "a") }));
    expect(levelsOf(db)).toEqual([6]);
    const seq = lastSeq(db);
    await db.ingestExternalFile(writeSst(fs, "/b.sst", { puts: puts(50, 60, "b") }));
    expect(levelsOf(db)).toEqual([5, 6]);
    expect(lastSeq(db)).toBe(seq + 1);
    expect(text(db.get(key(55)))).toBe("b55");
    // Apart from both: the bottom level.
    await db.ingestExternalFile(
      writeSst(fs, "/c.sst", {
        puts: [
          [300, "c"],
          [1000, "c"],
        ],
      }),
    );
    expect(levelsOf(db)).toEqual([5, 6, 6]);
    // Inside that file's range but between its keys: no data there (sequence 0), yet L6
    // does not fit (the ranges overlap): L5.
    const before = lastSeq(db);
    await db.ingestExternalFile(writeSst(fs, "/d.sst", { puts: puts(500, 510, "d") }));
    expect(levelsOf(db)).toEqual([5, 5, 6, 6]);
    expect(lastSeq(db)).toBe(before);
    expect(text(db.get(key(505)))).toBe("d505");
    await db.close();
  });

  it("flushes an overlapping memtable first; allowBlockingFlush false refuses instead", async () => {
    const { fs, db } = await openDb();
    db.put(key(10), "mem");
    const file = writeSst(fs, "/ext.sst", { puts: puts(0, 20, "f") });
    await expect(db.ingestExternalFile(file, { allowBlockingFlush: false })).rejects.toThrow(
      invalidArgument,
    );
    expect(db.getLiveFiles().tables).toEqual([]);
    await db.ingestExternalFile(file);
    expect(text(db.get(key(10)))).toBe("f10"); // newer than the flushed put
    expect(levelsOf(db)).toEqual([0, 0]);
    await db.close();
  });

  it("allowGlobalSeqNo false refuses a file that needs one and leaves the database as it was", async () => {
    const { fs, db } = await openDb();
    db.put(key(10), "old");
    await db.flush();
    const names = fs.list("/db");
    await expect(
      db.ingestExternalFile(writeSst(fs, "/ext.sst", { puts: puts(0, 20, "f") }), {
        allowGlobalSeqNo: false,
      }),
    ).rejects.toThrow(/needs a global sequence number/);
    expect(fs.list("/db")).toEqual(names);
    expect(text(db.get(key(10)))).toBe("old");
    // One that overlaps nothing needs none.
    await db.ingestExternalFile(writeSst(fs, "/b.sst", { puts: puts(50, 60, "f") }), {
      allowGlobalSeqNo: false,
    });
    expect(text(db.get(key(55)))).toBe("f55");
    await db.close();
  });

  it("numbers even a file apart while a snapshot is held, unless snapshotConsistency is false", async () => {
    const { fs, db } = await openDb();
    db.put(key(0), "a");
    const snap = db.snapshot();
    await db.ingestExternalFile(writeSst(fs, "/a.sst", { puts: puts(10, 20, "x") }));
    expect(db.get(key(15), { snapshot: snap })).toBeUndefined();
    expect(text(db.get(key(15)))).toBe("x15");
    await db.ingestExternalFile(writeSst(fs, "/b.sst", { puts: puts(30, 40, "y") }), {
      snapshotConsistency: false,
    });
    expect(text(db.get(key(35), { snapshot: snap }))).toBe("y35");
    snap.release();
    await db.close();
  });

  it("ingests several files at once, each at its own level, atomically", async () => {
    const { fs, db } = await openDb();
    for (let i = 0; i < 100; i++) db.put(key(i), `old${i}`);
    await db.flush();
    await db.compactRange();
    const seqBefore = lastSeq(db);
    await db.ingestExternalFile([
      writeSst(fs, "/a.sst", { puts: puts(50, 60, "a") }),
      writeSst(fs, "/b.sst", { puts: puts(500, 600, "b") }),
      writeSst(fs, "/c.sst", { puts: puts(60, 70, "c") }),
    ]);
    // Two overlap L1 (numbered, one sequence each); one goes to L6 at 0.
    expect(lastSeq(db)).toBe(seqBefore + 2);
    expect(text(db.get(key(55)))).toBe("a55");
    expect(text(db.get(key(65)))).toBe("c65");
    expect(text(db.get(key(550)))).toBe("b550");
    expect(levelsOf(db)).toEqual([0, 0, 1, 6]);
    await db.close();
  });

  it("rejects bad input naming the file, the database unchanged", async () => {
    const { fs, db } = await openDb();
    db.put(key(5), "v");
    await db.flush();
    const good = writeSst(fs, "/good.sst", { puts: puts(100, 110, "g") });
    fs.writeFile(
      "/garbage.sst",
      new TextEncoder().encode("not a table at all, not even close".repeat(10)),
    );
    fs.writeFile("/empty.sst", new Uint8Array(0));
    const reverse: Comparator = {
      name: "test.Reverse",
      compare: (a, b) => bytewiseComparator.compare(b, a),
      findShortestSeparator: (a) => a,
      findShortSuccessor: (a) => a,
    };
    const other = new SstFileWriter({ fs, comparator: reverse });
    other.open("/other.sst");
    other.put(key(2), "r");
    other.put(key(1), "r");
    other.finish();
    writeSst(fs, "/family7.sst", { puts: puts(200, 210, "f"), columnFamilyId: 7 });
    writeSst(fs, "/overlap.sst", { puts: puts(105, 120, "o") });
    // Sharing only a user key: a put of it in one, its deletion in the other.
    writeSst(fs, "/edge-put.sst", {
      puts: [
        [299, "p"],
        [300, "p"],
      ],
    });
    writeSst(fs, "/edge-del.sst", { puts: [[301, "p"]], deletes: [300] });
    const names = fs.list("/db");
    const before = scan(db);
    const cases: [string | string[], RegExp][] = [
      ["/missing.sst", /\/missing\.sst: no such file/],
      ["/garbage.sst", /\/garbage\.sst: not a valid table/],
      ["/empty.sst", /\/empty\.sst: not a valid table/],
      ["/other.sst", /test\.Reverse/],
      ["/family7.sst", /\/family7\.sst: written for column family 7/],
      [[good, "/overlap.sst"], /\/good\.sst and \/overlap\.sst overlap/],
      [["/edge-put.sst", "/edge-del.sst"], /overlap/],
      [[good, good], /overlap/],
      [[good, "/missing.sst"], /missing\.sst/],
    ];
    for (const [paths, message] of cases) {
      await expect(db.ingestExternalFile(paths)).rejects.toThrow(message);
      expect(fs.list("/db")).toEqual(names);
      expect(scan(db)).toEqual(before);
    }
    await expect(db.ingestExternalFile("/garbage.sst")).rejects.toThrow(corruption);
    await expect(db.ingestExternalFile("/missing.sst")).rejects.toThrow(invalidArgument);
    await expect(db.ingestExternalFile([])).rejects.toThrow(invalidArgument);
    await expect(db.ingestExternalFile(good, { moveFile: true } as never)).rejects.toThrow(
      invalidArgument,
    );
    await expect(db.ingestExternalFile(good, { moveFiles: 1 } as never)).rejects.toThrow(TypeError);
    await expect(db.ingestExternalFile(42 as never)).rejects.toThrow(TypeError);
    await expect(db.ingestExternalFile(good, { ingestBehind: true })).rejects.toThrow(
      expect.objectContaining({ code: "NotSupported" }),
    );
    expect(fs.list("/db")).toEqual(names);
    await db.close();
    await expect(db.ingestExternalFile(good)).rejects.toThrow(
      expect.objectContaining({ code: "Closed" }),
    );
  });

  it("checks every block first with verifyChecksumsBeforeIngest; refuses a table that is not an external file", async () => {
    const { fs, db } = await openDb();
    const path = writeSst(fs, "/damaged.sst", { puts: puts(0, 2000, "d") });
    const bytes = fs.readFile(path).slice();
    bytes[100]! ^= 0xff; // inside the first data block
    fs.writeFile(path, bytes);
    await expect(
      db.ingestExternalFile(path, { verifyChecksumsBeforeIngest: true }),
    ).rejects.toThrow(/\/damaged\.sst: .*checksum mismatch/);
    expect(db.getLiveFiles().tables).toEqual([]);
    // A table of a database is not an external file.
    const other = await DB.open("/other", { fs });
    other.put(key(1), "x");
    await other.flush();
    const table = `/other/${other.getLiveFiles().tables[0]!.name}`;
    await other.close();
    await expect(db.ingestExternalFile(table)).rejects.toThrow(/not an external SST file/);
    await db.close();
  });

  it("moveFiles links the file in and removes the original name; a copy leaves it", async () => {
    const { fs, db } = await openDb();
    await db.ingestExternalFile(writeSst(fs, "/copy.sst", { puts: puts(0, 10, "c") }));
    expect(fs.exists("/copy.sst")).toBe(true);
    await db.ingestExternalFile(writeSst(fs, "/move.sst", { puts: puts(20, 30, "m") }), {
      moveFiles: true,
    });
    expect(fs.exists("/move.sst")).toBe(false);
    expect(text(db.get(key(25)))).toBe("m25");
    await db.close();
  });

  it("writeGlobalSeqno writes the number into the database's copy, never into the caller's file", async () => {
    const { fs, db } = await openDb();
    db.put(key(5), "old");
    await db.flush();
    const src = writeSst(fs, "/ext.sst", { puts: puts(0, 10, "n") });
    await db.ingestExternalFile(src, { writeGlobalSeqno: true });
    const seq = lastSeq(db);
    const ingested = db.getLiveFiles().tables.find((t) => text(t.smallestKey) === key(0))!;
    const copy = TableReader.open(fs.openRandomAccess(`/db/${ingested.name}`));
    expect(copy.globalSeqno).toBe(seq);
    copy.close();
    const original = TableReader.open(fs.openRandomAccess(src));
    expect(original.globalSeqno).toBe(0);
    original.close();
    expect(text(db.get(key(5)))).toBe("n5");
    await db.close();
  });

  it("keeps what it ingested across a reopen and a compaction", async () => {
    const fs = new MemoryFileSystem();
    let { db } = await openDb(fs);
    for (let i = 0; i < 200; i++) db.put(key(i), `old${i}`);
    await db.flush();
    await db.ingestExternalFile(
      writeSst(fs, "/a.sst", { puts: puts(50, 100, "a"), ranges: [[150, 160]] }),
    );
    db.put(key(60), "after");
    const want = scan(db);
    await db.close();
    db = (await openDb(fs)).db;
    expect(scan(db)).toEqual(want);
    expect(text(db.get(key(60)))).toBe("after");
    expect(text(db.get(key(70)))).toBe("a70");
    await db.compactRange();
    expect(scan(db)).toEqual(want);
    db.put(key(61), "later"); // after the reopen, writes take numbers above the file's
    expect(text(db.get(key(61)))).toBe("later");
    await db.close();
  });

  it("ingestExternalFiles: several families at once, all or none", async () => {
    const fs = new MemoryFileSystem();
    const options = { fs, createMissingColumnFamilies: true, columnFamilies: { users: {} } };
    let db = await DB.open("/db", options);
    let users = db.columnFamily("users");
    db.put(key(1), "d-old");
    users.put(key(1), "u-old");
    await db.flush();
    const seq = lastSeq(db);
    const d = writeSst(fs, "/d.sst", { puts: puts(0, 5, "d") });
    const u = writeSst(fs, "/u.sst", { puts: puts(0, 5, "u") });
    // A bad file in one family: nothing of the other goes in either.
    fs.writeFile("/bad.sst", new Uint8Array(100));
    await expect(
      db.ingestExternalFiles([{ paths: d }, { columnFamily: users, paths: "/bad.sst" }]),
    ).rejects.toThrow(/\/bad\.sst: not a valid table/);
    expect(text(db.get(key(1)))).toBe("d-old");
    await expect(
      db.ingestExternalFiles([
        { paths: d },
        { columnFamily: db.columnFamily("default"), paths: u },
      ]),
    ).rejects.toThrow(/named twice/);
    await expect(db.ingestExternalFiles([{ paths: d, option: {} } as never])).rejects.toThrow(
      invalidArgument,
    );
    await expect(
      db.ingestExternalFiles([{ columnFamily: "users", paths: u } as never]),
    ).rejects.toThrow(TypeError);
    await expect(db.ingestExternalFiles([])).rejects.toThrow(invalidArgument);
    await db.ingestExternalFiles([{ paths: d }, { columnFamily: users, paths: [u] }]);
    expect(lastSeq(db)).toBe(seq + 2); // each family's file overlapped its data
    expect(text(db.get(key(1)))).toBe("d1");
    expect(text(users.get(key(1)))).toBe("u1");
    await db.close();
    db = await DB.open("/db", options);
    users = db.columnFamily("users");
    expect(text(db.get(key(3)))).toBe("d3");
    expect(text(users.get(key(3)))).toBe("u3");
    await db.close();
  });

  it("ingests into a column family through its handle", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { users: {} },
    });
    const users = db.columnFamily("users");
    users.put(key(1), "u");
    await users.ingestExternalFile(writeSst(fs, "/u.sst", { puts: puts(0, 5, "x") }));
    expect(text(users.get(key(1)))).toBe("x1");
    expect(db.get(key(1))).toBeUndefined();
    await db.close();
  });
});
