/**
 * The filter-policy seam: what a table needs from a filter, so that any filter (the
 * built-in Bloom filter of `@shale/bloom`, or your own) can be plugged into `TableBuilder`
 * and `TableReader` with the `filterPolicy` option (RocksDB's `FilterPolicy` /
 * `FilterBitsBuilder` / `FilterBitsReader`).
 *
 * ```
 * table:      ... data blocks | filter block (policy.newBuilder().finish()) | ...
 * metaindex:  "fullfilter." + policy.compatibilityName -> the filter block
 * properties: rocksdb.filter.policy = policy.name
 * ```
 *
 * The builder is given the user key of every point entry in table order (a key repeated by
 * consecutive entries, several seqs of one user key, once); the reader must never answer
 * false for a key that was added. A table is read with the policy whose
 * `compatibilityName` wrote it; a reader given another policy finds no filter under its
 * metaindex key and reads the table without one (slower lookups, same answers).
 *
 * `@shale/bloom`'s `BloomFilterPolicy` and `RibbonFilterPolicy` implement this interface
 * (structurally: bloom does not import this package); Bloom is the default, and
 * `bitsPerKey: n` is shorthand for `filterPolicy: new BloomFilterPolicy(n)`. A policy may
 * pick its filter by where the table goes (`FilterBuildingContext`: RibbonFilterPolicy's
 * `bloomBeforeLevel`); the table builder passes its `filterContext` option.
 */
import { BloomFilterPolicy, type FilterBuildingContext } from "@shale/bloom";

export type { FilterBuildingContext };

/** Collects the keys of one filter. */
export interface FilterBitsBuilder {
  /** Adds a key (a view: read it now, do not keep it). */
  addKey(key: Uint8Array): void;
  /** Keys added so far (`rocksdb.num.filter_entries`); 0 means no filter block is written. */
  readonly numEntries: number;
  /** The filter's bytes (a new array the table owns). Called once. */
  finish(): Uint8Array;
  /**
   * How many keys a filter of `bytes` bytes holds (RocksDB's `ApproximateNumEntries`): sizes
   * the partitions of partitioned filters. Default: the built-in Bloom filter's formula at
   * the policy's `bitsPerKey`, else one key per byte.
   */
  approximateNumEntries?(bytes: number): number;
}

/** Answers queries on one filter's bytes. */
export interface FilterBitsReader {
  /** False only if `key` was certainly not added. */
  mayMatch(key: Uint8Array): boolean;
  /**
   * True if `mayMatchHash` answers from RocksDB's 64-bit filter hash (`TableReader.hashKey`):
   * a lookup probing many tables then hashes the key once. Default: false.
   */
  readonly usesHashKey64?: boolean;
  /**
   * `mayMatch` from the key's hash halves, given as 32-bit patterns: the table reader passes
   * them as signed int32 (`| 0`, which crosses the call without allocating), so read them
   * with `>>> 0` or 32-bit operations (the built-in Bloom and Ribbon readers do). REQUIRES:
   * usesHashKey64.
   */
  mayMatchHash?(lo: number, hi: number): boolean;
}

export interface FilterPolicy {
  /** Recorded as `rocksdb.filter.policy`. */
  readonly name: string;
  /** The filter block's metaindex key is "fullfilter." + this. Part of the file format. */
  readonly compatibilityName: string;
  /** A builder for one table's filter; `context` says where the table goes, if known. */
  newBuilder(context?: FilterBuildingContext): FilterBitsBuilder;
  /**
   * A reader over a filter block's contents (a view into the block; do not modify). `source`
   * names the block for messages. Should not throw for contents it cannot read: answer
   * "may match" instead.
   */
  newReader(contents: Uint8Array, source: { file?: string; offset: number }): FilterBitsReader;
}

/** The built-in policy for 10 bits per key, shared (policies are immutable). */
export const DEFAULT_FILTER_POLICY: FilterPolicy = new BloomFilterPolicy(10);

/** Checks that `policy` has the shape of a FilterPolicy; TypeError naming the option otherwise. */
export function checkFilterPolicy(policy: unknown, option = "filterPolicy"): FilterPolicy {
  const p = policy as FilterPolicy;
  if (
    typeof p !== "object" ||
    p === null ||
    typeof p.name !== "string" ||
    typeof p.compatibilityName !== "string" ||
    typeof p.newBuilder !== "function" ||
    typeof p.newReader !== "function"
  ) {
    throw new TypeError(
      `${option} must be a FilterPolicy { name, compatibilityName, newBuilder(), newReader() }`,
    );
  }
  return p;
}
