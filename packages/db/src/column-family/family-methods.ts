/**
 * The data methods of one column family — reads, writes, iterators, flush, manual
 * compaction — written once for the database (its `default` family: `db.put`, `db.get`, ...)
 * and for the handle of any family (`db.columnFamily(name).put`, ...). Both extend this class,
 * so a database with only `default` calls the same code it always did, with no delegation.
 *
 * Threading: the database's thread. Everything is synchronous except `flush` and
 * `compactRange`.
 */

import {
  bytewiseComparator,
  type FileSystem,
  invariants,
  ShaleError,
  toBytes,
  ValueKind,
} from "@shale/base";
import type { LRUCache } from "@shale/block-cache";
import type { MemTable } from "@shale/memtable";
import type { Block, TableCache } from "@shale/sstable";
import type { BackgroundRateLimit } from "../background/executor.js";
import {
  CLEAR_OPTIONS,
  type ClearOptions,
  COMPACT_RANGE_OPTIONS,
  type CompactRangeOptions,
  FLUSH_OPTIONS,
  type FlushOptions,
  ITERATOR_OPTIONS,
  type IteratorOptions,
  READ_OPTIONS,
  type ReadOptions,
  type WriteOptions,
} from "../core/call-options.js";
import { ownedCopyOfRange } from "../core/owned-bytes.js";
import { resolveLimit, resolveRange } from "../core/range-options.js";
import type { SnapshotList } from "../core/snapshot.js";
import { strippedLength, stripTimestamps } from "../core/ttl.js";
import { viewGuard } from "../core/view-guard.js";
import type { BackgroundPoll, DBIterator } from "../iterator/index.js";
import { prefixSeekOf } from "../iterator/prefix-seek.js";
import { type RecoveryDrop, recoveryProperty } from "../open/recovery.js";
import {
  type ApproximateSizeOptions,
  approximateSizes,
  type SizeRange,
} from "../ops/approximate-sizes.js";
import { clearRange } from "../ops/clear.js";
import { ingestExternalFile } from "../ops/ingest/ingest-external-file.js";
import type { IngestExternalFileOptions } from "../ops/ingest/ingest-options.js";
import { formatProperty, type WriteBudgetSource } from "../ops/properties.js";
import {
  type IteratorSettings,
  openDBIterator,
  tableScanOptions,
} from "../read/iterator-sources.js";
import type { Version } from "../version/version.js";
import type { VersionSet } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import type { BatchFamily } from "../write/write-batch.js";
import type { BatchReadSupport } from "../write/write-batch-with-index.js";
import type { ColumnFamilyData } from "./column-family-data.js";
import type { DbStatus } from "./db-status.js";
import { ingestTargetOf } from "./ingest-target-of.js";
import type { WriteLoop } from "./write-loop.js";

const EMPTY = new Uint8Array(0);

/** A version kept alive (its files on disk) until `release()`; see `DB.pinCurrentVersion`. */
export interface PinnedVersion {
  readonly version: Version;
  /** Drops the reference. Idempotent. */
  release(): void;
}

/** A read's sources at one sequence, held for later reads (`captureReadState`). */
export interface CapturedReadState {
  readonly seq: number;
  readonly mem: MemTable;
  readonly imm: readonly ImmutableMemTable[];
  readonly pin: PinnedVersion;
}

/** One more reference on `version`, dropped by `release()` (idempotent). */
function pinAgain(version: Version): PinnedVersion {
  version.ref();
  let held = true;
  return {
    version,
    release: () => {
      if (held) version.unref();
      held = false;
    },
  };
}

/** The parts of a database its families' methods share. */
export interface FamilyMethodsCore {
  readonly status: DbStatus;
  readonly writes: WriteLoop;
  readonly snapshots: SnapshotList;
  readonly versions: VersionSet;
  readonly tableCache: TableCache;
  readonly statistics: import("@shale/base").Statistics | undefined;
  /** The executor's finished-job cell, read with one `Atomics.load` per operation. */
  readonly finished: Int32Array;
  /** What iterators use to take finished jobs at each seek. */
  readonly backgroundPoll: BackgroundPoll;
  readonly blockCache: LRUCache<Block>;
  /** What this open's WAL replay dropped (property `shale.recovery-dropped`). */
  readonly recoveryDrops: readonly RecoveryDrop[];
  /** The background writes' rate limiter and this database's account of it, if any. */
  readonly rateLimit: BackgroundRateLimit | undefined;
  /** The write-buffer budget and this database's account of it, if any. */
  readonly writeBudget: WriteBudgetSource | undefined;
  /** Installs finished background jobs (db.ts). */
  takeFinished(): void;
  /** The database's file system and directory. */
  readonly fs: FileSystem;
  readonly dir: string;
}

