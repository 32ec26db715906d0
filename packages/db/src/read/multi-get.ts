/**
 * Batched point reads (`db.getMany`; RocksDB's batched MultiGet): the lookups of many keys
 * at one snapshot, each source visited once per batch instead of once per key.
 *
 * ```
 *   keys (caller's order) --sorted once, in the family's order (key-order-sort.ts)--> sorted
 *   mutable memtable, immutable memtables: each pending key probed in sorted order
 *   L0 tables, newest first: table.multiGet(the pending keys in its key range)
 *   L1 .. L6: the sorted keys cut into runs, one per file holding them (binary search on
 *             `largest`, as a get does); table.multiGet(run) for each
 *     table.multiGet: filter probes and index entries of the whole run first (the index
 *     search galloping on from the previous key's), the cached blocks' restart lines loaded
 *     together, then one read of a data block for consecutive keys whose lookups land in it
 *     (sstable's TableReader.multiGet)
 *   results written to out[] in the caller's order
 * ```
 *
 * Each key's lookup follows `PointReader.get` exactly (read-path.ts): the same layers in the
 * same order, the same stop when a range tombstone covering the key is newer than every
 * table left, merge operands merged at the end — so `getMany(keys)[i]` is `get(keys[i])` at
 * the same snapshot.
 *
 * Ownership: every result is a copy the caller owns. A value found in a table is copied as
 * its lookup ends (`settled`), before the next block read can recycle the block it views;
 * a base that a merge or a blob file must still resolve is copied there too and finished
 * after every table was read (a merge operator may read the database: nothing of the batch
 * is read through the block cache after it runs).
 *
 * Allocation per batch: the results (one copy per value found) and a view or two of the
 * sort's scratch; the LookupResults, the order and the other scratch arrays are kept and
 * reused across batches (a re-entrant call from a merge operator
 * gets its own reader).
 */
