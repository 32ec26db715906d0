/**
 * BloomFilterReader: answers "may this key be in the set?" from filter bytes written by
 * `BloomFilterBuilder` (layout in `format.ts`). It views the bytes; it never copies them.
 *
 * Metadata dispatch (byte [len] = 5th byte from the end):
 * ```
 *   length < 5                        -> Corruption (truncated)
 *   0xFF, sub-impl 0, probes 1..30,
 *        block bits 0, reserved 0,
 *        (length - 5) % 64 == 0      -> FastLocalBloom; 0 lines = empty filter: always "no"
 *   0x00                              -> always "may match" (RocksDB: zero probes), except
 *                                        that a 5-byte filter is always "no" (RocksDB treats
 *                                        a filter of <= 5 bytes as zero keys added)
 *   anything else                     -> Corruption (legacy Bloom, Ribbon, garbage)
 * ```
 * RocksDB answers "always may match" for an unknown sub-implementation / probe count /
 * reserved bytes ("future safe"); shale has no future formats to be safe for, so it treats
 * them as damage.
 */
import { ShaleError } from "@shale/base";
import { FilterFormat, fastRange32 } from "./format.js";
import { cacheLocalFpRate } from "./fp-rate.js";
import { hashKey64 } from "./hash.js";
import { DIRECT_RANGE_MAX_LINES, probesMatch } from "./probe.js";

/** Where a filter came from, for Corruption errors. */
export interface FilterSource {
  /** The file holding the filter. Default: none. */
  file?: string;
  /** Byte offset of the filter in that file; added to reported offsets. Default: 0. */
  offset?: number;
}

/**
 * Keys per pass of the batched queries (RocksDB's MultiGet batch size). A pass first
 * touches every key's line, then probes, so the cache misses of up to this many keys
 * overlap; the lines touched (2-4 KiB) are still in L1 when the probes run.
 */
export const QUERY_BATCH = 32;

// Scratch space of the queries (single-threaded: shared by every reader, so a query on a
// filter not used for a while finds it in cache; a per-reader array would be one more miss).
const queryHash = new Uint32Array(2);
const batchHashes = new Uint32Array(2 * QUERY_BATCH);
/** [0, QUERY_BATCH): byte offset of each key's line; [QUERY_BATCH]: see `probeBatch`. */
const batchOffsets = new Int32Array(QUERY_BATCH + 1);

export class BloomFilterReader {
  /** Number of 64-byte lines (0 for the empty and the always-true filter). */
  readonly numLines: number;
  /** Probes per key (0 for the empty and the always-true filter). */
  readonly numProbes: number;
  /** The filter bytes viewed (not copied). Must not be modified while the reader is used. */
  readonly data: Uint8Array;
  /** The answer when `numLines` is 0: false for an empty filter, true for "always true". */
  private readonly constantAnswer: boolean;
  private readonly directRange: boolean;

