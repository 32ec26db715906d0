/**
 * The WebAssembly path of RocksDB's Hash64 (hash64-wasm.ts, 4-240-byte inputs) against the JS
 * code and the BigInt reference, at every length around it and at unaligned offsets;
 * librocksdb's own vectors are checked through `sliceHash64Into` in checksum-vectors.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sliceHash64BigInt, sliceHash64Into, sliceHash64Js } from "./checksum-xxh3.js";
import { HASH64_WASM_ACTIVE, hash64ShortWasm } from "./hash64-wasm.js";

const split = (out: Uint32Array, at: number) => (BigInt(out[at + 1]!) << 32n) | BigInt(out[at]!);

describe("Hash64 through WebAssembly", () => {
  it("is active on Node.js", () => {
    expect(HASH64_WASM_ACTIVE).toBe(true);
  });

  it("hashes 16 bytes 00..0f as the JS code and the reference do", () => {
    const key = Uint8Array.from({ length: 16 }, (_, i) => i);
    const wasm = new Uint32Array(2);
    const js = new Uint32Array(2);
    hash64ShortWasm(key, 0, 16, wasm, 0);
    sliceHash64Js(key, 0, 16, js, 0);
    expect(split(wasm, 0)).toBe(sliceHash64BigInt(key));
    expect(Array.from(wasm)).toEqual(Array.from(js));
  });

  it("equals the JS code and the reference at every length 0-260, any offset, any bytes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 260 }),
        fc.nat(7),
        fc.nat(5),
        (bytes, before, at) => {
          const data = new Uint8Array(before + bytes.length + 3).fill(0xa5);
          data.set(bytes, before);
          const a = new Uint32Array(8).fill(7);
          const b = new Uint32Array(8).fill(7);
          sliceHash64Into(data, before, before + bytes.length, a, at);
          sliceHash64Js(data, before, before + bytes.length, b, at);
          expect(Array.from(a)).toEqual(Array.from(b));
          expect(split(a, at)).toBe(sliceHash64BigInt(bytes));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("hashes Buffers (a Uint8Array subclass) and views into larger buffers the same", () => {
    const base = Buffer.from(
      "0123456789abcdefghijklmnopqrstuvwxyz0123456789".repeat(2),
      "latin1",
    ).subarray(0, 92);
    const long = Buffer.alloc(260 + 8, "0123456789abcdefghijklmnopqrstuvwxyz", "latin1");
    for (const [backing, maxLen] of [
      [base, 70],
      [long, 260],
    ] as const) {
      for (let start = 0; start < 8; start++) {
        for (let len = 0; len <= maxLen; len++) {
          const view = backing.subarray(start, start + len);
          const copy = Uint8Array.from(view);
          const a = new Uint32Array(2);
          const b = new Uint32Array(2);
          sliceHash64Into(backing, start, start + len, a, 0);
          sliceHash64Into(copy, 0, len, b, 0);
          expect(Array.from(a), `${start}+${len}`).toEqual(Array.from(b));
          expect(split(a, 0)).toBe(sliceHash64BigInt(copy));
        }
      }
    }
  });

  it("hashes a whole array of 65-240 bytes (copied with one set) as a range of a larger one", () => {
    for (let len = 65; len <= 240; len++) {
      const key = Uint8Array.from({ length: len }, (_, i) => (i * 131 + len) & 0xff);
      const inside = new Uint8Array(len + 5);
      inside.set(key, 3);
      const a = new Uint32Array(2);
      const b = new Uint32Array(2);
      hash64ShortWasm(key, 0, len, a, 0);
      hash64ShortWasm(inside, 3, 3 + len, b, 0);
      expect(split(a, 0), `${len}`).toBe(sliceHash64BigInt(key));
      expect(Array.from(b), `${len}`).toEqual(Array.from(a));
    }
  });

  it("handles words with the top bit set and all-ones inputs (int32 arguments)", () => {
    for (let len = 4; len <= 240; len++) {
      for (const fill of [0x00, 0x7f, 0x80, 0xff]) {
        const key = new Uint8Array(len).fill(fill);
        const out = new Uint32Array(2);
        hash64ShortWasm(key, 0, len, out, 0);
        expect(split(out, 0), `${len} x ${fill}`).toBe(sliceHash64BigInt(key));
      }
    }
  });
});
