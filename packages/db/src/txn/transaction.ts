/**
 * Transactions (RocksDB's Transaction): writes buffered in a WriteBatchWithIndex, reads that
 * see them, and a commit that writes them as one atomic batch — or fails, writing nothing.
 *
 * Two kinds, as in RocksDB:
 *
 * - `OptimisticTransaction` (any database; RocksDB's OptimisticTransactionDB): every call is
 *   synchronous. Keys written, and keys read with `getForUpdate`, are tracked with a sequence
 *   number — the snapshot's, or the latest when first tracked. `commit()` checks each against
 *   the memtables (conflict-check.ts): written by someone else since -> `Busy`; the memtables
 *   no longer reach back that far -> `TryAgain`. Check and write happen in one synchronous
 *   call, so nothing can slip in between.
 * - `PessimisticTransaction` (a database opened with `transactionDB`; RocksDB's
 *   TransactionDB): `put`/`delete`/`merge`/`getForUpdate` first take the key's lock
 *   (lock-manager.ts) and return promises. With a snapshot, a key written after the snapshot
 *   fails the call with `Busy` once locked (RocksDB's ValidateSnapshot). `commit()` writes
 *   and releases the locks; it cannot conflict.
 *
 * Isolation: snapshot isolation with write-conflict detection. Reads (`get`, `iterator`) see
 * the transaction's snapshot (or the latest state without one) with its own writes over it,
 * and are not tracked: two transactions that each read what the other writes can both
 * commit (write skew) unless the reads use `getForUpdate`.
 *
 * Column families (RocksDB's): `put`/`delete`/`merge` take a family handle as their last
 * argument, and the reads (`get`, `getForUpdate`, `getMany`, `iterator`) take one last or in
 * place of their read options; without one, the default family. Keys are tracked and locked
 * per (family id, key bytes) — tracked-keys.ts, lock-table.ts — and the commit writes every
 * family in one atomic batch. A handle of another database, or of a dropped family, is InvalidArgument.
 *
 * After `commit()` or `rollback()` — or a failed commit, which rolls back — every method
 * throws InvalidArgument. Savepoints cover the writes, the tracked keys and (pessimistic)
 * the locks taken since.
 */
import { ShaleError, toBytes, ValueKind } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { WRITE_OPTIONS, type WriteOptions } from "../core/call-options.js";
import type { IteratorOptions, ReadOptions } from "../core/options.js";
import type { Snapshot } from "../core/snapshot.js";
import type { BaseDeltaIterator } from "../write/base-delta-iterator.js";
import {
  MAX_NAME_BYTES,
  markerRecord,
  prepareRecord,
  type RecoveredPrepared,
} from "../write/two-phase-records.js";
import { type BatchFamily, BatchMarker, WriteBatch } from "../write/write-batch.js";
import type { BatchReadDB, WriteBatchWithIndex } from "../write/write-batch-with-index.js";
import { CONFLICT, type ConflictKeys, NO_CONFLICT } from "./conflict-check.js";
import type { KeyLock, LockManager, LockOwner } from "./lock-manager.js";
import { OneKey, type TrackedKeys } from "./tracked-keys.js";
import type { PreparedLogs } from "./two-phase.js";

const EMPTY = new Uint8Array(0);
/**
 * The held-lock list of an ended pessimistic transaction (its own went back for reuse):
 * empty, and frozen so that a lock granted to an ended transaction would fail loudly.
 */
const NO_LOCKS = Object.freeze([]) as unknown as KeyLock[];
/** A held-lock list that held more locks than this is not reused (its storage may stay large). */
const MAX_REUSED_LOCKS = 1024;
/** What a pessimistic write that needed no wait returns. */
const SETTLED: Promise<void> = Promise.resolve();

/** A column family handle as a transaction takes it (a ColumnFamilyHandle). */
export type TransactionFamily = BatchReadDB & BatchFamily;

