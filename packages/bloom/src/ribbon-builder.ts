/**
 * RibbonFilterBuilder: writes RocksDB's Standard128 Ribbon filter (`Standard128RibbonBits
 * Builder`, `table/block_based/filter_policy.cc`), byte for byte what RocksDB writes for
 * the same keys and setting (with `optimize_filters_for_memory` off, which RocksDB 10 turns
 * on by default: it then sizes filters by what malloc hands out; the format is the same).
 *
 * The format:
 * ```
 * +-------------------------------------------------------------+----------------------------+
 * | solution: numSegments x 16-byte segments                     | metadata (5 bytes)         |
 * +-------------------------------------------------------------+----------------------------+
 *   block 0: segments [0, c0)   block 1: [c0, c0 + c1) ...       [len]   = 0xFE  marker (-2 = Ribbon)
 *   segment = one column of one block: 128 bits, little-endian,  [len+1] = ordinal seed 0..255
 *             bit k = the column's bit for slot block*128 + k    [len+2..len+4] = numBlocks,
 *   blocks [0, upperStartBlock) have upperColumns - 1 columns,             24 bits little-endian
 *   the rest upperColumns (both derived from len and numBlocks:
 *   ribbon-config.ts `ribbonLayout`)
 * ```
 * A key's 64-bit hash (`hashKey64`, RocksDB's `GetSliceHash64`) is rehashed with the seed
 * and gives a start slot, 128 coefficient bits and an expected 32-bit result
 * (`ribbon-hash.ts`); the key "may match" when, in every column j, the parity of the
 * column's bits over the 128 slots from its start selected by the coefficients equals bit
 * j of the expected result (`ribbon-reader.ts`). Construction solves those equations for
 * all keys (`ribbon-banding.ts`), retrying with the next seed if a seed's system has no
 * solution.
 *
 * Sizing (RocksDB's `CalculateSpaceAndSlots`), for n keys (consecutive duplicates once)
 * and `bitsPerKey` Bloom-equivalent bits per key:
 * ```
 *   oneIn    = 1 / FastLocalBloom's FP rate at bitsPerKey       (10 -> 104.7)
 *   numSlots = roundUp128(GetNumSlots(n)), at least 256          (about n * 1.02 for large n)
 *   len      = GetBytesForOneInFpRate(numSlots, oneIn, rounding = high 32 bits of the first hash)
 *   seed     = low 8 bits of the first hash, then +1 mod 256 until the system solves
 * ```
 * The Bloom filter (FastLocalBloom, `builder.ts`) is written instead when it is smaller and
 * numSlots < 1024 (small filters), when no seed of 256 solves, and above 950M keys; a
 * filter with no key is 5 bytes (`ff 00 probes 00 00`: readers answer "no").
 *
 * Worked example: the 1000 keys "k0".."k999" at 10 bits/key: GetNumSlots(1000) = 1022 ->
 * 1024 slots = 8 blocks; 1 in 104.7 lies between 6 and 7 columns, and with this first
 * hash the bytes come to 55 segments: block 0 has 6 columns, blocks 1..7 have 7
 * (upperStartBlock 1). The first hash's low byte is 0x0d, which solves at once: the filter
 * is 880 bytes + `fe 0d 08 00 00` = 885 bytes (7.08 bits/key), against 1285 for Bloom.
 * RocksDB writes exactly these bytes (testdata/ribbon-vectors.json).
 *
 * Memory (seed 004's discipline): hashes are held in the Bloom builder's 64 KiB chunks
 * (no doubling array). Banding needs them all, for every seed tried, so they are released
 * (to the chunk free list) only once the system is solved, before the filter is allocated:
 * the peak is hashes (8 bytes per key) + banding (20 bytes per slot), as RocksDB's.
 *
 * Not thread-safe.
 */
import { BloomFilterBuilder, type HashStorage } from "./builder.js";
import { checkBitsPerKey, FilterFormat, filterBytesFor } from "./format.js";
import { RibbonBanding } from "./ribbon-banding.js";
import {
  BLOOM_COMPARE_SLOTS,
  COEFF_BITS,
  MAX_RIBBON_ENTRIES,
  ribbonBytesForOneInFpRate,
  ribbonLayout,
  ribbonOneInFpRate,
  ribbonSlotsForKeys,
} from "./ribbon-config.js";

/** Part of the file format; do not change. */
export const RibbonFormat = {
  /** Marker byte of the Standard128 Ribbon filter: -2 as int8. */
  MARKER: 0xfe,
  /** Metadata bytes after the solution. */
  METADATA_BYTES: 5,
} as const;

export interface RibbonFilterBuilderOptions {
  /**
   * Bloom-equivalent bits per key, in [1, 100]: the filter aims at the false-positive rate
   * a Bloom filter has at this setting, in about 30 % less space. Default: 10 (~1 %).
   */
  bitsPerKey?: number;
  /** How hashes are held until `finish()` (see `BloomFilterBuilder`). Default: "chunked". */
  hashStorage?: HashStorage;
}

/** What the last `finish()` wrote. */
export type RibbonFinishKind = "ribbon" | "bloom" | "empty";

