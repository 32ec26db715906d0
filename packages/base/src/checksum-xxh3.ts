/**
 * Two 64-bit hashes of the XXH3 family (seed 0, the default 192-byte secret), pure JS on
 * 32-bit halves (checksum-u64.ts):
 *
 * - `xxh3*`: the final XXH3-64 (xxHash >= 0.8), what RocksDB's `kXXH3` block checksum uses
 *   (`Lower32of64(XXH3_64bits(data, n - 1))`, then the last byte mixed in; see
 *   `xxh3BlockChecksum` in checksum.ts).
 * - `sliceHash64*`: RocksDB's `Hash64(data, n)` / `GetSliceHash64(key)` (util/hash.{h,cc}),
 *   which in RocksDB 7.8.3 is **XXPH3_64bits**, a frozen *preview* of XXH3 (xxHash 0.7.2,
 *   util/xxph3.h) plus one RocksDB change: the empty input hashes to
 *   `mul128_fold64(secret[0..8), PRIME64_2)` instead of 0. Full filters (FastLocalBloom) hash
 *   every key with it. It differs from the final XXH3 at every length: the short-input
 *   mixers (0-16 bytes), the avalanche constant (PRIME64_3 `0x165667b19e3779f9` vs
 *   `0x165667919e3779f9`), the long-input accumulator (no lane swap) and the long-input
 *   stripe count (a last stripe only when `len % 64 != 0`).
 *
 * Reference values (RocksDB util/hash_test.cc, Hash64SmallValueSchema):
 * `Hash64("") = 5999572062939766020`, `Hash64("\x08") = 583283813901344696`; the final
 * XXH3-64 of "" is 0x2d06800538d394c2. Both are cross-checked against librocksdb's own
 * `rocksdb::Hash64` and `ROCKSDB_XXH3_64bits` on 278 lengths up to 65,539 bytes
 * (testdata/checksum-vectors.json, made by scripts/checksum-vectors.cc).
 *
 * Results: `*Into(data, start, end, out, at)` writes the low half to `out[at]` and the high
 * half to `out[at + 1]` (no allocation; a filter builder keeps its hashes as lo/hi pairs);
 * `*BigInt` returns a BigInt for tests and tools. Not reentrant (module scratch), which is
 * safe in single-threaded JS.
 */

import {
  add64,
  mul32x32,
  mul64,
  mul128Fold64,
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
  rotl64Large,
  rotl64Small,
  swap32,
  toBigInt64,
  xorShr64Large,
  xorShr64Small,
} from "./checksum-u64.js";
import { WASM_LARGE_MAX, type WasmChecksums, wasmChecksums } from "./checksum-wasm.js";
import { sliceHash64Short, xxh3Short } from "./checksum-xxh3-short.js";
import { HASH64_WASM_ACTIVE, hash64ShortWasm } from "./hash64-wasm.js";

/** The default secret (`kSecret`), the same 192 bytes in XXPH3 0.7.2 and XXH3 0.8. */
const SECRET = Uint8Array.from(
  (
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f" +
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c" +
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8" +
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364" +
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e" +
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
  ).match(/../g)!,
  (h) => Number.parseInt(h, 16),
);
const SECRET_SIZE = 192;

/** The little-endian secret word at every byte offset (they are read unaligned). */
const SECRET_WORDS = (() => {
  const w = new Uint32Array(SECRET_SIZE - 3);
  for (let o = 0; o < w.length; o++) w[o] = readLE32(SECRET, o);
  return w;
})();

function sw(offset: number): number {
  return SECRET_WORDS[offset]!;
}

// Constants as (lo, hi).
const P32_1 = 0x9e3779b1;
const P32_2 = 0x85ebca77;
const P32_3 = 0xc2b2ae3d;
/** XXH3 (final)'s avalanche multiplier PRIME_MX1 = 0x165667919e3779f9. */
const MX1H = 0x16566791;
/** XXH3 (final)'s rrmxmx multiplier PRIME_MX2 = 0x9fb21c651e98df25. */
const MX2L = 0x1e98df25;
const MX2H = 0x9fb21c65;

// Result of the hash in progress: S[0]! low, S[1]! high (a typed array: no boxing).
const S = new Uint32Array(2);
/** The eight 64-bit accumulators of the long-input loop, [lo, hi] per lane. */
const ACC = new Uint32Array(16);