/** What transactions use of the database (`DB.transactionHost`). */
export interface TransactionHost {
  readonly db: BatchReadDB;
  /**
   * Checks that `handle` is a live family handle of this database (TypeError for anything
   * else than a handle; InvalidArgument for another database's or a dropped family's).
   */
  checkFamily(handle: unknown): TransactionFamily;
  /** The lock table of a TransactionDB; undefined for optimistic databases. */
  readonly locks: LockManager | undefined;
  readonly lockTimeoutMs: number;
  readonly deadlockDetect: boolean;
  lastSequence(): number;
  snapshot(): Snapshot;
  /** An empty batch for a new transaction (a finished transaction's, reused, when there is one). */
  takeBatch(): WriteBatchWithIndex;
  /** Gives back a finished transaction's batch (cleared) for reuse. */
  returnBatch(batch: WriteBatchWithIndex): void;
  /** An empty tracked-key set for a new optimistic transaction (a finished one's, reused). */
  takeTracked(): TrackedKeys;
  /** Gives back a finished transaction's tracked-key set (cleared) for reuse. */
  returnTracked(tracked: TrackedKeys): void;
  /** An empty held-lock list for a new pessimistic transaction (a finished one's, reused). */
  takeHeld(): KeyLock[];
  /** Gives back a finished pessimistic transaction's held-lock list (empty) for reuse. */
  returnHeld(held: KeyLock[]): void;
  /**
   * Checks `keys` for writes after their seqs: NO_CONFLICT, CONFLICT or NO_HISTORY (a copy
   * of the key in `result.key`). Throws Closed on a closed database.
   */
  checkConflicts(keys: ConflictKeys, result: { key: Uint8Array | undefined }): number;
  /** Writes one operation without the plain-write lock check (a one-operation commit). */
  commitOne(
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
    options: WriteOptions | undefined,
  ): void;
  /** Writes `batch` without the plain-write lock check. */
  commitBatch(batch: WriteBatch, options: WriteOptions | undefined): void;
  /** The names of the named transactions not ended yet (two-phase commit). */
  readonly names: Map<string, Transaction>;
  /** The WALs two-phase commit needs kept (txn/two-phase.ts). */
  readonly preparedLogs: PreparedLogs;
  /** Appends a two-phase commit record to the WAL only; returns the WAL's number. */
  appendToWal(record: Uint8Array, options: WriteOptions | undefined): number;
  /**
   * Commits a prepared batch: the WAL gets `walRecord(seq)` (the Commit record), the
   * memtables the batch's operations; returns the memtables written.
   */
  commitPrepared(
    batch: WriteBatch,
    walRecord: (seq: number) => Uint8Array,
    options: WriteOptions | undefined,
  ): Iterable<import("@shale/memtable").MemTable>;
  /** The handle of family `id` (for a recovered prepared transaction's writes). */
  familyHandle(id: number): TransactionFamily;
}

const STARTED = 0;
const COMMITTED = 1;
const ROLLED_BACK = 2;
/** ROLLED_BACK, for the subclasses. */
const ROLLED_BACK_STATE = ROLLED_BACK;

let nextId = 1;

/**
 * Where a failed conflict check puts the key (one for the process: checks are synchronous,
 * and the key is taken out before anything else can run).
 */
const conflict: { key: Uint8Array | undefined } = { key: undefined };

function takeConflictKey(): Uint8Array {
  const key = conflict.key!;
  conflict.key = undefined;
  return key;
}

function conflictError(code: number, key: Uint8Array, what: string): ShaleError {
  const k = JSON.stringify(new TextDecoder().decode(key.subarray(0, 64)));
  return code === CONFLICT
    ? ShaleError.busy(`${what}: key ${k} was written by another writer after it was tracked`)
    : ShaleError.tryAgain(
        `${what}: cannot tell whether key ${k} conflicts (its writes since it was tracked left the memtables)`,
      );
}

/** True if `x` is a column family handle (what a read takes in place of its options). */
function isHandle(x: unknown): x is TransactionFamily {
  return (
    typeof x === "object" &&
    x !== null &&
    typeof (x as TransactionFamily).batchReadSupport === "function" &&
    typeof (x as TransactionFamily).id === "number"
  );
}

/** The common part: the batch, the snapshot, reads, savepoints, state. */
export abstract class Transaction {
  /** A number unique in this process, for messages. */
  readonly id = nextId++;
  /** @internal */
  protected readonly host: TransactionHost;
  /** @internal the transaction's writes. */
  protected readonly batch: WriteBatchWithIndex;
  protected snapshot: Snapshot | undefined;
  /** Read options carrying the snapshot (built once). */
  protected readonly snapshotRead: ReadOptions | undefined;
  /** Per savepoint: how many keys were tracked (pessimistic: locked) then. Undefined until the first one. */
  private savePoints: number[] | undefined = undefined;
  private state = STARTED;
  /** The name (`setName`), for two-phase commit. */
  private txnName: string | undefined = undefined;

