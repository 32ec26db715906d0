/**
 * BloomFilterReader: answers "may this key be in the set?" from the bytes of a RocksDB full
 * filter (layouts in `format.ts` and `legacy.ts`). It views the bytes; it never copies them.
 *
 * Metadata dispatch, as RocksDB 7.8.3's `GetBuiltinFilterBitsReader` (byte [len] = the 5th
 * byte from the end, read as int8):
 * ```
 *   length <= 5                       -> "alwaysFalse" (no key was added)
 *   -1 (0xFF), sub-impl 0, line code 0,
 *        probes 1..30, reserved 0     -> "fastLocalBloom" (floor(len / 64) lines)
 *   -2 (0xFE), numBlocks >= 2         -> "ribbon" (Standard128 Ribbon: ribbon-reader.ts)
 *   1..127                            -> "legacyBloom" (numProbes; numLines fixed32 follows)
 *   0                                 -> "alwaysTrue" (zero probes)
 *   anything else (other FastLocalBloom metadata, Ribbon with < 2 blocks, reserved)
 *                                     -> "alwaysTrue" + `unsupported` (counted)
 * ```
 * Never a wrong "no": what cannot be read answers "may match" for every key, as RocksDB
 * does ("future safe"), and is counted in `BloomFilterReader.unsupportedFilters` so that a
 * table whose filter does nothing is visible.
 */
import { fixed32At, ShaleError } from "@shale/base";
import { FilterFormat, fastRange32 } from "./format.js";
import { cacheLocalFpRate } from "./fp-rate.js";
import { hashKey64 } from "./hash.js";
import { legacyGeometry, legacyProbesMatch } from "./legacy.js";
import { legacyBloomHash } from "./legacy-hash.js";
import { DIRECT_RANGE_MAX_LINES, probesMatch } from "./probe.js";
import { checkHashBatch, RibbonFilterReader } from "./ribbon-reader.js";

/** What a filter's metadata says it is (see the dispatch above). */
export type FilterKind = "fastLocalBloom" | "ribbon" | "legacyBloom" | "alwaysTrue" | "alwaysFalse";

/** Where a filter came from, named in `BloomFilterReader.unsupported`. */
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

let unsupportedCount = 0;

export class BloomFilterReader {
  /** What the metadata says the filter is. */
  readonly kind: FilterKind;
  /**
   * Why an "alwaysTrue" filter is one, when its metadata is not a format this reader
   * implements (a Ribbon filter of fewer than 2 blocks, reserved FastLocalBloom values, a
   * legacy length no line size explains); undefined otherwise (also for RocksDB's deliberate zero-probe filter).
   */
  get unsupported(): string | undefined {
    return this.unsupportedReason;
  }
  private unsupportedReason: string | undefined;
  /**
   * The Ribbon reader a "ribbon" filter is answered by (undefined for every other kind).
   * RocksDB writes Ribbon and Bloom filters under the same metaindex name, so a table's
   * filter is opened here whatever it holds.
   */
  readonly ribbon: RibbonFilterReader | undefined;
  /** FastLocalBloom: number of 64-byte lines (0 for every other kind). */
  readonly numLines: number;
  /** Probes per key (FastLocalBloom or legacy; 0 for the constant kinds). */
  readonly numProbes: number;
  /** The filter bytes viewed (not copied). Must not be modified while the reader is used. */
  readonly data: Uint8Array;
  /**
   * The answer of `mayMatchHash` when `numLines` is 0: false for "alwaysFalse", true for
   * "alwaysTrue" and "legacyBloom" (a legacy filter needs the key: see `mayMatchHash`).
   */
  private readonly constantAnswer: boolean;
  private readonly directRange: boolean;
  /** Legacy Bloom: number of lines (0 for every other kind) and log2 of their byte size. */
  private readonly legacyLines: number;
  private readonly legacyLog2LineBytes: number;

  /**
   * Number of filters constructed so far (in this process) whose metadata this reader does
   * not implement, each answering "may match" for every key (see `unsupported`).
   */
  static get unsupportedFilters(): number {
    return unsupportedCount;
  }