export abstract class ColumnFamilyMethods {
  /** The family these methods read and write. */
  protected readonly cf: ColumnFamilyData;
  protected readonly core: FamilyMethodsCore;
  protected readonly status: DbStatus;
  protected readonly writes: WriteLoop;
  protected readonly snapshots: SnapshotList;
  /** The executor's finished-job cell (see `takeFinished`). */
  protected readonly finished: Int32Array;
  /** SHALE_INVARIANTS: the views handed out whose lifetime ends at the next call. */
  protected readonly views = viewGuard;

  protected constructor(core: FamilyMethodsCore, cf: ColumnFamilyData) {
    this.core = core;
    this.cf = cf;
    this.status = core.status;
    this.writes = core.writes;
    this.snapshots = core.snapshots;
    this.finished = core.finished;
  }

  /** @internal what a WriteBatchWithIndex needs to read through this family. */
  batchReadSupport(): BatchReadSupport {
    this.checkOpen();
    if (this.cf.options.ttl !== undefined)
      throw ShaleError.notSupported("reading a WriteBatchWithIndex through a family with ttl");
    return {
      comparator: this.cf.icmp.user,
      mergeOperator: this.cf.mergeOperator,
      familyId: this.cf.id,
    };
  }

  // ---------------------------------------------------------------- writes

  /**
   * Stores `key -> value`. Strings are UTF-8 encoded; one that is not well-formed UTF-16 (a
   * lone surrogate) is a TypeError, as everywhere a string key, value or bound is taken.
   * `options` are checked as call-options.ts says (unknown: InvalidArgument; wrong type:
   * TypeError).
   */
  put(key: Uint8Array | string, value: Uint8Array | string, options?: WriteOptions): void {
    this.writes.writeOne(
      this.cf,
      ValueKind.Value,
      toBytes(key, "key"),
      toBytes(value, "value"),
      options,
    );
  }

  /** Removes `key` (a missing key is fine). */
  delete(key: Uint8Array | string, options?: WriteOptions): void {
    this.writes.writeOne(this.cf, ValueKind.Deletion, toBytes(key, "key"), EMPTY, options);
  }

  /**
   * Removes `key` with a SingleDelete record (RocksDB's SingleDelete): `get` sees it as
   * deleted at once, and a compaction or flush drops it together with the Put it deletes
   * when no snapshot lies between them (compaction-iterator.ts, rule 5) — cheaper than
   * `delete`, whose tombstone lives until the last level.
   *
   * Contract (as in RocksDB): the key was put at most once since its last SingleDelete, and
   * is never deleted with `delete`/`deleteRange` or merged. Breaking it is not detected and
   * the outcome is undefined: after two Puts, an older value may show again once the
   * SingleDelete and the newer Put vanish; mixed with Delete or Merge, any of the values
   * written may be read. `options` as for `put`.
   */
  singleDelete(key: Uint8Array | string, options?: WriteOptions): void {
    this.writes.writeOne(this.cf, ValueKind.SingleDeletion, toBytes(key, "key"), EMPTY, options);
  }

  /** Adds a merge operand for `key`; needs `options.mergeOperator`. */
  merge(key: Uint8Array | string, operand: Uint8Array | string, options?: WriteOptions): void {
    if (this.cf.mergeOperator === undefined) {
      this.checkWritable();
      throw ShaleError.invalidArgument(`merge needs options.mergeOperator${this.familyNote()}`);
    }
    this.writes.writeOne(
      this.cf,
      ValueKind.Merge,
      toBytes(key, "key"),
      toBytes(operand, "operand"),
      options,
    );
  }

