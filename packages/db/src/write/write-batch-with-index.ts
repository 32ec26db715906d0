/**
 * WriteBatchWithIndex (RocksDB's): a WriteBatch plus an index of its keys, so the batch can
 * be read before it is written — `getFromBatch`, `getFromBatchAndDB`, and `iterator(db)`,
 * which shows the batch over the database (base-delta-iterator.ts). Transactions
 * keep their writes in one (txn/transaction.ts).
 *
 * The batch itself is an ordinary WriteBatch (`getWriteBatch()`; `db.write(wbwi)` writes
 * it): every operation is recorded in order, as RocksDB's batch would hold it. The index
 * keeps, per user key, what the batch's operations on that key add up to — its state:
 *
 * ```
 *   ops on "k" in batch order         state of "k"
 *   put v1                            VALUE v1
 *   put v1, merge a, merge b          VALUE v1 + operands [a, b]    (merged over v1)
 *   merge a                           NONE + [a]                    (merged over the db's value)
 *   delete, merge a                   DELETED + [a]                 (merged over nothing)
 *   put v1, deleteRange [a, z)        DELETED
 * ```
 *
 * Range deletions are kept as a list too: a key the batch never touched but that lies in a
 * deleted range reads as deleted (its database value is hidden); a point operation after
 * the range deletion starts from DELETED. A range deletion sets every indexed key it
 * covers to DELETED, so an indexed key's state is always final.
 *
 * Index: an array of the entries, each named by its key's bytes as a latin1 string, sorted
 * again (by the comparator) only when an iterator needs it and keys were added since; past
 * SMALL_BATCH keys also a Map from name to entry (below that, a linear search is cheaper than
 * building the Map).
 *
 * Lazy indexing: `append` (what transactions use) writes the batch only; every read of the
 * index first takes in the operations appended since (parsing them from the batch), so a
 * transaction that only writes never builds an index. Key equality is byte equality, as for every comparator RocksDB accepts.
 *
 * Column families: every write takes an optional family handle as its last argument, as a
 * WriteBatch's does; the batch keeps one index per family (ordered by that family's
 * comparator, taken from the handle). Reads name the family by the handle passed as the
 * database (`getFromBatchAndDB(handle, key)`, `iterator(handle)`), or by a last argument
 * (`getFromBatch(key, handle)`, `hasKey(key, handle)`).
 *
 * Savepoints: `setSavePoint()` records the batch's size; `rollbackToSavePoint()` cuts the
 * batch back to it and rebuilds the index from the remaining operations.
 *
 * Ownership: keys, values and operands are copied in; what the getters return is the
 * batch's own copy (read-only; valid as long as the batch is not cleared). Not for
 * concurrent use (nothing in shale is).
 */
import {
  bytewiseComparator,
  type Comparator,
  Decoder,
  ShaleError,
  toBytes,
  ValueKind,
} from "@shale/base";
import { ITERATOR_OPTIONS } from "../core/call-options.js";
import type { MergeOperator } from "../core/merge-operator.js";
import type { IteratorOptions, ReadOptions } from "../core/options.js";
import { resolveRange } from "../core/range-options.js";
import type { DBIterator } from "../iterator/db-iterator.js";
import { BaseDeltaIterator } from "./base-delta-iterator.js";
import { BASE_DELETED, BASE_NONE, BASE_VALUE, fullMerge, IndexEntry } from "./batch-index.js";
import {
  BATCH_HEADER_SIZE,
  type BatchFamily,
  familyRecordKind,
  WriteBatch,
} from "./write-batch.js";

export interface WriteBatchWithIndexOptions {
  /** The key order of the index; must be the database's. Default: bytewise. */
  comparator?: Comparator;
  /**
   * Resolves merge operands in `getFromBatch` (the database's operator is used where a
   * database is given). Default: none (operands over a base written in the batch are then
   * an InvalidArgument error in `getFromBatch`).
   */
  mergeOperator?: MergeOperator;
}

interface SavePoint {
  byteSize: number;
  count: number;
  kinds: number;
}

/** What a batch needs of the database it reads through (`DB.batchReadSupport`). */
export interface BatchReadSupport {
  comparator: Comparator;
  mergeOperator: MergeOperator | undefined;
  /** The column family read (0: default). */
  familyId: number;
}

/** A family handle as a batch sees it: its id, and (a ColumnFamilyHandle) its comparator. */
type IndexFamily = BatchFamily & { batchReadSupport?(): BatchReadSupport };