/** XXH3 avalanche (final: multiplier PRIME_MX1; preview: PRIME64_3) into (S[0]!, S[1]!). */
function avalanche(lo: number, hi: number, final: boolean): void {
  let l = xorShr64Large(lo, hi, 37);
  l = mul64(l, R[0]!, P64_3L, final ? MX1H : P64_3H);
  S[0] = xorShr64Large(l, R[0]!, 32);
  S[1] = R[0]!;
}

/** XXH64's avalanche into (S[0]!, S[1]!) (final XXH3's 0-3 byte inputs use it). */
function xxh64Avalanche(lo: number, hi: number): void {
  let l = xorShr64Large(lo, hi, 33);
  l = mul64(l, R[0]!, P64_2L, P64_2H);
  l = xorShr64Small(l, R[0]!, 29);
  l = mul64(l, R[0]!, P64_3L, P64_3H);
  S[0] = xorShr64Large(l, R[0]!, 32);
  S[1] = R[0]!;
}

/** `mul128_fold64(read64(data, p) ^ secret64(s), read64(data, p + 8) ^ secret64(s + 8))`. */
function mix16(data: Uint8Array, p: number, s: number): number {
  return mul128Fold64(
    (readLE32(data, p) ^ sw(s)) >>> 0,
    (readLE32(data, p + 4) ^ sw(s + 4)) >>> 0,
    (readLE32(data, p + 8) ^ sw(s + 8)) >>> 0,
    (readLE32(data, p + 12) ^ sw(s + 12)) >>> 0,
  );
}

/** 17-128 bytes (same in both versions but for the avalanche). */
function len17to128(data: Uint8Array, p: number, len: number, final: boolean): void {
  let al = mul64(len, 0, P64_1L, P64_1H);
  let ah = R[0]!;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) {
        al = add64(al, ah, mix16(data, p + 48, 96), R[0]!);
        ah = R[0]!;
        al = add64(al, ah, mix16(data, p + len - 64, 112), R[0]!);
        ah = R[0]!;
      }
      al = add64(al, ah, mix16(data, p + 32, 64), R[0]!);
      ah = R[0]!;
      al = add64(al, ah, mix16(data, p + len - 48, 80), R[0]!);
      ah = R[0]!;
    }
    al = add64(al, ah, mix16(data, p + 16, 32), R[0]!);
    ah = R[0]!;
    al = add64(al, ah, mix16(data, p + len - 32, 48), R[0]!);
    ah = R[0]!;
  }
  al = add64(al, ah, mix16(data, p, 0), R[0]!);
  ah = R[0]!;
  al = add64(al, ah, mix16(data, p + len - 16, 16), R[0]!);
  avalanche(al, R[0]!, final);
}

/** 129-240 bytes (same in both versions but for the avalanche). */
function len129to240(data: Uint8Array, p: number, len: number, final: boolean): void {
  let al = mul64(len, 0, P64_1L, P64_1H);
  let ah = R[0]!;
  const rounds = len >>> 4;
  for (let i = 0; i < 8; i++) {
    al = add64(al, ah, mix16(data, p + 16 * i, 16 * i), R[0]!);
    ah = R[0]!;
  }
  avalanche(al, ah, final);
  al = S[0]!;
  ah = S[1]!;
  for (let i = 8; i < rounds; i++) {
    al = add64(al, ah, mix16(data, p + 16 * i, 16 * (i - 8) + 3), R[0]!);
    ah = R[0]!;
  }
  // Last 16 bytes against secret[136 - 17, ...).
  al = add64(al, ah, mix16(data, p + len - 16, 119), R[0]!);
  avalanche(al, R[0]!, final);
}

/** One 64-byte stripe into the accumulators. `swap`: final XXH3 adds the data to lane i ^ 1. */
function accumulate512(data: Uint8Array, p: number, s: number, swap: boolean): void {
  for (let i = 0; i < 8; i++) {
    const dl = readLE32(data, p + 8 * i);
    const dh = readLE32(data, p + 8 * i + 4);
    const kl = (dl ^ sw(s + 8 * i)) >>> 0;
    const kh = (dh ^ sw(s + 8 * i + 4)) >>> 0;
    const j = swap ? (i ^ 1) << 1 : i << 1;
    ACC[j] = add64(ACC[j]!, ACC[j + 1]!, dl, dh);
    ACC[j + 1] = R[0]!;
    const pl = mul32x32(kl, kh);
    ACC[2 * i] = add64(ACC[2 * i]!, ACC[2 * i + 1]!, pl, R[0]!);
    ACC[2 * i + 1] = R[0]!;
  }
}

