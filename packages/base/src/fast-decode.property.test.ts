/**
 * The fast decoders and the in-place internal-key order agree with the references:
 * `Decoder` (checked varints: the bounded decoders accept exactly what it accepts, with the
 * same value and end, on any bytes), `getFixed32`, a byte-by-byte model of the key word,
 * `InternalKeyComparator` over bytewise keys and a model of the order written out from its
 * definition (user key ascending, then seq descending, then kind descending).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareBytes } from "./bytes.js";
import { Decoder, getFixed32, putFixed32, putVarint32, putVarint64 } from "./coding.js";
import { bytewiseComparator } from "./comparator.js";
import {
  compareInternalBytewise,
  fixed32At,
  keyWordAt,
  varint32At,
  varint32Before,
  varint64Before,
  varintEnd,
} from "./fast-decode.js";
import {
  compareTrailers,
  InternalKeyComparator,
  MAX_SEQ,
  makeInternalKey,
} from "./internal-key.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const sign = (n: number) => Math.sign(n);

/** The order from its definition. */
function model(a: { user: Uint8Array; seq: number; kind: number }, b: typeof a): number {
  const u = compareBytes(a.user, b.user);
  if (u !== 0) return u;
  if (a.seq !== b.seq) return a.seq > b.seq ? -1 : 1;
  return a.kind === b.kind ? 0 : a.kind > b.kind ? -1 : 1;
}

const seqArb = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.constantFrom(0, 1, 2 ** 24 - 1, 2 ** 24, 2 ** 32 - 1, 2 ** 32, MAX_SEQ - 1, MAX_SEQ),
  fc.integer({ min: 0, max: MAX_SEQ }),
);
const keyArb = fc.record({
  user: fc.uint8Array({ maxLength: 12, max: 3 }),
  seq: seqArb,
  kind: fc.constantFrom(0, 1, 2, 7, 15),
});

describe("fast decoders", () => {
  it("varint32At reads what Decoder.readVarint32 reads, and ends where it ends", () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 7 }), (value, at) => {
        const buf = new Uint8Array(16);
        const end = putVarint32(buf, at, value);
        const d = new Decoder(buf, at);
        expect(varint32At(buf, at)).toBe(d.readVarint32());
        expect(varintEnd).toBe(end);
        expect(d.pos).toBe(end);
      }),
    );
  });

  it("varint32At also reads varint64s up to 2^53 - 1 (the memtable's lengths never need it)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_SEQ }), (value) => {
        const buf = new Uint8Array(12);
        const end = putVarint64(buf, 0, value);
        expect(varint32At(buf, 0)).toBe(new Decoder(buf).readVarint64());
        expect(varintEnd).toBe(end);
      }),
    );
  });

  it("fixed32At equals getFixed32", () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 4 }), (value, at) => {
        const buf = new Uint8Array(8);
        putFixed32(buf, at, value);
        expect(fixed32At(buf, at)).toBe(getFixed32(buf, at));
        expect(fixed32At(buf, at)).toBe(value);
      }),
    );
  });
});

/** What `read` returns on `d`, or "rejected" when it throws (Corruption). */
function reference(read: () => number): number | "rejected" {
  try {
    return read();
  } catch {
    return "rejected";
  }
}

// Bytes with many continuation bits and edge values (0x0f/0x10 at a varint32's 5th byte).
const varintBytes = fc
  .uint8Array({ maxLength: 12 })
  .chain((tail) =>
    fc
      .array(fc.constantFrom(0x80, 0xff, 0x8f, 0x0f, 0x10, 0x7f, 0x00, 0x81), { maxLength: 11 })
      .map((head) => Uint8Array.from([...head, ...tail])),
  );

describe("bounded decoders", () => {
  it("varint32Before accepts what Decoder.readVarint32 accepts, with its value and end", () => {
    fc.assert(
      fc.property(varintBytes, fc.nat({ max: 3 }), fc.nat({ max: 3 }), (bytes, at, cut) => {
        const limit = Math.max(at, bytes.length - cut);
        const d = new Decoder(bytes.subarray(0, limit), at);
        const expected = at >= limit ? "rejected" : reference(() => d.readVarint32());
        const got = varint32Before(bytes, at, limit);
        expect(got < 0 ? "rejected" : got).toBe(expected);
        if (got >= 0) expect(varintEnd).toBe(d.pos);
      }),
      { numRuns: 3000 },
    );
  });

  it("varint64Before accepts what Decoder.readVarint64 accepts, with its value and end", () => {
    fc.assert(
      fc.property(varintBytes, fc.nat({ max: 3 }), fc.nat({ max: 3 }), (bytes, at, cut) => {
        const limit = Math.max(at, bytes.length - cut);
        const d = new Decoder(bytes.subarray(0, limit), at);
        const expected = at >= limit ? "rejected" : reference(() => d.readVarint64());
        const got = varint64Before(bytes, at, limit);
        expect(got < 0 ? "rejected" : got).toBe(expected);
        if (got >= 0) expect(varintEnd).toBe(d.pos);
      }),
      { numRuns: 3000 },
    );
  });

  it("both read every value their encoders write", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_SEQ }), (value) => {
        const buf = new Uint8Array(12);
        const end = putVarint64(buf, 1, value);
        expect(varint64Before(buf, 1, end)).toBe(value);
        expect(varintEnd).toBe(end);
        expect(varint64Before(buf, 1, end - 1)).toBe(-1);
        if (value <= 0xffffffff) {
          expect(varint32Before(buf, 1, end)).toBe(value);
          expect(varintEnd).toBe(end);
        } else {
          expect(varint32Before(buf, 1, end)).toBe(-1);
        }
      }),
    );
  });
});

describe("keyWordAt", () => {
  it("is bytes [start, start + 4) big-endian, zero outside [0, end)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 12 }),
        fc.integer({ min: -5, max: 14 }),
        fc.integer({ min: 0, max: 12 }),
        (key, start, endCut) => {
          const end = Math.min(endCut, key.length);
          let model = 0;
          for (let i = 0; i < 4; i++) {
            const j = start + i;
            model = model * 256 + (j >= 0 && j < end ? key[j]! : 0);
          }
          expect(keyWordAt(key, start, end)).toBe(model);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("orders user keys as bytewise order does where the words differ", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 6, max: 3 }),
        fc.uint8Array({ maxLength: 6, max: 3 }),
        (a, b) => {
          const wa = keyWordAt(a, 0, a.length);
          const wb = keyWordAt(b, 0, b.length);
          if (wa !== wb) expect(sign(wa - wb)).toBe(sign(compareBytes(a, b)));
        },
      ),
    );
  });
});

describe("the internal-key order", () => {
  it("compareInternalBytewise, InternalKeyComparator and compareTrailers agree with the model", () => {
    fc.assert(
      fc.property(keyArb, keyArb, fc.nat({ max: 5 }), (a, b, pad) => {
        const ka = makeInternalKey(a.user, a.seq, a.kind);
        const kb = makeInternalKey(b.user, b.seq, b.kind);
        const expected = sign(model(a, b));
        expect(sign(icmp.compare(ka, kb))).toBe(expected);
        // In place: `a` at an offset inside a larger buffer.
        const buf = new Uint8Array(pad + ka.length + 3);
        buf.set(ka, pad);
        expect(sign(compareInternalBytewise(buf, pad, ka.length, kb, kb.length))).toBe(expected);
        if (compareBytes(a.user, b.user) === 0)
          expect(sign(compareTrailers(ka, kb))).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