/** The database as a batch reads through it (a DB). */
export interface BatchReadDB {
  get(key: Uint8Array, options?: ReadOptions): Uint8Array | undefined;
  iterator(options?: IteratorOptions): DBIterator;
  /** @internal */
  batchReadSupport(): BatchReadSupport;
}

const EMPTY = new Uint8Array(0);

/** Up to this many keys, the index is the entry array, searched linearly. */
const SMALL_BATCH = 8;

/**
 * The bytes of `key` as a latin1 string: a Map key with byte equality. One call of
 * `String.fromCharCode` per 8 KiB, no per-byte allocation.
 */
export function keyString(key: Uint8Array): string {
  const n = key.length;
  if (n <= 8192) return String.fromCharCode.apply(null, key as unknown as number[]);
  let s = "";
  for (let i = 0; i < n; i += 8192) {
    s += String.fromCharCode.apply(null, key.subarray(i, i + 8192) as unknown as number[]);
  }
  return s;
}

/**
 * The name of `key` of column family `familyId` in the key locks and conflict sets of
 * transactions: its `keyString` for `default` (id 0); for another family, the id between
 * two characters above 0xFF (which no `keyString` holds), then the `keyString`.
 */
export function lockKey(familyId: number, key: Uint8Array): string {
  const s = keyString(key);
  return familyId === 0 ? s : `\u0100${familyId}\u0101${s}`;
}

/** The family id of a `lockKey` name (0 for default). */
export function lockKeyFamily(name: string): number {
  if (name.charCodeAt(0) !== 0x100) return 0;
  return Number(name.slice(1, name.indexOf("\u0101")));
}

/** The key bytes of a `lockKey` name. */
export function lockKeyBytes(name: string): Uint8Array {
  const from = name.charCodeAt(0) === 0x100 ? name.indexOf("\u0101") + 1 : 0;
  const out = new Uint8Array(name.length - from);
  for (let i = from; i < name.length; i++) out[i - from] = name.charCodeAt(i);
  return out;
}

/**
 * The index of one column family's operations in a batch: entries by key, range deletions,
 * in the family's key order. The BatchDelta a BaseDeltaIterator reads.
 */
class FamilyIndex {
  readonly comparator: Comparator;
  readonly mergeOperator: MergeOperator | undefined;
  private readonly owner: WriteBatchWithIndex;
  /**
   * The entries by name, once there are more than SMALL_BATCH of them (a smaller batch is
   * searched linearly: no Map to build and drop per transaction).
   */
  private index: Map<string, IndexEntry> | undefined = undefined;
  /** Every entry; sorted by the comparator unless `unsorted`. */
  private readonly entries: IndexEntry[] = [];
  private unsorted = false;
  /** Range deletions [start, end), in batch order. */
  readonly ranges: Uint8Array[] = [];

  constructor(
    owner: WriteBatchWithIndex,
    comparator: Comparator,
    mergeOperator: MergeOperator | undefined,
  ) {
    this.owner = owner;
    this.comparator = comparator;
    this.mergeOperator = mergeOperator;
  }

  get version(): number {
    return this.owner.version;
  }

  get hasRanges(): boolean {
    this.owner.sync();
    return this.ranges.length > 0;
  }

  entry(key: Uint8Array): IndexEntry | undefined {
    this.owner.sync();
    return this.find(keyString(key));
  }

  sortedEntries(): readonly IndexEntry[] {
    this.owner.sync();
    if (this.unsorted) {
      const cmp = this.comparator;
      this.entries.sort((a, b) => cmp.compare(a.key, b.key));
      this.unsorted = false;
    }
    return this.entries;
  }

  /** True if a range deletion of the batch covers `key`. */
  inDeletedRange(key: Uint8Array): boolean {
    const r = this.ranges;
    const cmp = this.comparator;
    for (let i = 0; i < r.length; i += 2) {
      if (cmp.compare(key, r[i]!) >= 0 && cmp.compare(key, r[i + 1]!) < 0) return true;
    }
    return false;
  }

  /** Empties the index. */
  reset(): void {
    if (this.entries.length > 0) {
      this.index = undefined;
      this.entries.length = 0;
    }
    if (this.ranges.length > 0) this.ranges.length = 0;
    this.unsorted = false;
  }

