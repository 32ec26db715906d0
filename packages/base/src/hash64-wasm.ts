/**
 * RocksDB's Hash64 (`GetSliceHash64`, the XXPH3 preview; checksum-xxh3.ts) of 4-240-byte
 * inputs through the hand-written WebAssembly module hash64-wasm.wat (1,235 bytes, assembled
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
 *   33-64 bytes  h33to64(first 8 words, last 8 words, len)     (words overlap below 64)
 *   65-240 bytes h65to240(len), the input copied to memory[256, 256 + len) first
 *   e.g. 16 bytes 00 01 .. 0f: h9to16(0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 16)
 * ```
 *
 * Over 64 bytes the words no longer fit as arguments; the copy into the module's memory
 * (one `set` for a whole array, a byte loop for a range of one) costs less than the JS
 * hash's 64-bit products from 32-bit pieces: a 100-byte key hashes in about a quarter of
 * the JS time. Over 240 bytes checksum-xxh3.ts's long-input path takes over.
 *
 * The module is compiled and instantiated synchronously when this file loads (a 1,235-byte
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
  h33to64(...wordsThenLen: number[]): number;
  h65to240(len: number): number;
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
const H33TO64 = EXPORTS?.h33to64;
const H65TO240 = EXPORTS?.h65to240;
/** Where h65to240 reads its input: memory[256, 496). */
const INPUT =
  EXPORTS === undefined ? new Uint8Array(240) : new Uint8Array(EXPORTS.memory.buffer, 256, 240);
/** The module's high-half slot (memory[0], little-endian; the memory never grows). */
const HIGH =
  EXPORTS === undefined ? new Uint32Array(1) : new Uint32Array(EXPORTS.memory.buffer, 0, 1);

/** True if the wasm path is in use (WebAssembly is available and the module loaded). */
export const HASH64_WASM_ACTIVE = EXPORTS !== undefined;

// One function per length class, each reading its words inline: a shared word-reading helper
// called 30 times would exhaust V8's inlining budget once every class is hot, and calls that
// are not inlined cost more than the hash.

/** 4-8 bytes: the first and the last 4 (overlapping below 8). */
function hash4to8(data: Uint8Array, p: number, e: number, out: Uint32Array, at: number): void {
  out[at] = H4TO8!(
    data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24),
    data[e - 4]! | (data[e - 4 + 1]! << 8) | (data[e - 4 + 2]! << 16) | (data[e - 4 + 3]! << 24),
    e - p,
  );
  out[at + 1] = HIGH[0]!;
}

/** 9-16 bytes: the first and the last 8. */
function hash9to16(data: Uint8Array, p: number, e: number, out: Uint32Array, at: number): void {
  out[at] = H9TO16!(
    data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24),
    data[p + 4]! | (data[p + 4 + 1]! << 8) | (data[p + 4 + 2]! << 16) | (data[p + 4 + 3]! << 24),
    data[e - 8]! | (data[e - 8 + 1]! << 8) | (data[e - 8 + 2]! << 16) | (data[e - 8 + 3]! << 24),
    data[e - 4]! | (data[e - 4 + 1]! << 8) | (data[e - 4 + 2]! << 16) | (data[e - 4 + 3]! << 24),
    e - p,
  );
  out[at + 1] = HIGH[0]!;
}

/** 17-32 bytes: the first and the last 16. */
function hash17to32(data: Uint8Array, p: number, e: number, out: Uint32Array, at: number): void {
  out[at] = H17TO32!(
    data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24),
    data[p + 4]! | (data[p + 4 + 1]! << 8) | (data[p + 4 + 2]! << 16) | (data[p + 4 + 3]! << 24),
    data[p + 8]! | (data[p + 8 + 1]! << 8) | (data[p + 8 + 2]! << 16) | (data[p + 8 + 3]! << 24),
    data[p + 12]! |
      (data[p + 12 + 1]! << 8) |
      (data[p + 12 + 2]! << 16) |
      (data[p + 12 + 3]! << 24),
    data[e - 16]! |
      (data[e - 16 + 1]! << 8) |
      (data[e - 16 + 2]! << 16) |
      (data[e - 16 + 3]! << 24),
    data[e - 12]! |
      (data[e - 12 + 1]! << 8) |
      (data[e - 12 + 2]! << 16) |
      (data[e - 12 + 3]! << 24),
    data[e - 8]! | (data[e - 8 + 1]! << 8) | (data[e - 8 + 2]! << 16) | (data[e - 8 + 3]! << 24),
    data[e - 4]! | (data[e - 4 + 1]! << 8) | (data[e - 4 + 2]! << 16) | (data[e - 4 + 3]! << 24),
    e - p,
  );
  out[at + 1] = HIGH[0]!;
}

