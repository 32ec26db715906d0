import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ByteWriter,
  Decoder,
  getFixed32,
  getFixed64,
  getVarint32,
  getVarint64,
  putFixed32,
  putFixed64,
  putLengthPrefixed,
  putVarint32,
  putVarint64,
  varintLength,
} from "./coding.js";
import { isShaleError } from "./errors.js";

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u53 = fc.oneof(
  u32,
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  fc.constant(Number.MAX_SAFE_INTEGER),
);

describe("fixed-width coding", () => {
  it("round-trips fixed32 little-endian", () => {
    fc.assert(
      fc.property(u32, fc.nat(8), (v, pos) => {
        const buf = new Uint8Array(16);
        expect(putFixed32(buf, pos, v)).toBe(pos + 4);
        expect(getFixed32(buf, pos)).toBe(v);
        expect(buf[pos]).toBe(v & 0xff);
      }),
    );
  });

  it("round-trips fixed64 up to 2^53-1", () => {
    fc.assert(
      fc.property(u53, (v) => {
        const buf = new Uint8Array(8);
        putFixed64(buf, 0, v);
        expect(getFixed64(buf, 0)).toBe(v);
        expect(Buffer.from(buf).readBigUInt64LE(0)).toBe(BigInt(v));
      }),
    );
  });

  it("rejects fixed64 values above 2^53-1 as Corruption", () => {
    const buf = new Uint8Array(8).fill(0xff);
    expect(() => getFixed64(buf, 0)).toThrowError(/Corruption/);
    expect(() => putFixed64(buf, 0, 2 ** 53)).toThrow(RangeError);
  });
});

describe("varints", () => {
  it("round-trip varint32 and match LEB128 length", () => {
    fc.assert(
      fc.property(u32, (v) => {
        const buf = new Uint8Array(5);
        const end = putVarint32(buf, 0, v);
        expect(end).toBe(varintLength(v));
        const d = new Decoder(buf, 0, end);
        expect(d.readVarint32()).toBe(v);
        expect(d.done).toBe(true);
      }),
    );
  });

  it("round-trip varint64 up to 2^53-1", () => {
    fc.assert(
      fc.property(u53, (v) => {
        const buf = new Uint8Array(10);
        const end = putVarint64(buf, 0, v);
        expect(end).toBe(varintLength(v));
        expect(getVarint64(buf, 0, end)).toBe(v);
      }),
    );
  });

  it("encodes known values like LevelDB", () => {
    const buf = new Uint8Array(10);
    expect([...buf.subarray(0, putVarint32(buf, 0, 300))]).toEqual([0xac, 0x02]);
    expect([...buf.subarray(0, putVarint32(buf, 0, 0xffffffff))]).toEqual([
      0xff, 0xff, 0xff, 0xff, 0x0f,
    ]);
  });

  it("rejects truncated and overlong varints with Corruption and the offset", () => {
    const truncated = new Uint8Array([0x80, 0x80]);
    try {
      getVarint32(truncated, 0);
      expect.unreachable();
    } catch (e) {
      expect(isShaleError(e, "Corruption")).toBe(true);
      expect((e as { offset?: number }).offset).toBe(0);
    }
    expect(() => getVarint32(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x1f]), 0)).toThrowError(
      /Corruption/,
    );
    expect(() => getVarint32(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), 0)).toThrowError(
      /Corruption/,
    );
    expect(() => getVarint64(new Uint8Array(11).fill(0x80), 0)).toThrowError(/Corruption/);
    const big = new Uint8Array(10).fill(0xff);
    big[9] = 0x01;
    expect(() => getVarint64(big, 0)).toThrowError(/exceeds/);
  });

  it("reports corruption offsets relative to the file", () => {
    const d = new Decoder(new Uint8Array([1, 2]), 0, 2, 4096, "000001.sst");
    d.readByte();
    d.readByte();
    try {
      d.readFixed32();
      expect.unreachable();
    } catch (e) {
      expect(isShaleError(e, "Corruption")).toBe(true);
      expect((e as { file?: string }).file).toBe("000001.sst");
      expect((e as { offset?: number }).offset).toBe(4098);
    }
  });
});

describe("length-prefixed slices and ByteWriter", () => {
  it("round-trips sequences of fields", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(u32, fc.uint8Array({ maxLength: 300 }), u53)), (fields) => {
        const w = new ByteWriter(4);
        for (const [a, b, c] of fields) w.varint32(a).lengthPrefixed(b).fixed64(c).fixed32(a);
        const d = new Decoder(w.finish());
        for (const [a, b, c] of fields) {
          expect(d.readVarint32()).toBe(a);
          expect([...d.readLengthPrefixed()]).toEqual([...b]);
          expect(d.readFixed64()).toBe(c);
          expect(d.readFixed32()).toBe(a);
        }
        expect(d.done).toBe(true);
      }),
    );
  });

  it("returns views, not copies", () => {
    const buf = new Uint8Array(16);
    const end = putLengthPrefixed(buf, 0, new Uint8Array([7, 8, 9]));
    const view = new Decoder(buf, 0, end).readLengthPrefixed();
    buf[1] = 42;
    expect(view[0]).toBe(42);
  });

  it("rejects a length prefix longer than the buffer", () => {
    const buf = new Uint8Array([5, 1, 2]);
    expect(() => new Decoder(buf).readLengthPrefixed()).toThrowError(/Corruption/);
  });
});