  /**
   * Validates the metadata of `filter` and views it.
   * @throws ShaleError Corruption for a truncated filter, an unknown marker or bad metadata.
   */
  constructor(filter: Uint8Array, source: FilterSource = {}) {
    if (!(filter instanceof Uint8Array)) throw new TypeError("filter must be a Uint8Array");
    const length = filter.length;
    const at = (i: number): number => (source.offset ?? 0) + i;
    const fail = (message: string, i: number): never => {
      throw ShaleError.corruption(`bloom filter: ${message}`, source.file, at(i));
    };
    if (length < FilterFormat.METADATA_BYTES)
      fail(`truncated: ${length} bytes, need at least 5`, 0);
    const len = length - FilterFormat.METADATA_BYTES;
    const marker = filter[len]!;
    this.data = filter;
    this.numLines = 0;
    this.numProbes = 0;
    this.constantAnswer = false;
    this.directRange = true;
    if (marker === FilterFormat.MARKER_ALWAYS_TRUE) {
      this.constantAnswer = len > 0;
      return;
    }
    if (marker !== FilterFormat.MARKER_NEW_BLOOM) {
      const kind =
        marker === FilterFormat.MARKER_RIBBON
          ? "Ribbon filter (marker 0xfe) not supported"
          : marker < 0x80
            ? `legacy Bloom filter (marker ${marker}) not supported`
            : `unknown filter marker 0x${marker.toString(16)}`;
      fail(kind, len);
    }
    if (filter[len + 1] !== FilterFormat.SUB_IMPL_FAST_LOCAL_BLOOM) {
      fail(`unknown Bloom sub-implementation ${filter[len + 1]}`, len + 1);
    }
    const blockAndProbes = filter[len + 2]!;
    if (blockAndProbes >>> 5 !== 0)
      fail(`unsupported line size code ${blockAndProbes >>> 5}`, len + 2);
    const numProbes = blockAndProbes & 31;
    if (numProbes < 1 || numProbes > FilterFormat.MAX_PROBES)
      fail(`bad probe count ${numProbes}`, len + 2);
    if (filter[len + 3] !== 0 || filter[len + 4] !== 0)
      fail("reserved metadata bytes not zero", len + 3);
    if (len % FilterFormat.LINE_BYTES !== 0)
      fail(`bit array of ${len} bytes is not whole 64-byte lines`, len);
    this.numLines = len / FilterFormat.LINE_BYTES;
    this.numProbes = this.numLines > 0 ? numProbes : 0;
    this.directRange = this.numLines <= DIRECT_RANGE_MAX_LINES;
  }

  /** True if the filter answers the same for every key (empty or "always true"). */
  get isConstant(): boolean {
    return this.numLines === 0;
  }

  /** False only if `key` was certainly not added. `key` is only read. */
  mayMatch(key: Uint8Array): boolean {
    if (!(key instanceof Uint8Array)) throw new TypeError("key must be a Uint8Array");
    hashKey64(key, queryHash, 0);
    return this.mayMatchHash(queryHash[0]!, queryHash[1]!);
  }

  /**
   * Like `mayMatch` for a key whose hash `hashKey64` gave as (lo, hi) = (out[0], out[1]).
   * Hash once, probe many filters.
   */
  mayMatchHash(lo: number, hi: number): boolean {
    const numLines = this.numLines;
    if (numLines === 0) return this.constantAnswer;
    const line = this.directRange
      ? (((lo >>> 0) * numLines) / 4294967296) >>> 0
      : fastRange32(lo, numLines);
    return probesMatch(this.data, line * 64, hi, this.numProbes) === 1;
  }

  /**
   * Batched `mayMatch` (RocksDB's batched `MayMatch`, as MultiGet uses it): writes
   * `out[i] = 1` if `keys[i]` may match, else 0; `out[keys.length...]` is not written.
   * Answers exactly as `mayMatch` on each key.
   *
   * Faster than one `mayMatch` per key when the filter is not in the CPU caches: per pass
   * of up to 32 keys it hashes every key, then touches every key's line (JavaScript has no
   * prefetch instruction, but these loads depend on nothing pending, so the CPU has all
   * the cache misses in flight at once), and only then probes. `keys` and their bytes are
   * only read.
   * REQUIRES: out.length >= keys.length.
   */
  mayMatchMany(keys: readonly Uint8Array[], out: Uint8Array): void {
    if (!(out instanceof Uint8Array)) throw new TypeError("out must be a Uint8Array");
    const n = keys.length;
    if (out.length < n)
      throw ShaleError.invalidArgument(`out has ${out.length} slots for ${n} keys`);
    const numLines = this.numLines;
    const hashes = batchHashes;
    for (let start = 0; start < n; start += QUERY_BATCH) {
      const count = Math.min(QUERY_BATCH, n - start);
      for (let i = 0; i < count; i++) {
        const key = keys[start + i];
        if (!(key instanceof Uint8Array)) throw new TypeError("keys must be Uint8Arrays");
        hashKey64(key, hashes, 2 * i);
      }
      if (numLines === 0) out.fill(this.constantAnswer ? 1 : 0, start, start + count);
      else this.probeBatch(hashes, 0, count, out, start);
    }
  }

