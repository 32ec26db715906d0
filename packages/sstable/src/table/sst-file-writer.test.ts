/**
 * SstFileWriter: the entries it writes (sequence 0, RocksDB's kinds), its ExternalSstFileInfo,
 * the external-file properties, its key-order rule (a property test) and its misuse errors.
 * RocksDB's tools reading and ingesting its files: sst-file-writer-interop.test.ts.
 */
import {
  bytesToString,
  FaultInjectionFileSystem,
  MemoryFileSystem,
  parseInternalKey,
  reverseBytewiseComparator,
  toBytes,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExternalSstFilePropertyName, externalFileInfo } from "../format/external-file.js";
import { PropertyName, UNKNOWN_COLUMN_FAMILY } from "../format/properties.js";
import {
  type ExternalSstFileInfo,
  SstFileWriter,
  type SstFileWriterOptions,
} from "./sst-file-writer.js";
import { tableIndexEntries } from "./table-layout.js";
import { TableReader } from "./table-reader.js";

const invalidArgument = expect.objectContaining({ code: "InvalidArgument" });

function readBack(
  fs: MemoryFileSystem,
  path: string,
): {
  reader: TableReader;
  entries: { key: string; seq: number; kind: number; value: string }[];
} {
  const reader = TableReader.open(fs.openRandomAccess(path), { fileName: path });
  const entries: { key: string; seq: number; kind: number; value: string }[] = [];
  const it = reader.newIterator();
  for (it.seekToFirst(); it.valid(); it.next()) {
    const p = parseInternalKey(it.key());
    entries.push({
      key: bytesToString(p.userKey),
      seq: p.seq,
      kind: p.kind,
      value: bytesToString(it.value()),
    });
  }
  it.close();
  return { reader, entries };
}

function writer(options: SstFileWriterOptions = {}): {
  fs: MemoryFileSystem;
  w: SstFileWriter;
} {
  const fs = new MemoryFileSystem();
  return { fs, w: new SstFileWriter({ fs, ...options }) };
}

