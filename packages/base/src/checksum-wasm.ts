/**
 * CRC32C, XXH32, XXH64 and XXH3's long-input accumulation through the hand-written
 * WebAssembly module checksum-wasm.wat (5249 bytes, assembled by scripts/build-checksum-wasm.mjs), compiled and instantiated
 * synchronously (`new WebAssembly.Module` / `new WebAssembly.Instance`) on first use: no
 * top-level await, no promise. The input is copied into the module's memory (at most 64 KiB
 * a call; longer CRC inputs go in 64 KiB pieces, each continuing the previous CRC; XXH3 and
 * XXH64, which cannot be continued that way, take up to 112 KiB and the callers use JS
 * beyond). XXH32 and XXH3's accumulation take up to 4 MiB: an input over 112 KiB goes past
 * the fixed regions, into memory grown (once, never shrunk) to hold it — index and filter
 * blocks of big tables are 0.5-2 MB, and XXH32 / XXH3 in JavaScript run ~4x / ~17x slower
 * warm (checksum.ts's table) and far slower on a first use, before the JIT optimizes them.
 *
 * `wasmChecksums()` returns undefined where WebAssembly is unavailable or fails to compile;
 * checksum.ts then uses the JS implementations. Single-threaded: one instance per thread.
 */
import { CRC32C_TABLES } from "./checksum-crc32c-js.js";
import { CHECKSUM_WASM } from "./checksum-wasm-bytes.js";

/** The part of the WebAssembly API used here (the package compiles without the DOM lib). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

interface Exports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  crc32c8(crc: number, p: number, n: number): number;
  crc32c16(crc: number, p: number, n: number): number;
  xxh32(p: number, n: number, seed: number): number;
  xxh64(p: number, n: number): void;
  xxh3acc(p: number, n: number): void;
  xxph3acc(p: number, n: number): void;
}

/** Where the input goes in the module's memory (after the 16 KiB of tables). */
const INPUT = 16384;
/** The most bytes copied in per CRC call. */
const CHUNK = 65536;
/** The most bytes one XXH32 or XXH3 call can take (the input region). */
export const WASM_XXH32_MAX = 131072 - INPUT;
/** XXH3's secret, copied in on the first XXH3 call. */
const SECRET_AT = 131072;
/** The eight accumulators xxh3acc/xxph3acc leave, as 16 little-endian u32 [lo, hi, ...]. */
const ACC_AT = 131072 + 256;
/** Where an XXH32 input over WASM_XXH32_MAX goes: after the three fixed pages. */
const LARGE_AT = 3 * 65536;
/**
 * The most bytes one XXH32 call, or one XXH3/XXPH3 accumulation, can take (memory grows to
 * LARGE_AT + this at most).
 */
export const WASM_LARGE_MAX = 4 * 1024 * 1024;

export interface WasmChecksums {
  /** RocksDB's `crc32c::Extend(crc, data[start, end))`, slicing-by-8 in wasm. */
  crc32c8(crc: number, data: Uint8Array, start: number, end: number): number;
  /** The same, slicing-by-16. */
  crc32c16(crc: number, data: Uint8Array, start: number, end: number): number;
  /** XXH32 of `data[start, end)`. REQUIRES: end - start <= WASM_LARGE_MAX. */
  xxh32(data: Uint8Array, start: number, end: number, seed: number): number;
  /**
   * XXH64 (seed 0) of `data[start, end)`: a view of 2 u32 [low, high], valid until the next
   * call. REQUIRES: end - start <= WASM_XXH32_MAX.
   */
  xxh64(data: Uint8Array, start: number, end: number): Uint32Array;
  /**
   * XXH3-64's (`final`) or XXPH3's long-input accumulators over `data[start, end)` with the
   * 192-byte `secret`: a view of 16 u32 (lane i = [2i] low, [2i + 1] high), valid until the
   * next call. REQUIRES: 240 < end - start <= WASM_LARGE_MAX.
   */
  xxh3Accumulators(
    data: Uint8Array,
    start: number,
    end: number,
    final: boolean,
    secret: Uint8Array,
  ): Uint32Array;
}

function make(exports: Exports): WasmChecksums {
  const memory = exports.memory;
  // Views of the memory: made again when it grows (growing detaches the old buffer).
  let bytes = new Uint8Array(memory.buffer);
  new Int32Array(exports.memory.buffer, 0, CRC32C_TABLES.length).set(CRC32C_TABLES);
  const copyIn = (data: Uint8Array, start: number, end: number, at = INPUT): void => {
    bytes.set(start === 0 && end === data.length ? data : data.subarray(start, end), at);
  };
  const crc = (
    f: (crc: number, p: number, n: number) => number,
    init: number,
    data: Uint8Array,
    start: number,
    end: number,
  ): number => {
    let c = init;
    let p = start;
    while (p < end) {
      const n = end - p < CHUNK ? end - p : CHUNK;
      copyIn(data, p, p + n);
      c = f(c, INPUT, n);
      p += n;
    }
    return c >>> 0;
  };
  const f8 = exports.crc32c8;
  const f16 = exports.crc32c16;
  const fx = exports.xxh32;
  let acc = new Uint32Array(memory.buffer, ACC_AT, 16);
  /** Grows the memory to hold `n` input bytes at LARGE_AT. */
  const fitLarge = (n: number): void => {
    const need = LARGE_AT + n - memory.buffer.byteLength;
    if (need <= 0) return;
    memory.grow(Math.ceil(need / 65536));
    bytes = new Uint8Array(memory.buffer);
    acc = new Uint32Array(memory.buffer, ACC_AT, 16);
  };
  let secretIn = false;
  return {
    crc32c8: (init, data, start, end) => crc(f8, init, data, start, end),
    crc32c16: (init, data, start, end) => crc(f16, init, data, start, end),
    xxh32: (data, start, end, seed) => {
      const n = end - start;
      if (n <= WASM_XXH32_MAX) {
        copyIn(data, start, end);
        return fx(INPUT, n, seed) >>> 0;
      }
      fitLarge(n);
      copyIn(data, start, end, LARGE_AT);
      return fx(LARGE_AT, n, seed) >>> 0;
    },
    xxh64: (data, start, end) => {
      copyIn(data, start, end);
      exports.xxh64(INPUT, end - start);
      return acc;
    },
    xxh3Accumulators: (data, start, end, final, secret) => {
      if (!secretIn) {
        bytes.set(secret, SECRET_AT);
        secretIn = true;
      }
      const n = end - start;
      let at = INPUT;
      if (n > WASM_XXH32_MAX) {
        fitLarge(n);
        at = LARGE_AT;
      }
      copyIn(data, start, end, at);
      if (final) exports.xxh3acc(at, n);
      else exports.xxph3acc(at, n);
      return acc;
    },
  };
}

let instance: WasmChecksums | null | undefined;

/** This thread's WebAssembly checksums, or undefined without WebAssembly. */
export function wasmChecksums(): WasmChecksums | undefined {
  if (instance === undefined) {
    try {
      const module = new WebAssembly.Module(Buffer.from(CHECKSUM_WASM, "base64"));
      instance = make(new WebAssembly.Instance(module, {}).exports as unknown as Exports);
    } catch {
      instance = null;
    }
  }
  return instance ?? undefined;
}
