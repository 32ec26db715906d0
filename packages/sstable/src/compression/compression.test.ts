import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isShaleError, toHex } from "@shale/base";
import fc from "fast-check";
import * as lz4js from "lz4js";
import { afterEach, describe, expect, it } from "vitest";
import { rocksdbDataBlocks } from "../bench/rocksdb-blocks.js";
import { BlockSlab } from "../block/alloc.js";
import { CompressionType } from "../format/format.js";
import { compressibleBytes } from "../table/table.test-support.js";
import {
  canDecompress,
  compressBlock,
  compressionName,
  compressionTypeFromRocksDBName,
  compressionTypeOf,
  decompressBlock,
  decompressBlockInto,
  rocksdbCompressionName,
  setZlibInflater,
} from "./compression.js";
import { lz4DecompressTo } from "./compression-lz4.js";

const FIXTURES = fileURLToPath(new URL("../../testdata/rocksdb-compression/", import.meta.url));

function fixture(codec: string): Uint8Array {
  return new Uint8Array(readFileSync(`${FIXTURES}${codec}.sst`));
}

/** The uncompressed data blocks of none.sst, the reference for every codec. */
const reference = rocksdbDataBlocks(fixture("none")).blocks.map((b) => {
  expect(b.type).toBe(CompressionType.None);
  return b.bytes;
});

afterEach(() => setZlibInflater(undefined));

describe("compression types are RocksDB's", () => {
  it("numbers and names match include/rocksdb/compression_type.h", () => {
    const expected: [keyof typeof CompressionType, number, string, string][] = [
      ["None", 0, "none", "NoCompression"],
      ["Snappy", 1, "snappy", "Snappy"],
      ["Zlib", 2, "zlib", "Zlib"],
      ["BZip2", 3, "bzip2", "BZip2"],
      ["LZ4", 4, "lz4", "LZ4"],
      ["LZ4HC", 5, "lz4hc", "LZ4HC"],
      ["Xpress", 6, "xpress", "Xpress"],
      ["ZSTD", 7, "zstd", "ZSTD"],
      ["ZSTDNotFinal", 0x40, "zstdNotFinal", "ZSTDNotFinal"],
    ];
    for (const [key, byte, name, rocks] of expected) {
      expect(CompressionType[key]).toBe(byte);
      expect(compressionName(byte)).toBe(name);
      expect(rocksdbCompressionName(byte)).toBe(rocks);
      expect(compressionTypeFromRocksDBName(rocks)).toBe(byte);
    }
    expect(compressionName(9)).toBe("unknown(9)");
    expect(compressionTypeFromRocksDBName("Brotli")).toBe(-1);
  });

  it("writes none, snappy and lz4; read-only and unknown names are InvalidArgument", () => {
    expect(compressionTypeOf("none")).toBe(0);
    expect(compressionTypeOf("snappy")).toBe(1);
    expect(compressionTypeOf("lz4")).toBe(4);
    expect(() => compressionTypeOf("lz4hc" as "none")).toThrow(/read only/);
    expect(() => compressionTypeOf("brotli" as "none")).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => compressBlock(new Uint8Array(100), CompressionType.LZ4HC)).toThrow(
      expect.objectContaining({ code: "NotSupported" }),
    );
  });

  it("decodable types", () => {
    for (const t of [0, 1, 2, 4, 5, 7, 0x40]) expect(canDecompress(t)).toBe(true);
    for (const t of [3, 6, 8, 99]) expect(canDecompress(t)).toBe(false);
    setZlibInflater(null);
    expect(canDecompress(2)).toBe(false);
  });
});

