import { isCorruption, MemoryFileSystem, toHex } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readBlock, writeBlock } from "./block-io.js";
import { compressBlock, compressionTypeOf, decompressBlock } from "./compression.js";
import {
  type BlockHandle,
  CompressionType,
  decodeBlockHandleInto,
  encodeBlockHandle,
} from "./format.js";
import { decodeProperties, encodeProperties, type TableProperties } from "./properties.js";

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
    const h = writeBlock(file, 0, raw, CompressionType.Snappy);
    file.close();
    expect(h.size).toBeLessThan(raw.length);
    const ra = fs.openRandomAccess("b");
    expect(toHex(readBlock(ra, ra.size, h, "b", true))).toBe(toHex(raw));
    expect(() => readBlock(ra, ra.size - 1, h, "b", true)).toThrow(/past the end/);
    const bytes = fs.readFile("b").slice();
    bytes[2] = bytes[2]! ^ 0x10;
    fs.writeFile("b", bytes);
    const damaged = fs.openRandomAccess("b");
    try {
      readBlock(damaged, damaged.size, h, "b", true);
      expect.unreachable();
    } catch (e) {
      expect(isCorruption(e)).toBe(true);
    }
  });
});

describe("properties", () => {
  const props: TableProperties = {
    formatVersion: 1,
    numEntries: 10,
    numDeletions: 2,
    numMergeOperands: 3,
    numRangeDeletions: 1,
    rawKeySize: 100,
    rawValueSize: 2 ** 40,
    dataSize: 5000,
    indexSize: 40,
    filterSize: 30,
    numDataBlocks: 2,
    smallestKey: new Uint8Array([1, 2, 3]),
    largestKey: new Uint8Array([9, 9]),
    smallestSeq: 1,
    largestSeq: 2 ** 53 - 1,
    comparatorName: "leveldb.BytewiseComparator",
    filterPolicy: "bloom:10",
    compression: "snappy",
    creationTime: 1_700_000_000,
    user: { a: "b" },
  };

  it("round-trip", () => {
    const decoded = decodeProperties(encodeProperties(props), "f", 0);
    expect(decoded).toEqual(props);
    expect(Object.getPrototypeOf(decoded.smallestKey)).toBe(Uint8Array.prototype);
  });

  it("missing or mistyped fields are Corruption", () => {
    const { numEntries: _, ...missing } = props;
    expect(() => decodeProperties(encodeProperties(missing as TableProperties), "f", 7)).toThrow(
      expect.objectContaining({ code: "Corruption", offset: 7 }),
    );
    expect(() =>
      decodeProperties(
        encodeProperties({ ...props, comparatorName: 5 as unknown as string }),
        "f",
        7,
      ),
    ).toThrow(/comparatorName/);
    expect(() => decodeProperties(new Uint8Array([0xc1]), "f", 7)).toThrow(
      expect.objectContaining({ code: "Corruption" }),
    );
    expect(() => decodeProperties(new Uint8Array([0x05]), "f", 7)).toThrow(/not a map/);
  });
});
