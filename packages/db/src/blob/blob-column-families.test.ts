/**
 * Blob files in several column families: a directory laid out as RocksDB lays it out (each
 * family's tables and blob files, blob file additions carrying the family's id in the
 * MANIFEST, the family's id in each blob file's header), built with shale's own encoders.
 * Every family reads its blob values (get, getView, getMany, both scan directions), writes,
 * flushes and compacts with its blob indexes carried through, reopens with each family's blob
 * files written back into the new MANIFEST, and lets go of its blob files when they are no
 * longer linked or the family is dropped. A blob index of one family that points into
 * another family's blob file is Corruption.
 */
import {
  bytewiseComparator,
  type FileSystem,
  MemoryFileSystem,
  makeInternalKey,
  ShaleError,
  ValueKind,
} from "@shale/base";
import { LogWriter } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { TableFile } from "../compaction/build-table.js";
import { blobFileName, currentFileName, manifestFileName } from "../core/filenames.js";
import { DB } from "../db.js";
import { VersionEdit } from "../version/version-edit.js";
import {
  BLOB_FOOTER_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_RECORD_HEADER_SIZE,
  encodeBlobFooter,
  encodeBlobHeader,
  encodeBlobIndex,
  encodeBlobRecord,
} from "./blob-format.js";

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

interface FamilyLayout {
  id: number;
  name: string;
  /** The blob file's number and the table's (blob file first, as RocksDB's flush numbers them). */
  blob: number;
  table: number;
  /** Blob values by key (in the blob file; the table holds their blob indexes). */
  blobs: [string, string][];
  /** Values stored inline in the table. */
  inline: [string, string][];
  /** Extra blob indexes in the table: key -> (blob file number, offset) pointing elsewhere. */
  foreign?: [string, { fileNumber: number; offset: number; size: number }][];
}

/** Writes one blob file of family `id`; returns each value's blob index and the file's bytes. */
function writeBlobFile(
  fs: FileSystem,
  dir: string,
  number: number,
  id: number,
  entries: [string, string][],
): { indexes: Map<string, Uint8Array>; totalBytes: number } {
  const chunks: Uint8Array[] = [
    encodeBlobHeader({
      columnFamilyId: id,
      hasTtl: false,
      compression: 0,
      expirationStart: 0,
      expirationEnd: 0,
    }),
  ];
  let offset = BLOB_HEADER_SIZE;
  let totalBytes = 0;
  const indexes = new Map<string, Uint8Array>();
  for (const [key, value] of entries) {
    const k = utf8(key);
    const v = utf8(value);
    const record = encodeBlobRecord(k, v);
    indexes.set(
      key,
      encodeBlobIndex({
        fileNumber: number,
        offset: offset + BLOB_RECORD_HEADER_SIZE + k.length,
        size: v.length,
        compression: 0,
      }),
    );
    chunks.push(record);
    offset += record.length;
    totalBytes += record.length;
  }
  chunks.push(
    encodeBlobFooter({ blobCount: entries.length, expirationStart: 0, expirationEnd: 0 }),
  );
  const bytes = new Uint8Array(offset + BLOB_FOOTER_SIZE);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  fs.writeFile(blobFileName(dir, number), bytes);
  return { indexes, totalBytes };
}

/**
 * A database in `dir` whose families are `layout`: per family one L1 table (blob indexes and
 * inline values) and one blob file, and a MANIFEST naming them as RocksDB's does.
 */
function writeDatabase(fs: FileSystem, dir: string, layout: FamilyLayout[]): void {
  fs.mkdir(dir);
  const edits: VersionEdit[] = [];
  const head = new VersionEdit();
  head.comparator = bytewiseComparator.name;
  head.logNumber = 0;
  edits.push(head);
  for (const f of layout) {
    if (f.id === 0) continue;
    const add = new VersionEdit();
    add.columnFamily = f.id;
    add.columnFamilyAdd = f.name;
    add.comparator = bytewiseComparator.name;
    add.logNumber = 0;
    edits.push(add);
  }
  let seq = 0;
  let next = 0;
  for (const f of layout) {
    const { indexes, totalBytes } = writeBlobFile(fs, dir, f.blob, f.id, f.blobs);
    const entries: [string, number, Uint8Array][] = [
      ...f.blobs.map(([k]): [string, number, Uint8Array] => [
        k,
        ValueKind.BlobIndex,
        indexes.get(k)!,
      ]),
      ...f.inline.map(([k, v]): [string, number, Uint8Array] => [k, ValueKind.Value, utf8(v)]),
      ...(f.foreign ?? []).map(([k, ref]): [string, number, Uint8Array] => [
        k,
        ValueKind.BlobIndex,
        encodeBlobIndex({ ...ref, compression: 0 }),
      ]),
    ].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const table = new TableFile(fs, dir, f.table, {
      comparator: bytewiseComparator,
      compression: "none",
    });
    for (const [k, kind, value] of entries) table.add(makeInternalKey(utf8(k), ++seq, kind), value);
    const meta = table.finish();
    if (meta === undefined) throw new Error(`table ${f.table} came out empty`);
    const edit = new VersionEdit();
    edit.columnFamily = f.id;
    edit.addFile(1, meta);
    edit.blobFileAdditions.push({
      number: f.blob,
      totalBlobCount: f.blobs.length,
      totalBlobBytes: totalBytes,
      checksumMethod: "",
      checksumValue: new Uint8Array(0),
    });
    edit.logNumber = 0;
    edits.push(edit);
    next = Math.max(next, f.blob, f.table);
  }
  const counters = new VersionEdit();
  counters.nextFileNumber = next + 1;
  counters.lastSequence = seq;
  counters.maxColumnFamily = Math.max(...layout.map((f) => f.id));
  edits.push(counters);
  const writer = new LogWriter(fs.openWritable(manifestFileName(dir, 1)));
  for (const e of edits) writer.addRecord(e.encode());
  writer.sync();
  writer.close();
  fs.writeFile(currentFileName(dir), utf8("MANIFEST-000001\n"));
}