  /** @internal made by `db.beginTransaction()`. */
  constructor(host: TransactionHost, snapshot: boolean) {
    this.host = host;
    this.batch = host.takeBatch();
    this.snapshot = snapshot ? host.snapshot() : undefined;
    this.snapshotRead = this.snapshot !== undefined ? { snapshot: this.snapshot } : undefined;
  }

  /** True for a pessimistic (locking) transaction. */
  abstract readonly pessimistic: boolean;

  abstract put(
    key: Uint8Array | string,
    value: Uint8Array | string,
    family?: TransactionFamily,
  ): void | Promise<void>;
  abstract delete(key: Uint8Array | string, family?: TransactionFamily): void | Promise<void>;
  abstract merge(
    key: Uint8Array | string,
    operand: Uint8Array | string,
    family?: TransactionFamily,
  ): void | Promise<void>;
  abstract getForUpdate(
    key: Uint8Array | string,
    readOptions?: ReadOptions | TransactionFamily,
    family?: TransactionFamily,
  ): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  /** Writes the transaction's batch atomically, or throws and writes nothing. */
  abstract commit(options?: WriteOptions): void;

  /**
   * Not supported: `NotSupported`, as RocksDB's transactions have no DeleteRange (its
   * TransactionDB and OptimisticTransactionDB refuse `DeleteRange`, and its
   * WriteBatchWithIndex too): a range can be neither conflict-checked nor locked key by key.
   * Delete the keys one by one in the transaction (an iterator finds them), or call
   * `db.deleteRange` outside it (on a TransactionDB it waits for the locks of the keys in
   * the range).
   */
  deleteRange(
    _start: Uint8Array | string,
    _end: Uint8Array | string,
    _family?: TransactionFamily,
  ): never {
    this.checkActive();
    throw ShaleError.notSupported(
      "deleteRange is not supported in a transaction (as in RocksDB): delete the keys one by one, or call db.deleteRange outside the transaction",
    );
  }

  /**
   * Names the transaction (RocksDB's SetName), which two-phase commit needs: `prepare()`
   * writes the name into the WAL, and after a crash the prepared transaction is found again
   * by it (`db.getTransactionByName`). A non-empty string of at most 512 UTF-8 bytes,
   * unique among the database's transactions not ended yet; set once, before `prepare()`.
   * InvalidArgument otherwise (TypeError for a non-string).
   */
  setName(name: string): void {
    this.checkActive();
    if (typeof name !== "string") throw new TypeError("the transaction name must be a string");
    const bytes = new TextEncoder().encode(name).length;
    if (bytes === 0 || bytes > MAX_NAME_BYTES)
      throw ShaleError.invalidArgument(
        `the transaction name must be 1 to ${MAX_NAME_BYTES} bytes (UTF-8), not ${bytes}`,
      );
    if (this.txnName !== undefined)
      throw ShaleError.invalidArgument(`transaction ${this.id} is already named "${this.txnName}"`);
    const names = this.host.names;
    if (names.has(name))
      throw ShaleError.invalidArgument(
        `the transaction name "${name}" is taken (names must be unique)`,
      );
    names.set(name, this);
    this.txnName = name;
  }

  /** The name given by `setName`, or undefined. */
  get name(): string | undefined {
    return this.txnName;
  }

  /**
   * Two-phase commit, phase one (RocksDB's Prepare): makes the transaction's writes durable
   * in the WAL (a prepare record, txn/two-phase.ts) without applying them; `commit()` or
   * `rollback()` then decides it, also after a crash (`db.getPreparedTransactions()`).
   * Pessimistic transactions only (optimistic ones: InvalidArgument, as in RocksDB); needs a
   * name (`setName`) and the WAL (`disableWAL`: InvalidArgument). No write after it.
   */
  abstract prepare(options?: WriteOptions): void;

  /** True once `prepare()` succeeded (until the transaction ends). */
  get isPrepared(): boolean {
    return false;
  }

  /** The snapshot taken at begin (`{ snapshot: true }`), or undefined. Released at the end. */
  getSnapshot(): Snapshot | undefined {
    this.checkActive();
    return this.snapshot;
  }

  /** Still open: neither committed nor rolled back. */
  get isActive(): boolean {
    return this.state === STARTED;
  }

  /** Number of operations buffered. */
  get count(): number {
    return this.batch.count;
  }

