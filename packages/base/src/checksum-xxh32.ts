/**
 * xxHash32 (XXH32), pure JS (`Math.imul`, no allocation). RocksDB's `kxxHash` block checksum
 * is XXH32 with seed 0 of the block and its type byte. Replaces the xxhash-wasm package,
 * whose instantiation is asynchronous (it needed a top-level await).
 *
 * Reference values: XXH32("") = 0x02cc5d05, XXH32("a") = 0x550d7456, XXH32("abc") =
 * 0x32d153ff; cross-checked against librocksdb's `ROCKSDB_XXH32` on 278 lengths up to 65,539
 * bytes (testdata/checksum-vectors.json).
 */

const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;
const P5 = 0x165667b1;

function read32(d: Uint8Array, p: number): number {
  return d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16) | (d[p + 3]! << 24);
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function round(acc: number, input: number): number {
  return Math.imul(rotl((acc + Math.imul(input, P2)) | 0, 13), P1);
}

/** XXH32 of `data[start, end)` with `seed` (Default: 0). */
export function xxh32(data: Uint8Array, start = 0, end = data.length, seed = 0): number {
  const len = end - start;
  let p = start;
  let h: number;
  if (len >= 16) {
    let v1 = (seed + P1 + P2) | 0;
    let v2 = (seed + P2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - P1) | 0;
    const limit = end - 16;
    while (p <= limit) {
      v1 = round(v1, read32(data, p));
      v2 = round(v2, read32(data, p + 4));
      v3 = round(v3, read32(data, p + 8));
      v4 = round(v4, read32(data, p + 12));
      p += 16;
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + P5) | 0;
  }
  h = (h + len) | 0;
  while (p + 4 <= end) {
    h = Math.imul(rotl((h + Math.imul(read32(data, p), P3)) | 0, 17), P4);
    p += 4;
  }
  while (p < end) {
    h = Math.imul(rotl((h + Math.imul(data[p]!, P5)) | 0, 11), P1);
    p++;
  }
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  h ^= h >>> 16;
  return h >>> 0;
}
