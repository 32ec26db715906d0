/**
 * The filter block of a table: RocksDB 7.8.3's full filter (`FullFilterBlockBuilder` /
 * `FullFilterBlockReader` with the built-in Bloom policy), its bytes made and read by
 * `@shale/bloom` (format drawn in that package's `format.ts`; legacy Bloom in `legacy.ts`).
 *
 * ```
 * table:      ... data blocks | filter block | trailer (5) | ... | metaindex | footer
 * filter block contents = one full filter over the table's user keys:
 *   | 64-byte lines of Bloom bits ... | ff 00 <numProbes> 00 00 |      (format_version 5)
 * metaindex:  "fullfilter.rocksdb.BuiltinBloomFilter" -> handle of the filter block
 *             ("fullfilter." + FilterPolicy::CompatibilityName())
 * properties: rocksdb.filter.policy      = "bloomfilter"  (BloomFilterPolicy::Name())
 *             rocksdb.filter.size        = contents bytes, trailer excluded
 *             rocksdb.num.filter_entries = hashes added (equal consecutive hashes once)
 * ```
 *
 * What goes in: the user key (internal key minus its 8-byte trailer) of every point entry,
 * in table order; a key repeated by consecutive entries (several seqs of one user key) adds
 * one hash. Range tombstones add nothing. When no key was added there is no filter block
 * and no metaindex entry (RocksDB: `FilterBlockBuilder::IsEmpty`). The block is written
 * uncompressed with the table's normal trailer and checksum.
 *
 * Reading: the contents go to `BloomFilterReader`, which reads FastLocalBloom, RocksDB's
 * Standard128 Ribbon filter (marker byte 0xfe: `RibbonFilterPolicy` writes it under the
 * same metaindex key, with `rocksdb.filter.policy` = "ribbonfilter") and legacy Bloom, and
 * never throws for them: a filter it cannot read (reserved metadata) answers "may match"
 * for every key, as RocksDB's does, and says why in `unsupported`. A legacy Bloom filter (tables of format_version < 5)
 * is keyed by a 32-bit hash, so a lookup that brings a precomputed 64-bit hash
 * (`TableReader.get`'s `keyHash`) is answered from the key instead (`filterMayMatch`).
 *
 * Worked example: the user keys "a" and "b" at 10 bits/key make a 69-byte block (1 line:
 * ceil(2 * 10000 / 512000); 6 probes), `...64 bytes of bits... ff 00 06 00 00`, exactly the
 * block RocksDB writes for them (packages/bloom/testdata checks this on RocksDB's tables).
 *
 * Another filter comes in through a `FilterPolicy` (filter-policy.ts): its builder makes the
 * block, its reader reads it, and its names replace the two above.
 *
 * Not thread-safe (a writer belongs to one table builder; readers are shared read-only).
 */
import { BloomFilterPolicy, hashKey64 } from "@shale/bloom";
import { type PrefixExtractor, samePrefix } from "../table/prefix-extractor.js";
import {
  DEFAULT_FILTER_POLICY,
  type FilterBitsBuilder,
  type FilterBitsReader,
  type FilterBuildingContext,
  type FilterPolicy,
} from "./filter-policy.js";

/** Names RocksDB gives the filter. Part of the file format; do not change. */
export const FilterBlockNames = {
  /** Metaindex key of the full filter: "fullfilter." + the built-in policy's compatibility name. */
  METAINDEX_KEY: "fullfilter.rocksdb.BuiltinBloomFilter",
  /** Value of the `rocksdb.filter.policy` property: RocksDB's `BloomFilterPolicy::Name()`. */
  POLICY_NAME: "bloomfilter",
  /** Metaindex prefixes of filters shale does not read (no filter is used for them). */
  PARTITIONED_PREFIX: "partitionedfilter.",
  OBSOLETE_BLOCK_BASED_PREFIX: "filter.",
} as const;

/** Collects a table's user keys and writes its filter block. */
export class FilterBlockWriter {
  private readonly builder: FilterBitsBuilder;
  /** The policy writing the block (its names go into the metaindex and properties). */
  readonly policy: FilterPolicy;

