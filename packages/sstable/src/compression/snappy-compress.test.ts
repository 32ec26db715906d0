import { toHex } from "@shale/base";
import fc from "fast-check";
import * as snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { CompressionType } from "../format/format.js";
import { compressibleBytes } from "../table/table.test-support.js";
import { compressBlock } from "./compression.js";
import { maxCompressedLength, wasmCompressor } from "./snappy-compress.js";
import { decodeInJs, snappyHeaderEnd, snappyLength } from "./snappy-decode.js";
import { wasmDecoder } from "./snappy-wasm.js";

const compressor = wasmCompressor()!;

/** Decodes `stream` with snappyjs (an independent decoder) and both of shale's. */
function decodeAll(stream: Uint8Array): string[] {
  const length = snappyLength(stream);
  const start = snappyHeaderEnd();
  const js = new Uint8Array(length);
  expect(decodeInJs(stream, js, 0, length)).toBe(true);
  const wasm = new Uint8Array(length);
  expect(wasmDecoder()!.decodeTo(stream, start, wasm, 0, length)).toBe(true);
  return [toHex(snappy.uncompress(stream)), toHex(js), toHex(wasm)];
}

function expectRoundTrip(data: Uint8Array): Uint8Array {
  const stream = compressor.compress(data);
  expect(stream.length).toBeLessThanOrEqual(maxCompressedLength(data.length));
  const hex = toHex(data);
  expect(decodeAll(stream)).toEqual([hex, hex, hex]);
  return stream;
}

/** Deterministic pseudo-random bytes (incompressible). */
function noise(n: number, seed: number): Uint8Array {
  let x = seed >>> 0;
  return Uint8Array.from({ length: n }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x >>> 24;
  });
}

/** The elements of a Snappy stream: kind 0 literal, 1 and 2 copies (1- and 2-byte offsets). */
function elements(stream: Uint8Array): { kind: number; length: number; offset: number }[] {
  snappyLength(stream);
  const out: { kind: number; length: number; offset: number }[] = [];
  let p = snappyHeaderEnd();
  while (p < stream.length) {
    const tag = stream[p++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        const extra = n - 59;
        n = 0;
        for (let i = 0; i < extra; i++) n |= stream[p + i]! << (8 * i);
        p += extra;
      }
      out.push({ kind, length: n + 1, offset: 0 });
      p += n + 1;
    } else if (kind === 1) {
      out.push({ kind, length: 4 + ((tag >>> 2) & 7), offset: ((tag >>> 5) << 8) | stream[p]! });
      p += 1;
    } else if (kind === 2) {
      out.push({ kind, length: (tag >>> 2) + 1, offset: stream[p]! | (stream[p + 1]! << 8) });
      p += 2;
    } else {
      throw new Error("the compressor wrote a 4-byte-offset copy");
    }
  }
  return out;
}

describe("WasmSnappyCompressor", () => {
  it("compiles here (Node has WebAssembly)", () => {
    expect(compressor).toBeDefined();
  });

  it("round-trips any bytes through snappyjs and both of shale's decoders", () => {
    fc.assert(
      fc.property(compressibleBytes(2000), (data) => {
        expectRoundTrip(data);
      }),
      { numRuns: 400 },
    );
  });

  it("round-trips every length around the 15-byte margin and the 16-byte literal words", () => {
    for (let n = 0; n <= 40; n++) {
      expectRoundTrip(noise(n, n + 1));
      expectRoundTrip(new Uint8Array(n).fill(7));
    }
  });

  it("writes the empty stream as one length byte", () => {
    expect(Array.from(compressor.compress(new Uint8Array(0)))).toEqual([0]);
  });

  it("cuts long matches in copies of at most 64 bytes, the last one at least 4", () => {
    // A 5-byte pattern repeated: one literal, then one long match at offset 5.
    for (const n of [67, 68, 69, 128, 131, 132, 133, 1000]) {
      const data = Uint8Array.from({ length: n }, (_, i) => i % 5);
      const copies = elements(expectRoundTrip(data)).filter((e) => e.kind !== 0);
      expect(copies.length).toBeGreaterThan(0);
      for (const c of copies) {
        expect(c.length).toBeGreaterThanOrEqual(4);
        expect(c.length).toBeLessThanOrEqual(64);
      }
      expect(copies.reduce((sum, c) => sum + c.length, 0)).toBe(n - 5);
    }
  });

  it("uses 2-byte offsets for matches 2048 bytes back or more", () => {
    // Text-like runs (their dense matches keep the search stepping byte by byte): words of
    // one vocabulary, then of another that shares no 4 bytes with it, then the first run
    // again, whose nearest earlier occurrence is then over 2048 bytes back.
    const text = (words: string[], seed: number): Uint8Array => {
      let x = seed;
      let t = "";
      while (t.length < 2200) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        t += words[(x >>> 16) % words.length];
      }
      return new TextEncoder().encode(t.slice(0, 2200));
    };
    const a = text(["alpha ", "bravo ", "charlie ", "delta ", "echo "], 17);
    const b = text(["KILO_", "LIMA_", "MIKE_", "OSCAR_", "PAPA_"], 23);
    const data = new Uint8Array(3 * 2200);
    data.set(a);
    data.set(b, 2200);
    data.set(a, 4400);
    const far = elements(expectRoundTrip(data)).filter((e) => e.kind === 2 && e.offset >= 2048);
    expect(far.length).toBeGreaterThan(0);
  });

  it("compresses inputs over 64 KiB in independent fragments", () => {
    for (const n of [65535, 65536, 65537, 200_000]) {
      const piece = noise(1000, n);
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i += 1000) data.set(piece.subarray(0, Math.min(1000, n - i)), i);
      const stream = expectRoundTrip(data);
      expect(stream.length).toBeLessThan(n / 10);
    }
  });

  it("keeps incompressible input within Snappy's bound", () => {
    for (const n of [100, 4096, 70_000]) expectRoundTrip(noise(n, 9));
  });

  it("is not confused by a previous, larger block (the table is cleared per fragment)", () => {
    const big = noise(50_000, 3);
    compressor.compress(big);
    const small = noise(4000, 4);
    expectRoundTrip(small);
    // The same input gives the same stream, whatever came before.
    expect(toHex(compressor.compress(small))).toBe(toHex(wasmCompressor()!.compress(small)));
  });
});

describe("compressBlock (snappy)", () => {
  it("writes streams every decoder reads, or nothing when the saving is under 12.5 %", () => {
    fc.assert(
      fc.property(compressibleBytes(500), (data) => {
        const out = compressBlock(data, CompressionType.Snappy);
        if (out === undefined) {
          const stream = compressor.compress(data);
          expect(data.length === 0 || stream.length > data.length - (data.length >>> 3)).toBe(true);
          return;
        }
        const hex = toHex(data);
        expect(decodeAll(out)).toEqual([hex, hex, hex]);
      }),
      { numRuns: 200 },
    );
  });
});
