/**
 * VersionEdit in RocksDB's encoding: worked bytes written by RocksDB 7.8.3 (decoded and
 * re-encoded bit for bit), every tag, the ignore rules, and an encode/decode property test.
 */
import { readFileSync } from "node:fs";
import { formatInternalKey, makeInternalKey, ShaleError, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EditTag, type FileMetaData, FileTag, VersionEdit } from "./version-edit.js";

const hex = (s: string) => Uint8Array.from(s.trim().split(/\s+/), (b) => Number.parseInt(b, 16));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex").replace(/(..)/g, "$1 ").trim();
const text = (s: string) => new TextEncoder().encode(s);

/** The payloads of a MANIFEST's records (one log block, FULL records; checksums not checked). */
function records(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let p = 0; p + 7 <= data.length; ) {
    const n = data[p + 4]! | (data[p + 5]! << 8);
    expect(data[p + 6]).toBe(1); // FULL
    out.push(data.subarray(p + 7, p + 7 + n));
    p += 7 + n;
  }
  return out;
}

// The 4th record of a MANIFEST RocksDB 7.8.3 wrote for a flush (docs/formats/manifest.md).
const FLUSH_EDIT = hex(`
  02 08 09 00 03 0a 04 64
  67 00 09 f4 0d
  0f 6b 65 79 30 30 30 30 01 01 00 00 00 00 00 00
  0f 6b 65 79 30 30 39 39 01 64 00 00 00 00 00 00
  01 64
  05 05 d9 e4 bb d8 06
  06 05 d9 e4 bb d8 06
  07 00
  08 07 55 6e 6b 6e 6f 77 6e
  0c 10 f7 bc 55 09 bc 2d 24 ba 99 1c 80 ef e9 05 81 ef
  01`);

