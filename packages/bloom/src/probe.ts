/**
 * The two hot loops shared by builder and reader: setting and testing a hash's probes in
 * its cache line (see the format drawing in `format.ts`).
 *
 * The format defines probe j as bit `(hi * 0x9e3779b9^j mod 2^32) >>> 23`, i.e. the chain
 * `h = h * 0x9e3779b9` of RocksDB. When building, the first eight probes multiply `hi` by
 * the precomputed powers instead (as RocksDB's AVX2 path does): the same bits, but
 * independent multiplications rather than a chain and no loop, so the CPU overlaps more
 * work and more cache misses. Measured (6 probes, fill only, CPU time): 10k-key filter
 * 12.3 -> 9.9 ns/key; 6M-key filter 36.9 -> 26.7 ns/key. Probes beyond eight continue the
 * chain from `hi * 0x9e3779b9^8`. Queries with 6 probes (the count for 8.3 to 10.07 bits
 * per key, so for the default 10) use the powers too; other counts use the plain chain.
 * Neither has an early exit (see `probesMatch`).
 */
import { fastRange32 } from "./format.js";

/** Up to this many lines `lo * numLines` is exact in a double (2^32 * 2^21 = 2^53). */
export const DIRECT_RANGE_MAX_LINES = 2 ** 21;

// Powers of the golden-ratio multiplier 0x9e3779b9, mod 2^32.
const M1 = 0x9e3779b9;
const M2 = 0xe35e67b1;
const M3 = 0x734297e9;
const M4 = 0x35fbe861;
const M5 = 0xdeb7c719;
const M6 = 0x0448b211;
const M7 = 0x3459b749;
const M8 = 0xab25f4c1;

/**
 * 1 if every probe of `h` (the hash's hi word) is set in the line at byte `base`, else 0.
 *
 * Branch-free: every probe is tested and the bits are ANDed, with no early exit at the
 * first clear bit. For a key that was not added, the probe that fails is random, so an
 * early exit mispredicts about half the time, and when the line is a cache miss the
 * misprediction is only discovered after the miss, throwing away the work the CPU did
 * meanwhile on the next queries (their own misses included). Without the branch the CPU
 * runs ahead and overlaps misses of consecutive queries. Measured (a loop over
 * precomputed hashes, 50 % inside, CPU time, loop overhead ~4 ns included): 10k-key filter
 * 16.3 -> 9.2 ns/query, 7 MB filter 33 -> 30 ns/query; filter-bench "Single filter"
 * (medians of 3, interleaved) 13.4 -> 10.9 ns at 10k keys and 54 -> 40 ns at 6M keys per
 * filter. Small enough for V8 to inline into every caller (so the hash is never boxed
 * across a call).
 * REQUIRES: base + 64 <= data.length, numProbes >= 0 (0 probes: 1).
 */
export function probesMatch(data: Uint8Array, base: number, h: number, numProbes: number): number {
  if (numProbes !== 6) return probesMatchChain(data, base, h, numProbes);
  // 6 probes written out with the powers of M1: the same bits as the chain, but six
  // independent multiplications and no loop, so fewer instructions per query. Only 6 is
  // written out: all eight would exceed V8's inlining limit (460 bytecode bytes), and a call
  // that is not inlined boxes `h`. Measured (mayMatchHash over precomputed hashes, 7.5 MB
  // filter, CPU time, 2 runs each, interleaved): 29.4-32.6 -> 22.8-24.3 ns/query;
  // filter-bench Single filter at 10k keys 10.4-11.5 -> 9.1-10.3 ns (3 runs each).
  // bit = g >>> 23 (0..511): byte bit >> 3 = g >>> 26, bit within the byte = bit & 7.
  let all = data[base + (h >>> 26)]! >>> ((h >>> 23) & 7);
  let g = Math.imul(h, M1);
  all &= data[base + (g >>> 26)]! >>> ((g >>> 23) & 7);
  g = Math.imul(h, M2);
  all &= data[base + (g >>> 26)]! >>> ((g >>> 23) & 7);
  g = Math.imul(h, M3);
  all &= data[base + (g >>> 26)]! >>> ((g >>> 23) & 7);
  g = Math.imul(h, M4);
  all &= data[base + (g >>> 26)]! >>> ((g >>> 23) & 7);
  g = Math.imul(h, M5);
  all &= data[base + (g >>> 26)]! >>> ((g >>> 23) & 7);
  return all & 1;
}

/** `probesMatch` for any probe count: the format's chain `h = h * 0x9e3779b9`, a probe a step. */
function probesMatchChain(data: Uint8Array, base: number, h: number, numProbes: number): number {
  let all = 1;
  for (let p = 0; p < numProbes; p++) {
    // bit = h >>> 23 (0..511): byte bit >> 3 = h >>> 26, bit within the byte = bit & 7.
    all &= data[base + (h >>> 26)]! >>> ((h >>> 23) & 7);
    h = Math.imul(h, M1);
  }
  return all & 1;
}

/**
 * Adds `words / 2` hashes, stored as (lo, hi) pairs in `hashes[0, words)`, to the bit array
 * `data` of `numLines` 64-byte lines. The probes are written out inline (no helper call,
 * so V8 never boxes the 32-bit hash into a heap number).
 *
 * REQUIRES: numLines >= 1, data.length >= 64 * numLines, words even, numProbes >= 1.
 */
export function addHashesToFilter(
  data: Uint8Array,
  numLines: number,
  numProbes: number,
  hashes: Uint32Array,
  words: number,
): void {
  const direct = numLines <= DIRECT_RANGE_MAX_LINES;
  for (let i = 0; i < words; i += 2) {
    const lo = hashes[i]!;
    const base = (direct ? ((lo * numLines) / 4294967296) >>> 0 : fastRange32(lo, numLines)) * 64;
    const h = hashes[i + 1]! | 0;
    let b = h >>> 23;
    data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    if (numProbes > 1) {
      b = Math.imul(h, M1) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    }
    if (numProbes > 2) {
      b = Math.imul(h, M2) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    }
    if (numProbes > 3) {
      b = Math.imul(h, M3) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    }
    if (numProbes > 4) {
      b = Math.imul(h, M4) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    }
    if (numProbes > 5) {
      b = Math.imul(h, M5) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    }
    if (numProbes > 6) {
      b = Math.imul(h, M6) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
    }
    if (numProbes > 7) {
      b = Math.imul(h, M7) >>> 23;
      data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
      let hh = Math.imul(h, M8);
      for (let p = 8; p < numProbes; p++) {
        b = hh >>> 23;
        data[base + (b >>> 3)] = data[base + (b >>> 3)]! | (1 << (b & 7));
        hh = Math.imul(hh, M1);
      }
    }
  }
}