/** Scramble: acc = (acc ^ (acc >> 47) ^ secret64) * PRIME32_1, with the last 64 secret bytes. */
function scramble(): void {
  const s = SECRET_SIZE - 64;
  for (let i = 0; i < 8; i++) {
    let l = xorShr64Large(ACC[2 * i]!, ACC[2 * i + 1]!, 47);
    const h = (R[0]! ^ sw(s + 8 * i + 4)) >>> 0;
    l = (l ^ sw(s + 8 * i)) >>> 0;
    ACC[2 * i] = mul64(l, h, P32_1, 0);
    ACC[2 * i + 1] = R[0]!;
  }
}

let wasm: WasmChecksums | null | undefined;
let wasmEnabled = true;

/**
 * Tests only: run the long-input accumulation in JS (false) or, where available, in
 * WebAssembly (true, the default). Not exported from the package.
 */
export function useWasmForLongInputs(on: boolean): void {
  wasmEnabled = on;
}

/** Inputs over 240 bytes: the accumulators (in wasm up to 4 MiB, else JS), then the merge. */
function hashLong(data: Uint8Array, p: number, len: number, final: boolean): void {
  if (wasmEnabled && len <= WASM_LARGE_MAX) {
    if (wasm === undefined) wasm = wasmChecksums() ?? null;
    if (wasm !== null) {
      ACC.set(wasm.xxh3Accumulators(data, p, p + len, final, SECRET));
      mergeLong(len, final);
      return;
    }
  }
  accumulateLong(data, p, len, final);
  mergeLong(len, final);
}

/** The long-input accumulation in JS, into ACC. */
function accumulateLong(data: Uint8Array, p: number, len: number, final: boolean): void {
  ACC[0] = P32_3;
  ACC[1] = 0;
  ACC[2] = P64_1L;
  ACC[3] = P64_1H;
  ACC[4] = P64_2L;
  ACC[5] = P64_2H;
  ACC[6] = P64_3L;
  ACC[7] = P64_3H;
  ACC[8] = P64_4L;
  ACC[9] = P64_4H;
  ACC[10] = P32_2;
  ACC[11] = 0;
  ACC[12] = P64_5L;
  ACC[13] = P64_5H;
  ACC[14] = P32_1;
  ACC[15] = 0;
  const stripesPerBlock = (SECRET_SIZE - 64) / 8; // 16
  const blockLen = 64 * stripesPerBlock; // 1024
  // The final XXH3 always keeps the last stripe for the "last stripe" step; the preview
  // only when the length is not a multiple of 64.
  const body = final ? len - 1 : len;
  const blocks = Math.floor(body / blockLen);
  for (let n = 0; n < blocks; n++) {
    const b = p + n * blockLen;
    for (let k = 0; k < stripesPerBlock; k++) accumulate512(data, b + 64 * k, 8 * k, final);
    scramble();
  }
  const stripes = Math.floor((body - blocks * blockLen) / 64);
  const b = p + blocks * blockLen;
  for (let k = 0; k < stripes; k++) accumulate512(data, b + 64 * k, 8 * k, final);
  if (final || (len & 63) !== 0) {
    accumulate512(data, p + len - 64, SECRET_SIZE - 64 - 7, final);
  }
}

/** Merges ACC with secret[11, ...) and avalanches, into S. */
function mergeLong(len: number, final: boolean): void {
  let ml = mul64(len >>> 0, Math.floor(len / 4294967296), P64_1L, P64_1H);
  let mh = R[0]!;
  for (let i = 0; i < 4; i++) {
    const s = 11 + 16 * i;
    const m = mul128Fold64(
      (ACC[4 * i]! ^ sw(s)) >>> 0,
      (ACC[4 * i + 1]! ^ sw(s + 4)) >>> 0,
      (ACC[4 * i + 2]! ^ sw(s + 8)) >>> 0,
      (ACC[4 * i + 3]! ^ sw(s + 12)) >>> 0,
    );
    ml = add64(ml, mh, m, R[0]!);
    mh = R[0]!;
  }
  avalanche(ml, mh, final);
}

