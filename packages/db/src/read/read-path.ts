/**
 * Point reads (`db.get`): the newest entry of a key visible at a snapshot, looked up in
 * order of age until one source decides it:
 *
 * ```
 *   mutable memtable -> immutable memtables, newest first -> L0 tables, newest first
 *     -> L1 .. L6: the one table per level whose range holds the key (binary search on
 *        `largest`)
 * ```
 *
 * A Value or point deletion ends the search; merge operands are collected on the way
 * (newest first) until a base value, a deletion or the end; a range tombstone covering the
 * key ends it once it is newer than every table left (`maxCoveringSeq > largestSeq`). Then
 * the operands, if any, are merged (the operator's `fullMerge`, oldest first).
 *
 * A BlobIndex (RocksDB's blob files) found as the base is read from its blob file before
 * anything is merged onto it (blob-source.ts); the value is then the blob source's copy.
 *
 * Allocation: none on the way for a plain value — one LookupResult is reused (a fresh one
 * only if a merge operator re-enters `get`), the key is hashed once for every table's
 * filter probe, and a table's value travels as a range of its block's bytes
 * (`LookupResult.setValueRange`), not a view: `find` leaves it in `foundBytes`,
 * `foundOffset`, `foundLength`, and the API makes the one object it returns (the caller's
 * copy for `get`, the view for `getView`, nothing for `has`).
 */