/** Blob values of family `name`: long enough to be blobs in RocksDB, each its own. */
function blobValues(name: string): [string, string][] {
  return [0, 1, 2, 3, 4].map((i) => [`${name}-k${i}`, `${name} blob ${i} ${"x".repeat(i * 40)}`]);
}

const LAYOUT: FamilyLayout[] = [
  {
    id: 0,
    name: "default",
    blob: 10,
    table: 11,
    blobs: blobValues("default"),
    inline: [["default-inline", "d"]],
  },
  {
    id: 1,
    name: "blue",
    blob: 12,
    table: 13,
    blobs: blobValues("blue"),
    inline: [["blue-i", "b"]],
  },
  {
    id: 2,
    name: "green",
    blob: 14,
    table: 15,
    blobs: blobValues("green"),
    inline: [["green-i", "g"]],
  },
];

type Family = Pick<DB, "get" | "getView" | "getMany" | "iterator" | "pinCurrentVersion">;

/** Reads every key of `family` every way and checks them against `expected`. */
function expectFamily(family: Family, expected: Map<string, string>): void {
  const sorted = [...expected].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const [k, v] of sorted) {
    expect(text(family.get(k)), k).toBe(v);
    expect(text(family.getView(k)), k).toBe(v);
  }
  const keys = [...expected.keys(), "missing"];
  expect(family.getMany(keys).map(text)).toEqual([...expected.values(), undefined]);
  expect([...family.iterator()].map(([k, v]) => [text(k), text(v)])).toEqual(sorted);
  expect([...family.iterator({ reverse: true })].map(([k, v]) => [text(k), text(v)])).toEqual(
    [...sorted].reverse(),
  );
}

function blobFilesOf(family: Family): number[] {
  const pin = family.pinCurrentVersion();
  try {
    return [...pin.version.blobFiles.keys()].sort((a, b) => a - b);
  } finally {
    pin.release();
  }
}

function expectedOf(f: FamilyLayout): Map<string, string> {
  return new Map([...f.blobs, ...f.inline]);
}