  /** Removes every key in [start, end). start > end is InvalidArgument; start == end removes nothing. */
  deleteRange(start: Uint8Array | string, end: Uint8Array | string, options?: WriteOptions): void {
    const s = toBytes(start, "start");
    const e = toBytes(end, "end");
    this.checkWritable();
    if (this.cf.icmp.user.compare(s, e) > 0)
      throw ShaleError.invalidArgument("deleteRange: start is after end");
    this.writes.writeOne(this.cf, ValueKind.RangeDeletion, s, e, options);
  }

  /**
   * Flushes the memtable to an L0 table and waits until every immutable memtable is on disk
   * (with `{ wait: false }`: starts the flush and resolves at once).
   */
  async flush(options?: FlushOptions): Promise<void> {
    if (options !== undefined) FLUSH_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    if (Atomics.load(this.finished, 0) !== 0) this.core.takeFinished();
    this.checkWritable();
    await this.cf.flush(options);
  }

  /**
   * Bulk-loads external SST files (SstFileWriter's or RocksDB's) into this family, all or
   * none (RocksDB's IngestExternalFile; options by its names). See ops/ingest/ and the
   * README's "Ingesting external files".
   */
  async ingestExternalFile(
    paths: string | readonly string[],
    options?: IngestExternalFileOptions,
  ): Promise<void> {
    if (invariants && this.views.pending) this.views.verify();
    const target = ingestTargetOf(this.core, this.cf, () => this.checkWritable());
    await ingestExternalFile(target, paths, options);
  }

  /**
   * Manual compaction (RocksDB's CompactRange): flushes the memtable, then compacts every
   * level's files overlapping the user keys [start, end] (inclusive; a missing bound is
   * open) into the next level, down to the deepest non-empty level (L1 at least), waiting
   * for each step. Deleted and overwritten entries that no snapshot needs are dropped on the
   * way, and tombstones at the last level. Automatic compactions pause meanwhile. Works with
   * `disableAutoCompactions`.
   */
  async compactRange(
    start?: Uint8Array | string,
    end?: Uint8Array | string,
    options?: CompactRangeOptions,
  ): Promise<void> {
    if (options !== undefined) COMPACT_RANGE_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    this.checkWritable();
    await this.cf.compactRange(start, end);
  }

  /**
   * Deletes every key in a range (all keys without one), atomically, in one write: range
   * options as for `iterator` (open ends allowed), `limit`/`reverse` to delete only the first
   * (last) keys, and write options. How an open range becomes a range tombstone: clear.ts.
   */
  clear(options?: ClearOptions): void {
    if (options !== undefined) CLEAR_OPTIONS.check(options);
    this.checkWritable();
    clearRange(
      {
        iterator: (o) => this.iterator(o),
        write: (batch, o) => this.writes.write(batch, o),
        family: this.batchFamily(),
      },
      options,
    );
  }

  /** The handle a batch names this family by (undefined: default, the plain records). */
  protected abstract batchFamily(): BatchFamily | undefined;

  /**
   * A property of the family (of the database for the database-wide ones) as a string, or
   * undefined for an unknown name. Names: `shale.num-files-at-level<N>`,
   * `shale.bytes-at-level<N>`, `shale.levelstats`, `shale.num-immutable-mem-table`,
   * `shale.cur-size-active-mem-table`, `shale.size-all-mem-tables`,
   * `shale.num-entries-active-mem-table`, `shale.num-snapshots`, `shale.oldest-snapshot-seq`,
   * `shale.latest-sequence`, `shale.compaction-pending`, `shale.num-running-compactions`,
   * `shale.num-running-flushes`, `shale.estimate-pending-compaction-bytes`,
   * `shale.num-compactions`, `shale.num-trivial-moves`, `shale.compact-read-bytes`,
   * `shale.compact-write-bytes`, `shale.flush-write-bytes`, `shale.write-amplification`,
   * `shale.compaction-stats`, `shale.stall-micros`, `shale.l0-slowdown-micros`,
   * `shale.l0-stop-micros`, `shale.memtable-stop-micros`, `shale.is-write-stopped`,
   * `shale.actual-delayed-write-rate`, `shale.stats`, `shale.recovery-dropped`,
   * `shale.memtable-chunks-allocated`, `shale.memtable-chunks-reused`,
   * `shale.memtable-chunk-pool-bytes`, `shale.rate-limiter-*` (see properties.ts); `shale.ignored-column-families`
   * ("": every family is opened) and `shale.best-efforts-recovery` (what a best-efforts open
   * left out; "" when nothing).
   */
  getProperty(name: string): string | undefined {
    if (typeof name !== "string") throw new TypeError("property name must be a string");
    if (invariants && this.views.pending) this.views.verify();
    this.checkOpen();
    if (name === "shale.ignored-column-families" || name === "shale.best-efforts-recovery")
      return recoveryProperty(name, this.core.versions);
    const cf = this.cf;
    return formatProperty(name, {
      mem: cf.mem,
      imm: cf.flushes.imm,
      version: cf.current,
      snapshots: this.snapshots,
      lastSeq: this.writes.lastSeq,
      stats: this.core.statistics,
      blockCache: this.core.blockCache,
      backgroundError: this.status.backgroundError,
      compactions: cf.compactions,
      stalls: cf.writeController,
      runningFlushes: cf.flushes.numRunning,
      recoveryDrops: this.core.recoveryDrops,
      chunkPool: cf.chunkPool,
      rateLimit: this.core.rateLimit,
      writeBudget: this.core.writeBudget,
    });
  }