  /**
   * The value of `key`: the transaction's own write, or the database's at the transaction's
   * snapshot (or `readOptions.snapshot`, or the latest state), with the transaction's merge
   * operands over it. Not tracked for conflicts (see `getForUpdate`). A copy the caller owns,
   * or the batch's copy of a value it put (read-only).
   */
  get(
    key: Uint8Array | string,
    readOptions?: ReadOptions | TransactionFamily,
    family?: TransactionFamily,
  ): Uint8Array | undefined {
    this.checkActive();
    if (isHandle(readOptions)) return this.get(key, undefined, readOptions);
    return this.batch.getFromBatchAndDB(this.reader(family), key, this.readOptions(readOptions));
  }

  /** `get` for each key, in order. */
  getMany(
    keys: readonly (Uint8Array | string)[],
    readOptions?: ReadOptions | TransactionFamily,
    family?: TransactionFamily,
  ): (Uint8Array | undefined)[] {
    this.checkActive();
    if (isHandle(readOptions)) return this.getMany(keys, undefined, readOptions);
    if (!Array.isArray(keys)) throw new TypeError("getMany takes an array of keys");
    const db = this.reader(family);
    const ro = this.readOptions(readOptions);
    const out = new Array<Uint8Array | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++)
      out[i] = this.batch.getFromBatchAndDB(db, toBytes(keys[i], `keys[${i}]`), ro);
    return out;
  }

  /**
   * An iterator over the database at the transaction's snapshot (or as `readOptions` say)
   * with the transaction's writes over it (BaseDeltaIterator). Unpositioned; close it.
   */
  iterator(
    readOptions?: IteratorOptions | TransactionFamily,
    family?: TransactionFamily,
  ): BaseDeltaIterator {
    this.checkActive();
    if (isHandle(readOptions)) return this.iterator(undefined, readOptions);
    return this.batch.iterator(
      this.reader(family),
      this.readOptions(readOptions) as IteratorOptions,
    );
  }

  /** Marks the current state; `rollbackToSavePoint()` returns to it. Savepoints nest. */
  setSavePoint(): void {
    this.checkActive();
    this.batch.setSavePoint();
    (this.savePoints ??= []).push(this.trackedCount());
  }

  /**
   * Undoes the writes since the last `setSavePoint()`, stops tracking the keys first tracked
   * since, and (pessimistic) releases the locks taken since. None set: InvalidArgument.
   */
  rollbackToSavePoint(): void {
    this.checkActive();
    const sp = this.savePoints?.pop();
    if (sp === undefined)
      throw ShaleError.invalidArgument("rollbackToSavePoint: no savepoint is set");
    this.batch.rollbackToSavePoint();
    if (this.trackedCount() > sp) this.untrackFrom(sp);
  }

  /** Drops the last savepoint without rolling back. None set: InvalidArgument. */
  popSavePoint(): void {
    this.checkActive();
    if (this.savePoints?.pop() === undefined)
      throw ShaleError.invalidArgument("popSavePoint: no savepoint is set");
    this.batch.popSavePoint();
  }

  /** Discards the transaction: nothing of it is written; locks and snapshot are released. */
  rollback(): void {
    this.checkActive();
    this.finish(ROLLED_BACK);
  }

  // ------------------------------------------------------------------ internals

  /** How many keys are tracked (pessimistic: locked). */
  protected abstract trackedCount(): number;

  /** Stops tracking (pessimistic: unlocks) the keys tracked after the first `n`. */
  protected abstract untrackFrom(n: number): void;

  /** Releases what the transaction holds; the state becomes final. */
  protected finish(state: number): void {
    this.state = state;
    if (this.txnName !== undefined && this.host.names.get(this.txnName) === this)
      this.host.names.delete(this.txnName);
    this.snapshot?.release();
    this.snapshot = undefined;
    this.savePoints = undefined;
    this.batch.clear();
    // A batch an iterator was made from stays with this transaction: the iterator may be
    // used (and fail) after the end, and must not see another transaction's writes.
    if (!this.batch.iterated && this.batch.getWriteBatch().rep.buf.length <= 1 << 20)
      this.host.returnBatch(this.batch);
  }

  protected markCommitted(): void {
    this.finish(COMMITTED);
  }

  protected markRolledBack(): void {
    this.finish(ROLLED_BACK);
  }

  protected checkActive(): void {
    if (this.state !== STARTED)
      throw ShaleError.invalidArgument(
        `transaction ${this.id} was already ${this.state === COMMITTED ? "committed" : "rolled back"}`,
      );
  }

  private readOptions<T extends ReadOptions>(ro: T | undefined): T | undefined {
    if (this.snapshotRead === undefined) return ro;
    if (ro === undefined) return this.snapshotRead as T;
    return ro.snapshot !== undefined ? ro : { ...ro, snapshot: this.snapshot };
  }

  /** The database or family handle reads of `family` go through (checked). */
  protected reader(family: TransactionFamily | undefined): BatchReadDB {
    return family === undefined ? this.host.db : this.host.checkFamily(family);
  }

  /**
   * The handle a write of `family` puts in the batch: undefined for the default family
   * (a plain record), else the checked handle.
   */
  protected writeFamily(family: TransactionFamily | undefined): TransactionFamily | undefined {
    if (family === undefined) return undefined;
    const f = this.host.checkFamily(family);
    return f.id === 0 ? undefined : f;
  }

  /** Throws InvalidArgument unless the family written has a merge operator. */
  protected checkMerge(family: TransactionFamily | undefined): void {
    const db = family ?? this.host.db;
    if (db.batchReadSupport().mergeOperator === undefined)
      throw ShaleError.invalidArgument("merge needs options.mergeOperator");
  }

  /**
   * Writes the batch. One put, delete or merge (a transaction has no other point
   * operation) goes the way of `db.put`, without parsing the encoded batch.
   */
  protected writeBatch(options: WriteOptions | undefined): void {
    const batch = this.batch;
    const count = batch.count;
    if (count === 0) return;
    if (count === 1) {
      const kind = batch.soleOperation();
      if (kind >= 0) {
        this.host.commitOne(kind as ValueKind, batch.soleKey, batch.soleValue, options);
        return;
      }
    }
    this.host.commitBatch(batch.getWriteBatch(), options);
  }

  /** The value of `key` in `db` with the batch over it (`get` without the active check). */
  protected read(
    db: BatchReadDB,
    key: Uint8Array,
    readOptions: ReadOptions | undefined,
  ): Uint8Array | undefined {
    return this.batch.getFromBatchAndDB(db, key, this.readOptions(readOptions));
  }
}

