/**
 * The WebAssembly LZ4 block compressor (lz4-compress.wat, compiled once per thread on first
 * use) in RocksDB's framing: a block is copied into the module's memory, compressed there,
 * and `varint32 length ‖ LZ4 block` copied out into a fresh array of its exact length (plus
 * the caller's tail). The module runs lz4-compress.ts's algorithm step for step, so its
 * blocks are byte for byte those of the TypeScript compressor, which is used where
 * WebAssembly is unavailable.
 *
 * Memory: [hash table 32 KiB][input n][output ≤ lz4CompressBound(n)], grown (never shrunk)
 * to the largest block seen. Single-threaded: one instance per thread, used synchronously.
 */
import { putVarint32, varintLength } from "@shale/base";
import { lz4CompressBound } from "./lz4-compress.js";
import { LZ4_COMPRESS_WASM } from "./lz4-compress-wasm.js";
import { lazyWasm, memoryFor, type WasmMemory } from "./wasm-module.js";

interface Exports {
  memory: WasmMemory;
  compress(input: number, n: number, out: number): number;
}

/** Where the input starts: after the module's hash table (8,192 i32 slots). */
const TABLE_BYTES = 32768;
/** The module takes inputs below 2^30 (its generation stamps). */
const MAX_INPUT = (1 << 30) - 1;

export class WasmLz4Compressor {
  private readonly exports: Exports;
  private bytes: Uint8Array;

  constructor(exports: Exports) {
    this.exports = exports;
    this.bytes = new Uint8Array(exports.memory.buffer);
  }

  /**
   * `varint32 raw.length ‖ LZ4 block of raw` in a fresh array with `tail` more bytes after
   * it (room for the caller's block trailer; zero). REQUIRES: raw.length < 2^30, tail >= 0.
   */
  compress(raw: Uint8Array, tail = 0): Uint8Array {
    const n = raw.length;
    if (n > MAX_INPUT) throw new RangeError(`cannot compress ${n} bytes at once`);
    const out = TABLE_BYTES + n;
    const bytes = memoryFor(this.exports.memory, this.bytes, out + lz4CompressBound(n));
    this.bytes = bytes;
    bytes.set(raw, TABLE_BYTES);
    const length = this.exports.compress(TABLE_BYTES, n, out);
    const prefix = varintLength(n);
    const result = new Uint8Array(prefix + length + tail);
    putVarint32(result, 0, n);
    result.set(bytes.subarray(out, out + length), prefix);
    return result;
  }
}

/** This thread's compressor, or undefined without WebAssembly. */
export const wasmLz4Compressor: () => WasmLz4Compressor | undefined = lazyWasm(
  LZ4_COMPRESS_WASM,
  (exports) => new WasmLz4Compressor(exports as Exports),
);