/**
 * Builds one filter at a time: `addKey`/`addHash` ..., then `finish()`, which returns the
 * filter and resets the builder for the next one.
 */
export class RibbonFilterBuilder {
  /** The bits-per-key setting. */
  readonly bitsPerKey: number;
  /** 1 / the target false-positive rate. */
  readonly oneInFpRate: number;
  /** What the last `finish()` wrote: a Ribbon filter, the Bloom fallback, or no key. */
  lastFinish: RibbonFinishKind | undefined;
  /** Holds the hashes (chunked) and writes the Bloom fallback. */
  private readonly store: BloomFilterBuilder;

  constructor(options: RibbonFilterBuilderOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("RibbonFilterBuilder options must be an object");
    }
    const bitsPerKey = options.bitsPerKey ?? 10;
    checkBitsPerKey(bitsPerKey);
    this.bitsPerKey = bitsPerKey;
    this.oneInFpRate = ribbonOneInFpRate(bitsPerKey);
    this.store = new BloomFilterBuilder({
      bitsPerKey,
      hashStorage: options.hashStorage ?? "chunked",
    });
  }

  /** Number of hashes held (consecutive duplicates are not counted). */
  get numEntries(): number {
    return this.store.numEntries;
  }

  /** Bytes of hash storage held now (chunks, spare chunks included). */
  get allocatedBytes(): number {
    return this.store.allocatedBytes;
  }

  /** Most bytes of hash storage held at once (the banding's 20 bytes per slot not included). */
  get peakAllocatedBytes(): number {
    return this.store.peakAllocatedBytes;
  }

  /** Adds `key` (any bytes; only read, not kept). */
  addKey(key: Uint8Array): void {
    this.store.addKey(key);
  }

  /** Adds a key by its `hashKey64` halves; a hash equal to the previous one is skipped. */
  addHash(lo: number, hi: number): void {
    this.store.addHash(lo, hi);
  }

  /** Size in bytes `finish()` would return now (RocksDB's `CalculateSpace`). */
  estimatedSize(): number {
    const n = this.store.numEntries;
    if (n === 0) return FilterFormat.METADATA_BYTES;
    const plan = this.plan(n);
    return plan.ribbon ? plan.bytes + RibbonFormat.METADATA_BYTES : plan.bloomBytes;
  }

  /**
   * Writes the filter of every hash added since the last finish/reset and resets the
   * builder. @returns a new Uint8Array owned by the caller.
   */
  finish(): Uint8Array {
    const store = this.store;
    const n = store.numEntries;
    if (n === 0) {
      this.lastFinish = "empty";
      return store.finish();
    }
    const plan = this.plan(n);
    if (!plan.ribbon) return this.finishBloom();
    const numSlots = plan.numSlots;
    const banding = new RibbonBanding(numSlots);
    if (!banding.solve(store.heldHashes(), this.firstHash(0) & 255)) return this.finishBloom();
    // Solved: the hashes are no longer needed; release them before allocating the filter.
    store.reset();
    const len = plan.bytes;
    const filter = new Uint8Array(len + RibbonFormat.METADATA_BYTES);
    const numBlocks = numSlots / COEFF_BITS;
    // RocksDB lays the solution out over the whole buffer, metadata included
    // (floor((len + 5) / 16) = len / 16 segments, as len is a multiple of 16).
    banding.backSubstitute(
      new DataView(filter.buffer, 0, len),
      ribbonLayout(numBlocks, len + RibbonFormat.METADATA_BYTES),
    );
    filter[len] = RibbonFormat.MARKER;
    filter[len + 1] = banding.ordinalSeed;
    filter[len + 2] = numBlocks & 0xff;
    filter[len + 3] = (numBlocks >>> 8) & 0xff;
    filter[len + 4] = (numBlocks >>> 16) & 0xff;
    this.lastFinish = "ribbon";
    return filter;
  }

  /** Drops every hash added since the last finish/reset. */
  reset(): void {
    this.store.reset();
  }

  private finishBloom(): Uint8Array {
    this.lastFinish = "bloom";
    return this.store.finish();
  }

  /** Word `word` (0 = low, 1 = high) of the first hash held. REQUIRES: numEntries > 0. */
  private firstHash(word: number): number {
    const held = this.store.heldHashes();
    const first = held.chunks.length > 0 ? held.chunks[0]! : held.current;
    return first[word]!;
  }

  private plan(n: number): {
    ribbon: boolean;
    numSlots: number;
    bytes: number;
    bloomBytes: number;
  } {
    const bloomBytes = filterBytesFor(n, this.store.millibitsPerKey);
    if (n > MAX_RIBBON_ENTRIES) return { ribbon: false, numSlots: 0, bytes: 0, bloomBytes };
    const numSlots = ribbonSlotsForKeys(n);
    const bytes = ribbonBytesForOneInFpRate(numSlots, this.oneInFpRate, this.firstHash(1));
    const ribbon = !(
      numSlots < BLOOM_COMPARE_SLOTS && bloomBytes < bytes + RibbonFormat.METADATA_BYTES
    );
    return { ribbon, numSlots, bytes, bloomBytes };
  }
}