/** 33-64 bytes: the first and the last 32. */
function hash33to64(data: Uint8Array, p: number, e: number, out: Uint32Array, at: number): void {
  out[at] = H33TO64!(
    data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24),
    data[p + 4]! | (data[p + 4 + 1]! << 8) | (data[p + 4 + 2]! << 16) | (data[p + 4 + 3]! << 24),
    data[p + 8]! | (data[p + 8 + 1]! << 8) | (data[p + 8 + 2]! << 16) | (data[p + 8 + 3]! << 24),
    data[p + 12]! |
      (data[p + 12 + 1]! << 8) |
      (data[p + 12 + 2]! << 16) |
      (data[p + 12 + 3]! << 24),
    data[p + 16]! |
      (data[p + 16 + 1]! << 8) |
      (data[p + 16 + 2]! << 16) |
      (data[p + 16 + 3]! << 24),
    data[p + 20]! |
      (data[p + 20 + 1]! << 8) |
      (data[p + 20 + 2]! << 16) |
      (data[p + 20 + 3]! << 24),
    data[p + 24]! |
      (data[p + 24 + 1]! << 8) |
      (data[p + 24 + 2]! << 16) |
      (data[p + 24 + 3]! << 24),
    data[p + 28]! |
      (data[p + 28 + 1]! << 8) |
      (data[p + 28 + 2]! << 16) |
      (data[p + 28 + 3]! << 24),
    data[e - 32]! |
      (data[e - 32 + 1]! << 8) |
      (data[e - 32 + 2]! << 16) |
      (data[e - 32 + 3]! << 24),
    data[e - 28]! |
      (data[e - 28 + 1]! << 8) |
      (data[e - 28 + 2]! << 16) |
      (data[e - 28 + 3]! << 24),
    data[e - 24]! |
      (data[e - 24 + 1]! << 8) |
      (data[e - 24 + 2]! << 16) |
      (data[e - 24 + 3]! << 24),
    data[e - 20]! |
      (data[e - 20 + 1]! << 8) |
      (data[e - 20 + 2]! << 16) |
      (data[e - 20 + 3]! << 24),
    data[e - 16]! |
      (data[e - 16 + 1]! << 8) |
      (data[e - 16 + 2]! << 16) |
      (data[e - 16 + 3]! << 24),
    data[e - 12]! |
      (data[e - 12 + 1]! << 8) |
      (data[e - 12 + 2]! << 16) |
      (data[e - 12 + 3]! << 24),
    data[e - 8]! | (data[e - 8 + 1]! << 8) | (data[e - 8 + 2]! << 16) | (data[e - 8 + 3]! << 24),
    data[e - 4]! | (data[e - 4 + 1]! << 8) | (data[e - 4 + 2]! << 16) | (data[e - 4 + 3]! << 24),
    e - p,
  );
  out[at + 1] = HIGH[0]!;
}

/** 65-240 bytes: copied into the module's memory, hashed there. */
function hash65to240(data: Uint8Array, p: number, e: number, out: Uint32Array, at: number): void {
  const len = e - p;
  if (p === 0 && e === data.length) INPUT.set(data);
  else for (let i = 0; i < len; i++) INPUT[i] = data[p + i]!;
  out[at] = H65TO240!(len);
  out[at + 1] = HIGH[0]!;
}

/**
 * Hash64 of `data[p, e)` into `out[at]` (low 32 bits) and `out[at + 1]` (high).
 * REQUIRES: HASH64_WASM_ACTIVE and 4 <= e - p <= 240.
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
    if (len > 64) hash65to240(data, p, e, out, at);
    else if (len > 32) hash33to64(data, p, e, out, at);
    else hash17to32(data, p, e, out, at);
  } else if (len > 8) hash9to16(data, p, e, out, at);
  else hash4to8(data, p, e, out, at);
}
