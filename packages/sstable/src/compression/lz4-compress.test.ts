/**
 * The LZ4 block encoder (lz4-compress.ts): round trips through shale's decoder and through
 * lz4js's (an independent one), lz4's end-of-block rules checked on every block it writes,
 * the worked example of its header, and RocksDB's framing through compressBlock.
 */
import { toBytes, toHex, ValueKind } from "@shale/base";
import fc from "fast-check";
import * as lz4js from "lz4js";
import { describe, expect, it } from "vitest";
import { rocksdbDataBlocks } from "../bench/rocksdb-blocks.js";
import { CompressionType } from "../format/format.js";
import { buildTable, compressibleBytes, ikey, openTable } from "../table/table.test-support.js";
import { compressBlock, decompressBlock } from "./compression.js";
import { lz4DecompressTo } from "./compression-lz4.js";
import { lz4CompressBound, lz4CompressTo } from "./lz4-compress.js";
import { wasmLz4Compressor } from "./lz4-wasm.js";

/** One block of `raw`, exactly as long as it came out. */
function compress(raw: Uint8Array): Uint8Array {
  const bound = lz4CompressBound(raw.length);
  const dst = new Uint8Array(bound + 8).fill(0xa5);
  const end = lz4CompressTo(raw, 0, raw.length, dst, 0);
  expect(end).toBeLessThanOrEqual(bound);
  let untouched = true; // nothing written past the block
  for (let i = end; i < dst.length; i++) untouched &&= dst[i] === 0xa5;
  expect(untouched).toBe(true);
  return dst.slice(0, end);
}

interface Sequence {
  /** Where the sequence's literals start in the decoded output. */
  at: number;
  literals: number;
  offset: number;
  /** Match length (0 for the last sequence). */
  match: number;
}

/** The sequences of a well-formed block (the test's own reading of the format). */
function sequences(block: Uint8Array): Sequence[] {
  const out: Sequence[] = [];
  let p = 0;
  let at = 0;
  const length = (n: number): number => {
    if (n !== 15) return n;
    let b: number;
    do {
      b = block[p++]!;
      n += b;
    } while (b === 255);
    return n;
  };
  while (p < block.length) {
    const token = block[p++]!;
    const literals = length(token >>> 4);
    p += literals;
    if (p === block.length) {
      out.push({ at, literals, offset: 0, match: 0 });
      break;
    }
    const offset = block[p]! | (block[p + 1]! << 8);
    p += 2;
    const match = length(token & 15) + 4;
    out.push({ at, literals, offset, match });
    at += literals + match;
  }
  return out;
}

/** Round trip through both decoders, and lz4's parsing restrictions on the block. */
function check(raw: Uint8Array): Uint8Array {
  const block = compress(raw);
  const ours = new Uint8Array(raw.length);
  expect(lz4DecompressTo(block, 0, block.length, ours, 0, raw.length)).toBe(true);
  expect(Buffer.compare(ours, raw)).toBe(0);
  const theirs = new Uint8Array(raw.length);
  expect(lz4js.decompressBlock(block, theirs, 0, block.length, 0)).toBe(raw.length);
  expect(Buffer.compare(theirs, raw)).toBe(0);

  const seqs = sequences(block);
  const last = seqs[seqs.length - 1]!;
  expect(last.match).toBe(0);
  if (raw.length < 13) {
    // Too short to compress: one literal run.
    expect(seqs.length).toBe(1);
    expect(last.literals).toBe(raw.length);
  } else {
    // The last 5 bytes are literals; the last match starts at least 12 bytes before the end.
    expect(last.literals).toBeGreaterThanOrEqual(5);
    if (seqs.length > 1) {
      const m = seqs[seqs.length - 2]!;
      expect(m.at + m.literals).toBeLessThanOrEqual(raw.length - 12);
    }
  }
  for (const s of seqs.slice(0, -1)) {
    expect(s.offset).toBeGreaterThanOrEqual(1);
    expect(s.offset).toBeLessThanOrEqual(65535);
    expect(s.offset).toBeLessThanOrEqual(s.at + s.literals); // never before the block
  }
  return block;
}