  /**
   * @param policy a `FilterPolicy`, or bits per key in [1, 100] for the built-in Bloom
   *   filter (a table without a filter has no writer).
   * @param context where the table goes, for a policy that picks its filter by level.
   * @throws ShaleError InvalidArgument for bits per key outside that range.
   */
  constructor(policy: FilterPolicy | number, context?: FilterBuildingContext) {
    this.policy = typeof policy === "number" ? new BloomFilterPolicy(policy) : policy;
    this.builder = this.policy.newBuilder(context);
  }

  /**
   * Adds the user key of the next point entry (a view; only read, not kept); nothing when
   * `repeated` (the previous entry's user key: one hash per key). Default: false.
   */
  add(userKey: Uint8Array, repeated = false): void {
    if (!repeated) this.builder.addKey(userKey);
  }

  /**
   * Adds the next point entry's user key as RocksDB's FullFilterBlockBuilder does with a
   * prefix extractor: the whole key once per distinct key (when `wholeKey`), and the key's
   * prefix once per run of equal prefixes (when the key is in the extractor's domain). A key
   * outside the domain is added whole when `wholeKey`, else not at all. `repeated` as for `add`.
   */
  addWithPrefix(
    userKey: Uint8Array,
    repeated: boolean,
    extractor: PrefixExtractor,
    wholeKey: boolean,
  ): void {
    if (repeated) return; // same key, same prefix: both already added
    if (!extractor.inDomain(userKey)) {
      if (wholeKey) this.builder.addKey(userKey);
      return;
    }
    if (wholeKey) this.builder.addKey(userKey);
    const prefix = extractor.transform(userKey);
    const last = this.lastPrefix;
    if (last !== undefined && samePrefix(last, prefix)) return;
    this.builder.addKey(prefix);
    this.lastPrefix = prefix.slice();
  }

  /** The prefix `addWithPrefix` added last (RocksDB's last_prefix_str_). */
  private lastPrefix: Uint8Array | undefined;

  /** Hashes added so far (consecutive equal keys once): `rocksdb.num.filter_entries`. */
  get numEntries(): number {
    return this.builder.numEntries;
  }

  /**
   * The filter block's contents, or undefined when no key was added (then the table has
   * no filter block). Resets the writer. Returns a new array owned by the caller.
   */
  finish(): Uint8Array | undefined {
    this.lastPrefix = undefined;
    if (this.builder.numEntries === 0) return undefined;
    return this.builder.finish();
  }
}

/**
 * Views the contents of a filter block (no copy) through `policy` (Default: the built-in
 * Bloom policy). `file` and `offset` name the block in the reader's messages. The built-in
 * reader never throws for the contents (see the file header).
 */
export function openFilterBlock(
  contents: Uint8Array,
  file?: string,
  offset = 0,
  policy: FilterPolicy = DEFAULT_FILTER_POLICY,
): FilterBitsReader {
  return policy.newReader(contents, file !== undefined ? { file, offset } : { offset });
}

/**
 * False only if `userKey` is certainly not in the table. `keyHash`, if given, is
 * `hashFilterKey(userKey)`: used when the filter is keyed by it (FastLocalBloom), else the
 * key is hashed as the filter needs (legacy Bloom).
 */
export function filterMayMatch(
  filter: FilterBitsReader,
  userKey: Uint8Array,
  keyHash: Uint32Array | undefined,
): boolean {
  return keyHash !== undefined && filter.usesHashKey64 === true
    ? // As int32 bit patterns: a uint32 of 2^31 or more passed to a call that is not inlined
      // is boxed (a 16-byte heap number per half, every other lookup).
      filter.mayMatchHash!(keyHash[0]! | 0, keyHash[1]! | 0)
    : filter.mayMatch(userKey);
}

/**
 * Writes RocksDB's filter hash of `userKey` (`GetSliceHash64`) to out[0] (low 32 bits) and
 * out[1] (high): hash once, probe every table's filter. REQUIRES: out.length >= 2.
 */
export function hashFilterKey(userKey: Uint8Array, out: Uint32Array): void {
  hashKey64(userKey, out, 0);
}
