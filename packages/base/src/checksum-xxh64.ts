/**
 * xxHash64 (XXH64, seed 0): in the checksum wasm module (native 64-bit arithmetic) up to
 * 112 KiB — 4 KiB at 14016 MB/s, 64 KiB 18778 — and in JS on 32-bit halves (see
 * checksum-u64.ts; ~230 MB/s) beyond or without WebAssembly. RocksDB's
 * `kxxHash64` block checksum is the low 32 bits of this (`Lower32of64(XXH64(data, n, 0))`).
 *
 * Reference values: XXH64("") = 0xef46db3751d8e999, XXH64("a") = 0xd24ec4f1a98c6e5b;
 * cross-checked against librocksdb's `ROCKSDB_XXH64` on 278 lengths up to 65,539 bytes
 * (testdata/checksum-vectors.json).
 */
import {
  add64,
  mul32x32,
  mul64,
  P64_1H,
  P64_1L,
  P64_2H,
  P64_2L,
  P64_3H,
  P64_3L,
  P64_4H,
  P64_4L,
  P64_5H,
  P64_5L,
  R,
  readLE32,
  rotl64Small,
  sub64,
  toBigInt64,
  xorShr64Large,
  xorShr64Small,
} from "./checksum-u64.js";
import { WASM_XXH32_MAX, type WasmChecksums, wasmChecksums } from "./checksum-wasm.js";

// The hash in progress (S[0]!, S[1]!) and round()'s result (S[2]!, S[3]!): module scratch in a
// typed array (no boxing); the functions are not reentrant, and JS is single-threaded.
const S = new Uint32Array(4);

/** `round(acc, input)`: acc = rotl(acc + input * P2, 31) * P1, into (S[2]!, S[3]!). */
function round(accLo: number, accHi: number, inLo: number, inHi: number): void {
  let lo = mul64(inLo, inHi, P64_2L, P64_2H);
  let hi = R[0]!;
  lo = add64(accLo, accHi, lo, hi);
  hi = R[0]!;
  lo = rotl64Small(lo, hi, 31);
  hi = R[0]!;
  S[2] = mul64(lo, hi, P64_1L, P64_1H);
  S[3] = R[0]!;
}

/** h = (h ^ round(0, v)) * P1 + P4. */
function mergeRound(vLo: number, vHi: number): void {
  round(0, 0, vLo, vHi);
  let lo = mul64((S[0]! ^ S[2]!) >>> 0, (S[1]! ^ S[3]!) >>> 0, P64_1L, P64_1H);
  const hi = R[0]!;
  lo = add64(lo, hi, P64_4L, P64_4H);
  S[0] = lo;
  S[1] = R[0]!;
}

let wasm: WasmChecksums | null | undefined;
let wasmEnabled = true;

/** Tests only: compute in JS (false) or, where available, in wasm (true, the default). */
export function useWasmForXxh64(on: boolean): void {
  wasmEnabled = on;
}

/** XXH64 of `data[start, end)` into (S[0], S[1]): in wasm up to 112 KiB, else JS. */
function xxh64Run(data: Uint8Array, start: number, end: number): void {
  const n = end - start;
  if (wasmEnabled && n <= WASM_XXH32_MAX) {
    if (wasm === undefined) wasm = wasmChecksums() ?? null;
    if (wasm !== null) {
      const r = wasm.xxh64(data, start, end);
      S[0] = r[0]!;
      S[1] = r[1]!;
      return;
    }
  }
  xxh64Js(data, start, end);
}