  /**
   * Approximate bytes on disk (and, with `includeMemtables`, in memtables) of each user-key
   * range `[start, end)` of the family (RocksDB's GetApproximateSizes). See
   * ops/approximate-sizes.ts.
   */
  getApproximateSizes(ranges: readonly SizeRange[], options?: ApproximateSizeOptions): number[] {
    this.checkOpen();
    if (Atomics.load(this.finished, 0) !== 0) this.core.takeFinished();
    const cf = this.cf;
    return approximateSizes(
      {
        icmp: cf.icmp,
        current: cf.current,
        tableCache: cf.tableCache,
        mem: cf.mem,
        imm: cf.flushes.imm,
      },
      ranges,
      options,
    );
  }

  /** Throws what a write would throw (closed, failed, refused, dropped family). */
  protected checkWritable(): void {
    this.status.checkWritable();
    if (this.cf.dropped) throw this.cf.droppedError();
  }

  /** Throws Closed once the database is closed, InvalidArgument once the family is dropped. */
  protected checkOpen(): void {
    this.status.checkOpen();
    if (this.cf.dropped) throw this.cf.droppedError();
  }

  /** " (column family "x")" for a family other than default, for error messages. */
  private familyNote(): string {
    return this.cf.id === 0 ? "" : ` (column family "${this.cf.name}")`;
  }

  // ---------------------------------------------------------------- reads

  /**
   * The value of `key`, or undefined: a copy the caller owns — never the memtable arena or a
   * cached block, never backed by a SharedArrayBuffer (owned-bytes.ts: small values are cut
   * from a pooled plain ArrayBuffer, like Node's small Buffers). Write into it freely; keep
   * it as long as you like. For a zero-copy read, see `getView`.
   * `options`: ReadOptions (call-options.ts).
   */
  get(key: Uint8Array | string, options?: ReadOptions): Uint8Array | undefined {
    if (!this.find(key, options)) return undefined;
    const reader = this.cf.reader;
    const bytes = reader.foundBytes!;
    reader.foundBytes = undefined;
    return ownedCopyOfRange(bytes, reader.foundOffset, reader.foundLength);
  }

  /**
   * The value of `key`, or undefined, WITHOUT a copy (seed 002; RocksDB's PinnableSlice,
   * lmdb-js's getBinaryFast): a view into the memtable arena (a SharedArrayBuffer), a cached
   * block, or a merge operator's result. A value RocksDB stored in a blob file is a copy read
   * from the file and kept in the database's blob cache: the view is of that cached copy.
   *
   * Lifetime: valid until the next call into this database — any method of the database or
   * of one of its iterators. Read it (or copy it) before then; after that its bytes may be
   * another value's, or garbage (a cached block evicted and reused).
   *
   * Read-only: never write into it. It is the store's own memory: a write would change the
   * stored value, and the next flush would make the change durable. With SHALE_INVARIANTS=1
   * (tests) the next call checks that the view was not written into and throws an invariant
   * error if it was (view-guard.ts). Browsers' `TextDecoder` refuses SharedArrayBuffer views:
   * decode a `get` result there.
   */
  getView(key: Uint8Array | string, options?: ReadOptions): Uint8Array | undefined {
    const v = this.readView(key, options);
    return invariants ? this.views.record(v, "db.getView()") : v;
  }