/** A transaction that checks for conflicts at commit; every call is synchronous. */
export class OptimisticTransaction extends Transaction {
  get pessimistic(): boolean {
    return false;
  }
  /** The keys written or read with getForUpdate, with the seq each was first tracked at. */
  private readonly tracked: TrackedKeys;

  /** @internal */
  constructor(host: TransactionHost, snapshot: boolean) {
    super(host, snapshot);
    this.tracked = host.takeTracked();
  }

  /** InvalidArgument: two-phase commit is for pessimistic transactions (as in RocksDB). */
  prepare(_options?: WriteOptions): void {
    this.checkActive();
    throw ShaleError.invalidArgument(
      "two-phase commit is not supported for optimistic transactions (open with transactionDB)",
    );
  }

  put(key: Uint8Array | string, value: Uint8Array | string, family?: TransactionFamily): void {
    this.checkActive();
    const k = toBytes(key, "key");
    const v = toBytes(value, "value");
    this.writeTracked(ValueKind.Value, k, v, this.writeFamily(family));
  }

  delete(key: Uint8Array | string, family?: TransactionFamily): void {
    this.checkActive();
    const k = toBytes(key, "key");
    this.writeTracked(ValueKind.Deletion, k, EMPTY, this.writeFamily(family));
  }

  merge(key: Uint8Array | string, operand: Uint8Array | string, family?: TransactionFamily): void {
    this.checkActive();
    const k = toBytes(key, "key");
    const v = toBytes(operand, "operand");
    const f = this.writeFamily(family);
    this.checkMerge(f);
    this.writeTracked(ValueKind.Merge, k, v, f);
  }

  /** `get`, and tracks the key: a write of it by someone else fails the commit with Busy. */
  getForUpdate(
    key: Uint8Array | string,
    readOptions?: ReadOptions | TransactionFamily,
    family?: TransactionFamily,
  ): Uint8Array | undefined {
    this.checkActive();
    if (isHandle(readOptions)) return this.getForUpdate(key, undefined, readOptions);
    const k = toBytes(key, "key");
    const db = this.reader(family);
    this.track(family === undefined ? 0 : family.id, k);
    return this.read(db, k, readOptions);
  }

  /**
   * Checks the tracked keys (Busy / TryAgain: the transaction is rolled back, nothing
   * written), then writes the batch. Any failure rolls the transaction back.
   */
  commit(options?: WriteOptions): void {
    this.checkActive();
    if (options !== undefined) WRITE_OPTIONS.check(options);
    try {
      // Nothing written since the oldest tracking: no conflict possible, nothing to look up.
      const tracked = this.tracked;
      if (tracked.count > 0 && tracked.minSeq < this.host.lastSequence()) {
        const code = this.host.checkConflicts(tracked, conflict);
        if (code !== NO_CONFLICT)
          throw conflictError(code, takeConflictKey(), `transaction ${this.id} commit`);
      }
      this.writeBatch(options);
    } catch (e) {
      this.markRolledBack();
      throw e;
    }
    this.markCommitted();
  }

