/**
 * RocksDB's Hash64 (`GetSliceHash64`, the XXPH3 preview; checksum-xxh3.ts) of 4-32-byte
 * inputs through the hand-written WebAssembly module hash64-wasm.wat (523 bytes, assembled
 * by scripts/build-checksum-wasm.mjs): the full filter hashes every key it adds or probes
 * with it, and keys are mostly this short.
 *
 * Why wasm: the hash is a handful of 64-bit multiplications, one instruction each on i64,
 * while JS builds each from 32-bit pieces in doubles (the generated checksum-xxh3-short.ts,
 * ~40 instructions a product). The input is not copied: the JS side reads its
 * little-endian 32-bit words and passes them as i32 arguments; the module returns the low
 * half and leaves the high half at memory[0], read through a Uint32Array view (a returned
 * i64 would reach JS as a BigInt). Nothing is allocated per call.
 *
 * ```
 *   4-8 bytes    h4to8(first word, last word, len)
 *   9-16 bytes   h9to16(first 2 words, last 2 words, len)
 *   17-32 bytes  h17to32(first 4 words, last 4 words, len)     (words overlap below 32)
 *   e.g. 16 bytes 00 01 .. 0f: h9to16(0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 16)
 * ```
 *
 * The module is compiled and instantiated synchronously when this file loads (a 523-byte
 * module: well under the 4 KiB browsers allow synchronously). Where WebAssembly is missing
 * or refuses, `HASH64_WASM_ACTIVE` is false and callers use the JS code. Tests check the
 * two paths give the same hash at every length and RocksDB's vectors.
 * Single-threaded: one instance per thread (module state: the high-half slot).
 */
import { HASH64_WASM } from "./hash64-wasm-bytes.js";

/** The part of the WebAssembly API used here (the package compiles without the DOM lib). */
declare const WebAssembly:
  | {
      Module: new (bytes: Uint8Array) => object;
      Instance: new (module: object, imports: object) => { exports: unknown };
    }
  | undefined;

interface Exports {
  memory: { readonly buffer: ArrayBuffer };
  h4to8(w0: number, v0: number, len: number): number;
  h9to16(w0: number, w1: number, v0: number, v1: number, len: number): number;
  h17to32(
    w0: number,
    w1: number,
    w2: number,
    w3: number,
    v0: number,
    v1: number,
    v2: number,
    v3: number,
    len: number,
  ): number;
}

function instantiate(): Exports | undefined {
  try {
    if (typeof WebAssembly !== "object" || typeof atob !== "function") return undefined;
    const text = atob(HASH64_WASM);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as Exports;
  } catch {
    return undefined;
  }
}

const EXPORTS = instantiate();
const H4TO8 = EXPORTS?.h4to8;
const H9TO16 = EXPORTS?.h9to16;
const H17TO32 = EXPORTS?.h17to32;
/** The module's high-half slot (memory[0], little-endian; the memory never grows). */
const HIGH =
  EXPORTS === undefined ? new Uint32Array(1) : new Uint32Array(EXPORTS.memory.buffer, 0, 1);

/** True if the wasm path is in use (WebAssembly is available and the module loaded). */
export const HASH64_WASM_ACTIVE = EXPORTS !== undefined;

/** The little-endian 32-bit word at `data[p, p + 4)`, as an int32. */
function word(data: Uint8Array, p: number): number {
  return data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24);
}

/**
 * Hash64 of `data[p, e)` into `out[at]` (low 32 bits) and `out[at + 1]` (high).
 * REQUIRES: HASH64_WASM_ACTIVE and 4 <= e - p <= 32.
 */
export function hash64ShortWasm(
  data: Uint8Array,
  p: number,
  e: number,
  out: Uint32Array,
  at: number,
): void {
  const len = e - p;
  if (len > 16) {
    out[at] = H17TO32!(
      word(data, p),
      word(data, p + 4),
      word(data, p + 8),
      word(data, p + 12),
      word(data, e - 16),
      word(data, e - 12),
      word(data, e - 8),
      word(data, e - 4),
      len,
    );
  } else if (len > 8) {
    out[at] = H9TO16!(word(data, p), word(data, p + 4), word(data, e - 8), word(data, e - 4), len);
  } else {
    out[at] = H4TO8!(word(data, p), word(data, e - 4), len);
  }
  out[at + 1] = HIGH[0]!;
}