describe("blob files in every column family", () => {
  it("each family reads, writes, compacts, reopens and drops its own blob files", async () => {
    const fs = new MemoryFileSystem();
    writeDatabase(fs, "/db", LAYOUT);
    const expected = LAYOUT.map(expectedOf);
    let db = await DB.open("/db", { fs, createIfMissing: false });
    try {
      expect(db.listColumnFamilies()).toEqual(["default", "blue", "green"]);
      const families = (d: DB): Family[] => [d, d.columnFamily("blue"), d.columnFamily("green")];
      families(db).forEach((f, i) => {
        expectFamily(f, expected[i]!);
        expect(blobFilesOf(f)).toEqual([LAYOUT[i]!.blob]);
      });

      // shale's writes are inline; flushes and compactions carry the blob indexes through and
      // keep each family's blob file linked.
      for (const [i, f] of families(db).entries()) {
        const h = f as DB;
        const name = LAYOUT[i]!.name;
        h.put(`${name}-k1`, `${name} overwritten by shale`);
        h.delete(`${name}-k2`);
        h.put(`${name}-new`, "new");
        expected[i]!.set(`${name}-k1`, `${name} overwritten by shale`);
        expected[i]!.delete(`${name}-k2`);
        expected[i]!.set(`${name}-new`, "new");
        await h.flush();
        await h.compactRange();
        expectFamily(f, expected[i]!);
        expect(blobFilesOf(f)).toEqual([LAYOUT[i]!.blob]);
      }
      await expect(db.checkpoint("/cp")).rejects.toThrow(/NotSupported.*blob files/);
    } finally {
      await db.close();
    }

    // The new MANIFEST lists each family's blob file under that family.
    db = await DB.open("/db", { fs, createIfMissing: false });
    try {
      const families = [db, db.columnFamily("blue"), db.columnFamily("green")];
      families.forEach((f, i) => {
        expectFamily(f, expected[i]!);
        expect(blobFilesOf(f)).toEqual([LAYOUT[i]!.blob]);
      });

      // A family whose tables no longer link its blob file lets it go (RocksDB's keep rule);
      // the file is deleted, the other families' stay.
      const blue = db.columnFamily("blue");
      for (const k of [...expected[1]!.keys()]) if (k.startsWith("blue-k")) blue.delete(k);
      for (const k of [...expected[1]!.keys()]) if (k.startsWith("blue-k")) expected[1]!.delete(k);
      await blue.compactRange();
      await db.waitForCompactions();
      expect(blobFilesOf(blue)).toEqual([]);
      expect(fs.exists(blobFileName("/db", 12))).toBe(false);
      expectFamily(blue, expected[1]!);

      // Dropping a family deletes its blob files once no reader holds them.
      const green = db.columnFamily("green");
      const it = green.iterator();
      it.seek("green-k3");
      db.dropColumnFamily("green");
      await db.waitForCompactions();
      expect(fs.exists(blobFileName("/db", 14))).toBe(true);
      expect(text(it.value())).toBe(expected[2]!.get("green-k3"));
      it.next();
      expect(text(it.key())).toBe("green-k4");
      expect(text(it.value())).toBe(expected[2]!.get("green-k4"));
      it.close();
      await db.waitForCompactions();
      expect(fs.exists(blobFileName("/db", 14))).toBe(false);

      expectFamily(db, expected[0]!);
      expect(fs.exists(blobFileName("/db", 10))).toBe(true);
    } finally {
      await db.close();
    }
    db = await DB.open("/db", { fs, createIfMissing: false });
    try {
      expect(db.listColumnFamilies()).toEqual(["default", "blue"]);
      expectFamily(db, expected[0]!);
      expectFamily(db.columnFamily("blue"), expected[1]!);
    } finally {
      await db.close();
    }
  });

  it("merges onto a family's blob values read them: in gets, scans and compactions", async () => {
    const fs = new MemoryFileSystem();
    writeDatabase(fs, "/db", LAYOUT);
    const green = LAYOUT[2]!;
    const expected = expectedOf(green);
    let db = await DB.open("/db", {
      fs,
      createIfMissing: false,
      columnFamilies: { green: { mergeOperator: "stringappend" } },
    });
    try {
      const h = db.columnFamily("green");
      for (const k of ["green-k0", "green-k3"]) {
        h.merge(k, "more");
        expected.set(k, `${expected.get(k)},more`);
      }
      expectFamily(h, expected);
      await h.flush();
      expectFamily(h, expected);
      // The compaction folds the operands into the blob values it reads (green's blob file).
      await h.compactRange();
      expectFamily(h, expected);
      expect(blobFilesOf(h)).toEqual([green.blob]); // the other values still live there
    } finally {
      await db.close();
    }
    db = await DB.open("/db", {
      fs,
      createIfMissing: false,
      columnFamilies: { green: { mergeOperator: "stringappend" } },
    });
    try {
      expectFamily(db.columnFamily("green"), expected);
    } finally {
      await db.close();
    }
  });

  it("a blob index into another family's blob file is Corruption naming the blob file", async () => {
    const corruption = (f: () => unknown): ShaleError => {
      try {
        f();
      } catch (e) {
        if (ShaleError.isInstance(e) && e.code === "Corruption") return e;
        throw e;
      }
      throw new Error("no error");
    };
    // blue's table points at green's blob file, which blue's version does not list.
    const fs = new MemoryFileSystem();
    const green = LAYOUT[2]!;
    const layout: FamilyLayout[] = [
      LAYOUT[0]!,
      { ...LAYOUT[1]!, foreign: [["blue-zz", { fileNumber: green.blob, offset: 70, size: 5 }]] },
      green,
    ];
    writeDatabase(fs, "/db", layout);
    const db = await DB.open("/db", { fs, createIfMissing: false });
    try {
      const blue = db.columnFamily("blue");
      const e = corruption(() => blue.get("blue-zz"));
      expect(e.message).toMatch(/invalid blob file number 14/);
      expect(e.file).toBe("000014.blob");
      expect(() => [...blue.iterator()]).toThrow(/Corruption.*invalid blob file number/);
      // The file itself is fine for its own family.
      expectFamily(db.columnFamily("green"), expectedOf(green));
    } finally {
      await db.close();
    }
  });

  it("a blob file whose header names another family is Corruption when read", async () => {
    const fs = new MemoryFileSystem();
    writeDatabase(fs, "/db", LAYOUT);
    // blue's blob file, rewritten as green's (the header's family id).
    writeBlobFile(fs, "/db", 12, 2, LAYOUT[1]!.blobs);
    const db = await DB.open("/db", { fs, createIfMissing: false });
    try {
      const blue = db.columnFamily("blue");
      expect(() => blue.get("blue-k0")).toThrow(/Corruption.*column family 2, expected 1/);
      expect(text(blue.get("blue-i"))).toBe("b");
      expectFamily(db, expectedOf(LAYOUT[0]!));
    } finally {
      await db.close();
    }
  });
});