  protected trackedCount(): number {
    return this.tracked.count;
  }

  protected untrackFrom(n: number): void {
    this.tracked.truncate(n);
  }

  protected override finish(state: number): void {
    super.finish(state);
    this.tracked.clear();
    this.host.returnTracked(this.tracked);
  }

  /** Tracks `key` of family `familyId` at the snapshot's seq, or at the latest seq if first tracked now. */
  private track(familyId: number, key: Uint8Array): void {
    const seq = this.snapshot !== undefined ? this.snapshot.seq : this.host.lastSequence();
    this.tracked.add(familyId, key, seq);
  }

  /** Buffers a point write of `key` (of `family`) and tracks the key. */
  private writeTracked(
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
    family: TransactionFamily | undefined,
  ): void {
    this.batch.append(kind, key, value, family);
    this.track(family === undefined ? 0 : family.id, key);
  }
}

/**
 * A transaction of a TransactionDB: writes and `getForUpdate` lock their key first and
 * return promises; `commit()` cannot conflict.
 */
export class PessimisticTransaction extends Transaction implements LockOwner {
  get pessimistic(): boolean {
    return true;
  }
  /** @internal the lock this transaction waits for (lock-manager.ts). */
  waitingFor: KeyLock | undefined = undefined;
  /**
   * @internal the locks it holds, in the order taken (the lock manager appends them). A list
   * reused from a finished transaction; once this one ends, `NO_LOCKS`.
   */
  held: KeyLock[];
  /** Set by a successful `prepare()` (or for a prepared transaction recovery found). */
  private prepared = false;
  private readonly locks: LockManager;
  private readonly lockTimeoutMs: number;
  private readonly deadlockDetect: boolean;

  /** @internal */
  constructor(
    host: TransactionHost,
    snapshot: boolean,
    lockTimeoutMs: number,
    deadlockDetect: boolean,
  ) {
    super(host, snapshot);
    this.held = host.takeHeld();
    this.locks = host.locks!;
    this.lockTimeoutMs = lockTimeoutMs;
    this.deadlockDetect = deadlockDetect;
  }

  // The writes and getForUpdate return promises, but when the key's lock is free (or
  // already held) they do their work before returning, with no microtask: a promise
  // already settled. Their errors are rejections, never throws, as an async function's.

