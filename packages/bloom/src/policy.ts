/**
 * BloomFilterPolicy: RocksDB's built-in Bloom filter as a filter policy — the object a table
 * builder asks for a filter builder and a table reader for a filter reader (RocksDB's
 * `FilterPolicy`, LevelDB's `NewBloomFilterPolicy(bits)`).
 *
 * It implements `@shale/sstable`'s `FilterPolicy` interface structurally: this package does
 * not import @shale/sstable (the table package depends on this one, not the other way), and
 * sstable's tests check that a `BloomFilterPolicy` is assignable to its `FilterPolicy`.
 *
 * Names (part of the file format; do not change):
 * - `name` "bloomfilter": the table property `rocksdb.filter.policy` (RocksDB 7.8.3's
 *   `BloomFilterPolicy::Name()` for the built-in policy).
 * - `compatibilityName` "rocksdb.BuiltinBloomFilter": the filter block's metaindex key is
 *   "fullfilter." + this, so RocksDB finds the filter of a shale table and shale RocksDB's.
 *
 * Thread-safety: immutable; builders and readers it makes are single-threaded.
 */
import { BloomFilterBuilder } from "./builder.js";
import { checkBitsPerKey, millibitsPerKey } from "./format.js";
import { BloomFilterReader, type FilterSource } from "./reader.js";
import { bitsSuffix } from "./ribbon-policy.js";

export class BloomFilterPolicy {
  /** `rocksdb.filter.policy`. */
  readonly name = "bloomfilter";
  /** Metaindex key suffix: "fullfilter." + compatibilityName. */
  readonly compatibilityName = "rocksdb.BuiltinBloomFilter";
  /** Bits of filter per key, in [1, 100]; fractional settings such as 9.9 are allowed. */
  readonly bitsPerKey: number;
  /** The setting as RocksDB reads it: `floor(bitsPerKey * 1000 + 0.500001)` (9.9 -> 9900). */
  readonly millibitsPerKey: number;

  /**
   * @param bitsPerKey Default: 10 (about 1 % false positives). Any number in [1, 100], read
   *   to the thousandth as RocksDB's `NewBloomFilterPolicy(double)` does: 10.5 gives about
   *   0.79 %, 9.9 about 1 % (see the README's table).
   * @throws TypeError for a non-number, ShaleError InvalidArgument for NaN, an infinity or a
   *   value outside [1, 100].
   */
  constructor(bitsPerKey = 10) {
    checkBitsPerKey(bitsPerKey);
    this.bitsPerKey = bitsPerKey;
    this.millibitsPerKey = millibitsPerKey(bitsPerKey);
  }

  /**
   * RocksDB's `GetId()`: "bloomfilter:<bits>:false" (the OPTIONS file's value), the bits
   * from the millibits with at most three decimals: 10 -> "bloomfilter:10:false", 9.9 ->
   * "bloomfilter:9.9:false", 7.0049 -> "bloomfilter:7.005:false".
   */
  get id(): string {
    return `bloomfilter:${bitsSuffix(this.bitsPerKey)}:false`;
  }

  /** A builder for one filter: `addKey(key)` ..., then `finish()`. */
  newBuilder(): BloomFilterBuilder {
    return new BloomFilterBuilder({ bitsPerKey: this.bitsPerKey });
  }

  /**
   * A reader viewing `contents` (no copy): FastLocalBloom or legacy Bloom, and "may match"
   * for any filter it cannot read (see `BloomFilterReader`).
   */
  newReader(contents: Uint8Array, source?: FilterSource): BloomFilterReader {
    return new BloomFilterReader(contents, source);
  }
}

/** `new BloomFilterPolicy(bitsPerKey)` (LevelDB's `NewBloomFilterPolicy`). */
export function bloomFilterPolicy(bitsPerKey = 10): BloomFilterPolicy {
  return new BloomFilterPolicy(bitsPerKey);
}