/** Bytes no match can shorten (xorshift, seeded). */
function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe("LZ4 block encoder", () => {
  it("writes the worked example of its header", () => {
    const raw = new TextEncoder().encode(`${"a".repeat(20)}bc`);
    expect(toHex(check(raw))).toBe("1c610100506161616263");
  });

  it("stores inputs under 13 bytes, and the empty input, as literals", () => {
    expect(toHex(compress(new Uint8Array(0)))).toBe("00");
    for (let n = 1; n < 13; n++) {
      const block = check(new Uint8Array(n)); // zeros: compressible, yet too short
      expect(block.length).toBe(n + 1);
    }
    // 13 zeros: one literal, a match of 7 (to 13 - 5), the last 5 literals.
    expect(toHex(check(new Uint8Array(13)))).toBe("13000100500000000000");
  });

  it("round-trips compressible data through both decoders, keeping the end rules (property)", () => {
    fc.assert(
      fc.property(compressibleBytes(3000), (raw) => {
        check(raw);
      }),
      { numRuns: 400 },
    );
  });

  it("round-trips arbitrary and tiny inputs (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (raw) => {
        check(raw);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40, max: 2 }), (raw) => {
        check(raw);
      }),
      { numRuns: 1000 },
    );
  });

  it("incompressible input grows by no more than lz4's bound", () => {
    for (const n of [13, 100, 4096, 70_000]) {
      const block = check(noise(n, n));
      expect(block.length).toBeLessThanOrEqual(lz4CompressBound(n));
    }
  });

  it("highly repetitive input: a long run compresses ~250:1", () => {
    const raw = new Uint8Array(64 * 1024).fill(7);
    const block = check(raw);
    expect(block.length).toBeLessThan(300);
  });

  it("matches at the largest offset (65,535) and never one beyond it", () => {
    const chunk = noise(64, 99);
    for (const gap of [65535 - 64, 65536 - 64, 65537 - 64]) {
      // chunk ‖ noise(gap) ‖ chunk ‖ tail: the second chunk is 64 + gap bytes after the first.
      const raw = new Uint8Array(64 + gap + 64 + 32);
      raw.set(chunk, 0);
      raw.set(noise(gap, gap), 64);
      raw.set(chunk, 64 + gap);
      const block = check(raw);
      const offsets = sequences(block)
        .slice(0, -1)
        .map((s) => s.offset);
      if (64 + gap <= 65535) expect(offsets).toContain(64 + gap);
      else expect(Math.max(0, ...offsets)).toBeLessThanOrEqual(65535);
    }
  });

  it("compresses a range of a larger buffer, never matching before its start", () => {
    fc.assert(
      fc.property(
        compressibleBytes(500),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        (raw, before, after) => {
          // The same bytes before the range: a match into them would be a bug.
          const big = new Uint8Array(before + raw.length + after);
          for (let i = 0; i < before; i++) big[i] = raw[i % Math.max(1, raw.length)] ?? 0;
          big.set(raw, before);
          const dst = new Uint8Array(lz4CompressBound(raw.length) + 3);
          const end = lz4CompressTo(big, before, before + raw.length, dst, 3);
          const out = new Uint8Array(raw.length);
          expect(lz4DecompressTo(dst, 3, end, out, 0, raw.length)).toBe(true);
          expect(toHex(out)).toBe(toHex(raw));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("blocks do not depend on the blocks compressed before them (the table's generations)", () => {
    const raw = new TextEncoder().encode("the same block, compressed again and again ".repeat(40));
    const first = toHex(compress(raw));
    // Many other blocks in between, some sharing content at the same hash slots.
    for (let i = 0; i < 200; i++) compress(noise(4096, i + 1));
    for (let i = 0; i < 50; i++) compress(raw.subarray(i));
    expect(toHex(compress(raw))).toBe(first);
  });

  it("compressBlock frames it as RocksDB does: varint32 length ‖ block, then the tail", () => {
    const raw = new TextEncoder().encode("abcdefgh".repeat(100)); // 800 bytes
    const out = compressBlock(raw, CompressionType.LZ4, 5)!;
    expect(out).toBeDefined();
    expect([...out.subarray(0, 2)]).toEqual([0xa0, 0x06]); // varint32 800
    const stream = out.subarray(0, out.length - 5);
    expect(toHex(stream.subarray(2))).toBe(toHex(compress(raw)));
    expect(toHex(decompressBlock(stream, CompressionType.LZ4, "f", 0))).toBe(toHex(raw));
    // Saving under 12.5 %: stored as is.
    expect(compressBlock(noise(4096, 5), CompressionType.LZ4)).toBeUndefined();
  });
});

describe("the WebAssembly LZ4 compressor (lz4-compress.wat)", () => {
  const wasm = wasmLz4Compressor();

  it("compiles here", () => {
    expect(wasm).toBeDefined();
  });

  /** The wasm module's block, without RocksDB's varint32 prefix and the 3-byte tail. */
  function wasmBlock(raw: Uint8Array): Uint8Array {
    const out = wasm!.compress(raw, 3);
    let p = 0;
    while (out[p]! & 0x80) p++;
    expect(out.length).toBeGreaterThan(p + 3);
    return out.subarray(p + 1, out.length - 3);
  }

  it("writes the TypeScript compressor's bytes, whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.oneof(compressibleBytes(3000), fc.uint8Array({ maxLength: 3000 })), (raw) => {
        const block = wasmBlock(raw);
        expect(toHex(block)).toBe(toHex(compress(raw)));
        const out = new Uint8Array(raw.length);
        expect(lz4DecompressTo(block, 0, block.length, out, 0, raw.length)).toBe(true);
        expect(Buffer.compare(out, raw)).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it("the same on large, repetitive, far-match and tiny inputs, between other blocks", () => {
    const chunk = noise(64, 7);
    const far = new Uint8Array(64 + 65471 + 64 + 32);
    far.set(chunk, 0);
    far.set(noise(65471, 3), 64);
    far.set(chunk, 64 + 65471);
    const inputs = [
      new Uint8Array(0),
      new Uint8Array(12),
      new Uint8Array(13),
      new Uint8Array(200_000).fill(9),
      noise(100_000, 11),
      far,
      new TextEncoder().encode("abcdefgh".repeat(20_000)),
    ];
    for (const raw of inputs) {
      compress(noise(4096, raw.length + 1)); // other blocks in between
      wasm!.compress(noise(4096, raw.length + 2));
      expect(toHex(wasmBlock(raw))).toBe(toHex(compress(raw)));
      check(raw);
    }
  });
});

describe('tables with compression: "lz4"', () => {
  it("every data block is LZ4 (type byte 4), the properties say LZ4, and it reads back", () => {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 3000; i++) {
      keys.push(ikey(`key${String(i).padStart(8, "0")}`, 1, ValueKind.Value));
      values.push(toBytes(`value ${i} ${"x".repeat(i % 90)}`));
    }
    const table = buildTable(keys, values, { compression: "lz4", blockSize: 4096 });
    expect(table.properties.compression).toBe("LZ4");
    const blocks = rocksdbDataBlocks(table.fs.readFile(table.path)).blocks;
    expect(blocks.length).toBeGreaterThan(10);
    for (const b of blocks) expect(b.type).toBe(CompressionType.LZ4);
    const none = buildTable(keys, values, { compression: "none", blockSize: 4096 });
    expect(table.size).toBeLessThan(none.size * 0.6);
    const reader = openTable(table);
    const it = reader.newIterator();
    let i = 0;
    for (it.seekToFirst(); it.valid(); it.next(), i++) {
      expect(toHex(it.key())).toBe(toHex(keys[i]!));
      expect(toHex(it.value())).toBe(toHex(values[i]!));
    }
    it.close();
    expect(i).toBe(keys.length);
    reader.close();
  });
});