describe("blocks compressed by RocksDB 7.8.3 (testdata/rocksdb-compression)", () => {
  it("the reference table has uncompressed data blocks", () => {
    expect(reference.length).toBeGreaterThanOrEqual(8);
  });

  const codecs: [string, number][] = [
    ["snappy", CompressionType.Snappy],
    ["zlib", CompressionType.Zlib],
    ["lz4", CompressionType.LZ4],
    ["lz4hc", CompressionType.LZ4HC],
    ["zstd", CompressionType.ZSTD],
  ];
  for (const [codec, type] of codecs) {
    it(`${codec}: every data block decodes to none.sst's block (fresh and slab memory)`, () => {
      const { formatVersion, blocks } = rocksdbDataBlocks(fixture(codec));
      expect(formatVersion).toBe(5);
      expect(blocks.length).toBe(reference.length);
      const slab = new BlockSlab();
      let compressed = 0;
      for (let i = 0; i < blocks.length; i++) {
        const b = blocks[i]!;
        if (b.type === CompressionType.None) {
          expect(toHex(b.bytes)).toBe(toHex(reference[i]!));
          continue;
        }
        expect(b.type).toBe(type);
        compressed++;
        const fresh = decompressBlock(b.bytes, b.type, `${codec}.sst`, b.offset);
        expect(toHex(fresh)).toBe(toHex(reference[i]!));
        const carved = decompressBlockInto(b.bytes, b.type, `${codec}.sst`, b.offset, slab);
        expect(toHex(carved)).toBe(toHex(reference[i]!));
        if (type === CompressionType.ZSTD) {
          // kZSTDNotFinalCompression (0x40) blocks are the same stream.
          const notFinal = decompressBlock(b.bytes, CompressionType.ZSTDNotFinal, "f", b.offset);
          expect(toHex(notFinal)).toBe(toHex(reference[i]!));
        }
      }
      expect(compressed).toBeGreaterThan(blocks.length / 2);
    });
  }

  it("bzip2 blocks are NotSupported, naming the type, the file and the offset", () => {
    const { blocks } = rocksdbDataBlocks(fixture("bzip2"));
    const b = blocks.find((x) => x.type === CompressionType.BZip2)!;
    expect(b).toBeDefined();
    let caught: unknown;
    try {
      decompressBlock(b.bytes, b.type, "bzip2.sst", b.offset);
    } catch (e) {
      caught = e;
    }
    expect(isShaleError(caught, "NotSupported")).toBe(true);
    const e = caught as Error & { file: string; offset: number };
    expect(e.message).toMatch(/bzip2 \(3, RocksDB's BZip2\)/);
    expect(e.file).toBe("bzip2.sst");
    expect(e.offset).toBe(b.offset);
    expect(() => decompressBlockInto(b.bytes, 99, "f", 7, new BlockSlab())).toThrow(
      expect.objectContaining({ code: "NotSupported", file: "f", offset: 7 }),
    );
    expect(() => decompressBlock(b.bytes, 6, "f", 7)).toThrow(/xpress \(6/);
  });

  it("zlib without node:zlib is NotSupported, with it a decoded block", () => {
    const { blocks } = rocksdbDataBlocks(fixture("zlib"));
    const b = blocks.find((x) => x.type === CompressionType.Zlib)!;
    setZlibInflater(null);
    expect(() => decompressBlock(b.bytes, b.type, "zlib.sst", b.offset)).toThrow(
      expect.objectContaining({ code: "NotSupported", file: "zlib.sst", offset: b.offset }),
    );
    setZlibInflater(undefined);
    expect(decompressBlock(b.bytes, b.type, "zlib.sst", b.offset).length).toBeGreaterThan(0);
  });
});

const dataArb = compressibleBytes(3000);

/** An LZ4 block of `raw` from lz4js (an independent encoder), RocksDB-framed. */
function lz4Framed(raw: Uint8Array): Uint8Array {
  const dst = new Uint8Array(lz4js.compressBound(raw.length) + 5);
  // varint32 prefix
  let p = 0;
  let v = raw.length;
  while (v >= 0x80) {
    dst[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  dst[p++] = v;
  const n = lz4js.compressBlock(raw, dst.subarray(p), 0, raw.length, new Uint32Array(1 << 16));
  if (n === 0) {
    // lz4js gives up on incompressible input: store it as one literal run.
    const lit = lz4Literals(raw);
    const out = new Uint8Array(p + lit.length);
    out.set(dst.subarray(0, p));
    out.set(lit, p);
    return out;
  }
  return dst.slice(0, p + n);
}

/** `raw` as an LZ4 block of literals only (one last sequence). */
function lz4Literals(raw: Uint8Array): Uint8Array {
  const out: number[] = [];
  let n = raw.length;
  if (n < 15) out.push(n << 4);
  else {
    out.push(0xf0);
    n -= 15;
    while (n >= 255) {
      out.push(255);
      n -= 255;
    }
    out.push(n);
  }
  return Uint8Array.from([...out, ...raw]);
}

describe("LZ4 block decoder", () => {
  it("decodes the worked example of the file header", () => {
    const src = Uint8Array.from([0x1f, 0x61, 0x01, 0x00, 0x00, 0x20, 0x62, 0x63]);
    const dst = new Uint8Array(22);
    expect(lz4DecompressTo(src, 0, src.length, dst, 0, 22)).toBe(true);
    expect(new TextDecoder().decode(dst)).toBe(`${"a".repeat(20)}bc`);
    // One byte short or long of the declared length: malformed.
    expect(lz4DecompressTo(src, 0, src.length, new Uint8Array(23), 0, 23)).toBe(false);
    expect(lz4DecompressTo(src, 0, src.length, new Uint8Array(21), 0, 21)).toBe(false);
  });

  it("rejects offset 0, offsets before the output and truncated input", () => {
    const dst = new Uint8Array(64);
    const zeroOffset = Uint8Array.from([0x10, 0x61, 0x00, 0x00, 0x10, 0x62]);
    expect(lz4DecompressTo(zeroOffset, 0, zeroOffset.length, dst, 0, 7)).toBe(false);
    const tooFar = Uint8Array.from([0x10, 0x61, 0x02, 0x00, 0x10, 0x62]);
    expect(lz4DecompressTo(tooFar, 0, tooFar.length, dst, 0, 6)).toBe(false);
    // ... also when the output starts inside a larger buffer (a slab): never reads before it.
    expect(lz4DecompressTo(tooFar, 0, tooFar.length, dst, 16, 6)).toBe(false);
    const justFits = Uint8Array.from([0x20, 0x61, 0x62, 0x02, 0x00, 0x10, 0x63]);
    expect(lz4DecompressTo(justFits, 0, justFits.length, dst, 16, 7)).toBe(true);
    expect(new TextDecoder().decode(dst.subarray(16, 23))).toBe("ababab" + "c");
    const cut = Uint8Array.from([0x30, 0x61, 0x62]);
    expect(lz4DecompressTo(cut, 0, cut.length, dst, 0, 3)).toBe(false);
    const cutOffset = Uint8Array.from([0x10, 0x61, 0x01]);
    expect(lz4DecompressTo(cutOffset, 0, cutOffset.length, dst, 0, 5)).toBe(false);
    const cutExtension = Uint8Array.from([0xf0, 0xff]);
    expect(lz4DecompressTo(cutExtension, 0, cutExtension.length, dst, 0, 64)).toBe(false);
    expect(lz4DecompressTo(new Uint8Array(0), 0, 0, dst, 0, 0)).toBe(true);
    expect(lz4DecompressTo(new Uint8Array(0), 0, 0, dst, 0, 1)).toBe(false);
  });

  it("round-trips what lz4js encodes (property), into fresh and slab memory", () => {
    fc.assert(
      fc.property(dataArb, (raw) => {
        const framed = lz4Framed(raw);
        const out = decompressBlock(framed, CompressionType.LZ4, "f", 0);
        expect(toHex(out)).toBe(toHex(raw));
        const slab = new BlockSlab();
        slab.reserve(3);
        slab.take(3);
        const carved = decompressBlockInto(framed, CompressionType.LZ4HC, "f", 0, slab);
        expect(toHex(carved)).toBe(toHex(raw));
      }),
      { numRuns: 300 },
    );
  });

  it("never writes outside its output range, whatever the input (property)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.integer({ min: 0, max: 600 }),
        (src, length) => {
          const guard = 16;
          const dst = new Uint8Array(length + 2 * guard).fill(0xa5);
          lz4DecompressTo(src, 0, src.length, dst, guard, length);
          for (let i = 0; i < guard; i++) {
            expect(dst[i]).toBe(0xa5);
            expect(dst[guard + length + i]).toBe(0xa5);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/**
 * Damage to a valid compressed block (flipped bytes, a cut, bytes appended): decoding either
 * yields a block of the prefixed length or throws Corruption — never another error, a crash
 * or a hang (each case is bounded by fast-check's per-run time limit).
 */
function fuzzDamage(codec: string, type: number, runs: number): void {
  const { blocks } = rocksdbDataBlocks(fixture(codec));
  const samples = blocks.filter((b) => b.type === type).map((b) => b.bytes);
  expect(samples.length).toBeGreaterThan(0);
  const damage = fc.oneof(
    fc
      .array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 })
      .map((flips) => (b: Uint8Array) => {
        const c = b.slice();
        for (const [at, x] of flips) c[at % c.length]! ^= x;
        return c;
      }),
    fc.nat().map((cut) => (b: Uint8Array) => b.slice(0, cut % b.length)),
    fc.uint8Array({ minLength: 1, maxLength: 16 }).map((extra) => (b: Uint8Array) => {
      const c = new Uint8Array(b.length + extra.length);
      c.set(b);
      c.set(extra, b.length);
      return c;
    }),
  );
  fc.assert(
    fc.property(fc.nat(), damage, fc.boolean(), (pick, hurt, intoSlab) => {
      const bad = hurt(samples[pick % samples.length]!);
      try {
        const out = intoSlab
          ? decompressBlockInto(bad, type, "f.sst", 42, new BlockSlab())
          : decompressBlock(bad, type, "f.sst", 42);
        expect(out).toBeInstanceOf(Uint8Array);
      } catch (e) {
        if (!isShaleError(e, "Corruption")) throw e;
        expect((e as { file: string }).file).toBe("f.sst");
        expect((e as { offset: number }).offset).toBe(42);
      }
    }),
    { numRuns: runs, interruptAfterTimeLimit: 20_000 },
  );
}

describe("damaged blocks are Corruption, never a crash or a hang (fuzz)", () => {
  it("lz4", () => fuzzDamage("lz4", CompressionType.LZ4, 3000));
  it("lz4hc", () => fuzzDamage("lz4hc", CompressionType.LZ4HC, 1000));
  it("zstd", () => fuzzDamage("zstd", CompressionType.ZSTD, 2000));
  it("zlib", () => fuzzDamage("zlib", CompressionType.Zlib, 1000));
  it("snappy", () => fuzzDamage("snappy", CompressionType.Snappy, 1000));

  it("a bad size prefix or an oversized one is Corruption before any allocation", () => {
    for (const type of [CompressionType.LZ4, CompressionType.ZSTD, CompressionType.Zlib]) {
      expect(() => decompressBlock(new Uint8Array([0xff, 0xff]), type, "f", 1)).toThrow(
        expect.objectContaining({ code: "Corruption", file: "f", offset: 1 }),
      );
      // 2^31: over the 1 GiB bound.
      const huge = new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x08, 0x00]);
      expect(() => decompressBlock(huge, type, "f", 1)).toThrow(/size prefix|malformed/);
    }
    // LZ4 claiming 1 MiB from 3 bytes: past its 256:1 bound.
    expect(() =>
      decompressBlock(new Uint8Array([0x80, 0x80, 0x40, 0, 0, 0]), CompressionType.LZ4, "f", 1),
    ).toThrow(/too large/);
  });
});
