/**
 * The memtable Bloom filter of a column family (RocksDB's memtable prefix bloom), from its
 * options:
 *
 * ```
 *   memtablePrefixBloomSizeRatio  prefixExtractor  memtableWholeKeyFiltering  filter
 *   0                             any              any                        none
 *   r > 0                         none             false                      none
 *   r > 0                         E                false                      prefixes of E
 *   r > 0                         none             true                       whole keys
 *   r > 0                         E                true                       both
 * ```
 *
 * Its size is `writeBufferSize * r * 8` bits (r at most 0.25, as RocksDB sanitizes it),
 * counted in the memtable's memory use. Each new memtable gets a filter of its own.
 */
import { type ChunkPool, MemTable, MemTableBloom } from "@shale/memtable";
import type { ResolvedOptions } from "./options.js";

/** RocksDB's upper bound of memtable_prefix_bloom_size_ratio. */
export const MAX_MEMTABLE_BLOOM_RATIO = 0.25;

/** The options a memtable's filter is made from. */
export type MemTableBloomSettings = Pick<
  ResolvedOptions,
  | "memtablePrefixBloomSizeRatio"
  | "memtableWholeKeyFiltering"
  | "prefixExtractor"
  | "writeBufferSize"
  | "statistics"
  | "comparator"
>;

/** A new filter for a memtable of a family with `options`; undefined when it has none. */
export function newMemTableBloom(options: MemTableBloomSettings): MemTableBloom | undefined {
  const ratio = Math.min(options.memtablePrefixBloomSizeRatio, MAX_MEMTABLE_BLOOM_RATIO);
  if (!(ratio > 0)) return undefined;
  const prefix = options.prefixExtractor;
  const wholeKey = options.memtableWholeKeyFiltering;
  if (prefix === undefined && !wholeKey) return undefined;
  const bits = Math.max(1, Math.floor(options.writeBufferSize * ratio * 8));
  return new MemTableBloom({ bits, prefix, wholeKey, statistics: options.statistics });
}

/**
 * A write buffer grows to many thousand entries and is read as it grows: its hash index is
 * kept from the 64th entry on, each entry indexed by its own add (MemTableOptions.hashIndexFrom).
 */
export const WRITE_BUFFER_INDEX_FROM = 64;

/** A new empty memtable for a family with `options` (its comparator and filter). */
export function newFamilyMemTable(options: MemTableBloomSettings, chunkPool?: ChunkPool): MemTable {
  const bloom = newMemTableBloom(options);
  return new MemTable({
    comparator: options.comparator,
    hashIndexFrom: WRITE_BUFFER_INDEX_FROM,
    ...(chunkPool !== undefined ? { chunkPool } : {}),
    ...(bloom !== undefined ? { bloom } : {}),
  });
}