  /**
   * Batched `mayMatchHash` over `count` (lo, hi) pairs in `hashes[0, 2 * count)`, as
   * `hashKey64` writes them: writes `out[i] = 1` if hash i may match, else 0;
   * `out[count...]` is not written. Answers exactly as `mayMatchHash` on each pair, and
   * overlaps the cache misses of up to 32 hashes at a time (see `mayMatchMany`). `hashes`
   * is only read.
   * REQUIRES: hashes.length >= 2 * count, out.length >= count.
   */
  mayMatchHashes(hashes: Uint32Array, count: number, out: Uint8Array): void {
    if (!(hashes instanceof Uint32Array)) throw new TypeError("hashes must be a Uint32Array");
    if (!(out instanceof Uint8Array)) throw new TypeError("out must be a Uint8Array");
    if (
      !(Number.isInteger(count) && count >= 0 && count <= out.length && 2 * count <= hashes.length)
    ) {
      throw ShaleError.invalidArgument(
        `count ${count} needs ${2 * count} hash words (have ${hashes.length}) and ${count} out slots (have ${out.length})`,
      );
    }
    if (this.numLines === 0) {
      out.fill(this.constantAnswer ? 1 : 0, 0, count);
      return;
    }
    for (let start = 0; start < count; start += QUERY_BATCH) {
      this.probeBatch(hashes, 2 * start, Math.min(QUERY_BATCH, count - start), out, start);
    }
  }

  /**
   * One pass of the batched queries: `count` (<= QUERY_BATCH) hashes from
   * `hashes[first...]`, answers to `out[outStart...]`.
   *
   * Loop 1 locates every line and reads its first and last byte. These loads depend on
   * nothing pending, so the CPU has the misses of all `count` lines in flight together:
   * JavaScript's stand-in for RocksDB's prefetch. Both ends, because a filter line is 64
   * bytes at a 64-byte offset in `data`, but `data` itself is usually not 64-byte aligned
   * in memory (malloc gives 16 bytes), so a line mostly spans two CPU cache lines. The
   * bytes read are summed into a slot of the scratch array, so no compiler may drop the
   * loads. Loop 2 probes the lines, by then in L1 or on their way.
   * REQUIRES: numLines > 0.
   */
  private probeBatch(
    hashes: Uint32Array,
    first: number,
    count: number,
    out: Uint8Array,
    outStart: number,
  ): void {
    const data = this.data;
    const numLines = this.numLines;
    const numProbes = this.numProbes;
    const direct = this.directRange;
    const offsets = batchOffsets;
    let touched = 0;
    for (let i = 0; i < count; i++) {
      const lo = hashes[first + 2 * i]!;
      const base = (direct ? ((lo * numLines) / 4294967296) >>> 0 : fastRange32(lo, numLines)) * 64;
      offsets[i] = base;
      touched += data[base]! + data[base + 63]!;
    }
    offsets[QUERY_BATCH] = touched;
    for (let i = 0; i < count; i++) {
      out[outStart + i] = probesMatch(data, offsets[i]!, hashes[first + 2 * i + 1]!, numProbes);
    }
  }

  /**
   * The expected false-positive rate of a FastLocalBloom filter with `bitsPerKey` bits per
   * key and `numProbes` probes: RocksDB's cache-local approximation (average of the
   * standard Bloom FP rates one standard deviation of line occupancy above and below the
   * mean; see `fp-rate.ts`). 10 bits/key, 6 probes -> about 0.955 %.
   */
  static theoreticalFpRate(bitsPerKey: number, numProbes: number): number {
    return cacheLocalFpRate(bitsPerKey, numProbes);
  }
}
