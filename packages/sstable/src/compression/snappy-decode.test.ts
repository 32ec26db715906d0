import { toHex } from "@shale/base";
import fc from "fast-check";
import * as snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { BlockSlab } from "../block/alloc.js";
import { compressibleBytes } from "../table/table.test-support.js";
import {
  decodeInJs,
  snappyDecompress,
  snappyDecompressTo,
  snappyHeaderEnd,
  snappyLength,
} from "./snappy-decode.js";
import { wasmDecoder } from "./snappy-wasm.js";

const dataArb = compressibleBytes(2000);

describe("snappyDecompress", () => {
  it("decodes what snappyjs encodes", () => {
    fc.assert(
      fc.property(dataArb, (data) => {
        const compressed = snappy.compress(data);
        const out = snappyDecompress(compressed, 1 << 30);
        expect(out).toBeDefined();
        expect(toHex(out!)).toBe(toHex(data));
      }),
      { numRuns: 300 },
    );
  });

  it("decodes long literals (1 to 4 length bytes) and far copies", () => {
    let x = 99;
    const random = Uint8Array.from({ length: 70_000 }, () => {
      x = (x * 1103515245 + 12345) >>> 0;
      return x >>> 24;
    });
    const data = new Uint8Array(2 * random.length);
    data.set(random);
    data.set(random, random.length); // copies 70 000 bytes back (4-byte offsets)
    const out = snappyDecompress(snappy.compress(data), 1 << 30)!;
    expect(Buffer.compare(out, data)).toBe(0);
  });

  it("the worked example of snappy-decode.ts", () => {
    const out = snappyDecompress(
      Uint8Array.of(0x0a, 0x10, 0x61, 0x62, 0x63, 0x64, 0x65, 0x05, 0x05),
      100,
    );
    expect(new TextDecoder().decode(out)).toBe("abcdeabcde");
  });

  it("decodes all three copy forms, and runs (copies overlapping themselves)", () => {
    const text = (bytes: number[]) =>
      new TextDecoder().decode(snappyDecompress(Uint8Array.from(bytes), 100));
    const abcd = [0x0c, 0x61, 0x62, 0x63, 0x64]; // literal "abcd"
    expect(text([0x08, ...abcd, 0x01, 0x04])).toBe("abcdabcd"); // kind 01, length 4
    expect(text([0x08, ...abcd, 0x0e, 0x04, 0x00])).toBe("abcdabcd"); // kind 10
    expect(text([0x08, ...abcd, 0x0f, 0x04, 0x00, 0x00, 0x00])).toBe("abcdabcd"); // kind 11
    expect(text([0x0a, 0x04, 0x61, 0x62, 0x11, 0x02])).toBe("ababababab"); // run: length 8, offset 2
  });

  it("rejects malformed streams without throwing", () => {
    const good = snappy.compress(new TextEncoder().encode("hello hello hello hello world"));
    expect(snappyDecompress(good, 1000)).toBeDefined();
    for (let n = 0; n < good.length; n++) {
      expect(snappyDecompress(good.subarray(0, n), 1000)).toBeUndefined(); // truncated
    }
    expect(snappyDecompress(good, 10)).toBeUndefined(); // over maxLength
    const longer = Uint8Array.from(good);
    longer[0] = longer[0]! + 1; // header says one more byte than the elements produce
    expect(snappyDecompress(longer, 1000)).toBeUndefined();
    // A copy reaching before the start of the output.
    expect(snappyDecompress(Uint8Array.of(0x08, 0x00, 0x61, 0x0d, 0x09), 100)).toBeUndefined();
    // A copy with offset 0.
    expect(snappyDecompress(Uint8Array.of(0x08, 0x00, 0x61, 0x0d, 0x00), 100)).toBeUndefined();
    // An overlong length varint.
    expect(
      snappyDecompress(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 1 << 30),
    ).toBeUndefined();
  });

  it("decodes into a slab after other blocks, and never copies from before its start", () => {
    const slab = new BlockSlab();
    const blocks: Uint8Array[] = [];
    const views: Uint8Array[] = [];
    for (let i = 0; i < 200; i++) {
      const data = new TextEncoder().encode(`block ${i} `.repeat(20 + (i % 7) * 100));
      const compressed = snappy.compress(data);
      const length = snappyLength(compressed);
      expect(length).toBe(data.length);
      slab.reserve(length);
      expect(snappyDecompressTo(compressed, slab.buf, slab.pos, length)).toBe(true);
      blocks.push(data);
      views.push(slab.take(length));
    }
    // Every view still holds its block: later blocks went after it or into a fresh buffer.
    for (let i = 0; i < blocks.length; i++) expect(toHex(views[i]!)).toBe(toHex(blocks[i]!));
    expect(new Set(views.map((v) => v.buffer)).size).toBeGreaterThan(1);
    // A block over a quarter of a slab gets a buffer of its own size.
    slab.reserve(300_000);
    expect(slab.buf.length).toBe(300_000);
    // A copy reaching back before `start` is malformed even though the buffer has bytes there.
    const out = new Uint8Array(16).fill(0x61);
    const stream = Uint8Array.of(0x08, 0x00, 0x62, 0x0d, 0x02); // "b", then copy 7 from 2 back
    expect(snappyLength(stream)).toBe(8);
    expect(snappyDecompressTo(stream, out, 8, 8)).toBe(false);
    expect(snappyLength(stream)).toBe(8);
    expect(snappyDecompressTo(stream, out, 0, 8)).toBe(false); // from before 0 as well
  });

  // 1,000 decodes of each kind; minutes when the machine is loaded.
  it("the WebAssembly decoder agrees with the JavaScript one, on good and bad streams", {
    timeout: 300_000,
  }, () => {
    const wasm = wasmDecoder();
    expect(wasm).toBeDefined();
    // Each decoder's verdict and, when it decoded, its output (compared as bytes: a damaged
    // length can ask for up to 1 MiB).
    const both = (
      stream: Uint8Array,
      at: number,
    ): [boolean, Uint8Array | undefined, boolean, Uint8Array | undefined] => {
      const length = snappyLength(stream);
      const p = snappyHeaderEnd();
      const a = new Uint8Array(at + Math.max(length, 0)).fill(7);
      const b = new Uint8Array(at + Math.max(length, 0)).fill(7);
      const okJs = length >= 0 && length < 1 << 20 && decodeInJs(stream, a, at, length);
      const okWasm = length >= 0 && length < 1 << 20 && wasm!.decodeTo(stream, p, b, at, length);
      return [okJs, okJs ? a : undefined, okWasm, okWasm ? b : undefined];
    };
    const same = (x: Uint8Array | undefined, y: Uint8Array | undefined): boolean =>
      x === undefined || y === undefined ? x === y : Buffer.compare(x, y) === 0;
    fc.assert(
      fc.property(dataArb, fc.integer({ min: 0, max: 40 }), (data, at) => {
        const [okJs, js, okWasm, w] = both(snappy.compress(data), at);
        expect(okJs).toBe(true);
        expect(okWasm).toBe(true);
        expect(same(w, js)).toBe(true);
      }),
      { numRuns: 200 },
    );
    // A copy reaching back before the output's start (in memory, the input lies there).
    const back = Uint8Array.of(0x08, 0x00, 0x62, 0x0d, 0x02); // "b", then 7 from 2 back
    expect(both(back, 0)).toEqual([false, undefined, false, undefined]);
    expect(both(back, 5)).toEqual([false, undefined, false, undefined]);
    // Damaged streams: truncated, bytes flipped, random bytes (long literal headers too).
    fc.assert(
      fc.property(
        dataArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 4 }),
        fc.nat(),
        fc.integer({ min: 0, max: 9 }),
        (data, flips, cut, at) => {
          const good = snappy.compress(data);
          const bad = Uint8Array.from(good.subarray(0, good.length - (cut % 3)));
          for (const [i, x] of flips)
            if (bad.length > 0) bad[i % bad.length] = bad[i % bad.length]! ^ x;
          const [okJs, js, okWasm, w] = both(bad, at);
          expect(okWasm).toBe(okJs);
          expect(same(w, js)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const [okJs, js, okWasm, w] = both(bytes, 3);
        expect(okWasm).toBe(okJs);
        expect(same(w, js)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("the WebAssembly decoder's word copies: every literal length and copy offset up to 70", () => {
    const wasm = wasmDecoder()!;
    const varint = (n: number): number[] => {
      const out: number[] = [];
      for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
      out.push(n);
      return out;
    };
    // literal(len bytes) [+ copy(len2 from off back)] + literal(3 bytes), as a raw stream.
    const literal = (bytes: number[]): number[] =>
      bytes.length <= 60
        ? [(bytes.length - 1) << 2, ...bytes]
        : [60 << 2, bytes.length - 1, ...bytes];
    const copy = (len: number, off: number): number[] => [
      ((len - 1) << 2) | 2,
      off & 0xff,
      off >>> 8,
    ];
    const check = (elements: number[], length: number) => {
      const stream = Uint8Array.from([...varint(length), ...elements]);
      expect(snappyLength(stream)).toBe(length); // decodeInJs starts after the header read
      const p = snappyHeaderEnd();
      const a = new Uint8Array(length);
      const b = new Uint8Array(length);
      expect(decodeInJs(stream, a, 0, length)).toBe(true);
      expect(wasm.decodeTo(stream, p, b, 0, length)).toBe(true);
      expect(toHex(b)).toBe(toHex(a));
    };
    const bytes = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
    for (let len = 1; len <= 70; len++) {
      check([...literal(bytes(len, 1)), ...literal(bytes(3, 2))], len + 3);
      // A copy element holds at most 64 bytes.
      for (let off = 1; off <= 70 && len <= 64; off++) {
        const first = Math.max(off, 1);
        check(
          [...literal(bytes(first, 3)), ...copy(len, off), ...literal(bytes(3, 4))],
          first + len + 3,
        );
      }
    }
  });

  it("random bytes decode to undefined or to exactly the announced length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const out = snappyDecompress(bytes, 1 << 16);
        if (out !== undefined) {
          let length = 0;
          for (let i = 0, shift = 0; i < bytes.length; i++, shift += 7) {
            length += (bytes[i]! & 0x7f) * 2 ** shift;
            if (bytes[i]! < 0x80) break;
          }
          expect(out.length).toBe(length);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
