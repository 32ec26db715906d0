/**
 * The WebAssembly Snappy compressor (snappy-compress.wat, compiled once per thread on first
 * use): a block is copied into the module's memory, compressed there, and the stream copied
 * out into a fresh array of its exact length. The stream is Snappy's format (varint32 length,
 * then literals and copies; see snappy-decode.ts), so any Snappy decoder reads it — RocksDB's
 * among them.
 *
 * Why not `snappyjs` (used before, and still where WebAssembly is unavailable): on
 * db_bench-like 4 KiB blocks it compressed at ~160 MB/s, its hash is a floating-point
 * multiply, its literals a byte loop, and each call allocated its output twice; this module
 * moves 8-byte words and compares matches 8 bytes at a time (figures in the package README).
 *
 * Memory: [hash table 32 KiB][input n][output ≤ maxCompressedLength(n)][16 bytes of slack],
 * grown (never shrunk) to the largest block seen. Single-threaded: one instance per thread,
 * used synchronously.
 */
import { SNAPPY_COMPRESS_WASM } from "./snappy-compress-wasm.js";
import { lazyWasm, memoryFor, type WasmMemory } from "./wasm-module.js";

interface Exports {
  memory: WasmMemory;
  compress(input: number, n: number, out: number): number;
}

/** Where the input starts: after the module's hash table (2^14 16-bit slots). */
const TABLE_BYTES = 32768;
/** Past the longest stream: literals' 8-byte words may overrun it, `compress`'s tail is read. */
const SLACK = 16;
/** The module takes lengths below 2^32 - 1; blocks are far smaller (at most ~1 GiB here). */
const MAX_INPUT = 0x7fffffff;

/** The most bytes a Snappy stream of `n` input bytes can take (Snappy's MaxCompressedLength). */
export function maxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

export class WasmSnappyCompressor {
  private readonly exports: Exports;
  private bytes: Uint8Array;

  constructor(exports: Exports) {
    this.exports = exports;
    this.bytes = new Uint8Array(exports.memory.buffer);
  }

  /**
   * The Snappy stream of `raw`, in a fresh array with `tail` more bytes after it (room for
   * the caller's block trailer; their contents are unspecified). REQUIRES: raw.length < 2^31,
   * 0 <= tail <= 16.
   */
  compress(raw: Uint8Array, tail = 0): Uint8Array {
    const n = raw.length;
    if (n > MAX_INPUT) throw new RangeError(`cannot compress ${n} bytes at once`);
    const out = TABLE_BYTES + n;
    const need = out + maxCompressedLength(n) + SLACK;
    const bytes = memoryFor(this.exports.memory, this.bytes, need);
    this.bytes = bytes;
    bytes.set(raw, TABLE_BYTES);
    const length = this.exports.compress(TABLE_BYTES, n, out);
    return bytes.slice(out, out + length + tail); // the tail: slack bytes
  }
}

/** This thread's compressor, or undefined without WebAssembly. */
export const wasmCompressor: () => WasmSnappyCompressor | undefined = lazyWasm(
  SNAPPY_COMPRESS_WASM,
  (exports) => new WasmSnappyCompressor(exports as Exports),
);