/** XXH3 final's rrmxmx (4-8 byte inputs) into (S[0]!, S[1]!). */
function rrmxmx(lo: number, hi: number, len: number): void {
  const r49 = rotl64Large(lo, hi, 49);
  const r49h = R[0]!;
  const r24 = rotl64Small(lo, hi, 24);
  let l = (lo ^ r49 ^ r24) >>> 0;
  let h = (hi ^ r49h ^ R[0]!) >>> 0;
  l = mul64(l, h, MX2L, MX2H);
  h = R[0]!;
  // h ^= (h >> 35) + len
  const sl = add64(h >>> 3, 0, len, 0);
  const sh = R[0]!;
  l = (l ^ sl) >>> 0;
  h = (h ^ sh) >>> 0;
  l = mul64(l, h, MX2L, MX2H);
  S[0] = xorShr64Small(l, R[0]!, 28);
  S[1] = R[0]!;
}

function xxh3Run(data: Uint8Array, p: number, len: number): void {
  if (len <= 16) {
    if (len > 8) {
      const ll = (readLE32(data, p) ^ sw(24) ^ sw(32)) >>> 0;
      const lh = (readLE32(data, p + 4) ^ sw(28) ^ sw(36)) >>> 0;
      const il = (readLE32(data, p + len - 8) ^ sw(40) ^ sw(48)) >>> 0;
      const ih = (readLE32(data, p + len - 4) ^ sw(44) ^ sw(52)) >>> 0;
      let al = add64(len, 0, swap32(lh), swap32(ll));
      let ah = R[0]!;
      al = add64(al, ah, il, ih);
      ah = R[0]!;
      al = add64(al, ah, mul128Fold64(ll, lh, il, ih), R[0]!);
      avalanche(al, R[0]!, true);
    } else if (len >= 4) {
      const input1 = readLE32(data, p);
      const input2 = readLE32(data, p + len - 4);
      // input64 = input2 + (input1 << 32), keyed = input64 ^ (secret64(8) ^ secret64(16)).
      rrmxmx((input2 ^ sw(8) ^ sw(16)) >>> 0, (input1 ^ sw(12) ^ sw(20)) >>> 0, len);
    } else if (len > 0) {
      const combined =
        ((data[p]! << 16) | (data[p + (len >>> 1)]! << 24) | data[p + len - 1]! | (len << 8)) >>> 0;
      xxh64Avalanche((combined ^ sw(0) ^ sw(4)) >>> 0, 0);
    } else {
      xxh64Avalanche((sw(56) ^ sw(64)) >>> 0, (sw(60) ^ sw(68)) >>> 0);
    }
  } else if (len <= 128) {
    len17to128(data, p, len, true);
  } else if (len <= 240) {
    len129to240(data, p, len, true);
  } else {
    hashLong(data, p, len, true);
  }
}

function xxph3Run(data: Uint8Array, p: number, len: number): void {
  if (len <= 16) {
    if (len > 8) {
      const ll = (readLE32(data, p) ^ sw(0)) >>> 0;
      const lh = (readLE32(data, p + 4) ^ sw(4)) >>> 0;
      const il = (readLE32(data, p + len - 8) ^ sw(8)) >>> 0;
      const ih = (readLE32(data, p + len - 4) ^ sw(12)) >>> 0;
      let al = add64(ll, lh, il, ih);
      let ah = R[0]!;
      al = add64(al, ah, len, 0);
      ah = R[0]!;
      al = add64(al, ah, mul128Fold64(ll, lh, il, ih), R[0]!);
      avalanche(al, R[0]!, false);
    } else if (len >= 4) {
      // keyed = (lo32 | hi32 << 32) ^ secret64(0)
      const kl = (readLE32(data, p) ^ sw(0)) >>> 0;
      const kh = (readLE32(data, p + len - 4) ^ sw(4)) >>> 0;
      // mix64 = len + ((keyed ^ (keyed >> 51)) * PRIME32_1)
      let l = xorShr64Large(kl, kh, 51);
      l = mul64(l, R[0]!, P32_1, 0);
      l = add64(l, R[0]!, len, 0);
      // avalanche((mix64 ^ (mix64 >> 47)) * PRIME64_2)
      l = xorShr64Large(l, R[0]!, 47);
      l = mul64(l, R[0]!, P64_2L, P64_2H);
      avalanche(l, R[0]!, false);
    } else if (len > 0) {
      const combined =
        (data[p]! | (data[p + (len >>> 1)]! << 8) | (data[p + len - 1]! << 16) | (len << 24)) >>> 0;
      const l = mul64((combined ^ sw(0)) >>> 0, 0, P64_1L, P64_1H);
      avalanche(l, R[0]!, false);
    } else {
      // RocksDB's change to the preview: the empty input hashes the secret, not to 0.
      S[0] = mul128Fold64(sw(0), sw(4), P64_2L, P64_2H);
      S[1] = R[0]!;
    }
  } else if (len <= 128) {
    len17to128(data, p, len, false);
  } else if (len <= 240) {
    len129to240(data, p, len, false);
  } else {
    hashLong(data, p, len, false);
  }
}