  put(
    key: Uint8Array | string,
    value: Uint8Array | string,
    family?: TransactionFamily,
  ): Promise<void> {
    try {
      this.checkActive();
      this.checkNotPrepared();
      const k = toBytes(key, "key");
      const v = toBytes(value, "value");
      const f = this.writeFamily(family);
      return this.afterLock(this.lockKey(k, f), ValueKind.Value, k, v, f);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  delete(key: Uint8Array | string, family?: TransactionFamily): Promise<void> {
    try {
      this.checkActive();
      this.checkNotPrepared();
      const k = toBytes(key, "key");
      const f = this.writeFamily(family);
      return this.afterLock(this.lockKey(k, f), ValueKind.Deletion, k, EMPTY, f);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  merge(
    key: Uint8Array | string,
    operand: Uint8Array | string,
    family?: TransactionFamily,
  ): Promise<void> {
    try {
      this.checkActive();
      this.checkNotPrepared();
      const k = toBytes(key, "key");
      const v = toBytes(operand, "operand");
      const f = this.writeFamily(family);
      this.checkMerge(f);
      return this.afterLock(this.lockKey(k, f), ValueKind.Merge, k, v, f);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Locks `key`, then reads it as `get` does. */
  getForUpdate(
    key: Uint8Array | string,
    readOptions?: ReadOptions | TransactionFamily,
    family?: TransactionFamily,
  ): Promise<Uint8Array | undefined> {
    try {
      this.checkActive();
      if (isHandle(readOptions)) return this.getForUpdate(key, undefined, readOptions);
      const k = toBytes(key, "key");
      const db = this.reader(family);
      const locked = this.lockKey(k, family === undefined || family.id === 0 ? undefined : family);
      if (locked === undefined) return Promise.resolve(this.read(db, k, readOptions));
      return locked.then(() => this.read(db, k, readOptions));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Appends the write once `locked` (lockKey's answer) says the key is locked. */
  private afterLock(
    locked: Promise<void> | undefined,
    kind: ValueKind,
    k: Uint8Array,
    v: Uint8Array,
    f: BatchFamily | undefined,
  ): Promise<void> {
    if (locked === undefined) {
      this.batch.append(kind, k, v, f);
      return SETTLED;
    }
    return locked.then(() => {
      this.batch.append(kind, k, v, f);
    });
  }

  /**
   * Writes the batch and releases the locks (also when the write fails: then rolled back).
   * A prepared transaction's commit writes a Commit record to the WAL and applies the
   * prepared writes (two-phase commit, txn/two-phase.ts).
   */
  commit(options?: WriteOptions): void {
    this.checkActive();
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (this.waitingFor !== undefined)
      throw ShaleError.invalidArgument(
        `transaction ${this.id}: commit while a lock wait is pending (await the call first)`,
      );
    try {
      if (this.prepared) this.commitPrepared(options);
      else this.writeBatch(options);
    } catch (e) {
      this.markRolledBack();
      throw e;
    }
    this.markCommitted();
  }

  prepare(options?: WriteOptions): void {
    this.checkActive();
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (this.prepared)
      throw ShaleError.invalidArgument(`transaction ${this.id} is already prepared`);
    if (this.name === undefined)
      throw ShaleError.invalidArgument(
        `transaction ${this.id} cannot be prepared without a name (setName)`,
      );
    if (options?.disableWAL === true)
      throw ShaleError.invalidArgument("prepare needs the WAL (disableWAL is not allowed)");
    if (this.waitingFor !== undefined)
      throw ShaleError.invalidArgument(
        `transaction ${this.id}: prepare while a lock wait is pending (await the call first)`,
      );
    const host = this.host;
    const record = prepareRecord(this.batch.getWriteBatch(), this.name, host.lastSequence() + 1);
    const log = host.appendToWal(record, options);
    host.preparedLogs.prepare(this, log);
    this.prepared = true;
  }

  override get isPrepared(): boolean {
    return this.prepared;
  }

  /**
   * Discards the transaction; a prepared one first writes a Rollback record to the WAL (so
   * recovery does not bring it back). Locks and snapshot are released.
   */
  override rollback(): void {
    this.checkActive();
    if (this.prepared) {
      const host = this.host;
      host.appendToWal(
        markerRecord(BatchMarker.Rollback, this.name!, host.lastSequence() + 1),
        undefined,
      );
      host.preparedLogs.decided(this, []);
    }
    this.finish(ROLLED_BACK_STATE);
  }

  /** The Commit record to the WAL, the prepared writes to the memtables. */
  private commitPrepared(options: WriteOptions | undefined): void {
    const host = this.host;
    const name = this.name!;
    const batch = this.batch.getWriteBatch();
    if (batch.count === 0) {
      host.appendToWal(markerRecord(BatchMarker.Commit, name, host.lastSequence() + 1), options);
      host.preparedLogs.decided(this, []);
      return;
    }
    const mems = host.commitPrepared(
      batch,
      (seq) => markerRecord(BatchMarker.Commit, name, seq),
      options,
    );
    host.preparedLogs.decided(this, mems);
  }

  /** InvalidArgument once prepared: a prepared transaction takes no more writes. */
  private checkNotPrepared(): void {
    if (this.prepared)
      throw ShaleError.invalidArgument(`transaction ${this.id} is prepared: no more writes`);
  }

  /**
   * @internal a prepared transaction recovery found (txn/two-phase.ts): its writes buffered
   * again, its keys locked, prepared in WAL `logNumber` (the open wrote its prepare record
   * there again).
   */
  static recovered(
    host: TransactionHost,
    prepared: RecoveredPrepared,
    logNumber: number,
  ): PessimisticTransaction {
    const txn = new PessimisticTransaction(host, false, host.lockTimeoutMs, host.deadlockDetect);
    txn.setName(prepared.name);
    txn.restore(prepared.batch);
    host.preparedLogs.prepare(txn, logNumber);
    txn.prepared = true;
    return txn;
  }

  /** Buffers the operations of `batch` and locks their keys (free: the database just opened). */
  private restore(batch: WriteBatch): void {
    if (batch.count === 0) return;
    WriteBatch.iterate(
      batch.seal(0),
      {
        apply: (kind, key, value, _index, id) => {
          const family = id === 0 ? undefined : this.host.familyHandle(id);
          const k = key.slice();
          this.batch.append(kind, k, value.slice(), family);
          if (kind === ValueKind.RangeDeletion) return;
          // Free at open (prepared transactions never shared a key); a clash would only
          // leave this one without that lock.
          this.locks.lock(this, id, k, 0, false)?.catch(() => undefined);
        },
      },
      undefined,
      0,
      true,
    );
  }

  /** Number of keys this transaction holds locked. */
  get numLocks(): number {
    return this.held.length;
  }

  protected trackedCount(): number {
    return this.held.length;
  }

  protected untrackFrom(n: number): void {
    const held = this.held;
    while (held.length > n) this.locks.unlock(this, held.pop()!);
  }

  protected override finish(state: number): void {
    // A prepared transaction whose commit failed: its WAL is no longer kept for it here (the
    // next open finds it prepared again: the outcome of a failed write is unknown).
    if (this.prepared) this.host.preparedLogs.decided(this, []);
    if (this.waitingFor !== undefined)
      this.locks.cancelWait(
        this,
        ShaleError.invalidArgument(`transaction ${this.id} ended while waiting for a lock`),
      );
    const reuse = this.held.length <= MAX_REUSED_LOCKS;
    this.untrackFrom(0);
    if (reuse) this.host.returnHeld(this.held);
    this.held = NO_LOCKS;
    super.finish(state);
  }

  /**
   * Takes `key`'s lock (waiting if another transaction holds it) and with a snapshot checks
   * it was not written after the snapshot (Busy; TryAgain when the memtables cannot tell).
   * `family`: undefined for the default family. Returns undefined once the key is locked,
   * or a promise while the lock is waited for; throws when the lock is refused at once.
   */
  private lockKey(key: Uint8Array, family: BatchFamily | undefined): Promise<void> | undefined {
    const familyId = family === undefined ? 0 : family.id;
    const locks = this.locks;
    if (this.waitingFor !== undefined) {
      if (locks.holds(this, familyId, key)) return undefined;
      throw ShaleError.invalidArgument(
        `transaction ${this.id}: a lock wait is already pending (await each call in turn)`,
      );
    }
    const held = this.held;
    const before = held.length;
    const wait = locks.lock(this, familyId, key, this.lockTimeoutMs, this.deadlockDetect);
    if (wait === undefined) {
      // Granted now (held grew), or held already: then checked when it was first taken.
      if (held.length > before && this.snapshot !== undefined)
        this.checkSnapshot(familyId, key, held[before]!);
      return undefined;
    }
    const lock = this.waitingFor;
    return wait.then(() => this.granted(familyId, key, lock!));
  }

  /** After a wait: `lock` was granted (now in `held`) unless the transaction ended. */
  private granted(familyId: number, key: Uint8Array, lock: KeyLock): void {
    // Ended while the grant was on its way: finish() released every lock held, this one too.
    this.checkActive();
    if (this.snapshot !== undefined) this.checkSnapshot(familyId, key, lock);
  }

  /**
   * With a snapshot: the key just locked (`lock`) must not have been written after the
   * snapshot; else the lock is released and the call fails.
   */
  private checkSnapshot(familyId: number, key: Uint8Array, lock: KeyLock): void {
    const code = this.host.checkConflicts(new OneKey(familyId, key, this.snapshot!.seq), conflict);
    if (code !== NO_CONFLICT) {
      conflict.key = undefined;
      const held = this.held;
      const i = held.lastIndexOf(lock);
      if (i >= 0) held.splice(i, 1);
      this.locks.unlock(this, lock);
      throw conflictError(code, key, `transaction ${this.id}`);
    }
  }
}

/**
 * At open: the memtable references and prepared transactions recovery found go to
 * `logs` and back into transactions (`host()`: the database's TransactionHost), each
 * prepared in the open's new WAL, where recovery wrote its prepare record again.
 */
export function restorePrepared(
  logs: PreparedLogs,
  state: {
    readonly prepared?: readonly RecoveredPrepared[];
    readonly prepLogRefs?: ReadonlyMap<MemTable, number>;
    readonly logNumber: number;
  },
  versions: { readonly recordedMinLogNumberToKeep: number },
  host: () => TransactionHost,
): void {
  if (versions.recordedMinLogNumberToKeep > 0) logs.used = true;
  if (state.prepLogRefs !== undefined)
    for (const [mem, log] of state.prepLogRefs) logs.refMemTable(mem, log);
  if (state.prepared === undefined || state.prepared.length === 0) return;
  const h = host();
  for (const p of state.prepared) PessimisticTransaction.recovered(h, p, state.logNumber);
}
