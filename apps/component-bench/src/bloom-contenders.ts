/**
 * The contenders of bloom-bench.ts, each given the same memory: the bits shale's filter
 * holds at the bench's bits/key (whole 64-byte lines, so a hair above bits x keys); a peer
 * gets exactly that many bits and the number of hash functions that is optimal for it,
 * k = round(ln 2 x bits/key), as its own sizing would pick.
 *
 *   shale          BloomFilterBuilder.addKey / finish, BloomFilterReader.mayMatch
 *                  (RocksDB's FastLocalBloom: every probe of a key in one 64-byte line)
 *   shale-matched  the same at the fractional bits/key whose estimated FP rate matches the
 *                  standard filter's at the bench's bits/key (millibitsPerKey)
 *   bloomfilter    BloomFilter(m, k).add / test (FNV-1a, enhanced double hashing)
 *   bloom-filters  BloomFilter(m, k).add / has (XXH64 through xxhashjs, double hashing)
 *
 * Each contender's loops call its own methods directly, so every call site sees one class.
 */
import { createRequire } from "node:module";
import {
  BloomFilterBuilder,
  BloomFilterReader,
  cacheLocalFpRate,
  chooseNumProbes,
  millibitsPerKey,
  standardFpRate,
} from "@shale/bloom";
import type { KeySet } from "./bloom-keys.js";

const require = createRequire(import.meta.url);

interface JsBloom {
  add(key: string): void;
  test(key: string): boolean;
  buckets: Int32Array;
}
interface BloomFiltersBloom {
  add(key: string): void;
  has(key: string): boolean;
  _filter: { array: Uint8Array };
}
const { BloomFilter: JasonDaviesBloom } = require("bloomfilter") as {
  BloomFilter: new (m: number, k: number) => JsBloom;
};
const { BloomFilter: BloomFiltersBloomClass } = require("bloom-filters") as {
  BloomFilter: new (m: number, k: number) => BloomFiltersBloom;
};

/** A filter built over the added keys: its size and its two query passes. */
export interface Built {
  bytes: number;
  /** Queries every added key; returns how many answered "may match". */
  positive(): number;
  /** Queries every absent key; returns how many answered "may match". */
  negative(): number;
}

export interface Contender {
  name: string;
  /** Slow enough that one query pass of each kind is measurement enough. */
  slow?: boolean;
  build(keys: KeySet, absent: KeySet): Built;
  /** The FP rate the filter's geometry predicts at `bitsPerKey` as held. */
  estimate(bitsPerKey: number): number;
}

/** Bits of shale's filter for n keys at `bits` bits/key (whole 64-byte lines). */
export function bitsOfShale(n: number, bits: number): number {
  return Math.ceil((n * millibitsPerKey(bits)) / 512000) * 512;
}

export const optimalK = (m: number, n: number): number =>
  Math.max(1, Math.round((Math.LN2 * m) / n));

/** The smallest bits/key (0.001 steps) whose cache-local estimate is at most `target`. */
export function shaleBitsFor(target: number): number {
  for (let m = 1000; m <= 100_000; m++) {
    if (cacheLocalFpRate(m / 1000, chooseNumProbes(m)) <= target) return m / 1000;
  }
  return 100;
}

export function shaleContender(name: string, bits: number): Contender {
  return {
    name,
    build(keys, absent) {
      const builder = new BloomFilterBuilder({ bitsPerKey: bits });
      const added = keys.bytes;
      for (let i = 0; i < added.length; i++) builder.addKey(added[i]!);
      const filter = builder.finish();
      const reader = new BloomFilterReader(filter);
      const absentBytes = absent.bytes;
      return {
        bytes: filter.length,
        positive() {
          let t = 0;
          for (let i = 0; i < added.length; i++) if (reader.mayMatch(added[i]!)) t++;
          return t;
        },
        negative() {
          let t = 0;
          for (let i = 0; i < absentBytes.length; i++) if (reader.mayMatch(absentBytes[i]!)) t++;
          return t;
        },
      };
    },
    estimate: (held) => cacheLocalFpRate(held, chooseNumProbes(millibitsPerKey(bits))),
  };
}

const standardEstimate = (held: number): number =>
  standardFpRate(held, Math.round(Math.LN2 * held));

/** bloomfilter with `bitsFor(n)` bits and the optimal k. */
export function bloomfilterContender(bitsFor: (n: number) => number): Contender {
  return {
    name: "bloomfilter",
    estimate: standardEstimate,
    build(keys, absent) {
      const added = keys.strings;
      const absentStrings = absent.strings;
      const m = bitsFor(added.length);
      const f = new JasonDaviesBloom(m, optimalK(m, added.length));
      for (let i = 0; i < added.length; i++) f.add(added[i]!);
      return {
        bytes: f.buckets.byteLength,
        positive() {
          let t = 0;
          for (let i = 0; i < added.length; i++) if (f.test(added[i]!)) t++;
          return t;
        },
        negative() {
          let t = 0;
          for (let i = 0; i < absentStrings.length; i++) if (f.test(absentStrings[i]!)) t++;
          return t;
        },
      };
    },
  };
}

/** bloom-filters with `bitsFor(n)` bits and the optimal k. */
export function bloomFiltersContender(bitsFor: (n: number) => number): Contender {
  return {
    name: "bloom-filters",
    slow: true,
    estimate: standardEstimate,
    build(keys, absent) {
      const added = keys.strings;
      const absentStrings = absent.strings;
      const m = bitsFor(added.length);
      const f = new BloomFiltersBloomClass(m, optimalK(m, added.length));
      for (let i = 0; i < added.length; i++) f.add(added[i]!);
      return {
        bytes: f._filter.array.byteLength,
        positive() {
          let t = 0;
          for (let i = 0; i < added.length; i++) if (f.has(added[i]!)) t++;
          return t;
        },
        negative() {
          let t = 0;
          for (let i = 0; i < absentStrings.length; i++) if (f.has(absentStrings[i]!)) t++;
          return t;
        },
      };
    },
  };
}