/** XXH3-64 (final, seed 0) of `data[start, end)` into `out[at]` (low), `out[at + 1]` (high). */
export function xxh3Into(
  data: Uint8Array,
  start: number,
  end: number,
  out: Uint32Array,
  at = 0,
): void {
  xxh3Short(data, start, end, out, at, xxh3General);
}

/** `xxh3Into` through the general (helper-based) code at every length: the reference. */
export function xxh3General(
  data: Uint8Array,
  start: number,
  end: number,
  out: Uint32Array,
  at = 0,
): void {
  xxh3Run(data, start, end - start);
  out[at] = S[0]!;
  out[at + 1] = S[1]!;
}

const LOW = new Uint32Array(2);

/** The low 32 bits of XXH3-64 (final, seed 0) of `data[start, end)`. */
export function xxh3Low32(data: Uint8Array, start = 0, end = data.length): number {
  xxh3Short(data, start, end, LOW, 0, xxh3General);
  return LOW[0]!;
}

/** XXH3-64 (final, seed 0) as a BigInt (tests and tools; not for hot paths). */
export function xxh3BigInt(data: Uint8Array, start = 0, end = data.length): bigint {
  xxh3Run(data, start, end - start);
  return toBigInt64(S[0]!, S[1]!);
}

/**
 * RocksDB 7.8.3's `GetSliceHash64` / `Hash64(data, n)` (XXPH3 preview, seed 0) of
 * `data[start, end)`, the full filter's key hash: low half into `out[at]`, high half into
 * `out[at + 1]` (FastLocalBloom's h1 = low, h2 = high). Inputs of 4-240 bytes go through
 * WebAssembly where it is available (hash64-wasm.ts: 16-byte keys in ~0.6x the time, 100-byte
 * keys in ~0.25x), the others
 * through the flattened JS of checksum-xxh3-short.ts. Allocates nothing.
 */
export function sliceHash64Into(
  data: Uint8Array,
  start: number,
  end: number,
  out: Uint32Array,
  at = 0,
): void {
  const len = end - start;
  if (len >= 4 && len <= 240 && HASH64_WASM_ACTIVE) {
    hash64ShortWasm(data, start, end, out, at);
    return;
  }
  sliceHash64Short(data, start, end, out, at, sliceHash64General);
}

/** `sliceHash64Into` through the JS code only (tests compare it with the wasm path). */
export function sliceHash64Js(
  data: Uint8Array,
  start: number,
  end: number,
  out: Uint32Array,
  at = 0,
): void {
  sliceHash64Short(data, start, end, out, at, sliceHash64General);
}

/** `sliceHash64Into` through the general (helper-based) code at every length: the reference. */
export function sliceHash64General(
  data: Uint8Array,
  start: number,
  end: number,
  out: Uint32Array,
  at = 0,
): void {
  xxph3Run(data, start, end - start);
  out[at] = S[0]!;
  out[at + 1] = S[1]!;
}

/** `GetSliceHash64` as a BigInt (tests and tools; not for hot paths). */
export function sliceHash64BigInt(data: Uint8Array, start = 0, end = data.length): bigint {
  xxph3Run(data, start, end - start);
  return toBigInt64(S[0]!, S[1]!);
}