describe("VersionEdit (RocksDB's encoding)", () => {
  it("decodes RocksDB's flush edit field by field and re-encodes it bit for bit", () => {
    const e = VersionEdit.decode(FLUSH_EDIT, "MANIFEST-000005", 59);
    expect(e.logNumber).toBe(8);
    expect(e.prevLogNumber).toBe(0);
    expect(e.nextFileNumber).toBe(10);
    expect(e.lastSequence).toBe(100);
    expect(e.columnFamily).toBe(0);
    expect(e.newFiles).toHaveLength(1);
    const { level, file } = e.newFiles[0]!;
    expect(level).toBe(0);
    expect(file.number).toBe(9);
    expect(file.size).toBe(1780);
    expect(formatInternalKey(file.smallest)).toBe("key0000#1,SET");
    expect(formatInternalKey(file.largest)).toBe("key0099#100,SET");
    expect([file.smallestSeq, file.largestSeq]).toEqual([1, 100]);
    expect(file.oldestAncesterTime).toBe(1796141657);
    expect(file.fileCreationTime).toBe(1796141657);
    expect(file.fileChecksum).toEqual(new Uint8Array(0));
    expect(file.fileChecksumFuncName).toBe("Unknown");
    expect(toHex(file.uniqueId!)).toBe("f7 bc 55 09 bc 2d 24 ba 99 1c 80 ef e9 05 81 ef");
    expect(toHex(e.encode())).toBe(toHex(FLUSH_EDIT));
  });

  it("writes the comparator edit RocksDB starts a MANIFEST with", () => {
    const e = new VersionEdit();
    e.comparator = "leveldb.BytewiseComparator";
    expect(toHex(e.encode())).toBe(`01 1a ${toHex(text("leveldb.BytewiseComparator"))}`);
    const counters = new VersionEdit();
    counters.prevLogNumber = 0;
    counters.nextFileNumber = 6;
    counters.lastSequence = 0;
    expect(toHex(counters.encode())).toBe("09 00 03 06 04 00");
  });

  it("decodes and re-encodes every record of a RocksDB MANIFEST with column families", () => {
    const data = readFileSync(
      new URL("../../testdata/manifest/rocksdb-7.8.3-column-families.MANIFEST", import.meta.url),
    );
    const recs = records(new Uint8Array(data));
    expect(recs.length).toBe(15);
    const edits = recs.map((r) => VersionEdit.decode(r));
    for (let i = 0; i < recs.length; i++)
      expect(toHex(edits[i]!.encode()), `record ${i}`).toBe(toHex(recs[i]!));
    // What ldb manifest_dump --verbose shows for them.
    const add = edits.filter((e) => e.columnFamilyAdd !== undefined);
    expect(add.map((e) => [e.columnFamily, e.columnFamilyAdd, e.comparator])).toEqual([
      [1, "other", "leveldb.BytewiseComparator"],
      [2, "gone", "leveldb.BytewiseComparator"],
    ]);
    const drop = edits.at(-1)!;
    expect([drop.columnFamily, drop.columnFamilyDrop, drop.maxColumnFamily]).toEqual([2, true, 2]);
    const compaction = edits[7]!;
    expect(compaction.deletedFiles).toEqual([
      { level: 0, number: 9 },
      { level: 0, number: 11 },
    ]);
    expect(compaction.newFiles.map((f) => [f.level, f.file.number, f.file.size])).toEqual([
      [1, 12, 1996],
    ]);
    expect(edits[4]!.minLogNumberToKeep).toBe(8);
    expect(edits[11]!.columnFamily).toBe(1);
    expect(edits[11]!.newFiles[0]!.file.number).toBe(18);
  });

  it("decodes and re-encodes RocksDB's atomic group (atomic_flush) bit for bit", () => {
    const data = readFileSync(
      new URL("../../testdata/rocksdb/atomic-flush/MANIFEST-000019", import.meta.url),
    );
    const recs = records(new Uint8Array(data));
    const edits = recs.map((r) => VersionEdit.decode(r));
    for (let i = 0; i < recs.length; i++)
      expect(toHex(edits[i]!.encode()), `record ${i}`).toBe(toHex(recs[i]!));
    // The flush of the three families, then RocksDB's MinLogNumberToKeep edit: 3, 2, 1, 0.
    const group = edits.filter((e) => e.atomicGroupRemaining !== undefined);
    expect(group.map((e) => [e.columnFamily, e.atomicGroupRemaining, e.newFiles.length])).toEqual([
      [0, 3, 1],
      [1, 2, 1],
      [2, 1, 1],
      [0, 0, 0],
    ]);
    expect(edits.slice(-4)).toEqual(group);
    expect(group[3]!.minLogNumberToKeep).toBe(22);
    // InAtomicGroup (300 = varint ac 02) ends each record, after ColumnFamily (200 = c8 01).
    expect(toHex(recs.at(-4)!.subarray(-3))).toBe("ac 02 03");
    expect(toHex(recs.at(-3)!.subarray(-6))).toBe("c8 01 01 ac 02 02");
    expect(toHex(recs.at(-1)!)).toBe("09 00 03 1a 0a 16 04 50 ac 02 00");
  });

  it("writes InAtomicGroup after the column family, as RocksDB's EncodeTo does, and reads it back", () => {
    const e = new VersionEdit();
    e.columnFamily = 5;
    e.atomicGroupRemaining = 300;
    expect(toHex(e.encode())).toBe("c8 01 05 ac 02 ac 02");
    const back = VersionEdit.decode(e.encode());
    expect([back.columnFamily, back.atomicGroupRemaining]).toEqual([5, 300]);
    const last = new VersionEdit();
    last.atomicGroupRemaining = 0;
    expect(toHex(last.encode())).toBe("ac 02 00");
    expect(VersionEdit.decode(last.encode()).atomicGroupRemaining).toBe(0);
    expect(VersionEdit.decode(new VersionEdit().encode()).atomicGroupRemaining).toBeUndefined();
  });

  it("skips unknown tags with the safe-to-ignore bit and refuses others with Corruption at their offset", () => {
    // 8292 = 8192 + 100 (varint32 e4 40): unknown, safe to ignore; its payload is a varstring.
    const ignorable = hex("02 05 e4 40 03 aa bb cc 04 07");
    const e = VersionEdit.decode(ignorable);
    expect([e.logNumber, e.lastSequence]).toEqual([5, 7]);
    const unknown = hex("02 05 63 00");
    try {
      VersionEdit.decode(unknown, "MANIFEST-000009", 100);
      expect.unreachable();
    } catch (err) {
      expect(ShaleError.isInstance(err) && err.code).toBe("Corruption");
      expect((err as ShaleError).file).toBe("MANIFEST-000009");
      expect((err as ShaleError).offset).toBe(102);
      expect(String(err)).toMatch(/unknown tag 99/);
    }
  });

  it("reads the db id, WAL records and other ignorable RocksDB records", () => {
    expect(EditTag.DbId).toBe(8193); // varint32 81 40
    const dbId = [0x81, 0x40, 3, ...text("abc")];
    const walAddition = [0x84, 0x40, 2, 9, 9]; // 8196, skipped
    const e = VersionEdit.decode(Uint8Array.from([...dbId, ...walAddition, 0x04, 1]));
    expect(e.dbId).toBe("abc");
    expect(e.lastSequence).toBe(1);
  });

  it("reads blob files, refuses other db paths with NotSupported, bad levels with Corruption", () => {
    const code = (b: Uint8Array) => {
      try {
        VersionEdit.decode(b);
        return "ok";
      } catch (e) {
        return ShaleError.isInstance(e) ? e.code : String(e);
      }
    };
    expect(code(hex("90 03 0a 01 26 00 00 00"))).toBe("ok"); // 400 BlobFileAddition
    expect(code(hex("90 03 00"))).toBe("Corruption"); // ... cut short
    expect(code(hex("06 07 01"))).toBe("NotSupported"); // a file at level 7
    expect(code(hex("06 40 01"))).toBe("Corruption"); // level 64
  });

  it("reads LevelDB's NewFile, NewFile2 and NewFile3", () => {
    const k = (s: string, seq: number) => makeInternalKey(text(s), seq, ValueKind.Value);
    const a = k("a", 3);
    const z = k("z", 9);
    const body = [...[a.length], ...a, ...[z.length], ...z];
    const v1 = VersionEdit.decode(Uint8Array.from([7, 1, 5, 100, ...body]));
    expect(v1.newFiles[0]).toMatchObject({
      level: 1,
      file: { number: 5, size: 100, smallestSeq: 0 },
    });
    expect(v1.newFiles[0]!.file.largestSeq).toBe(Number.MAX_SAFE_INTEGER);
    const v2 = VersionEdit.decode(Uint8Array.from([100, 2, 6, 101, ...body, 3, 9]));
    expect(v2.newFiles[0]).toMatchObject({
      level: 2,
      file: { number: 6, size: 101, smallestSeq: 3, largestSeq: 9 },
    });
    const v3 = VersionEdit.decode(Uint8Array.from([102, 0, 7, 0, 102, ...body, 3, 9]));
    expect(v3.newFiles[0]).toMatchObject({ level: 0, file: { number: 7, size: 102 } });
    expect(() => VersionEdit.decode(Uint8Array.from([102, 0, 7, 1, 102, ...body, 3, 9]))).toThrow(
      /db path 1/,
    );
  });

  it("skips unknown NewFile4 custom fields unless bit 64 says they must be understood", () => {
    const base = new VersionEdit().addFile(0, file(4)).encode();
    // Insert a custom field before the terminating 1.
    const withField = (tag: number) =>
      Uint8Array.from([...base.subarray(0, base.length - 1), tag, 2, 0xab, 0xcd, 1]);
    expect(VersionEdit.decode(withField(13)).newFiles[0]!.file.number).toBe(4);
    expect(() => VersionEdit.decode(withField(FileTag.NonSafeIgnoreMask | 13))).toThrow(
      /custom field 77 not supported/,
    );
    const marked = new VersionEdit().addFile(0, {
      ...file(4),
      markedForCompaction: true,
      temperature: 2,
    });
    const back = VersionEdit.decode(marked.encode()).newFiles[0]!.file;
    expect([back.markedForCompaction, back.temperature]).toEqual([true, 2]);
  });

  it("round-trips every edit it can encode (property)", () => {
    const bytes = fc.uint8Array({ maxLength: 12 });
    const ikey = fc
      .tuple(bytes, fc.integer({ min: 0, max: 2 ** 40 }))
      .map(([u, s]) => makeInternalKey(u, s, ValueKind.Value));
    const num = fc.integer({ min: 0, max: 2 ** 53 - 1 });
    const small = fc.integer({ min: 0, max: 2 ** 31 });
    const meta: fc.Arbitrary<FileMetaData> = fc
      .record({
        number: num,
        size: num,
        smallest: ikey,
        largest: ikey,
        seqs: fc.tuple(num, num),
        oldestAncesterTime: num,
        fileCreationTime: num,
        fileChecksum: bytes,
        fileChecksumFuncName: fc.string({ maxLength: 10 }),
        uniqueId: fc.option(fc.uint8Array({ minLength: 16, maxLength: 16 }), { nil: undefined }),
        markedForCompaction: fc.option(fc.constant(true), { nil: undefined }),
      })
      .map(({ seqs, uniqueId, markedForCompaction, ...m }) => {
        const f: FileMetaData = {
          ...m,
          smallestSeq: Math.min(...seqs),
          largestSeq: Math.max(...seqs),
          ...(uniqueId === undefined ? {} : { uniqueId }),
          ...(markedForCompaction === undefined ? {} : { markedForCompaction }),
        };
        return f;
      });
    const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const edit = fc
      .record({
        dbId: opt(fc.string({ maxLength: 8 })),
        comparator: opt(fc.string({ maxLength: 8 })),
        logNumber: opt(num),
        prevLogNumber: opt(num),
        nextFileNumber: opt(num),
        maxColumnFamily: opt(small),
        minLogNumberToKeep: opt(num),
        lastSequence: opt(num),
        cursors: fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), ikey), { maxLength: 2 }),
        deleted: fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), num), { maxLength: 3 }),
        added: fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), meta), { maxLength: 3 }),
        columnFamily: fc.oneof(fc.constant(0), small),
        columnFamilyAdd: opt(fc.string({ maxLength: 8 })),
        columnFamilyDrop: fc.boolean(),
        atomicGroupRemaining: opt(small),
      })
      .map((r) => {
        const e = new VersionEdit();
        for (const k of [
          "dbId",
          "comparator",
          "logNumber",
          "prevLogNumber",
          "nextFileNumber",
          "maxColumnFamily",
          "minLogNumberToKeep",
          "lastSequence",
          "columnFamilyAdd",
          "atomicGroupRemaining",
        ] as const)
          (e as unknown as Record<string, unknown>)[k] = r[k];
        e.columnFamily = r.columnFamily;
        e.columnFamilyDrop = r.columnFamilyDrop;
        for (const [level, key] of r.cursors) e.compactCursors.push({ level, key });
        for (const [level, n] of r.deleted) e.deleteFile(level, n);
        for (const [level, f] of r.added) e.addFile(level, f);
        return e;
      });
    fc.assert(
      fc.property(edit, (e) => {
        const bytesOut = e.encode();
        const back = VersionEdit.decode(bytesOut);
        expect(normalize(back)).toEqual(normalize(e));
        expect(toHex(back.encode())).toBe(toHex(bytesOut));
      }),
      { numRuns: 300 },
    );
  });
});

function file(number: number): FileMetaData {
  return {
    number,
    size: 10,
    smallest: makeInternalKey(text("a"), 1, ValueKind.Value),
    largest: makeInternalKey(text("b"), 2, ValueKind.Value),
    smallestSeq: 1,
    largestSeq: 2,
  };
}

/** The edit as plain data, with the defaults a decoded file gets filled in. */
function normalize(e: VersionEdit): unknown {
  return {
    ...e,
    newFiles: e.newFiles.map(({ level, file: f }) => ({
      level,
      file: {
        ...f,
        oldestAncesterTime: f.oldestAncesterTime ?? 0,
        fileCreationTime: f.fileCreationTime ?? 0,
        fileChecksum: Array.from(f.fileChecksum ?? []),
        fileChecksumFuncName: f.fileChecksumFuncName ?? "Unknown",
        smallest: Array.from(f.smallest),
        largest: Array.from(f.largest),
        ...(f.uniqueId === undefined ? {} : { uniqueId: Array.from(f.uniqueId) }),
      },
    })),
    compactCursors: e.compactCursors.map((c) => ({ level: c.level, key: Array.from(c.key) })),
  };
}
