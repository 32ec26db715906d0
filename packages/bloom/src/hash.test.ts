import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashKey64 } from "./hash.js";
import { LEGACY_BLOOM_SEED, legacyBloomHash, rocksdbHash32 } from "./legacy-hash.js";
import { hashVectors, patternKey } from "./rocksdb-fixtures.test-support.js";

const M64 = (1n << 64n) - 1n;

/**
 * An independent, deliberately plain XXPH3_64bits (seed 0) in BigInt, written from
 * RocksDB 7.8.3's util/xxph3.h: 64-bit lanes, the scalar accumulate/scramble loops.
 */
function referenceXxph3(key: Uint8Array): bigint {
  const secret = new Uint8Array([
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
  ]);
  const P32_1 = 0x9e3779b1n;
  const P32_2 = 0x85ebca77n;
  const P32_3 = 0xc2b2ae3dn;
  const P64_1 = 0x9e3779b185ebca87n;
  const P64_2 = 0xc2b2ae3d27d4eb4fn;
  const P64_3 = 0x165667b19e3779f9n;
  const P64_4 = 0x85ebca77c2b2ae63n;
  const P64_5 = 0x27d4eb2f165667c5n;
  const le = (b: Uint8Array, i: number, n: number): bigint => {
    let v = 0n;
    for (let j = n - 1; j >= 0; j--) v = (v << 8n) | BigInt(b[i + j]!);
    return v;
  };
  const r64 = (b: Uint8Array, i: number) => le(b, i, 8);
  const fold = (a: bigint, b: bigint): bigint => {
    const p = a * b;
    return (p & M64) ^ (p >> 64n);
  };
  const avalanche = (h: bigint): bigint => {
    h ^= h >> 37n;
    h = (h * P64_3) & M64;
    return h ^ (h >> 32n);
  };
  const mix16 = (i: number, s: number) =>
    fold(r64(key, i) ^ r64(secret, s), r64(key, i + 8) ^ r64(secret, s + 8));
  const len = key.length;
  const n = BigInt(len);
  if (len === 0) return fold(r64(secret, 0), P64_2);
  if (len <= 3) {
    const c = BigInt(key[0]!) | (BigInt(key[len >> 1]!) << 8n) | (BigInt(key[len - 1]!) << 16n);
    return avalanche((((c | (n << 24n)) ^ le(secret, 0, 4)) * P64_1) & M64);
  }
  if (len <= 8) {
    const x = (le(key, 0, 4) | (le(key, len - 4, 4) << 32n)) ^ r64(secret, 0);
    const m = (n + (((x ^ (x >> 51n)) * P32_1) & M64)) & M64;
    return avalanche(((m ^ (m >> 47n)) * P64_2) & M64);
  }
  if (len <= 16) {
    const a = r64(key, 0) ^ r64(secret, 0);
    const b = r64(key, len - 8) ^ r64(secret, 8);
    return avalanche((n + a + b + fold(a, b)) & M64);
  }
  if (len <= 128) {
    let acc = (n * P64_1) & M64;
    const pairs = len > 96 ? 4 : len > 64 ? 3 : len > 32 ? 2 : 1;
    for (let i = 0; i < pairs; i++)
      acc += mix16(16 * i, 32 * i) + mix16(len - 16 * (i + 1), 32 * i + 16);
    return avalanche(acc & M64);
  }
  if (len <= 240) {
    let acc = (n * P64_1) & M64;
    for (let i = 0; i < 8; i++) acc += mix16(16 * i, 16 * i);
    acc = avalanche(acc & M64);
    for (let i = 8; i < len >> 4; i++) acc += mix16(16 * i, 16 * (i - 8) + 3);
    acc += mix16(len - 16, 136 - 17);
    return avalanche(acc & M64);
  }
  const acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];
  const accumulate = (p: number, s: number) => {
    for (let i = 0; i < 8; i++) {
      const d = r64(key, p + 8 * i);
      const k = d ^ r64(secret, s + 8 * i);
      acc[i] = (acc[i]! + d + (k & 0xffffffffn) * (k >> 32n)) & M64;
    }
  };
  const blocks = Math.floor(len / 1024);
  for (let b = 0; b < blocks; b++) {
    for (let s = 0; s < 16; s++) accumulate(b * 1024 + 64 * s, 8 * s);
    for (let i = 0; i < 8; i++) {
      const a = acc[i]!;
      acc[i] = ((a ^ (a >> 47n) ^ r64(secret, 128 + 8 * i)) * P32_1) & M64;
    }
  }
  const stripes = Math.floor((len - 1024 * blocks) / 64);
  for (let s = 0; s < stripes; s++) accumulate(blocks * 1024 + 64 * s, 8 * s);
  if (len % 64 !== 0) accumulate(len - 64, 192 - 64 - 7);
  let result = (n * P64_1) & M64;
  for (let j = 0; j < 4; j++) {
    result += fold(
      acc[2 * j]! ^ r64(secret, 11 + 16 * j),
      acc[2 * j + 1]! ^ r64(secret, 19 + 16 * j),
    );
  }
  return avalanche(result & M64);
}