import {
  EMPTY_BYTES,
  Histogram,
  type InternalKeyComparator,
  LookupResult,
  LookupState,
  ShaleError,
  type Statistics,
  Ticker,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import {
  type MultiGetSink,
  type TableCache,
  TableReader,
  type TableReadOptions,
} from "@shale/sstable";
import type { BlobResolver } from "../blob/blob-source.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { ownedCopy, ownedCopyOfRange } from "../core/owned-bytes.js";
import { fullMerge } from "../iterator/merge-operands.js";
import { isSentinelKey } from "../version/key-range.js";
import type { FileMetaData } from "../version/version-edit.js";
import { NUM_LEVELS } from "../version/version-edit.js";
import type { TreeVersions } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import { KeyOrderSort } from "./key-order-sort.js";

/** What a batch reads with: the family's tree and its read settings. */
export interface MultiGetTree {
  readonly icmp: InternalKeyComparator;
  readonly versions: TreeVersions;
  readonly tableCache: TableCache;
  readonly mergeOperator: MergeOperator | undefined;
  readonly stats: Statistics | undefined;
  readonly blobs: BlobResolver | undefined;
}

export class MultiGetReader implements MultiGetSink {
  private readonly tree: MultiGetTree;
  /** Reused per batch: one LookupResult per key (grown, never shrunk). */
  private readonly results: LookupResult[] = [];
  /** The batch's keys in sorted order, and each one's index in the caller's array. */
  private sorted: Uint8Array[] = [];
  private order: Int32Array = new Int32Array(0);
  /** Sorts each batch's keys (key-order-sort.ts); its order array is reused. */
  private readonly sorter = new KeyOrderSort();
  /** Per sorted key: 1 once its result is in `out`. */
  private written = new Uint8Array(16);
  /** Per sorted key: the tables probed (statistics: TablesPerGet). */
  private probes = new Int32Array(16);
  /** Per sorted key: its filter hash at [2j, 2j + 1]. */
  private hashes = new Uint32Array(32);
  private readonly hashScratch = new Uint32Array(2);
  private out: (Uint8Array | undefined)[] = [];
  /** The level of the table being read (statistics: GetHit*). */
  private level = 0;
  private busy = false;

  constructor(tree: MultiGetTree) {
    this.tree = tree;
  }

  /**
   * Looks up `keys` at `snapshot` into `out[i]` for each i (a copy the caller owns, or
   * undefined). `out.length >= keys.length`.
   */
  getMany(
    keys: readonly Uint8Array[],
    snapshot: number,
    mem: MemTable,
    imm: readonly ImmutableMemTable[],
    readOptions: TableReadOptions | undefined,
    out: (Uint8Array | undefined)[],
  ): void {
    if (this.busy) {
      // Re-entered from a merge operator: a reader of its own.
      new MultiGetReader(this.tree).getMany(keys, snapshot, mem, imm, readOptions, out);
      return;
    }
    this.busy = true;
    const n = keys.length;
    try {
      this.prepare(keys, out);
      this.readMemtables(n, snapshot, mem, imm);
      if (this.pending(n) > 0) this.readTables(n, snapshot, readOptions);
      this.finish(n);
    } finally {
      const results = this.results;
      for (let j = 0; j < n; j++) results[j]!.reset();
      this.sorted.fill(EMPTY_BYTES, 0, n); // the caller's keys are not kept
      this.out = [];
      this.busy = false;
    }
  }

  /** Sorts the keys once and readies one result per key. */
  private prepare(keys: readonly Uint8Array[], out: (Uint8Array | undefined)[]): void {
    const n = keys.length;
    const order = this.sorter.sort(keys, n, this.tree.icmp.user);
    // Kept at its longest length (no new backing store per batch); slots past n are empty.
    const inOrder = this.sorted;
    for (let j = 0; j < n; j++) inOrder[j] = keys[order[j]!]!;
    this.order = order;
    this.out = out;
    const results = this.results;
    while (results.length < n) results.push(new LookupResult());
    if (this.written.length < n) {
      const size = Math.max(n, this.written.length * 2);
      this.written = new Uint8Array(size);
      this.probes = new Int32Array(size);
      this.hashes = new Uint32Array(2 * size);
    }
    this.written.fill(0, 0, n);
    this.probes.fill(0, 0, n);
  }

  private readMemtables(
    n: number,
    snapshot: number,
    mem: MemTable,
    imm: readonly ImmutableMemTable[],
  ): void {
    const sorted = this.sorted;
    const results = this.results;
    const stats = this.tree.stats;
    for (let j = 0; j < n; j++) {
      const key = sorted[j]!;
      const r = results[j]!;
      mem.get(key, snapshot, r);
      for (let i = 0; i < imm.length && !r.done; i++) imm[i]!.mem.get(key, snapshot, r);
      if (stats !== undefined) {
        stats.tick(Ticker.KeysRead);
        stats.tick(r.done ? Ticker.MemtableHit : Ticker.MemtableMiss);
      }
      if (r.done) this.settleValue(j, false);
    }
  }

  /** How many keys are still to be looked up in the tables (hashing each for the filters). */
  private pending(n: number): number {
    const results = this.results;
    const hashes = this.hashes;
    const h = this.hashScratch;
    let count = 0;
    for (let j = 0; j < n; j++) {
      if (results[j]!.done) continue;
      TableReader.hashKey(this.sorted[j]!, h);
      hashes[2 * j] = h[0]!;
      hashes[2 * j + 1] = h[1]!;
      count++;
    }
    return count;
  }

  private readTables(n: number, snapshot: number, ro: TableReadOptions | undefined): void {
    const icmp = this.tree.icmp;
    const sorted = this.sorted;
    const results = this.results;
    const levels = this.tree.versions.current.levels;
    const l0 = levels[0]!;
    this.level = 0;
    for (let f = 0; f < l0.length; f++) {
      const file = l0[f]!;
      let left = 0;
      let from = n;
      let to = 0;
      for (let j = 0; j < n; j++) {
        const r = results[j]!;
        if (r.done) continue;
        // A range tombstone newer than this table (and so every table left) hides the key.
        if (r.maxCoveringSeq > file.largestSeq) {
          r.state = LookupState.Deleted;
          continue;
        }
        left++;
        const key = sorted[j]!;
        if (icmp.compareUserKeyTo(key, file.smallest) < 0) continue;
        if (icmp.compareUserKeyTo(key, file.largest) > 0) continue;
        this.probes[j]!++;
        if (j < from) from = j;
        to = j + 1;
      }
      if (left === 0) return;
      if (from < to) this.readTable(file, from, to, snapshot, ro);
    }
    for (let level = 1; level < NUM_LEVELS; level++) {
      const files = levels[level]!;
      if (files.length === 0) continue;
      this.level = level;
      let j = 0;
      while (j < n) {
        if (results[j]!.done) {
          j++;
          continue;
        }
        const lo = fileFor(icmp, files, sorted[j]!);
        if (lo === files.length) break; // this key and every later one end after the level
        const file = files[lo]!;
        // The run of keys this file's range holds, from j on.
        let k = j;
        while (k < n && inFile(icmp, file, sorted[k]!)) {
          const r = results[k]!;
          if (!r.done) {
            if (r.maxCoveringSeq > file.largestSeq) r.state = LookupState.Deleted;
            else this.probes[k]!++;
          }
          k++;
        }
        if (k === j) {
          j++; // before the file's smallest key: not in this level
          continue;
        }
        this.readTable(file, j, k, snapshot, ro);
        j = k;
      }
    }
  }

  private readTable(
    file: FileMetaData,
    from: number,
    to: number,
    snapshot: number,
    ro: TableReadOptions | undefined,
  ): void {
    this.tree.tableCache
      .get(file.number, file.size)
      .multiGet(this.sorted, this.results, this.hashes, from, to, snapshot, ro, this);
  }

  /** @internal (MultiGetSink) `results[j]` ended in the table being read. */
  settled(j: number): void {
    this.settleValue(j, true);
  }

  /**
   * Copies what the result of sorted key `j` views before anything else is read: a plain
   * value goes straight to `out`; a base still to be merged or resolved is copied in place.
   */
  private settleValue(j: number, fromTable: boolean): void {
    const r = this.results[j]!;
    if (r.state !== LookupState.Found) return;
    const stats = this.tree.stats;
    if (fromTable && stats !== undefined) {
      const level = this.level;
      stats.tick(
        level === 0 ? Ticker.GetHitL0 : level === 1 ? Ticker.GetHitL1 : Ticker.GetHitL2AndUp,
      );
    }
    if (r.operands.length === 0 && !r.blobIndex) {
      this.out[this.order[j]!] = ownedCopyOfRange(r.valueBytes!, r.valueOffset, r.valueLength);
      this.written[j] = 1;
    } else {
      r.value = r.value!.slice();
    }
  }

  /** Merges and resolves what is left, and writes every result not written yet. */
  private finish(n: number): void {
    const results = this.results;
    const stats = this.tree.stats;
    const out = this.out;
    for (let j = 0; j < n; j++) {
      if (stats !== undefined) stats.record(Histogram.TablesPerGet, this.probes[j]!);
      if (this.written[j] === 1) continue;
      const r = results[j]!;
      const key = this.sorted[j]!;
      let v: Uint8Array | undefined;
      switch (r.state) {
        case LookupState.Found: {
          const value = r.blobIndex ? this.readBlob(key, r.value!) : r.value;
          v = r.operands.length === 0 ? value : this.merge(key, value, r.operands);
          break;
        }
        case LookupState.Deleted:
          v = r.operands.length === 0 ? undefined : this.merge(key, undefined, r.operands);
          break;
        case LookupState.Merging:
          v = this.merge(key, undefined, r.operands);
          break;
        default:
          v = undefined;
      }
      out[this.order[j]!] = v === undefined ? undefined : ownedCopy(v);
    }
  }

  private readBlob(key: Uint8Array, index: Uint8Array): Uint8Array {
    const blobs = this.tree.blobs;
    if (blobs === undefined)
      throw ShaleError.corruption("a get met a blob index but the database reads no blob files");
    return blobs.resolve(key, index);
  }

  private merge(
    key: Uint8Array,
    base: Uint8Array | undefined,
    newestFirst: readonly Uint8Array[],
  ): Uint8Array {
    return fullMerge(
      this.tree.mergeOperator,
      key,
      base,
      newestFirst.slice().reverse(),
      this.tree.stats,
    );
  }
}

/** The first file of a sorted level that does not end before `key` (files.length: none). */
function fileFor(
  icmp: InternalKeyComparator,
  files: readonly FileMetaData[],
  key: Uint8Array,
): number {
  let lo = 0;
  let hi = files.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const largest = files[mid]!.largest;
    const c = icmp.compareUserKeyTo(key, largest);
    // A file ending in a range-tombstone sentinel holds nothing at its last user key.
    if (c > 0 || (c === 0 && isSentinelKey(largest))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True if `file`'s range holds `key` (as `fileFor` and the smallest-key check decide). */
function inFile(icmp: InternalKeyComparator, file: FileMetaData, key: Uint8Array): boolean {
  if (icmp.compareUserKeyTo(key, file.smallest) < 0) return false;
  const c = icmp.compareUserKeyTo(key, file.largest);
  return c < 0 || (c === 0 && !isSentinelKey(file.largest));
}
