/**
 * The options of a `MemTable` (memtable.ts), and the hash index's schedule they refer to:
 * when a get or an add makes the index and how much of the tree each call takes into it.
 */
import type { Comparator } from "@shale/base";
import type { ChunkPool } from "./chunk-pool.js";
import type { MemTableBloom } from "./memtable-bloom.js";

export interface MemTableOptions {
  /** Order of user keys. Default: `bytewiseComparator`. */
  comparator?: Comparator;
  /**
   * Size in bytes of each arena chunk (one SharedArrayBuffer each) for entries and, when
   * at least 64 KiB, for tree nodes (node chunks are never smaller than 64 KiB); an entry
   * larger than a quarter of it gets a chunk of its own. Integer in [128, 2^30].
   * Default: 1 MiB (1048576).
   */
  arenaChunkSize?: number;
  /**
   * Keep a hash index of user keys for `get` (hash-index.ts): a lookup at the newest
   * snapshot reads a table slot and the entry instead of descending the tree, about twice
   * as fast at a million keys, for 8-16 bytes per user key (counted by
   * `approximateMemoryUsage`) and a little time per insert. Only with the bytewise
   * comparator (ignored otherwise). Made, sized for the entries so far, by the first `get`
   * (or `exportShared`) once the memtable holds 64 point entries (a smaller one is searched
   * as fast), or by the add of the 65,536th point entry if no get came first, and filled
   * from the tree 16 entries per get or add (gets search the tree until it is complete),
   * so no call waits for the whole build; from then on each add updates it. A memtable
   * only written never pays for it below 65,536 entries. `fromShared` keeps what
   * the exported memtable had. Default: true.
   */
  hashIndex?: boolean;
  /**
   * The point-entry count at which an add makes the hash index when no `get` has. A
   * memtable that will grow large while it is read (a database's write buffer) does better
   * at 64, the lowest: each entry is then indexed by its own add, while it is in cache, and
   * the index's code runs (and is compiled) from the start. Integer in [64, 2^31 - 1].
   * Default: 65536 (INDEX_BUILD_ENTRIES): a memtable that is only written pays nothing for
   * the index below that.
   */
  hashIndexFrom?: number;
  /**
   * Where the arena takes its chunks from and, once the last reference is dropped
   * (`unref`), gives them back to; its chunk size is the arena's (`arenaChunkSize`, if
   * given, must equal it). Default: none (new chunks, left to the garbage collector).
   */
  chunkPool?: ChunkPool;
  /**
   * A Bloom filter of the point entries' keys and/or prefixes (memtable-bloom.ts), filled by
   * `add` and asked by `get` before the points are searched. Default: none.
   */
  bloom?: MemTableBloom;
}

/** Point entries from which a get builds the hash index (see MemTable.index). */
export const INDEX_MIN_ENTRIES = 64;
/**
 * Entries of the tree the hash index's build takes in per get or add while it runs (see
 * MemTable.index): no call waits for the whole build.
 */
export const INDEX_BUILD_STEP = 16;
/**
 * Point entries at which an add makes the hash index if no get did (see MemTable.index): a
 * large memtable keeps it insert by insert from there, each entry indexed while it is in
 * cache, not read again later from wherever the tree's order scatters it.
 */
export const INDEX_BUILD_ENTRIES = 65536;
