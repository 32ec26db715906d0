/**
 * CRC32C through the hand-written WebAssembly module checksum-crc32c.wat (659 bytes,
 * assembled by scripts/build-checksum-wasm.mjs), compiled and instantiated synchronously
 * (`new WebAssembly.Module` / `new WebAssembly.Instance`) on first use: no top-level await,
 * no promise. The input is copied into the module's memory (at most 64 KiB a call, longer
 * inputs in 64 KiB pieces, each continuing the previous CRC) and hashed there.
 *
 * `wasmCrc32c()` returns undefined where WebAssembly is unavailable or fails to compile;
 * checksum.ts then uses the JS implementation. Single-threaded: one instance per thread.
 */
import { CRC32C_TABLES } from "./checksum-crc32c-js.js";
import { CRC32C_WASM } from "./checksum-crc32c-wasm-bytes.js";

/** The part of the WebAssembly API used here (the package compiles without the DOM lib). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

interface Exports {
  memory: { readonly buffer: ArrayBuffer };
  crc32c8(crc: number, p: number, n: number): number;
  crc32c16(crc: number, p: number, n: number): number;
}

/** Where the input goes in the module's memory (after the 16 KiB of tables). */
const INPUT = 16384;
/** The most bytes copied in per call. */
const CHUNK = 65536;

export interface WasmCrc32c {
  /** RocksDB's `crc32c::Extend(crc, data[start, end))`, slicing-by-8 in wasm. */
  extend8(crc: number, data: Uint8Array, start: number, end: number): number;
  /** The same, slicing-by-16. */
  extend16(crc: number, data: Uint8Array, start: number, end: number): number;
}

function make(exports: Exports): WasmCrc32c {
  const bytes = new Uint8Array(exports.memory.buffer);
  new Int32Array(exports.memory.buffer, 0, CRC32C_TABLES.length).set(CRC32C_TABLES);
  const run = (
    f: (crc: number, p: number, n: number) => number,
    crc: number,
    data: Uint8Array,
    start: number,
    end: number,
  ): number => {
    let c = crc;
    let p = start;
    while (p < end) {
      const n = end - p < CHUNK ? end - p : CHUNK;
      bytes.set(p === 0 && n === data.length ? data : data.subarray(p, p + n), INPUT);
      c = f(c, INPUT, n);
      p += n;
    }
    return c >>> 0;
  };
  const f8 = exports.crc32c8;
  const f16 = exports.crc32c16;
  return {
    extend8: (crc, data, start, end) => run(f8, crc, data, start, end),
    extend16: (crc, data, start, end) => run(f16, crc, data, start, end),
  };
}

let instance: WasmCrc32c | null | undefined;

/** This thread's WebAssembly CRC32C, or undefined without WebAssembly. */
export function wasmCrc32c(): WasmCrc32c | undefined {
  if (instance === undefined) {
    try {
      const module = new WebAssembly.Module(Buffer.from(CRC32C_WASM, "base64"));
      instance = make(new WebAssembly.Instance(module, {}).exports as unknown as Exports);
    } catch {
      instance = null;
    }
  }
  return instance ?? undefined;
}