  find(s: string): IndexEntry | undefined {
    if (this.index !== undefined) return this.index.get(s);
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) if (entries[i]!.name === s) return entries[i];
    return undefined;
  }

  /** Adds one operation to the index; `s`: the key's keyString, if known. */
  indexOp(kind: ValueKind, key: Uint8Array, value: Uint8Array, s: string | undefined): void {
    if (kind === ValueKind.RangeDeletion) {
      this.ranges.push(key, value);
      const cmp = this.comparator;
      const entries = this.entries;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        if (cmp.compare(e.key, key) >= 0 && cmp.compare(e.key, value) < 0) {
          e.base = BASE_DELETED;
          e.value = undefined;
          e.operands = undefined;
        }
      }
      return;
    }
    if (s === undefined) s = keyString(key);
    let e = this.find(s);
    if (e === undefined) {
      e = new IndexEntry(key, s, BASE_NONE);
      if (kind === ValueKind.Merge && this.ranges.length > 0 && this.inDeletedRange(key))
        e.base = BASE_DELETED;
      if (this.index !== undefined) this.index.set(s, e);
      else if (this.entries.length >= SMALL_BATCH) {
        this.index = new Map();
        for (const x of this.entries) this.index.set(x.name, x);
        this.index.set(s, e);
      }
      const entries = this.entries;
      if (
        !this.unsorted &&
        entries.length > 0 &&
        this.comparator.compare(entries[entries.length - 1]!.key, key) > 0
      )
        this.unsorted = true;
      entries.push(e);
    }
    switch (kind) {
      case ValueKind.Value:
        e.base = BASE_VALUE;
        e.value = value;
        e.operands = undefined;
        break;
      case ValueKind.Deletion:
      case ValueKind.SingleDeletion:
        e.base = BASE_DELETED;
        e.value = undefined;
        e.operands = undefined;
        break;
      case ValueKind.Merge:
        if (e.operands === undefined) e.operands = [value];
        else e.operands.push(value);
        break;
    }
  }
}

export class WriteBatchWithIndex {
  private readonly batch = new WriteBatch();
  /** @internal the key order of the default family's index. */
  readonly comparator: Comparator;
  private readonly mergeOperator: MergeOperator | undefined;
  /** The default family's index. */
  private readonly main: FamilyIndex;
  /** The indexes of other families, by family id (undefined: none written). */
  private others: Map<number, FamilyIndex> | undefined = undefined;
  private readonly savePoints: SavePoint[] = [];
  /** The batch's bytes up to here are in the index (see `append`). */
  private indexedBytes = BATCH_HEADER_SIZE;
  /** @internal set by `soleOperation`. */
  soleKey: Uint8Array = EMPTY;
  /** @internal set by `soleOperation`. */
  soleValue: Uint8Array = EMPTY;
  /**
   * The views `soleOperation` made last, of `soleBuf` at these offsets (the views are kept
   * for reuse while the same ranges of the same buffer are asked for).
   */
  private soleBuf: Uint8Array | undefined = undefined;
  private soleKeyView: Uint8Array = EMPTY;
  private soleKeyStart = 0;
  private soleValueView: Uint8Array = EMPTY;
  private soleValueStart = 0;
  /** @internal counts changes, so an open iterator notices the batch changed under it. */
  version = 0;
  /** @internal set once `iterator()` was called (a transaction then does not reuse the batch). */
  iterated = false;

  constructor(options?: WriteBatchWithIndexOptions) {
    if (options !== undefined) {
      if (typeof options !== "object" || options === null)
        throw new TypeError("WriteBatchWithIndex options must be an object");
      const { comparator, mergeOperator } = options;
      if (
        comparator !== undefined &&
        (typeof comparator !== "object" || typeof comparator.compare !== "function")
      )
        throw new TypeError("options.comparator must be a Comparator");
      if (
        mergeOperator !== undefined &&
        (typeof mergeOperator !== "object" || typeof mergeOperator.fullMerge !== "function")
      )
        throw new TypeError("options.mergeOperator must be a MergeOperator");
      for (const name of Object.keys(options)) {
        if (name !== "comparator" && name !== "mergeOperator")
          throw ShaleError.invalidArgument(`unknown WriteBatchWithIndex option "${name}"`);
      }
    }
    this.comparator = options?.comparator ?? bytewiseComparator;
    this.mergeOperator = options?.mergeOperator;
    this.main = new FamilyIndex(this, this.comparator, this.mergeOperator);
  }

  // ------------------------------------------------------------------ writes

