import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pooledBytes, toBytes } from "./bytes.js";

describe("pooledBytes", () => {
  it("hands out zeroed, 8-byte aligned pieces that never overlap", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 60 }), (sizes) => {
        const pieces = sizes.map((n) => pooledBytes(n));
        pieces.forEach((p, i) => {
          expect(p.length).toBe(sizes[i]);
          expect(p.every((b) => b === 0)).toBe(true);
          if (p.length <= 2048) expect(p.byteOffset % 8).toBe(0);
        });
        // Each piece filled with its own byte: a piece sharing bytes with another would
        // show the other's fill.
        pieces.forEach((p, i) => {
          p.fill((i % 255) + 1);
        });
        pieces.forEach((p, i) => {
          expect(p.every((b) => b === (i % 255) + 1)).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it("views a shared pool buffer for small sizes, and gives large ones their own", () => {
    const a = pooledBytes(64);
    const b = pooledBytes(64);
    expect(a.buffer.byteLength).toBe(8192);
    expect(b.buffer.byteLength).toBe(8192);
    // The next piece of the same pool, or the start of a new one when a filled it.
    if (b.buffer === a.buffer) expect(b.byteOffset).toBe(a.byteOffset + 64);
    else expect(b.byteOffset).toBe(0);
    const big = pooledBytes(4096);
    expect(big.buffer.byteLength).toBe(4096);
    expect(big.byteOffset).toBe(0);
  });
});

describe("toBytes", () => {
  it("rejects strings with lone surrogates (they would collide as U+FFFD)", () => {
    for (const s of ["\ud800", "\udbff", "a\udc00b", "x\ud83d", "\ude00y"]) {
      expect(() => toBytes(s, "key")).toThrow(TypeError);
      expect(() => toBytes(s, "key")).toThrow(/key is not well-formed UTF-16/);
    }
  });

  it("property: well-formed strings encode losslessly, so distinct strings stay distinct", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        const ea = toBytes(a);
        expect(new TextDecoder().decode(ea)).toBe(a);
        if (a !== b) expect(Buffer.from(ea).equals(Buffer.from(toBytes(b)))).toBe(false);
      }),
    );
  });

  it("property: any string with a lone surrogate is a TypeError", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 0xd800, max: 0xdfff }),
        fc.string(),
        (pre, unit, post) => {
          const s =
            pre.replace(/[\ud800-\udfff]/g, "") +
            String.fromCharCode(unit) +
            post.replace(/[\ud800-\udfff]/g, "");
          expect(() => toBytes(s)).toThrow(TypeError);
        },
      ),
    );
  });

  it("returns byte input as is and names the argument on a wrong type", () => {
    const b = new Uint8Array([1, 2]);
    expect(toBytes(b)).toBe(b);
    expect(() => toBytes(5, "value")).toThrow(/value must be a Uint8Array/);
  });
});
