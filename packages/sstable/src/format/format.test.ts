import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  blockChecksum,
  crc32c,
  isCorruption,
  MemoryFileSystem,
  maskChecksum,
  toHex,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readBlock, writeBlock } from "../block/block-io.js";
import { compressBlock, compressionTypeOf, decompressBlock } from "../compression/compression.js";
import {
  type BlockHandle,
  ChecksumType,
  CompressionType,
  decodeBlockHandleInto,
  encodeBlockHandle,
} from "./format.js";

describe("BlockHandle", () => {
  it("round-trips offsets and sizes up to 2^53 - 1", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), (offset, size) => {
        const bytes = encodeBlockHandle({ offset, size });
        expect(bytes.length).toBeLessThanOrEqual(16);
        const out: BlockHandle = { offset: -1, size: -1 };
        expect(decodeBlockHandleInto(bytes, 0, bytes.length, out, new Int32Array(1), "f", 0)).toBe(
          bytes.length,
        );
        expect(out).toEqual({ offset, size });
      }),
    );
    expect(toHex(encodeBlockHandle({ offset: 4200, size: 60 }))).toBe("e8203c");
  });

  it("rejects truncated and overlong handles with Corruption", () => {
    const out: BlockHandle = { offset: 0, size: 0 };
    const bad = [new Uint8Array([0x80]), new Uint8Array([0x01]), new Uint8Array(9).fill(0xff)];
    for (const b of bad) {
      expect(() => decodeBlockHandleInto(b, 0, b.length, out, new Int32Array(1), "f", 12)).toThrow(
        expect.objectContaining({ code: "Corruption", file: "f", offset: 12 }),
      );
    }
  });
});

describe("compression", () => {
  it("compresses when it saves at least 12.5 % and round-trips", () => {
    const text = new TextEncoder().encode(
      "the quick brown fox jumps over the lazy dog ".repeat(100),
    );
    const c = compressBlock(text, CompressionType.Snappy)!;
    expect(c.length).toBeLessThan(text.length / 4);
    expect(toHex(decompressBlock(c, CompressionType.Snappy, "f", 0))).toBe(toHex(text));
    expect(compressBlock(text, CompressionType.None)).toBeUndefined();
    expect(compressBlock(new Uint8Array(0), CompressionType.Snappy)).toBeUndefined();
  });

  it("stores incompressible data raw (saves < 12.5 %)", () => {
    let x = 7;
    const random = Uint8Array.from({ length: 4096 }, () => {
      x = (x * 1103515245 + 12345) >>> 0;
      return x >>> 24;
    });
    expect(compressBlock(random, CompressionType.Snappy)).toBeUndefined();
    // 1/8 compressible: not enough either.
    const mostly = random.slice();
    mostly.fill(0, 0, 400);
    expect(compressBlock(mostly, CompressionType.Snappy)).toBeUndefined();
    mostly.fill(0, 0, 700);
    expect(compressBlock(mostly, CompressionType.Snappy)).toBeDefined();
  });

  it("accepts Buffers", () => {
    const buf = Buffer.alloc(1000, 3);
    const c = compressBlock(buf, CompressionType.Snappy)!;
    expect(c).toBeDefined();
    expect(decompressBlock(Buffer.from(c), CompressionType.Snappy, "f", 0).length).toBe(1000);
  });

  it("a bad stream is Corruption, an unknown type NotSupported, at the block offset", () => {
    expect(() =>
      decompressBlock(new Uint8Array([0xff, 0xff, 0xff]), CompressionType.Snappy, "f", 99),
    ).toThrow(expect.objectContaining({ code: "Corruption", file: "f", offset: 99 }));
    expect(() => decompressBlock(new Uint8Array(3), 99, "f", 99)).toThrow(
      expect.objectContaining({ code: "NotSupported", file: "f", offset: 99 }),
    );
  });

  it("names map to types", () => {
    expect(compressionTypeOf("none")).toBe(0);
    expect(compressionTypeOf("snappy")).toBe(1);
  });

  it("a block written compressed reads back; damage is detected", () => {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable("b");
    const raw = new Uint8Array(3000).fill(9);
    const h = writeBlock(file, 0, raw, CompressionType.Snappy, ChecksumType.CRC32c);
    file.close();
    expect(h.size).toBeLessThan(raw.length);
    const ra = fs.openRandomAccess("b");
    expect(toHex(readBlock(ra, ra.size, h, "b", ChecksumType.CRC32c, true))).toBe(toHex(raw));
    expect(() => readBlock(ra, ra.size - 1, h, "b", ChecksumType.CRC32c, true)).toThrow(
      /past the end/,
    );
    const bytes = fs.readFile("b").slice();
    bytes[2] = bytes[2]! ^ 0x10;
    fs.writeFile("b", bytes);
    const damaged = fs.openRandomAccess("b");
    try {
      readBlock(damaged, damaged.size, h, "b", ChecksumType.CRC32c, true);
      expect.unreachable();
    } catch (e) {
      expect(isCorruption(e)).toBe(true);
    }
  });
});

