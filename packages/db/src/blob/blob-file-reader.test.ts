import { readFileSync } from "node:fs";
import { MemoryFileSystem, ShaleError } from "@shale/base";
import { CompressionType, compressBlock } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blobFileName } from "../core/filenames.js";
import { BlobFileReader } from "./blob-file-reader.js";
import {
  BLOB_HEADER_SIZE,
  BLOB_RECORD_HEADER_SIZE,
  decodeBlobIndex,
  encodeBlobFooter,
  encodeBlobHeader,
  encodeBlobIndex,
  encodeBlobRecord,
} from "./blob-format.js";
import { BlobSource } from "./blob-source.js";

const testdata = (name: string) => new URL(`./testdata/${name}`, import.meta.url);
const utf8 = (s: string) => new TextEncoder().encode(s);
const fromHex = (h: string) => Uint8Array.from(h.split(" ").map((b) => Number.parseInt(b, 16)));

/** The drawn file: its bytes (checking each field's offset) and the blob index line. */
function drawn(): { bytes: Uint8Array; index: Uint8Array } {
  const parts: number[] = [];
  let index = new Uint8Array(0);
  for (const raw of readFileSync(testdata("blob-file.txt"), "utf8").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(?:(\d+) )?([\w.]+): ([0-9a-f ]+)$/.exec(line);
    if (m === null) throw new Error(`bad line ${line}`);
    if (m[2] === "index") {
      index = fromHex(m[3]!);
      continue;
    }
    expect(Number(m[1]), m[2]).toBe(parts.length);
    parts.push(...fromHex(m[3]!));
  }
  return { bytes: Uint8Array.from(parts), index };
}

/** A blob file of `entries` (one record each) as RocksDB writes it; the blob index of each. */
function buildFile(
  number: number,
  entries: [string, Uint8Array][],
  compression = 0,
): { bytes: Uint8Array; indexes: Uint8Array[] } {
  const chunks: Uint8Array[] = [
    encodeBlobHeader({
      columnFamilyId: 0,
      hasTtl: false,
      compression,
      expirationStart: 0,
      expirationEnd: 0,
    }),
  ];
  let offset = BLOB_HEADER_SIZE;
  const indexes: Uint8Array[] = [];
  for (const [key, value] of entries) {
    const k = utf8(key);
    const stored =
      compression === 0 ? value : compressBlock(value, compression as CompressionType)!;
    const record = encodeBlobRecord(k, stored);
    const valueOffset = offset + BLOB_RECORD_HEADER_SIZE + k.length;
    indexes.push(
      encodeBlobIndex({
        fileNumber: number,
        offset: valueOffset,
        size: stored.length,
        compression,
      }),
    );
    chunks.push(record);
    offset += record.length;
  }
  chunks.push(
    encodeBlobFooter({ blobCount: entries.length, expirationStart: 0, expirationEnd: 0 }),
  );
  const bytes = new Uint8Array(offset + 32);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, indexes };
}