  /**
   * Stores `key -> value` (in column family `family`; default: the default family).
   * Strings are UTF-8 encoded.
   */
  put(key: Uint8Array | string, value: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.Value, toBytes(key, "key"), toBytes(value, "value"));
  }

  /** Deletes `key`. */
  delete(key: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.Deletion, toBytes(key, "key"), EMPTY);
  }

  /** Deletes `key` with a SingleDelete record (see WriteBatch.singleDelete); reads as delete. */
  singleDelete(key: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.SingleDeletion, toBytes(key, "key"), EMPTY);
  }

  /** Adds a merge operand for `key`. */
  merge(key: Uint8Array | string, operand: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.Merge, toBytes(key, "key"), toBytes(operand, "operand"));
  }

  /** Deletes every key in [start, end) (start after end: InvalidArgument). */
  deleteRange(start: Uint8Array | string, end: Uint8Array | string, family?: BatchFamily): this {
    const s = toBytes(start, "start");
    const e = toBytes(end, "end");
    const index = family === undefined ? this.main : this.familyIndex(family);
    if (index.comparator.compare(s, e) > 0)
      throw ShaleError.invalidArgument("deleteRange: start is after end");
    return this.addTo(family, ValueKind.RangeDeletion, s, e);
  }

  /** @internal appends one operation to the batch and the index (of the default family). */
  add(kind: ValueKind, key: Uint8Array, value: Uint8Array): this {
    return this.addTo(undefined, kind, key, value);
  }

  private addTo(
    family: BatchFamily | undefined,
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
  ): this {
    this.sync();
    const index = family === undefined ? this.main : this.familyIndex(family);
    this.batch.addTo(family, kind, key, value);
    this.version++;
    index.indexOp(kind, key.slice(), value.length === 0 ? EMPTY : value.slice(), undefined);
    this.indexedBytes = this.batch.byteSize;
    return this;
  }

  /**
   * @internal appends a point operation to the batch only: the index takes it in at the
   * next read of the batch (a transaction that only writes never builds its index).
   * `family`: a handle of a family other than default, or undefined.
   */
  append(kind: ValueKind, key: Uint8Array, value: Uint8Array, family?: BatchFamily): void {
    if (family !== undefined) this.familyIndex(family);
    this.batch.addTo(family, kind, key, value);
    this.version++;
  }

  /**
   * The index of `family` (made on first use, ordered by the family's comparator when the
   * handle tells it, else by the batch's).
   */
  private familyIndex(family: BatchFamily): FamilyIndex {
    if (typeof family !== "object" || family === null || typeof family.id !== "number")
      throw new TypeError("the column family must be a handle from db.columnFamily()");
    if (family.id === 0) return this.main;
    const others = (this.others ??= new Map());
    let index = others.get(family.id);
    if (index === undefined) {
      const f = family as IndexFamily;
      const support = typeof f.batchReadSupport === "function" ? f.batchReadSupport() : undefined;
      index = new FamilyIndex(
        this,
        support?.comparator ?? this.comparator,
        support !== undefined ? support.mergeOperator : this.mergeOperator,
      );
      others.set(family.id, index);
    }
    return index;
  }

  /** The index of family `id`, if the batch has one. */
  private indexOf(id: number): FamilyIndex | undefined {
    return id === 0 ? this.main : this.others?.get(id);
  }

  /** @internal indexes the operations appended since the index was last brought up to date. */
  sync(): void {
    if (this.indexedBytes === this.batch.byteSize) return;
    const rep = this.batch.rep.buf;
    const d = new Decoder(rep, this.indexedBytes, this.batch.byteSize);
    while (!d.done) {
      let kind = d.readByte() as ValueKind;
      let index = this.main;
      const carried = familyRecordKind(kind);
      if (carried !== undefined) {
        index = this.indexOf(d.readVarint32())!;
        kind = carried;
      }
      const key = d.readLengthPrefixed().slice();
      const value =
        kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion
          ? EMPTY
          : d.readLengthPrefixed().slice();
      index.indexOp(kind, key, value, undefined);
    }
    this.indexedBytes = this.batch.byteSize;
  }

  /**
   * @internal for a batch of exactly one point operation of the default family: its kind,
   * with its key and value (views into the batch) in `soleKey` / `soleValue`; -1 for any
   * other batch.
   */
  soleOperation(): number {
    if (this.batch.count !== 1) return -1;
    const buf = this.batch.rep.buf;
    let pos = BATCH_HEADER_SIZE;
    const kind = buf[pos++]!;
    if (
      kind !== ValueKind.Value &&
      kind !== ValueKind.Deletion &&
      kind !== ValueKind.SingleDeletion &&
      kind !== ValueKind.Merge
    )
      return -1;
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[pos++]!;
      n |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    // A batch reused for transactions of the same shape asks for the same ranges: the views
    // made last time are reused (no allocation).
    const sameBuf = buf === this.soleBuf;
    if (!sameBuf || pos !== this.soleKeyStart || n !== this.soleKeyView.length) {
      this.soleKeyView = buf.subarray(pos, pos + n);
      this.soleKeyStart = pos;
    }
    this.soleKey = this.soleKeyView;
    pos += n;
    if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
      this.soleValue = EMPTY;
      this.soleBuf = sameBuf ? buf : undefined;
      return kind;
    }
    n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[pos++]!;
      n |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    if (!sameBuf || pos !== this.soleValueStart || n !== this.soleValueView.length) {
      this.soleValueView = buf.subarray(pos, pos + n);
      this.soleValueStart = pos;
    }
    this.soleBuf = buf;
    this.soleValue = this.soleValueView;
    return kind;
  }

  /** @internal true if a range deletion of the batch (default family) covers `key`. */
  inDeletedRange(key: Uint8Array): boolean {
    return this.main.inDeletedRange(key);
  }

  /** @internal true if the batch holds range deletions (default family). */
  get hasRanges(): boolean {
    return this.main.hasRanges;
  }

  /** @internal the default family's entry of `key`, or undefined. */
  entry(key: Uint8Array): IndexEntry | undefined {
    return this.main.entry(key);
  }

  /** @internal the default family's entries sorted by the comparator (do not change it). */
  sortedEntries(): readonly IndexEntry[] {
    return this.main.sortedEntries();
  }

  // ------------------------------------------------------------------ reads

  /**
   * The value the batch alone gives `key` (of column family `family`; default: the default
   * family): its put value (operands merged over it with the batch's merge operator — the
   * family's for a handle that has one), or undefined if the batch deleted it or has nothing
   * for it. Merge operands with no base in the batch cannot be resolved without the
   * database: Incomplete ("merge in progress", RocksDB's MergeInProgress). See `hasKey` to
   * tell "deleted" from "not in the batch".
   */
  getFromBatch(key: Uint8Array | string, family?: BatchFamily): Uint8Array | undefined {
    const k = toBytes(key, "key");
    this.sync();
    const index = family === undefined ? this.main : this.familyIndex(family);
    const e = index.find(keyString(k));
    if (e === undefined) return undefined;
    if (e.operands === undefined) return e.base === BASE_VALUE ? e.value : undefined;
    if (e.base === BASE_NONE)
      throw ShaleError.incomplete("merge in progress: the batch has operands but no base value");
    const op = index.mergeOperator;
    if (op === undefined)
      throw ShaleError.invalidArgument(
        "getFromBatch: the batch has merge operands; pass options.mergeOperator to the constructor",
      );
    return fullMerge(op, k, e.base === BASE_VALUE ? e.value : undefined, e.operands);
  }

  /**
   * True if the batch decides `key` (of `family`) by itself: it put, deleted or
   * range-deleted it (with or without operands after). False if it has nothing for the key
   * or only operands.
   */
  hasKey(key: Uint8Array | string, family?: BatchFamily): boolean {
    const k = toBytes(key, "key");
    this.sync();
    const index = family === undefined ? this.main : this.familyIndex(family);
    const e = index.find(keyString(k));
    if (e !== undefined) return e.base !== BASE_NONE;
    return index.ranges.length > 0 && index.inDeletedRange(k);
  }

  /**
   * The value of `key` with the batch applied over the database read at `readOptions`
   * (RocksDB's GetFromBatchAndDB): the batch's own value, or the database's, with the
   * batch's merge operands merged over it by the database's merge operator. `db`: the
   * database (its default family) or a column family handle (that family). A copy the
   * caller owns, or the batch's copy (read-only) when the batch put the value.
   */
  getFromBatchAndDB(
    db: BatchReadDB,
    key: Uint8Array | string,
    readOptions?: ReadOptions,
  ): Uint8Array | undefined {
    const support = this.checkDB(db);
    const k = toBytes(key, "key");
    this.sync();
    const index = this.indexOf(support.familyId);
    const e = index?.find(keyString(k));
    if (e === undefined) {
      if (index !== undefined && index.ranges.length > 0 && index.inDeletedRange(k))
        return undefined;
      return db.get(k, readOptions);
    }
    if (e.operands === undefined) return e.base === BASE_VALUE ? e.value : undefined;
    const op = support.mergeOperator;
    if (op === undefined)
      throw ShaleError.invalidArgument(
        "the batch has merge operands but the database has no mergeOperator",
      );
    const base =
      e.base === BASE_VALUE
        ? e.value
        : e.base === BASE_DELETED
          ? undefined
          : db.get(k, readOptions);
    return fullMerge(op, k, base, e.operands);
  }

  /**
   * @internal checks that `db` is a database (or family handle) this batch can read through
   * (the same key order as the family's index) and returns what reading needs.
   */
  checkDB(db: BatchReadDB): BatchReadSupport {
    if (typeof db !== "object" || db === null || typeof db.batchReadSupport !== "function")
      throw new TypeError("expected a database (DB) or a column family handle");
    const support = db.batchReadSupport();
    const own = this.indexOf(support.familyId)?.comparator ?? this.comparator;
    if (support.comparator !== own && support.comparator.name !== own.name)
      throw ShaleError.invalidArgument(
        `the batch orders keys by ${own.name}, the database by ${support.comparator.name}`,
      );
    return support;
  }

  /**
   * An iterator over the database (or the family of the handle `db`) read at `readOptions`
   * with this batch's operations on that family applied over it (RocksDB's
   * NewIteratorWithBase): see base-delta-iterator.ts. Unpositioned. Bounds, `snapshot` and
   * `reverse` (for-of) as for `db.iterator`; `limit` is not supported (InvalidArgument).
   * Close it (for-of closes it at the end).
   */
  iterator(db: BatchReadDB, readOptions?: IteratorOptions): BaseDeltaIterator {
    const support = this.checkDB(db);
    if (readOptions !== undefined) {
      ITERATOR_OPTIONS.check(readOptions);
      if (readOptions.limit !== undefined)
        throw ShaleError.invalidArgument("readOptions.limit is not supported over a batch");
    }
    const range = resolveRange(readOptions ?? {}, "readOptions");
    let index = this.indexOf(support.familyId);
    if (index === undefined) {
      index = new FamilyIndex(this, support.comparator, support.mergeOperator);
      (this.others ??= new Map()).set(support.familyId, index);
    }
    const base = db.iterator(readOptions);
    this.iterated = true;
    return new BaseDeltaIterator(
      index,
      base,
      support.mergeOperator,
      range,
      readOptions?.reverse === true,
    );
  }

  // ------------------------------------------------------------------ the batch

  /** The operations, as a WriteBatch (the batch itself: `db.write` takes either). */
  getWriteBatch(): WriteBatch {
    return this.batch;
  }

  /** Number of operations. */
  get count(): number {
    return this.batch.count;
  }

  /** Encoded size in bytes. */
  get byteSize(): number {
    return this.batch.byteSize;
  }

  /** Empties the batch, the index and the savepoints. */
  clear(): this {
    this.batch.clear();
    this.indexedBytes = BATCH_HEADER_SIZE;
    this.main.reset();
    this.others = undefined;
    if (this.savePoints.length > 0) this.savePoints.length = 0;
    this.version++;
    return this;
  }

  /** Marks the current state; `rollbackToSavePoint()` returns to it. Savepoints nest. */
  setSavePoint(): void {
    this.savePoints.push({
      byteSize: this.batch.byteSize,
      count: this.batch.count,
      kinds: this.batch.kinds,
    });
  }

  /** Undoes every operation since the last `setSavePoint()`; none set: InvalidArgument. */
  rollbackToSavePoint(): void {
    const sp = this.savePoints.pop();
    if (sp === undefined)
      throw ShaleError.invalidArgument("rollbackToSavePoint: no savepoint is set");
    this.batch.truncate(sp.byteSize, sp.count, sp.kinds);
    this.rebuildIndex();
  }

  /** Drops the last savepoint without rolling back; none set: InvalidArgument. */
  popSavePoint(): void {
    if (this.savePoints.pop() === undefined)
      throw ShaleError.invalidArgument("popSavePoint: no savepoint is set");
  }

  /** @internal the number of savepoints set. */
  get savePointCount(): number {
    return this.savePoints.length;
  }

  private rebuildIndex(): void {
    this.main.reset();
    if (this.others !== undefined) for (const index of this.others.values()) index.reset();
    this.version++;
    this.indexedBytes = BATCH_HEADER_SIZE;
    this.sync();
  }
}