describe("block trailers (worked bytes from tables RocksDB 7.8.3 wrote)", () => {
  const dir = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    "testdata",
    "rocksdb-tables",
  );
  // The same 191-byte index block at offset 9681 of each table, under each checksum type.
  const cases: [string, number, string][] = [
    ["fv5-crc32c.sst", ChecksumType.CRC32c, "008b53ef3b"],
    ["fv5-xxhash.sst", ChecksumType.xxHash, "00b4ffebc6"],
    ["fv5-xxhash64.sst", ChecksumType.xxHash64, "009eda9cd2"],
    ["fv5-xxh3.sst", ChecksumType.XXH3, "0024c75032"],
  ];
  for (const [name, type, trailer] of cases) {
    it(`${name}: type byte ‖ checksum, written and verified the same`, () => {
      const bytes = readFileSync(join(dir, name)).subarray(9681, 9681 + 191 + 5);
      expect(toHex(bytes.subarray(191))).toBe(trailer);
      const fs = new MemoryFileSystem();
      const file = fs.openWritable("b");
      writeBlock(file, 0, bytes.subarray(0, 191), CompressionType.None, type);
      file.close();
      expect(toHex(fs.readFile("b"))).toBe(toHex(bytes));
      const ra = fs.openRandomAccess("b");
      const h = { offset: 0, size: 191 };
      expect(readBlock(ra, ra.size, h, "b", type, true).length).toBe(191);
    });
  }

  it("tiny.sst's 21-byte index block: masked CRC32C over block ‖ type byte", () => {
    const bytes = readFileSync(join(dir, "tiny.sst")).subarray(158, 158 + 21 + 5);
    expect(toHex(bytes)).toBe("00096b6579303030303032004f0000000001000000" + "00ad74b2d5");
    expect(blockChecksum(ChecksumType.CRC32c, bytes, 0, 22)).toBe(0xd5b274ad);
    expect(maskChecksum(crc32c(bytes, 0, 22))).toBe(0xd5b274ad);
  });

  it("NoChecksum: the stored word must be 0 (RocksDB's VerifyBlockChecksum compares it)", () => {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable("b");
    const h = writeBlock(file, 0, new Uint8Array([1, 2, 3]), CompressionType.None, 0);
    file.close();
    expect(toHex(fs.readFile("b"))).toBe("0102030000000000");
    const ra = fs.openRandomAccess("b");
    expect(toHex(readBlock(ra, ra.size, h, "b", 0, true))).toBe("010203");
    const bytes = fs.readFile("b").slice();
    bytes[5] = 0x77;
    fs.writeFile("b", bytes);
    const damaged = fs.openRandomAccess("b");
    expect(() => readBlock(damaged, damaged.size, h, "b", 0, true)).toThrow(
      expect.objectContaining({ code: "Corruption", file: "b", offset: 0 }),
    );
    // Not verified when asked not to.
    expect(toHex(readBlock(damaged, damaged.size, h, "b", 0, false))).toBe("010203");
  });
});
