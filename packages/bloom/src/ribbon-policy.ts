/**
 * RibbonFilterPolicy: RocksDB's `NewRibbonFilterPolicy(bloom_equivalent_bits_per_key,
 * bloom_before_level)` as a filter policy (the object a table builder asks for a filter
 * builder, and a table reader for a filter reader). Like `BloomFilterPolicy` it implements
 * `@shale/sstable`'s `FilterPolicy` structurally.
 *
 * Which filter a table gets (RocksDB's `RibbonFilterPolicy::GetBuilderWithContext`):
 * ```
 *   levelish = -1 for a flush, the output level for a compaction, "bottommost" if unknown
 *   levelish < bloomBeforeLevel  -> Bloom (FastLocalBloom: faster to build, more space)
 *   otherwise                    -> Ribbon (about 30 % less space at the same FP rate)
 *   bloomBeforeLevel:  0 (RocksDB's default): Bloom for flushes only
 *                     -1: always Ribbon        2^31 - 1: always Bloom
 * ```
 * Both are written under the same names (part of the file format; do not change):
 * `name` "ribbonfilter" (`rocksdb.filter.policy`, RocksDB's `RibbonFilterPolicy::Name()`),
 * `compatibilityName` "rocksdb.BuiltinBloomFilter" (the metaindex key "fullfilter." +
 * this): RocksDB's reader tells the two apart by the filter's metadata, and so does
 * `BloomFilterReader`, which `newReader` returns. `id` is the OPTIONS file's
 * `filter_policy=` value, RocksDB's `GetId()`: "ribbonfilter:10:0".
 *
 * Thread-safety: immutable; builders and readers it makes are single-threaded.
 */
import { ShaleError } from "@shale/base";
import { BloomFilterBuilder } from "./builder.js";
import { checkBitsPerKey, millibitsPerKey } from "./format.js";
import { BloomFilterReader, type FilterSource } from "./reader.js";
import { RibbonFilterBuilder } from "./ribbon-builder.js";

/** Where a filter is being built (RocksDB's `FilterBuildingContext`, the part a policy reads). */
export interface FilterBuildingContext {
  /** The LSM level the table is written to; -1 or absent: unknown (bottommost). */
  levelAtCreation?: number;
  /** Why the table is written: a memtable flush counts as level -1. Default: unknown. */
  reason?: "flush" | "compaction" | "other";
}

/** bloomBeforeLevel meaning "always Bloom" (RocksDB's INT_MAX). */
export const ALWAYS_BLOOM = 0x7fffffff;

export class RibbonFilterPolicy {
  /** `rocksdb.filter.policy`. */
  readonly name = "ribbonfilter";
  /** Metaindex key suffix: "fullfilter." + compatibilityName. */
  readonly compatibilityName = "rocksdb.BuiltinBloomFilter";
  /** Bloom-equivalent bits of filter per key, in [1, 100]. */
  readonly bitsPerKey: number;
  /** Tables at levels below this get a Bloom filter (a flush is level -1). */
  readonly bloomBeforeLevel: number;

  /**
   * @param bitsPerKey Bloom-equivalent bits per key. Default: 10 (about 1 % false positives).
   * @param bloomBeforeLevel Default: 0 (Bloom for flushes, Ribbon for compactions).
   * @throws TypeError for non-numbers, ShaleError InvalidArgument for bitsPerKey outside
   *   [1, 100] or a bloomBeforeLevel that is not an integer in [-1, 2^31 - 1].
   */
  constructor(bitsPerKey = 10, bloomBeforeLevel = 0) {
    if (typeof bloomBeforeLevel !== "number") {
      throw new TypeError("bloomBeforeLevel must be a number");
    }
    checkBitsPerKey(bitsPerKey);
    if (
      !(
        Number.isInteger(bloomBeforeLevel) &&
        bloomBeforeLevel >= -1 &&
        bloomBeforeLevel <= ALWAYS_BLOOM
      )
    ) {
      throw ShaleError.invalidArgument(
        `bloomBeforeLevel must be an integer in [-1, ${ALWAYS_BLOOM}], got ${bloomBeforeLevel}`,
      );
    }
    this.bitsPerKey = bitsPerKey;
    this.bloomBeforeLevel = bloomBeforeLevel;
  }

  /** RocksDB's `GetId()`: "ribbonfilter:<bits>:<bloomBeforeLevel>" (the OPTIONS value). */
  get id(): string {
    return `ribbonfilter:${bitsSuffix(this.bitsPerKey)}:${this.bloomBeforeLevel}`;
  }

  /** True if a table built in `context` gets a Bloom filter rather than a Ribbon one. */
  usesBloom(context: FilterBuildingContext = {}): boolean {
    const before = this.bloomBeforeLevel;
    if (before === ALWAYS_BLOOM) return true;
    let levelish = ALWAYS_BLOOM - 1; // unknown: as bottommost
    if (context.reason === "flush") levelish = -1;
    else if (context.levelAtCreation !== undefined && context.levelAtCreation !== -1) {
      levelish = context.levelAtCreation;
    }
    return levelish < before;
  }

  /** A builder for one filter: Bloom or Ribbon by `context` (see the file header). */
  newBuilder(context?: FilterBuildingContext): RibbonFilterBuilder | BloomFilterBuilder {
    return this.usesBloom(context)
      ? new BloomFilterBuilder({ bitsPerKey: this.bitsPerKey })
      : new RibbonFilterBuilder({ bitsPerKey: this.bitsPerKey });
  }

  /** A reader viewing `contents` (no copy): Ribbon, FastLocalBloom or legacy Bloom. */
  newReader(contents: Uint8Array, source?: FilterSource): BloomFilterReader {
    return new BloomFilterReader(contents, source);
  }
}

/** `new RibbonFilterPolicy(bitsPerKey, bloomBeforeLevel)` (RocksDB's `NewRibbonFilterPolicy`). */
export function ribbonFilterPolicy(bitsPerKey = 10, bloomBeforeLevel = 0): RibbonFilterPolicy {
  return new RibbonFilterPolicy(bitsPerKey, bloomBeforeLevel);
}

/**
 * RocksDB's `GetBitsPerKeySuffix` without the colon: the millibits as "10", "7.5", "12.34"
 * (at most three decimals, trailing zeros dropped).
 */
export function bitsSuffix(bitsPerKey: number): string {
  const millibits = millibitsPerKey(bitsPerKey);
  let s = String(Math.floor(millibits / 1000));
  let frac = millibits % 1000;
  if (frac > 0) {
    s += `.${Math.floor(frac / 100)}`;
    frac %= 100;
    if (frac > 0) {
      s += String(Math.floor(frac / 10));
      frac %= 10;
      if (frac > 0) s += String(frac);
    }
  }
  return s;
}