  /** True if `key` has a value (what `get` would return is not undefined); no copy. */
  has(key: Uint8Array | string, options?: ReadOptions): boolean {
    const found = this.find(key, options);
    this.cf.reader.foundBytes = undefined;
    return found;
  }

  /** The read path of getView: the value as a view (the one object it makes). */
  private readView(
    key: Uint8Array | string,
    options: ReadOptions | undefined,
  ): Uint8Array | undefined {
    if (!this.find(key, options)) return undefined;
    const reader = this.cf.reader;
    const bytes = reader.foundBytes!;
    reader.foundBytes = undefined;
    const offset = reader.foundOffset;
    const length = reader.foundLength;
    return offset === 0 && length === bytes.length
      ? bytes
      : new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length);
  }

  /**
   * The read path of get, getView and has: checks, then the lookup, its value left in the
   * family reader's `foundBytes[foundOffset, +foundLength)` (read-path.ts) — no view made.
   */
  private find(key: Uint8Array | string, options: ReadOptions | undefined): boolean {
    if (invariants && this.views.pending) this.views.verify();
    if (this.status.closed || this.cf.dropped) this.checkOpen();
    if (Atomics.load(this.finished, 0) !== 0) this.core.takeFinished();
    const k = toBytes(key, "key");
    const snapshot = options === undefined ? this.writes.lastSeq : this.readSequence(options);
    const cf = this.cf;
    const reader = cf.reader;
    if (!reader.find(k, snapshot, cf.mem, cf.flushes.imm, options)) return false;
    // A TTL family's values carry their write time (core/ttl.ts): the user value without it.
    if (cf.options.ttl !== undefined)
      reader.foundLength = strippedLength(
        reader.foundBytes!,
        reader.foundOffset,
        reader.foundLength,
      );
    return true;
  }

  /** Validates read options (READ_OPTIONS) and returns the sequence number to read at. */
  private readSequence(options: ReadOptions): number {
    READ_OPTIONS.check(options);
    return options.snapshot !== undefined
      ? this.snapshots.check(options.snapshot)
      : this.writes.lastSeq;
  }

  /**
   * `get` for many keys, all at one sequence number (one snapshot, even without
   * `options.snapshot`); results in the same order, each a copy the caller owns. RocksDB's
   * batched MultiGet (read/multi-get.ts): the keys are sorted once, and each memtable and
   * table is visited once for the whole batch, a data block read once for the keys in it.
   * Not an array, or a key neither bytes nor a string: TypeError (naming `keys[i]`).
   */
  getMany(
    keys: readonly (Uint8Array | string)[],
    options?: ReadOptions,
  ): (Uint8Array | undefined)[] {
    if (!Array.isArray(keys)) throw new TypeError("getMany takes an array of keys");
    if (invariants && this.views.pending) this.views.verify();
    this.checkOpen();
    if (Atomics.load(this.finished, 0) !== 0) this.core.takeFinished();
    const snapshot = options === undefined ? this.writes.lastSeq : this.readSequence(options);
    const n = keys.length;
    const bytes = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) {
      const key = keys[i];
      // The error's label is built only for a key that is not bytes (no string per key).
      bytes[i] = key instanceof Uint8Array ? key : toBytes(key, `keys[${i}]`);
    }
    const out = new Array<Uint8Array | undefined>(n).fill(undefined);
    const cf = this.cf;
    cf.reader.getMany(bytes, snapshot, cf.mem, cf.flushes.imm, options, out);
    if (cf.options.ttl !== undefined) stripTimestamps(out);
    return out;
  }

  /**
   * An iterator over the family as of `readOptions.snapshot` or now, within the range the
   * options give (`gt`/`gte`/`lowerBound`, `lt`/`lte`/`upperBound`: at most one per side;
   * `limit`). Unpositioned: call a seek first — or use it with
   * `for (const [key, value] of db.iterator())`, which yields copies the caller owns
   * (`reverse: true` walks backwards). The cursor's `key()`/`value()` are views valid until
   * the iterator next moves or closes (see DBIterator). It pins the memtables and table
   * files it reads until `close()` (for-of closes it at the end).
   */
  iterator(readOptions?: IteratorOptions): DBIterator {
    if (invariants && this.views.pending) this.views.verify();
    this.checkOpen();
    if (readOptions !== undefined) ITERATOR_OPTIONS.check(readOptions);
    if (Atomics.load(this.finished, 0) !== 0) this.core.takeFinished();
    const ro = readOptions ?? {};
    const snapshotSeq =
      ro.snapshot !== undefined ? this.snapshots.check(ro.snapshot) : this.writes.lastSeq;
    const { sources, pin, settings } = this.iteratorParts(ro, snapshotSeq);
    // Opened here, not in a helper: the unclosed-iterator report names this caller's frames.
    return openDBIterator(sources, pin, settings);
  }

  /** @internal An iterator at `snapshotSeq` (`db.iterators` opens several at one seq). */
  iteratorAt(ro: IteratorOptions, snapshotSeq: number): DBIterator {
    const { sources, pin, settings } = this.iteratorParts(ro, snapshotSeq);
    return openDBIterator(sources, pin, settings);
  }

  /**
   * @internal What a read at the current sequence sees — the memtables and the current
   * version (pinned until `pin.release()`) — for reads at that sequence later, whatever
   * is installed meanwhile (reader/reader-snapshot.ts).
   */
  captureReadState(): CapturedReadState {
    this.checkOpen();
    const cf = this.cf;
    const imm = cf.flushes.imm.slice();
    return { seq: this.writes.lastSeq, mem: cf.mem, imm, pin: this.pinCurrentVersion() };
  }

  /** @internal An iterator over `state` (captureReadState) at its sequence. */
  iteratorOver(state: CapturedReadState, readOptions?: IteratorOptions): DBIterator {
    this.checkOpen();
    if (readOptions !== undefined) ITERATOR_OPTIONS.check(readOptions);
    const { sources, pin, settings } = this.iteratorParts(readOptions ?? {}, state.seq, state);
    return openDBIterator(sources, pin, settings);
  }

  /** What an iterator at `snapshotSeq` reads (of `captured`, else now), and how. */
  private iteratorParts(ro: IteratorOptions, snapshotSeq: number, captured?: CapturedReadState) {
    const cf = this.cf;
    const range = resolveRange(ro, "readOptions");
    const settings: IteratorSettings = {
      comparator: cf.icmp.user,
      mergeOperator: cf.mergeOperator,
      snapshotSeq,
      reverse: ro.reverse === true,
      lowerBound: range.lower,
      upperBound: range.upper,
      lowerExclusive: range.lowerExclusive,
      upperInclusive: range.upperInclusive,
      limit: resolveLimit(ro.limit),
      statistics: this.core.statistics,
      background: this.core.backgroundPoll,
      prefixExtractor: cf.options.prefixExtractor,
      prefixSameAsStart: ro.prefixSameAsStart === true,
      ttl: cf.options.ttl !== undefined,
    };
    const pin = captured === undefined ? this.pinCurrentVersion() : pinAgain(captured.pin.version);
    settings.blobs = cf.blobsFor(pin.version);
    const sources = {
      mem: captured?.mem ?? cf.mem,
      imm: captured?.imm ?? cf.flushes.imm,
      version: pin.version,
      tableCache: cf.tableCache,
      icmp: cf.icmp,
      readOptions: tableScanOptions(ro),
      prefixSeek: prefixSeekOf(
        cf.options.prefixExtractor,
        ro.totalOrderSeek === true,
        ro.autoPrefixMode === true,
        range.upper,
        range.upperInclusive === true,
        cf.icmp.user === bytewiseComparator,
      ),
    };
    return { sources, pin, settings };
  }

  /**
   * @internal Keeps the family's current version's files alive until `release()` (for
   * iterators: a compaction may replace the files meanwhile; they are deleted only once
   * released). Cheap: one reference count.
   */
  pinCurrentVersion(): PinnedVersion {
    this.status.checkOpen();
    const version = this.cf.current;
    version.ref();
    let held = true;
    return {
      version,
      release: () => {
        if (!held) return;
        held = false;
        version.unref();
      },
    };
  }
}