describe("SstFileWriter", () => {
  it("writes puts, merges and deletes with sequence 0 and reports the file", () => {
    const { fs, w } = writer();
    w.open("/a.sst");
    w.put("apple", "red");
    w.merge("banana", "+1");
    w.delete("cherry");
    w.put(toBytes("date"), toBytes("brown"));
    w.deleteRange("x", "z");
    w.deleteRange("m", "n");
    const info: ExternalSstFileInfo = w.finish();
    expect(info).toMatchObject({
      path: "/a.sst",
      entries: 4,
      rangeDelEntries: 2,
      fileSize: fs.fileSize("/a.sst"),
      version: 2,
      sequenceNumber: 0,
    });
    expect(bytesToString(info.smallestKey!)).toBe("apple");
    expect(bytesToString(info.largestKey!)).toBe("date");
    expect(bytesToString(info.smallestRangeDelKey!)).toBe("m");
    expect(bytesToString(info.largestRangeDelKey!)).toBe("z");

    const { reader, entries } = readBack(fs, "/a.sst");
    expect(entries).toEqual([
      { key: "apple", seq: 0, kind: ValueKind.Value, value: "red" },
      { key: "banana", seq: 0, kind: ValueKind.Merge, value: "+1" },
      { key: "cherry", seq: 0, kind: ValueKind.Deletion, value: "" },
      { key: "date", seq: 0, kind: ValueKind.Value, value: "brown" },
    ]);
    const props = reader.properties;
    expect(props.numRangeDeletions).toBe(2);
    expect(props.numMergeOperands).toBe(1);
    expect(props.numDeletions).toBe(1);
    expect(props.columnFamilyId).toBe(UNKNOWN_COLUMN_FAMILY);
    expect(props.columnFamilyName).toBe("");
    expect(props.dbId).toBe("SST Writer");
    expect(props.originalFileNumber).toBe(1);
    expect(props.smallestSeq).toBe(0);
    expect(props.largestSeq).toBe(0);
    expect(props.externalFile).toEqual({ version: 2, globalSeqno: 0 });
    expect(externalFileInfo(props)).toEqual({ version: 2, globalSeqno: 0 });
    reader.close();
  });

  it("records the external-file properties as RocksDB's fixed32 and fixed64 bytes", () => {
    const { fs, w } = writer();
    w.open("/p.sst");
    w.put("k", "v");
    w.finish();
    const { reader } = readBack(fs, "/p.sst");
    const user = reader.properties.user;
    expect([...toBytes(user[ExternalSstFilePropertyName.VERSION])]).toEqual([2, 0, 0, 0]);
    expect([...toBytes(user[ExternalSstFilePropertyName.GLOBAL_SEQNO])]).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    expect(PropertyName.COLUMN_FAMILY_ID).toBe("rocksdb.column.family.id");
    reader.close();
  });

  it("records a named column family", () => {
    const { fs, w } = writer({ columnFamilyId: 3, columnFamilyName: "users" });
    w.open("/cf.sst");
    w.put("k", "v");
    w.finish();
    const { reader } = readBack(fs, "/cf.sst");
    expect(reader.properties.columnFamilyId).toBe(3);
    expect(reader.properties.columnFamilyName).toBe("users");
    reader.close();
  });

  it("takes range deletions in any order relative to point keys, and a file of only those", () => {
    const { fs, w } = writer();
    w.open("/r.sst");
    w.deleteRange("p", "q");
    w.deleteRange("a", "c");
    w.deleteRange("k", "k"); // empty: ignored, as RocksDB does
    const info = w.finish();
    expect(info.entries).toBe(0);
    expect(info.rangeDelEntries).toBe(2);
    expect(info.smallestKey).toBeUndefined();
    expect(info.largestKey).toBeUndefined();
    expect(bytesToString(info.smallestRangeDelKey!)).toBe("a");
    expect(bytesToString(info.largestRangeDelKey!)).toBe("q");
    const { reader, entries } = readBack(fs, "/r.sst");
    expect(entries).toEqual([]);
    expect(reader.properties.numRangeDeletions).toBe(2);
    reader.close();
    w.open("/r2.sst");
    expect(() => w.deleteRange("z", "a")).toThrow(/end "a" comes before its start "z"/);
    w.abandon();
  });

  it("rejects out-of-order and duplicate keys, naming both (hex when not UTF-8)", () => {
    const { w } = writer();
    w.open("/o.sst");
    w.put("b", "1");
    expect(() => w.put("a", "2")).toThrow(invalidArgument);
    expect(() => w.put("a", "2")).toThrow(/"a" after "b"/);
    expect(() => w.merge("b", "2")).toThrow(/"b" after "b"/);
    w.put(new Uint8Array([0xff, 0xfe]), "3");
    expect(() => w.delete(new Uint8Array([0xc3]))).toThrow(/0xc3 after 0xfffe/);
    // the writer is still usable after a rejected key
    w.put(new Uint8Array([0xff, 0xff]), "4");
    expect(w.finish().entries).toBe(3);
  });

  it("orders keys by the given comparator", () => {
    const { fs, w } = writer({ comparator: reverseBytewiseComparator });
    w.open("/rev.sst");
    w.put("c", "3");
    w.put("b", "2");
    expect(() => w.put("d", "4")).toThrow(/"d" after "b"/);
    w.put("a", "1");
    const info = w.finish();
    expect(bytesToString(info.smallestKey!)).toBe("c");
    expect(bytesToString(info.largestKey!)).toBe("a");
    const reader = TableReader.open(fs.openRandomAccess("/rev.sst"), {
      comparator: reverseBytewiseComparator,
    });
    expect(reader.properties.comparatorName).toBe(reverseBytewiseComparator.name);
    reader.close();
  });

  it("refuses to finish an empty file, and stays open", () => {
    const { fs, w } = writer();
    w.open("/e.sst");
    expect(() => w.finish()).toThrow(/no entries/);
    w.put("k", "v");
    expect(w.finish().entries).toBe(1);
    expect(fs.exists("/e.sst")).toBe(true);
  });

  it("is InvalidArgument before open and after finish; open again writes another file", () => {
    const { fs, w } = writer();
    expect(() => w.put("k", "v")).toThrow(invalidArgument);
    expect(() => w.finish()).toThrow(invalidArgument);
    expect(() => w.abandon()).toThrow(invalidArgument);
    expect(w.fileSize).toBe(0);
    w.open("/1.sst");
    expect(() => w.open("/2.sst")).toThrow(/already open/);
    w.put("k", "v");
    w.finish();
    expect(() => w.put("l", "v")).toThrow(invalidArgument);
    expect(() => w.deleteRange("a", "b")).toThrow(invalidArgument);
    expect(() => w.finish()).toThrow(invalidArgument);
    w.open("/2.sst");
    w.put("a", "v"); // a new file: order starts over
    w.finish();
    const { reader, entries } = readBack(fs, "/2.sst");
    expect(entries.map((e) => e.key)).toEqual(["a"]);
    // RocksDB's numbering: one session per writer, file numbers 1, 2, ... in it
    const first = readBack(fs, "/1.sst").reader;
    expect(first.properties.originalFileNumber).toBe(1);
    expect(reader.properties.originalFileNumber).toBe(2);
    expect(reader.properties.dbSessionId).toMatch(/^[0-9A-Z]{20}$/);
    expect(reader.properties.dbSessionId).toBe(first.properties.dbSessionId);
    first.close();
    reader.close();
  });

  it("abandon closes and removes the file", () => {
    const { fs, w } = writer();
    w.open("/x.sst");
    w.put("k", "v");
    w.abandon();
    expect(fs.exists("/x.sst")).toBe(false);
    expect(() => w.put("l", "v")).toThrow(invalidArgument);
  });

  it("finish fsyncs the file: it survives a power cut; a failed sync removes it", () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    fs.mkdir("/d");
    fs.syncDir("/");
    const w = new SstFileWriter({ fs });
    w.open("/d/ok.sst");
    w.put("k", "v");
    const info = w.finish();
    fs.syncDir("/d"); // the directory entry is the caller's, as in RocksDB
    fs.dropUnsyncedData();
    fs.clearFaults();
    expect(fs.fileSize("/d/ok.sst")).toBe(info.fileSize);

    w.open("/d/bad.sst");
    w.put("k", "v");
    fs.failAfter("sync", 1, "EIO");
    expect(() => w.finish()).toThrow(expect.objectContaining({ code: "IOError" }));
    fs.clearFaults();
    expect(fs.exists("/d/bad.sst")).toBe(false);
    // the writer is usable again
    w.open("/d/again.sst");
    w.put("k", "v");
    expect(w.finish().entries).toBe(1);
  });

  it("writes the data block hash index when asked, and the table reads back", () => {
    const fs = new MemoryFileSystem();
    const w = new SstFileWriter({
      fs,
      compression: "none",
      dataBlockIndexType: "binaryAndHash",
    });
    w.open("/h.sst");
    for (let i = 0; i < 50; i++) w.put(`k${String(i).padStart(3, "0")}`, `v${i}`);
    w.finish();
    expect(() => new SstFileWriter({ fs, dataBlockIndexType: "hash" as never })).toThrow(
      invalidArgument,
    );
    expect(() => new SstFileWriter({ fs, dataBlockHashTableUtilRatio: 0 })).toThrow(
      invalidArgument,
    );
    const bytes = fs.readFile("/h.sst");
    const reader = TableReader.open(fs.openRandomAccess("/h.sst"), { fileSize: bytes.length });
    // Each data block's footer has the hash index bit (uncompressed: its last byte's high bit).
    for (const e of tableIndexEntries(reader))
      expect(bytes[e.handle.offset + e.handle.size - 1]! & 0x80).toBe(0x80);
    const r = reader.get(new TextEncoder().encode("k007"));
    expect(new TextDecoder().decode(r.value!)).toBe("v7");
    reader.close();
  });

  it("checks option types", () => {
    expect(() => new SstFileWriter(null as never)).toThrow(TypeError);
    expect(() => new SstFileWriter({ blockSize: "4k" as never })).toThrow(TypeError);
    expect(() => new SstFileWriter({ compression: 1 as never })).toThrow();
    expect(() => new SstFileWriter({ columnFamilyId: "1" as never })).toThrow(TypeError);
    expect(() => new SstFileWriter({ columnFamilyName: 1 as never })).toThrow(TypeError);
    expect(() => new SstFileWriter({ fs: 1 as never })).toThrow(TypeError);
    expect(() => new SstFileWriter({ columnFamilyId: -1 })).toThrow(invalidArgument);
    expect(() => new SstFileWriter({ formatVersion: 99 })).toThrow(invalidArgument);
    const { w } = writer();
    expect(() => w.open(1 as never)).toThrow(TypeError);
    w.open("/t.sst");
    expect(() => w.put(1 as never, "v")).toThrow(TypeError);
    w.abandon();
  });

  it("writes with the given table options", () => {
    const { fs, w } = writer({ compression: "none", formatVersion: 6, checksumType: 1 });
    w.open("/o.sst");
    for (let i = 0; i < 500; i++) w.put(`key${String(i).padStart(4, "0")}`, "v".repeat(20));
    w.finish();
    const { reader, entries } = readBack(fs, "/o.sst");
    expect(entries).toHaveLength(500);
    expect(reader.properties.formatVersion).toBe(6);
    expect(reader.properties.compression).toBe("NoCompression");
    reader.close();
  });

  it("property: accepts exactly the strictly increasing keys, and reads them back", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 6 }), { minLength: 1, maxLength: 60 }),
        (keys) => {
          const { fs, w } = writer({ blockSize: 64 });
          w.open("/f.sst");
          const accepted: Uint8Array[] = [];
          for (const k of keys) {
            const last = accepted.at(-1);
            const inOrder = last === undefined || Buffer.compare(k, last) > 0;
            if (inOrder) {
              w.put(k, k);
              accepted.push(k);
            } else {
              expect(() => w.put(k, k)).toThrow(invalidArgument);
            }
          }
          const info = w.finish();
          expect(info.entries).toBe(accepted.length);
          expect(Buffer.compare(info.smallestKey!, accepted[0]!)).toBe(0);
          expect(Buffer.compare(info.largestKey!, accepted.at(-1)!)).toBe(0);
          const reader = TableReader.open(fs.openRandomAccess("/f.sst"));
          const it = reader.newIterator();
          const read: Uint8Array[] = [];
          for (it.seekToFirst(); it.valid(); it.next()) {
            const p = parseInternalKey(it.key());
            expect(p.seq).toBe(0);
            read.push(p.userKey.slice());
          }
          it.close();
          reader.close();
          expect(read.map((k) => Buffer.from(k).toString("hex"))).toEqual(
            accepted.map((k) => Buffer.from(k).toString("hex")),
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});
