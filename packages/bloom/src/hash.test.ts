import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashKey64, murmurHash3X86128 } from "./hash.js";

/**
 * An independent, deliberately plain MurmurHash3_x86_128: the tail is gathered byte by byte
 * into per-lane words, and everything is done on unsigned values with >>> 0.
 */
function referenceMurmur3X86128(key: Uint8Array, seed: number): number[] {
  const c = [0x239b961b, 0xab0e9789, 0x38b34ae5, 0xa1e38b93];
  const rotations = [15, 16, 17, 18];
  const hRot = [19, 17, 15, 13];
  const adds = [0x561ccd1b, 0x0bcaa747, 0x96cd1c35, 0x32ac3b17];
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  const mul = (a: number, b: number) => Math.imul(a, b) >>> 0;
  const mixK = (lane: number, k: number) =>
    mul(rotl(mul(k, c[lane]!), rotations[lane]!), c[(lane + 1) % 4]!);
  const h = [seed >>> 0, seed >>> 0, seed >>> 0, seed >>> 0];
  const blocks = Math.floor(key.length / 16);
  for (let b = 0; b < blocks; b++) {
    for (let lane = 0; lane < 4; lane++) {
      const o = b * 16 + lane * 4;
      const k = (key[o]! | (key[o + 1]! << 8) | (key[o + 2]! << 16) | (key[o + 3]! << 24)) >>> 0;
      h[lane] = (h[lane]! ^ mixK(lane, k)) >>> 0;
      h[lane] = rotl(h[lane]!, hRot[lane]!);
      h[lane] = (h[lane]! + h[(lane + 1) % 4]!) >>> 0;
      h[lane] = (mul(h[lane]!, 5) + adds[lane]!) >>> 0;
    }
  }
  const tail = [0, 0, 0, 0];
  const used = [false, false, false, false];
  for (let j = blocks * 16; j < key.length; j++) {
    const t = j - blocks * 16;
    tail[t >> 2] = (tail[t >> 2]! | (key[j]! << (8 * (t & 3)))) >>> 0;
    used[t >> 2] = true;
  }
  for (let lane = 3; lane >= 0; lane--) {
    if (used[lane]) h[lane] = (h[lane]! ^ mixK(lane, tail[lane]!)) >>> 0;
  }
  const fmix = (x: number) => {
    x = (x ^ (x >>> 16)) >>> 0;
    x = mul(x, 0x85ebca6b);
    x = (x ^ (x >>> 13)) >>> 0;
    x = mul(x, 0xc2b2ae35);
    return (x ^ (x >>> 16)) >>> 0;
  };
  for (let lane = 0; lane < 4; lane++) h[lane] = (h[lane]! ^ key.length) >>> 0;
  h[0] = (h[0]! + h[1]! + h[2]! + h[3]!) >>> 0;
  for (let lane = 1; lane < 4; lane++) h[lane] = (h[lane]! + h[0]!) >>> 0;
  for (let lane = 0; lane < 4; lane++) h[lane] = fmix(h[lane]!);
  h[0] = (h[0]! + h[1]! + h[2]! + h[3]!) >>> 0;
  for (let lane = 1; lane < 4; lane++) h[lane] = (h[lane]! + h[0]!) >>> 0;
  return h;
}

describe("murmurHash3X86128", () => {
  it("matches SMHasher's verification value for MurmurHash3_x86_128 (0xB3ECE62A)", () => {
    // Hash keys {}, {0}, {0,1}, ..., {0..254} with seed 256 - length, concatenate the
    // 16-byte digests, hash that with seed 0 and take the first little-endian word.
    const key = new Uint8Array(256);
    const digests = new Uint32Array(4 * 256);
    for (let i = 0; i < 256; i++) {
      key[i] = i;
      murmurHash3X86128(key.subarray(0, i), 256 - i, digests, 4 * i);
    }
    const out = new Uint32Array(4);
    murmurHash3X86128(new Uint8Array(digests.buffer), 0, out);
    expect(out[0]).toBe(0xb3ece62a);
  });

  it("equals an independent reference implementation for every length and seed", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat({ max: 0xffffffff }), (key, seed) => {
        const out = new Uint32Array(4);
        murmurHash3X86128(key, seed, out);
        expect(Array.from(out)).toEqual(referenceMurmur3X86128(key, seed));
      }),
      { numRuns: 500 },
    );
  });
});

describe("hashKey64", () => {
  it("is the first 64 bits of MurmurHash3_x86_128 with seed 0, written at outIndex", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(6), (key, index) => {
        const full = new Uint32Array(4);
        murmurHash3X86128(key, 0, full);
        const out = new Uint32Array(8).fill(7);
        hashKey64(key, out, index);
        expect([out[index], out[index + 1]]).toEqual([full[0], full[1]]);
        for (let i = 0; i < 8; i++) if (i !== index && i !== index + 1) expect(out[i]).toBe(7);
      }),
    );
  });

  it("is frozen: these values are part of the filter format", () => {
    const out = new Uint32Array(2);
    const values = ["", "a", "hello", "0123456789abcdef", "a 24-byte key for shale!"].map((s) => {
      hashKey64(new TextEncoder().encode(s), out);
      return `${out[0]!.toString(16)}:${out[1]!.toString(16)}`;
    });
    // MurmurHash3 of the empty input with seed 0 is 0 by construction.
    expect(values).toEqual([
      "0:0",
      "a794933c:5556b01b",
      "2b2444a0:db91def7",
      "fb7d4409:36aed30a",
      "17e11403:986eb795",
    ]);
  });

  it("reads only the key's own bytes (views of a larger buffer hash like copies)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(16),
        fc.nat(16),
        (key, pre, post) => {
          const big = new Uint8Array(pre + key.length + post).fill(0xa5);
          big.set(key, pre);
          const a = new Uint32Array(2);
          const b = new Uint32Array(2);
          hashKey64(key, a);
          hashKey64(big.subarray(pre, pre + key.length), b);
          expect(b).toEqual(a);
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
