/**
 * Test helpers: a deliberately plain reference FastLocalBloom (RocksDB's chained probe loop,
 * BigInt FastRange32) and deterministic key generators.
 */
import { Random } from "@shale/base/testing";
import { chooseNumProbes, millibitsPerKey, numLinesFor, PROBE_MULTIPLIER } from "./format.js";
import { hashKey64 } from "./hash.js";

/** Builds the filter for `hashes` ([lo, hi] pairs, consecutive duplicates skipped). */
export function referenceFilter(
  hashes: readonly (readonly [number, number])[],
  bitsPerKey: number,
): Uint8Array {
  const unique: (readonly [number, number])[] = [];
  for (const h of hashes) {
    const prev = unique[unique.length - 1];
    if (prev === undefined || prev[0] !== h[0] || prev[1] !== h[1]) unique.push(h);
  }
  const millibits = millibitsPerKey(bitsPerKey);
  const numProbes = chooseNumProbes(millibits);
  const numLines = numLinesFor(unique.length, millibits);
  const filter = new Uint8Array(numLines * 64 + 5);
  for (const [lo, hi] of unique) {
    const line = Number((BigInt(lo) * BigInt(numLines)) >> 32n);
    let h = hi >>> 0;
    for (let p = 0; p < numProbes; p++) {
      const bit = h >>> 23;
      filter[line * 64 + (bit >> 3)]! |= 1 << (bit & 7);
      h = Math.imul(h, PROBE_MULTIPLIER) >>> 0;
    }
  }
  filter.set([0xff, 0, numProbes, 0, 0], numLines * 64);
  return filter;
}

/**
 * RocksDB's query on `filter` (FastLocalBloom, any probe count in its metadata), written
 * plainly: BigInt FastRange32 and the chained probe loop with an early exit.
 */
export function referenceMayMatch(filter: Uint8Array, lo: number, hi: number): boolean {
  const len = filter.length - 5;
  const numLines = len / 64;
  if (numLines === 0) return false;
  const numProbes = filter[len + 2]! & 31;
  const line = Number((BigInt(lo >>> 0) * BigInt(numLines)) >> 32n);
  let h = hi >>> 0;
  for (let p = 0; p < numProbes; p++) {
    const bit = h >>> 23;
    if ((filter[line * 64 + (bit >> 3)]! & (1 << (bit & 7))) === 0) return false;
    h = Math.imul(h, PROBE_MULTIPLIER) >>> 0;
  }
  return true;
}

/** [lo, hi] of `key`. */
export function hashPair(key: Uint8Array): [number, number] {
  const out = new Uint32Array(2);
  hashKey64(key, out);
  return [out[0]!, out[1]!];
}

/** A 16-byte key like filter_bench's: counter, counter + salt, then zeros. */
export function counterKey(i: number, salt: number): Uint8Array {
  const key = new Uint8Array(16);
  const view = new DataView(key.buffer);
  view.setUint32(0, i >>> 0, true);
  view.setUint32(4, (i + salt) >>> 0, true);
  return key;
}

/** `n` distinct random keys of length 1..maxLength from a seeded generator. */
export function randomKeys(seed: number, n: number, maxLength = 32): Uint8Array[] {
  const rnd = new Random(seed);
  const seen = new Set<string>();
  const keys: Uint8Array[] = [];
  while (keys.length < n) {
    const key = rnd.bytes(1 + rnd.uniform(maxLength));
    const id = key.join(",");
    if (seen.has(id)) continue;
    seen.add(id);
    keys.push(key);
  }
  return keys;
}
