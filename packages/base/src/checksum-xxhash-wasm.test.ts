/**
 * shale's XXH32 and XXH64 (the synchronous checksum wasm module and the pure-JS fallbacks)
 * against an independent implementation, the xxhash-wasm package (a devDependency; the
 * benchmark src/bench/xxhash-wasm-bench.ts measures it slower than shale's own module on
 * every size, see the README), bit for bit: random inputs of 0 to 10 KiB at random offsets,
 * and the published vectors of the xxHash reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import xxhash from "xxhash-wasm";
import { xxh32, xxh64BigInt } from "./checksum.js";
import { xxh32 as xxh32Js } from "./checksum-xxh32.js";
import { useWasmForXxh64 } from "./checksum-xxh64.js";

const api = await xxhash();

/** Published vectors (xxHash's reference, seed 0). */
const VECTORS: [string, number, bigint][] = [
  ["", 0x02cc5d05, 0xef46db3751d8e999n],
  ["a", 0x550d7456, 0xd24ec4f1a98c6e5bn],
  ["abc", 0x32d153ff, 0x44bc2cf5ad770999n],
  ["message digest", 0x7c948494, 0x066ed728fceeb3ben],
  ["abcdefghijklmnopqrstuvwxyz", 0x63a14d5f, 0xcfe1f278fa89835cn],
];

function xxh64Js(data: Uint8Array, start: number, end: number): bigint {
  useWasmForXxh64(false);
  try {
    return xxh64BigInt(data, start, end);
  } finally {
    useWasmForXxh64(true);
  }
}

describe("XXH32 and XXH64 agree with xxhash-wasm", () => {
  it("on the published vectors", () => {
    for (const [text, h32, h64] of VECTORS) {
      const data = new TextEncoder().encode(text);
      expect(api.h32Raw(data, 0) >>> 0, text).toBe(h32);
      expect(api.h64Raw(data), text).toBe(h64);
      expect(xxh32(data) >>> 0, text).toBe(h32);
      expect(xxh32Js(data, 0, data.length, 0) >>> 0, text).toBe(h32);
      expect(xxh64BigInt(data), text).toBe(h64);
      expect(xxh64Js(data, 0, data.length), text).toBe(h64);
    }
  });

  it("on random inputs of 0 to 10 KiB at random offsets (wasm module and JS)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 10 * 1024 + 16 }),
        fc.nat(16),
        fc.nat(0xffffffff),
        (bytes, cut, seed) => {
          const start = Math.min(cut, bytes.length);
          const view = bytes.subarray(start);
          const h32 = api.h32Raw(view, seed) >>> 0;
          expect(xxh32(bytes, start, bytes.length, seed) >>> 0).toBe(h32);
          expect(xxh32Js(bytes, start, bytes.length, seed) >>> 0).toBe(h32);
          const h64 = api.h64Raw(view);
          expect(xxh64BigInt(bytes, start, bytes.length)).toBe(h64);
          expect(xxh64Js(bytes, start, bytes.length)).toBe(h64);
        },
      ),
      { numRuns: 300 },
    );
  });
});
