/**
 * owned-bytes.ts: every copy is a plain (non-shared) ArrayBuffer's, equal to its source, and
 * disjoint from every other copy — across pool rollovers and above the pooled size.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ownedBytes, ownedCopy, ownedPair, POOL_SIZE, POOLED_MAX } from "./owned-bytes.js";

function overlaps(a: Uint8Array, b: Uint8Array): boolean {
  if (a.buffer !== b.buffer) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

describe("owned copies", () => {
  it("equal their source, live in plain ArrayBuffers and never overlap one another", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: POOLED_MAX + 100 }), { minLength: 1, maxLength: 60 }),
        (sizes) => {
          const shared = new Uint8Array(new SharedArrayBuffer(POOLED_MAX + 200));
          for (let i = 0; i < shared.length; i++) shared[i] = i & 0xff;
          const copies: Uint8Array[] = [];
          for (const [i, n] of sizes.entries()) {
            const src = shared.subarray(i % 7, (i % 7) + n);
            const c =
              i % 3 === 0
                ? ownedPair(src.subarray(0, n >> 1), src.subarray(n >> 1))
                : [ownedCopy(src)];
            const joined = c.length === 1 ? c[0]! : new Uint8Array([...c[0]!, ...c[1]!]);
            expect(joined).toEqual(new Uint8Array(src));
            for (const x of c) {
              expect(x.buffer).toBeInstanceOf(ArrayBuffer);
              copies.push(x);
            }
          }
          for (let i = 0; i < copies.length; i++)
            for (let j = i + 1; j < copies.length; j++)
              expect(overlaps(copies[i]!, copies[j]!), `${i} ${j}`).toBe(false);
        },
      ),
    );
  });

  it("cuts small ones from a pool and gives large ones their own buffer", () => {
    const a = ownedBytes(10);
    const b = ownedBytes(10);
    expect(a.buffer).toBe(b.buffer);
    expect(a.buffer.byteLength).toBe(POOL_SIZE);
    expect(b.byteOffset % 8).toBe(0);
    const big = ownedBytes(POOLED_MAX + 1);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(POOLED_MAX + 1);
    // A new pool when the piece does not fit.
    const pieces = new Set<ArrayBufferLike>();
    for (let i = 0; i < (POOL_SIZE / POOLED_MAX) * 2 + 1; i++)
      pieces.add(ownedBytes(POOLED_MAX).buffer);
    expect(pieces.size).toBeGreaterThanOrEqual(2);
  });
});