import {
  Histogram,
  type InternalKeyComparator,
  LookupResult,
  LookupState,
  ShaleError,
  type Statistics,
  Ticker,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { type TableCache, TableReader, type TableReadOptions } from "@shale/sstable";
import type { BlobResolver } from "../blob/blob-source.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { fullMerge } from "../iterator/merge-operands.js";
import { isSentinelKey } from "../version/key-range.js";
import { NUM_LEVELS } from "../version/version-edit.js";
import type { TreeVersions } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import { MultiGetReader } from "./multi-get.js";

export class PointReader {
  private readonly icmp: InternalKeyComparator;
  private readonly versions: TreeVersions;
  private readonly tableCache: TableCache;
  private readonly mergeOperator: MergeOperator | undefined;
  private readonly stats: Statistics | undefined;
  private readonly blobs: BlobResolver | undefined;
  /** Reused by every get; `busy` while one runs. */
  private readonly lookup = new LookupResult();
  private busy = false;
  /** The level of the table that ended the last `getFromTables` (statistics: GetHit*). */
  private hitLevel = 0;
  /** The filter hash of the key a get is looking up (`TableReader.hashKey`). */
  private readonly keyHash = new Uint32Array(2);

  constructor(
    icmp: InternalKeyComparator,
    versions: TreeVersions,
    tableCache: TableCache,
    mergeOperator: MergeOperator | undefined,
    stats: Statistics | undefined,
    blobs?: BlobResolver,
  ) {
    this.blobs = blobs;
    this.icmp = icmp;
    this.versions = versions;
    this.tableCache = tableCache;
    this.mergeOperator = mergeOperator;
    this.stats = stats;
  }

  /**
   * `get` of every key of `keys` at `snapshot` into `out` (same index), each a copy the caller
   * owns: the batched lookup of multi-get.ts.
   */
  getMany(
    keys: readonly Uint8Array[],
    snapshot: number,
    mem: MemTable,
    imm: readonly ImmutableMemTable[],
    readOptions: TableReadOptions | undefined,
    out: (Uint8Array | undefined)[],
  ): void {
    this.multi ??= new MultiGetReader({
      icmp: this.icmp,
      versions: this.versions,
      tableCache: this.tableCache,
      mergeOperator: this.mergeOperator,
      stats: this.stats,
      blobs: this.blobs,
    });
    this.multi.getMany(keys, snapshot, mem, imm, readOptions, out);
  }

  private multi: MultiGetReader | undefined;

  /** True while a get runs (a merge operator may call back into the database). */
  get inGet(): boolean {
    return this.busy;
  }

  /**
   * The value found by the last `find`: `foundBytes[foundOffset, foundOffset + foundLength)`
   * — a range of a memtable arena view, a cached block's bytes, a blob or a merge result
   * (then the whole array). Valid as a `getView` view is: until the next call into the
   * database. Dropped (set undefined) by the next `find`.
   */
  foundBytes: Uint8Array | undefined = undefined;
  foundOffset = 0;
  foundLength = 0;

  /**
   * The value of `key` at `snapshot` in `mem`, then `imm` (newest first), then the current
   * version's tables; undefined if none. A view (memtable arena or cached block), or the
   * merge operator's result.
   */
  get(
    key: Uint8Array,
    snapshot: number,
    mem: MemTable,
    imm: readonly ImmutableMemTable[],
    readOptions: TableReadOptions | undefined,
  ): Uint8Array | undefined {
    if (!this.find(key, snapshot, mem, imm, readOptions)) return undefined;
    const bytes = this.foundBytes!;
    const offset = this.foundOffset;
    const length = this.foundLength;
    this.foundBytes = undefined;
    return offset === 0 && length === bytes.length
      ? bytes
      : new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length);
  }

  /**
   * `get` without making a view: true when `key` has a value, which is then in
   * `foundBytes[foundOffset, foundOffset + foundLength)`. Allocates nothing on the way for
   * a plain value (seen by a test that counts: read/get-allocation.test.ts).
   */
  find(
    key: Uint8Array,
    snapshot: number,
    mem: MemTable,
    imm: readonly ImmutableMemTable[],
    readOptions: TableReadOptions | undefined,
  ): boolean {
    this.foundBytes = undefined;
    let r = this.lookup;
    if (this.busy)
      r = new LookupResult(); // re-entered from a merge operator
    else this.busy = true;
    const stats = this.stats;
    const t0 = stats?.timersEnabled ? stats.now() : 0;
    try {
      mem.get(key, snapshot, r);
      if (!r.done) {
        for (let i = 0; i < imm.length && !r.done; i++) imm[i]!.mem.get(key, snapshot, r);
      }
      if (stats !== undefined) {
        stats.tick(Ticker.KeysRead);
        stats.tick(r.done ? Ticker.MemtableHit : Ticker.MemtableMiss);
      }
      if (!r.done) {
        const tables = this.getFromTables(key, snapshot, r, readOptions);
        if (stats !== undefined) {
          stats.record(Histogram.TablesPerGet, tables);
          // RocksDB's GET_HIT_L0/L1/L2_AND_UP: the level of the table that held the value.
          if (r.state === LookupState.Found) {
            const level = this.hitLevel;
            stats.tick(
              level === 0 ? Ticker.GetHitL0 : level === 1 ? Ticker.GetHitL1 : Ticker.GetHitL2AndUp,
            );
          }
        }
      } else if (stats !== undefined) stats.record(Histogram.TablesPerGet, 0);
      switch (r.state) {
        case LookupState.Found:
          if (!r.blobIndex && r.operands.length === 0) {
            this.foundBytes = r.valueBytes;
            this.foundOffset = r.valueOffset;
            this.foundLength = r.valueLength;
            return true;
          }
          return this.found(
            r.operands.length === 0
              ? this.readBlob(key, r.value!)
              : this.merge(key, r.blobIndex ? this.readBlob(key, r.value!) : r.value, r.operands),
          );
        case LookupState.Deleted:
          return r.operands.length === 0
            ? false
            : this.found(this.merge(key, undefined, r.operands));
        case LookupState.Merging:
          return this.found(this.merge(key, undefined, r.operands));
        default:
          return false;
      }
    } finally {
      r.reset();
      if (r === this.lookup) this.busy = false;
      if (stats !== undefined) stats.recordTime(Histogram.GetMicros, t0, 1000);
    }
  }

  /** Sets the found value to all of `value`; true. */
  private found(value: Uint8Array): boolean {
    this.foundBytes = value;
    this.foundOffset = 0;
    this.foundLength = value.length;
    return true;
  }

  /** The value blob index `index` of `key` points at. */
  private readBlob(key: Uint8Array, index: Uint8Array): Uint8Array {
    if (this.blobs === undefined)
      throw ShaleError.corruption("a get met a blob index but the database reads no blob files");
    return this.blobs.resolve(key, index);
  }

  /**
   * Probes the tables, newest data first: every L0 file (newest first), then the one file
   * per deeper level whose key range holds the key. Stops at the first Value or deletion,
   * or when a range tombstone covering the key is newer than everything left. Returns how
   * many tables it probed (statistics: TablesPerGet).
   */
  private getFromTables(
    key: Uint8Array,
    snapshot: number,
    r: LookupResult,
    ro: TableReadOptions | undefined,
  ): number {
    let probed = 0;
    const levels = this.versions.current.levels;
    const l0 = levels[0]!;
    // Hashed once for every table's filter probe.
    const keyHash = this.keyHash;
    TableReader.hashKey(key, keyHash);
    for (let i = 0; i < l0.length; i++) {
      const f = l0[i]!;
      if (r.maxCoveringSeq > f.largestSeq) {
        r.state = LookupState.Deleted; // a newer range tombstone hides everything left
        return probed;
      }
      if (
        this.icmp.compareUserKeyTo(key, f.smallest) < 0 ||
        this.icmp.compareUserKeyTo(key, f.largest) > 0
      )
        continue;
      probed++;
      this.tableCache.get(f.number, f.size, f.largestSeq).get(key, snapshot, r, ro, keyHash);
      if (r.done) {
        this.hitLevel = 0;
        return probed;
      }
    }
    for (let level = 1; level < NUM_LEVELS; level++) {
      const files = levels[level]!;
      if (files.length === 0) continue;
      // The first file that does not end before key.
      let lo = 0;
      let hi = files.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const largest = files[mid]!.largest;
        const c = this.icmp.compareUserKeyTo(key, largest);
        // A file ending in a range-tombstone sentinel holds nothing at its last user key.
        if (c > 0 || (c === 0 && isSentinelKey(largest))) lo = mid + 1;
        else hi = mid;
      }
      if (lo === files.length) continue;
      const f = files[lo]!;
      if (this.icmp.compareUserKeyTo(key, f.smallest) < 0) continue;
      if (r.maxCoveringSeq > f.largestSeq) {
        r.state = LookupState.Deleted; // a newer range tombstone hides everything left
        return probed;
      }
      probed++;
      this.tableCache.get(f.number, f.size, f.largestSeq).get(key, snapshot, r, ro, keyHash);
      if (r.done) {
        this.hitLevel = level;
        return probed;
      }
    }
    return probed;
  }

  /**
   * Applies the merge operator; `newestFirst` operands as collected by a lookup. The base is
   * copied: it may be a view into a recyclable cached block, and an operator that reads the
   * database (a re-entrant `get`) could recycle that block while it merges.
   */
  private merge(
    key: Uint8Array,
    base: Uint8Array | undefined,
    newestFirst: readonly Uint8Array[],
  ): Uint8Array {
    const owned = base === undefined ? undefined : base.slice();
    return fullMerge(this.mergeOperator, key, owned, newestFirst.slice().reverse(), this.stats);
  }
}