describe("blob files", () => {
  it("the drawn file is RocksDB's 000010.blob and shale encodes it byte for byte", () => {
    const { bytes, index } = drawn();
    expect(bytes).toEqual(new Uint8Array(readFileSync(testdata("rocksdb-000010.blob"))));
    const built = buildFile(10, [["a", utf8("hello")]]);
    expect(built.bytes).toEqual(bytes);
    expect(built.indexes[0]).toEqual(index);
    expect(decodeBlobIndex(index)).toEqual({ fileNumber: 10, offset: 63, size: 5, compression: 0 });
  });

  it("reads RocksDB's file, and values of a hand-built one (uncompressed and snappy)", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const { bytes, index } = drawn();
    fs.writeFile(blobFileName("/db", 10), bytes);
    const values: [string, Uint8Array][] = [
      ["k1", utf8("one")],
      ["k2", new Uint8Array(0)],
      ["k3", utf8("x".repeat(3000))],
    ];
    const plain = buildFile(11, values);
    fs.writeFile(blobFileName("/db", 11), plain.bytes);
    const snappy = buildFile(12, [["s", utf8("abc".repeat(500))]], CompressionType.Snappy);
    fs.writeFile(blobFileName("/db", 12), snappy.bytes);
    const source = new BlobSource({ fs, dir: "/db", columnFamilyId: 0 });
    expect(new TextDecoder().decode(source.resolve(utf8("a"), index))).toBe("hello");
    values.forEach(([k, v], i) => {
      expect(source.resolve(utf8(k), plain.indexes[i]!)).toEqual(v);
    });
    expect(source.resolve(utf8("s"), snappy.indexes[0]!)).toEqual(utf8("abc".repeat(500)));
    source.close();
  });

  function expectCorruption(f: () => unknown, file: string, offset?: number, message?: RegExp) {
    try {
      f();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code === "Corruption", String(e)).toBe(true);
      const err = e as ShaleError;
      expect(err.file).toContain(file);
      if (offset !== undefined) expect(err.offset).toBe(offset);
      if (message !== undefined) expect(err.message).toMatch(message);
      return;
    }
    throw new Error("no error");
  }

  it("a flipped byte anywhere in the record is Corruption naming the blob file and offset", () => {
    const { bytes, index } = drawn();
    for (let at = 30; at < 68; at++) {
      const fs = new MemoryFileSystem();
      fs.mkdir("/db");
      const damaged = bytes.slice();
      damaged[at]! ^= 0x20;
      fs.writeFile(blobFileName("/db", 10), damaged);
      const source = new BlobSource({ fs, dir: "/db", columnFamilyId: 0 });
      // The record starts at 30; value-length damage is reported at the field (38).
      expectCorruption(() => source.resolve(utf8("a"), index), "000010.blob");
      source.close();
    }
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const damaged = bytes.slice();
    damaged[65]! ^= 1; // in the value
    fs.writeFile(blobFileName("/db", 10), damaged);
    const source = new BlobSource({ fs, dir: "/db", columnFamilyId: 0 });
    expectCorruption(() => source.resolve(utf8("a"), index), "000010.blob", 30, /blob CRC/);
  });

  it("damaged headers and footers, wrong family, bad offsets, missing and dead files", () => {
    const { bytes, index } = drawn();
    const open = (b: Uint8Array, cf = 0) => {
      const fs = new MemoryFileSystem();
      fs.mkdir("/db");
      fs.writeFile("/db/000010.blob", b);
      return BlobFileReader.open(fs, "/db/000010.blob", 10, cf);
    };
    const flip = (at: number) => {
      const b = bytes.slice();
      b[at]! ^= 1;
      return b;
    };
    expectCorruption(() => open(flip(0)), "000010.blob", 0, /magic/);
    expectCorruption(() => open(flip(4)), "000010.blob", 4, /version/);
    expectCorruption(() => open(flip(12)), "000010.blob", 12, /TTL/);
    expectCorruption(() => open(flip(97)), "000010.blob", 96, /footer CRC/);
    expectCorruption(() => open(bytes.subarray(0, 90)), "000010.blob", 58, /magic/);
    expectCorruption(() => open(bytes, 3), "000010.blob", 8, /column family/);
    const reader = open(bytes);
    const ref = decodeBlobIndex(index);
    expectCorruption(() => reader.getBlob(utf8("a"), { ...ref, offset: 70 }), "000010.blob", 70);
    expectCorruption(
      () => reader.getBlob(utf8("a"), { ...ref, compression: 1 }),
      "000010.blob",
      63,
      /compression/,
    );
    expectCorruption(() => reader.getBlob(utf8("b"), ref), "000010.blob", 62, /key mismatch/);
    // A missing file is found when a value is read (RocksDB opens blob files lazily too).
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const source = new BlobSource({ fs, dir: "/db", columnFamilyId: 0 });
    expectCorruption(() => source.resolve(utf8("a"), index), "000010.blob", 0, /missing/);
    const dead = new BlobSource({ fs, dir: "/db", columnFamilyId: 0, isLive: () => false });
    expectCorruption(() => dead.resolve(utf8("a"), index), "000010.blob", 63, /blob file number/);
  });

  it("blob indexes round-trip; TTL types are NotSupported, malformed ones Corruption", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 255 }),
        (fileNumber, offset, size, compression) => {
          const ref = { fileNumber, offset, size, compression };
          expect(decodeBlobIndex(encodeBlobIndex(ref))).toEqual(ref);
        },
      ),
    );
    expect(() => decodeBlobIndex(Uint8Array.of(0, 5, 0x61))).toThrow(/NotSupported/);
    expect(() => decodeBlobIndex(Uint8Array.of(2, 5, 10, 1, 1, 0))).toThrow(/NotSupported/);
    expect(() => decodeBlobIndex(Uint8Array.of(3))).toThrow(/Corruption/);
    expect(() => decodeBlobIndex(Uint8Array.of(1, 10, 63, 5))).toThrow(/Corruption/);
    expect(() => decodeBlobIndex(Uint8Array.of(1, 10, 63, 5, 0, 0))).toThrow(/Corruption/);
  });
});