/** Computes XXH64 of `data[start, end)` into (S[0]!, S[1]!) in JS. */
function xxh64Js(data: Uint8Array, start: number, end: number): void {
  const len = end - start;
  let p = start;
  if (len >= 32) {
    // v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1 (seed 0).
    let v1l = add64(P64_1L, P64_1H, P64_2L, P64_2H);
    let v1h = R[0]!;
    let v2l = P64_2L;
    let v2h = P64_2H;
    let v3l = 0;
    let v3h = 0;
    let v4l = sub64(0, 0, P64_1L, P64_1H);
    let v4h = R[0]!;
    const limit = end - 32;
    while (p <= limit) {
      round(v1l, v1h, readLE32(data, p), readLE32(data, p + 4));
      v1l = S[2]!;
      v1h = S[3]!;
      round(v2l, v2h, readLE32(data, p + 8), readLE32(data, p + 12));
      v2l = S[2]!;
      v2h = S[3]!;
      round(v3l, v3h, readLE32(data, p + 16), readLE32(data, p + 20));
      v3l = S[2]!;
      v3h = S[3]!;
      round(v4l, v4h, readLE32(data, p + 24), readLE32(data, p + 28));
      v4l = S[2]!;
      v4h = S[3]!;
      p += 32;
    }
    let lo = rotl64Small(v1l, v1h, 1);
    let hi = R[0]!;
    let tl = rotl64Small(v2l, v2h, 7);
    lo = add64(lo, hi, tl, R[0]!);
    hi = R[0]!;
    tl = rotl64Small(v3l, v3h, 12);
    lo = add64(lo, hi, tl, R[0]!);
    hi = R[0]!;
    tl = rotl64Small(v4l, v4h, 18);
    S[0] = add64(lo, hi, tl, R[0]!);
    S[1] = R[0]!;
    mergeRound(v1l, v1h);
    mergeRound(v2l, v2h);
    mergeRound(v3l, v3h);
    mergeRound(v4l, v4h);
  } else {
    S[0] = P64_5L;
    S[1] = P64_5H;
  }
  S[0] = add64(S[0]!, S[1]!, len >>> 0, Math.floor(len / 4294967296));
  S[1] = R[0]!;
  while (p + 8 <= end) {
    round(0, 0, readLE32(data, p), readLE32(data, p + 4));
    let lo = rotl64Small((S[0]! ^ S[2]!) >>> 0, (S[1]! ^ S[3]!) >>> 0, 27);
    lo = mul64(lo, R[0]!, P64_1L, P64_1H);
    S[0] = add64(lo, R[0]!, P64_4L, P64_4H);
    S[1] = R[0]!;
    p += 8;
  }
  if (p + 4 <= end) {
    let lo = mul64(readLE32(data, p), 0, P64_1L, P64_1H);
    lo = rotl64Small((S[0]! ^ lo) >>> 0, (S[1]! ^ R[0]!) >>> 0, 23);
    lo = mul64(lo, R[0]!, P64_2L, P64_2H);
    S[0] = add64(lo, R[0]!, P64_3L, P64_3H);
    S[1] = R[0]!;
    p += 4;
  }
  while (p < end) {
    let lo = mul32x32(data[p]!, P64_5L);
    const hi = (R[0]! + Math.imul(data[p]!, P64_5H)) >>> 0;
    lo = rotl64Small((S[0]! ^ lo) >>> 0, (S[1]! ^ hi) >>> 0, 11);
    S[0] = mul64(lo, R[0]!, P64_1L, P64_1H);
    S[1] = R[0]!;
    p++;
  }
  // Avalanche.
  let lo = xorShr64Large(S[0]!, S[1]!, 33);
  lo = mul64(lo, R[0]!, P64_2L, P64_2H);
  lo = xorShr64Small(lo, R[0]!, 29);
  lo = mul64(lo, R[0]!, P64_3L, P64_3H);
  S[0] = xorShr64Large(lo, R[0]!, 32);
  S[1] = R[0]!;
}

/** XXH64 (seed 0) of `data[start, end)`: writes the low half to `out[at]`, the high to `out[at + 1]`. */
export function xxh64Into(
  data: Uint8Array,
  start: number,
  end: number,
  out: Uint32Array,
  at = 0,
): void {
  xxh64Run(data, start, end);
  out[at] = S[0]!;
  out[at + 1] = S[1]!;
}

/** The low 32 bits of XXH64 (seed 0) of `data[start, end)`: RocksDB's kxxHash64 checksum. */
export function xxh64Low32(data: Uint8Array, start = 0, end = data.length): number {
  xxh64Run(data, start, end);
  return S[0]!;
}

/** XXH64 (seed 0) as a BigInt (tests and tools; not for hot paths). */
export function xxh64BigInt(data: Uint8Array, start = 0, end = data.length): bigint {
  xxh64Run(data, start, end);
  return toBigInt64(S[0]!, S[1]!);
}