function hash64(key: Uint8Array): bigint {
  const out = new Uint32Array(2);
  hashKey64(key, out);
  return (BigInt(out[1]!) << 32n) | BigInt(out[0]!);
}

describe("hashKey64 (RocksDB's GetSliceHash64 = XXPH3_64bits preview)", () => {
  it("equals librocksdb 7.8.3's Hash64 for every length class (testdata/hash-vectors.json)", () => {
    const { hash64 } = hashVectors();
    expect(hash64.length).toBe(308);
    for (const [len, expected] of hash64) {
      expect(hash64Hex(patternKey(len)), `length ${len}`).toBe(expected);
    }
  });

  it("equals a plain BigInt reference of XXPH3 for random keys of any length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2200 }), (key) => {
        expect(hash64(key)).toBe(referenceXxph3(key));
      }),
      { numRuns: 400 },
    );
    for (const len of [
      0, 1, 3, 4, 8, 9, 16, 17, 32, 33, 64, 65, 96, 97, 128, 129, 240, 241, 1024, 3000,
    ]) {
      const key = Uint8Array.from({ length: len }, (_, i) => 255 - (i & 255));
      expect(hash64(key), `length ${len}`).toBe(referenceXxph3(key));
    }
  });

  it("is frozen: these values are part of the filter format (worked examples)", () => {
    const enc = new TextEncoder();
    const values = ["", "a", "hello", "0123456789abcdef", "a 24-byte key for shale!"].map((s) =>
      hash64Hex(enc.encode(s)),
    );
    // The empty key: RocksDB's change to the preview, fold(secret64[0] * PRIME64_2), not 0.
    expect(values[0]).toBe("5342c3010fe1dd04");
    expect(values).toEqual(
      ["", "a", "hello", "0123456789abcdef", "a 24-byte key for shale!"].map((s) =>
        referenceXxph3(enc.encode(s)).toString(16).padStart(16, "0"),
      ),
    );
  });

  it("writes (lo, hi) at outIndex and nothing else", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(6), (key, index) => {
        const out = new Uint32Array(8).fill(7);
        hashKey64(key, out, index);
        const h = referenceXxph3(key);
        expect([out[index], out[index + 1]]).toEqual([Number(h & 0xffffffffn), Number(h >> 32n)]);
        for (let i = 0; i < 8; i++) if (i !== index && i !== index + 1) expect(out[i]).toBe(7);
      }),
    );
  });

  it("reads only the key's own bytes (views of a larger buffer hash like copies)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.nat(16),
        fc.nat(16),
        (key, pre, post) => {
          const big = new Uint8Array(pre + key.length + post).fill(0xa5);
          big.set(key, pre);
          expect(hash64(big.subarray(pre, pre + key.length))).toBe(hash64(key));
        },
      ),
    );
  });

  it("spreads both halves uniformly for RocksDB-style near-identical keys", () => {
    // Keys differing only in a 4-byte counter (filter_bench's key shape): the top bits of
    // lo and hi should each fill 16 buckets evenly (chi-square, 15 dof; 99.9 % bound 37.7).
    const n = 64_000;
    const key = new Uint8Array(16);
    const out = new Uint32Array(2);
    const loBuckets = new Array<number>(16).fill(0);
    const hiBuckets = new Array<number>(16).fill(0);
    for (let i = 0; i < n; i++) {
      key[0] = i;
      key[1] = i >>> 8;
      key[2] = i >>> 16;
      hashKey64(key, out);
      loBuckets[out[0]! >>> 28]!++;
      hiBuckets[out[1]! >>> 28]!++;
    }
    const chi = (buckets: number[]) =>
      buckets.reduce((s, c) => s + (c - n / 16) ** 2 / (n / 16), 0);
    expect(chi(loBuckets)).toBeLessThan(37.7);
    expect(chi(hiBuckets)).toBeLessThan(37.7);
  });
});