  /**
   * Reads the metadata of `filter` and views it. Never throws for the contents: a filter
   * it cannot read answers "may match" for every key (RocksDB's behaviour); `source` names
   * it in `unsupported`.
   */
  constructor(filter: Uint8Array, source: FilterSource = {}) {
    if (!(filter instanceof Uint8Array)) throw new TypeError("filter must be a Uint8Array");
    const length = filter.length;
    this.data = filter;
    this.numLines = 0;
    this.numProbes = 0;
    this.constantAnswer = true;
    this.directRange = true;
    this.legacyLines = 0;
    this.legacyLog2LineBytes = 6;
    this.unsupportedReason = undefined;
    this.ribbon = undefined;
    if (length <= FilterFormat.METADATA_BYTES) {
      this.kind = "alwaysFalse";
      this.constantAnswer = false;
      return;
    }
    const len = length - FilterFormat.METADATA_BYTES;
    const marker = filter[len]!;
    this.kind = "alwaysTrue";
    const unsupported = (what: string): void => {
      const where =
        source.file !== undefined ? ` (${source.file} @ ${(source.offset ?? 0) + len})` : "";
      this.unsupportedReason = `${what}${where}`;
      unsupportedCount++;
    };
    if (marker === FilterFormat.MARKER_ALWAYS_TRUE) return;
    if (marker <= FilterFormat.MAX_LEGACY_MARKER) {
      const numLines = fixed32At(filter, len + 1);
      const geometry = legacyGeometry(len, numLines);
      if (geometry === undefined) {
        unsupported(`legacy Bloom filter of ${len} bytes cannot have ${numLines} lines`);
        return;
      }
      this.kind = "legacyBloom";
      this.numProbes = marker;
      this.legacyLines = geometry.numLines;
      this.legacyLog2LineBytes = geometry.log2LineBytes;
      return;
    }
    if (marker === FilterFormat.MARKER_RIBBON) {
      const ribbon = RibbonFilterReader.open(filter);
      if (ribbon === undefined) {
        unsupported("Ribbon filter with fewer than 2 blocks");
        return;
      }
      this.kind = "ribbon";
      this.ribbon = ribbon;
      return;
    }
    if (marker !== FilterFormat.MARKER_NEW_BLOOM) {
      unsupported(`reserved filter marker ${marker - 256}`);
      return;
    }
    const subImplementation = filter[len + 1]!;
    const blockAndProbes = filter[len + 2]!;
    const numProbes = blockAndProbes & 31;
    if (subImplementation !== FilterFormat.SUB_IMPL_FAST_LOCAL_BLOOM) {
      unsupported(`Bloom sub-implementation ${subImplementation} not implemented`);
    } else if (blockAndProbes >>> 5 !== 0) {
      unsupported(`Bloom line size code ${blockAndProbes >>> 5} not implemented`);
    } else if (numProbes < 1 || numProbes > FilterFormat.MAX_PROBES) {
      unsupported(`Bloom probe count ${numProbes} reserved`);
    } else if (filter[len + 3] !== 0 || filter[len + 4] !== 0) {
      unsupported("Bloom reserved metadata bytes not zero");
    } else if (len < FilterFormat.LINE_BYTES) {
      // RocksDB would probe a 64-byte line at offset 0 past the bits; nothing to read here.
      unsupported(`Bloom bit array of ${len} bytes is shorter than a line`);
    } else {
      // RocksDB uses floor(len / 64) lines (a writer always makes whole lines).
      this.kind = "fastLocalBloom";
      this.numLines = Math.floor(len / FilterFormat.LINE_BYTES);
      this.numProbes = numProbes;
      this.directRange = this.numLines <= DIRECT_RANGE_MAX_LINES;
    }
  }

  /** True if the filter answers the same for every key ("alwaysTrue" / "alwaysFalse"). */
  get isConstant(): boolean {
    return this.numLines === 0 && this.legacyLines === 0 && this.ribbon === undefined;
  }

  /**
   * True if `mayMatchHash` / `mayMatchHashes` answer for this filter (it is keyed by
   * `hashKey64`, or constant). False for a legacy Bloom filter, keyed by a 32-bit hash: ask
   * `mayMatch(key)` (those answer "may match" for it).
   */
  get usesHashKey64(): boolean {
    return this.legacyLines === 0;
  }

  /** False only if `key` was certainly not added. `key` is only read. */
  mayMatch(key: Uint8Array): boolean {
    if (!(key instanceof Uint8Array)) throw new TypeError("key must be a Uint8Array");
    if (this.legacyLines !== 0) return this.legacyMayMatch(key) === 1;
    hashKey64(key, queryHash, 0);
    return this.mayMatchHash(queryHash[0]!, queryHash[1]!);
  }

  private legacyMayMatch(key: Uint8Array): number {
    return legacyProbesMatch(
      this.data,
      legacyBloomHash(key),
      this.legacyLines,
      this.legacyLog2LineBytes,
      this.numProbes,
    );
  }

  /**
   * Like `mayMatch` for a key whose hash `hashKey64` gave as (lo, hi) = (out[0], out[1]).
   * Hash once, probe many filters. A legacy Bloom filter (`usesHashKey64` false) cannot
   * answer from this hash and says "may match".
   */
  mayMatchHash(lo: number, hi: number): boolean {
    const numLines = this.numLines;
    if (numLines === 0) {
      const ribbon = this.ribbon;
      return ribbon === undefined ? this.constantAnswer : ribbon.mayMatchHash(lo, hi);
    }
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
      if (this.legacyLines !== 0) {
        for (let i = 0; i < count; i++) {
          const key = keys[start + i];
          if (!(key instanceof Uint8Array)) throw new TypeError("keys must be Uint8Arrays");
          out[start + i] = this.legacyMayMatch(key);
        }
        continue;
      }
      for (let i = 0; i < count; i++) {
        const key = keys[start + i];
        if (!(key instanceof Uint8Array)) throw new TypeError("keys must be Uint8Arrays");
        hashKey64(key, hashes, 2 * i);
      }
      if (numLines !== 0) this.probeBatch(hashes, 0, count, out, start);
      else if (this.ribbon !== undefined) {
        for (let i = 0; i < count; i++) {
          out[start + i] = this.ribbon.mayMatchHash(hashes[2 * i]!, hashes[2 * i + 1]!) ? 1 : 0;
        }
      } else out.fill(this.constantAnswer ? 1 : 0, start, start + count);
    }
  }

  /**
   * Batched `mayMatchHash` over `count` (lo, hi) pairs in `hashes[0, 2 * count)`, as
   * `hashKey64` writes them: writes `out[i] = 1` if hash i may match, else 0;
   * `out[count...]` is not written. Answers exactly as `mayMatchHash` on each pair, and
   * overlaps the cache misses of up to 32 hashes at a time (see `mayMatchMany`). `hashes`
   * is only read. A legacy Bloom filter answers 1 for every hash (see `mayMatchHash`).
   * REQUIRES: hashes.length >= 2 * count, out.length >= count.
   */
  mayMatchHashes(hashes: Uint32Array, count: number, out: Uint8Array): void {
    checkHashBatch(hashes, count, out);
    if (this.numLines === 0) {
      if (this.ribbon !== undefined) this.ribbon.mayMatchHashes(hashes, count, out);
      else out.fill(this.constantAnswer ? 1 : 0, 0, count);
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
