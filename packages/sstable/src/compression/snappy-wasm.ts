/**
 * The WebAssembly Snappy decoder (snappy-decode.wat, 478 bytes, compiled once per thread on
 * first use): the block's compressed bytes are copied into the module's memory, decoded
 * there, and the output copied out. On db_bench-like 4 KiB blocks that is ~2x faster than
 * the JavaScript loop of snappy-decode.ts (whose copies of 4..64 bytes each pay a builtin
 * call or a bounds-checked byte loop). Where WebAssembly is unavailable (or fails to
 * compile) `wasmDecoder()` returns undefined and the JavaScript decoder is used.
 *
 * Memory: [input n bytes][output length bytes][16 bytes slack]; grown (never shrunk) to the
 * largest block seen (snappy-decode.ts sends blocks of at most 1 MiB). Single-threaded: one
 * instance per thread, used synchronously.
 */
import { SNAPPY_DECODE_WASM } from "./snappy-decode-wasm.js";
import { lazyWasm, memoryFor, type WasmMemory } from "./wasm-module.js";

interface Exports {
  memory: WasmMemory;
  decode(p: number, n: number, start: number, end: number): number;
}

const SLACK = 16;

export class WasmSnappyDecoder {
  private readonly exports: Exports;
  private bytes: Uint8Array;

  constructor(exports: Exports) {
    this.exports = exports;
    this.bytes = new Uint8Array(exports.memory.buffer);
  }

  /**
   * Decodes the elements of `src[headerEnd, src.length)` into `out[start, start + length)`.
   * Returns false for a malformed stream (`out` may then be partly written).
   */
  decodeTo(
    src: Uint8Array,
    headerEnd: number,
    out: Uint8Array,
    start: number,
    length: number,
  ): boolean {
    const n = src.length;
    const need = n + length + SLACK;
    const bytes = memoryFor(this.exports.memory, this.bytes, need);
    this.bytes = bytes;
    bytes.set(src, 0);
    if (this.exports.decode(headerEnd, n, n, n + length) !== 1) return false;
    out.set(bytes.subarray(n, n + length), start);
    return true;
  }
}

/** This thread's decoder, or undefined without WebAssembly. */
export const wasmDecoder: () => WasmSnappyDecoder | undefined = lazyWasm(
  SNAPPY_DECODE_WASM,
  (exports) => new WasmSnappyDecoder(exports as Exports),
);