function hash64Hex(key: Uint8Array): string {
  return hash64(key).toString(16).padStart(16, "0");
}

/** RocksDB's Hash(data, n, seed) written plainly (util/hash.cc), tail bytes sign-extended. */
function referenceHash32(key: Uint8Array, seed: number): number {
  const m = 0xc6a4a793n;
  const M32 = 0xffffffffn;
  let h = (BigInt(seed) ^ (BigInt(key.length) * m)) & M32;
  let i = 0;
  for (; i + 4 <= key.length; i += 4) {
    const w =
      BigInt(key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16)) | (BigInt(key[i + 3]!) << 24n);
    h = ((h + w) * m) & M32;
    h ^= h >> 16n;
  }
  const sext = (b: number) => BigInt(b >= 128 ? b - 256 : b) & M32;
  const rest = key.length - i;
  if (rest === 3) h = (h + (sext(key[i + 2]!) << 16n)) & M32;
  if (rest >= 2) h = (h + (sext(key[i + 1]!) << 8n)) & M32;
  if (rest >= 1) {
    h = (h + sext(key[i]!)) & M32;
    h = (h * m) & M32;
    h ^= h >> 24n;
  }
  return Number(h);
}

describe("legacyBloomHash (RocksDB's BloomHash = Hash(key, 0xbc9f1d34))", () => {
  it("equals librocksdb 7.8.3's Hash for lengths 0..40 (testdata/hash-vectors.json)", () => {
    for (const [len, expected] of hashVectors().bloomHash32) {
      expect(legacyBloomHash(patternKey(len)).toString(16).padStart(8, "0"), `length ${len}`).toBe(
        expected,
      );
    }
  });

  it("equals a plain BigInt reference for any key and seed (tail bytes sign-extended)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(0xffffffff), (key, seed) => {
        expect(rocksdbHash32(key, seed)).toBe(referenceHash32(key, seed));
      }),
    );
    expect(legacyBloomHash(new Uint8Array(0))).toBe(LEGACY_BLOOM_SEED);
    // One high tail byte: sign extension makes it differ from the unsigned reading.
    expect(legacyBloomHash(Uint8Array.of(0x80))).toBe(
      referenceHash32(Uint8Array.of(0x80), LEGACY_BLOOM_SEED),
    );
  });

  it("hashes key[0, length) in place when given a length (a user key inside an internal key)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }),
        fc.nat(40),
        fc.nat(0xffffffff),
        (key, n, seed) => {
          const length = Math.min(n, key.length);
          expect(rocksdbHash32(key, seed, length)).toBe(
            referenceHash32(key.subarray(0, length), seed),
          );
        },
      ),
    );
  });
});
