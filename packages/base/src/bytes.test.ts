import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pooledBytes } from "./bytes.js";

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
