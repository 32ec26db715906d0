/**
 * TransactionDB (RocksDB's): a database opened with the `transactionDB` option. Besides
 * pessimistic transactions (transaction.ts), its plain writes — `put`, `delete`, `merge`,
 * `deleteRange`, `clear`, `write(batch)`, of the database and of every column family handle —
 * take the locks of the keys they write, as RocksDB's PessimisticTransactionDB does (an
 * internal transaction per write): a key a transaction holds locked is written once that
 * transaction ends, not over its head.
 *
 * Waiting cannot block the event loop, so on a TransactionDB these calls return a
 * `Promise<void>`; `DB.open` says so in its type (an overload on the `transactionDB` option
 * returns `TransactionDB`, whose write methods are typed `Promise<void>`). The methods are
 * installed on the instance (and on its handles) at open: a database opened without
 * `transactionDB` runs its synchronous writes with no lock check at all.
 *
 * ```
 *   db.put(k, v)          no key locked (or k not locked)  -> written now; a resolved promise
 *                         k locked by transaction T        -> waits in k's queue (FIFO), then
 *                                                             writes and releases at once
 *   db.write(batch)       every key of the batch, sorted, locked in turn (RocksDB's LockBatch:
 *                         two plain writes never deadlock each other), then one atomic write
 *   db.deleteRange(a, z)  every key in [a, z) a transaction holds is locked in turn, until a
 *                         pass finds none held by another; then the range tombstone is written
 * ```
 *
 * - Timeout: `transactionDB.defaultLockTimeoutMs` (RocksDB's default_lock_timeout) per key;
 *   then the promise rejects with `TimedOut` and nothing is written.
 * - Deadlocks: a plain write waiting for a key is an edge of the waits-for graph like a
 *   transaction's wait (a batch holds the keys it locked while it waits for the next), so a
 *   transaction that detects deadlocks finds cycles through it; with
 *   `transactionDB.deadlockDetect` the plain write also checks before it waits and fails with
 *   `Busy` (RocksDB's internal transactions never check: they only time out).
 * - Ordering: a write that does not wait is applied before the call returns, as on any
 *   database; one that waits is applied when the promise resolves. Do not change a batch (or
 *   a key or value array) before the promise of its write settles.
 * - Errors (bad arguments included) reject the promise; nothing is thrown synchronously.
 * - `deleteRange` inside a transaction is not supported (transaction.ts), as in RocksDB.
 */
import { type Comparator, toBytes, ValueKind } from "@shale/base";
import type { ColumnFamilyHandle } from "../column-family/handle.js";
import type { ClearOptions, WriteOptions } from "../core/call-options.js";
import type { ColumnFamilyOptions, IteratorOptions } from "../core/options.js";
import type { DBIterator } from "../iterator/db-iterator.js";
import { clearRange } from "../ops/clear.js";
import { type BatchFamily, WriteBatch } from "../write/write-batch.js";
import {
  lockKey,
  lockKeyBytes,
  lockKeyFamily,
  WriteBatchWithIndex,
} from "../write/write-batch-with-index.js";
import type { KeyLock, LockManager, LockOwner } from "./lock-manager.js";

/** The write methods a TransactionDB makes wait for locks. */
type LockingWrites = "put" | "delete" | "merge" | "deleteRange" | "clear";

/** The write methods of a TransactionDB and of its handles: they wait for key locks. */
export interface LockingWriteMethods {
  /** Stores `key -> value` once `key` is not locked by a transaction (see transaction-db.ts). */
  put(key: Uint8Array | string, value: Uint8Array | string, options?: WriteOptions): Promise<void>;
  /** Removes `key` once it is not locked by a transaction. */
  delete(key: Uint8Array | string, options?: WriteOptions): Promise<void>;
  /** Adds a merge operand for `key` once it is not locked by a transaction. */
  merge(
    key: Uint8Array | string,
    operand: Uint8Array | string,
    options?: WriteOptions,
  ): Promise<void>;
  /** Removes every key in [start, end) once no key in it is locked by a transaction. */
  deleteRange(
    start: Uint8Array | string,
    end: Uint8Array | string,
    options?: WriteOptions,
  ): Promise<void>;
  /** `clear` (see ColumnFamilyMethods.clear), waiting for the locks of the keys it deletes. */
  clear(options?: ClearOptions): Promise<void>;
}

/** A column family handle of a TransactionDB: its writes wait for key locks. */
export interface TransactionColumnFamilyHandle
  extends Omit<ColumnFamilyHandle, LockingWrites>,
    LockingWriteMethods {}

/** The members of a TransactionDB that differ from a DB's. */
export interface TransactionDBMethods extends LockingWriteMethods {
  /** Writes `batch` atomically once none of its keys is locked by a transaction. */
  write(batch: WriteBatch | WriteBatchWithIndex, options?: WriteOptions): Promise<void>;
  /** The handle of column family `name` (see DB.columnFamily). */
  columnFamily(name: string): TransactionColumnFamilyHandle;
  /** Creates column family `name` (see DB.createColumnFamily). */
  createColumnFamily(
    name: string,
    options?: ColumnFamilyOptions,
  ): Promise<TransactionColumnFamilyHandle>;
  /** Iterators over several column families at one sequence number (see DB.iterators). */
  iterators(
    handles: readonly (ColumnFamilyHandle | TransactionColumnFamilyHandle)[],
    readOptions?: IteratorOptions,
  ): DBIterator[];
}

/**
 * `D` (the DB class, db.ts: `TransactionDB = TransactionDBOf<DB>`) with the members of a
 * TransactionDB: what `DB.open` returns with the `transactionDB` option.
 */
export type TransactionDBOf<D> = Omit<D, keyof TransactionDBMethods> & TransactionDBMethods;

/** What the locking writes need of the database. */
export interface LockingWriteHost {
  readonly locks: LockManager;
  /** How long a plain write waits for one key's lock (ms; -1: no limit). */
  readonly lockTimeoutMs: number;
  readonly deadlockDetect: boolean;
  /** The comparator of family `id` (for range deletions). */
  comparatorOf(familyId: number): Comparator;
  /** Writes a batch now, without looking at locks (the write loop's `write`). */
  writeBatch(batch: WriteBatch, options: WriteOptions | undefined): void;
}

/** The database's or a handle's own (synchronous) methods, as the installer sees them. */
interface SyncWrites {
  put(key: Uint8Array | string, value: Uint8Array | string, options?: WriteOptions): void;
  delete(key: Uint8Array | string, options?: WriteOptions): void;
  merge(key: Uint8Array | string, operand: Uint8Array | string, options?: WriteOptions): void;
  deleteRange(start: Uint8Array | string, end: Uint8Array | string, options?: WriteOptions): void;
  iterator(options?: IteratorOptions): DBIterator;
}

const RESOLVED: Promise<void> = Promise.resolve();
const EMPTY = new Uint8Array(0);

/** A plain write as the lock manager sees it (id 0: "a plain write" in messages). */
class PlainWriter implements LockOwner {
  readonly id = 0;
  waitingFor: LockOwner["waitingFor"] = undefined;
  readonly held: KeyLock[] = [];
}

/** Runs `write` now; its result or error as a promise. */
function now(write: () => void): Promise<void> {
  try {
    write();
    return RESOLVED;
  } catch (e) {
    return Promise.reject(e);
  }
}

/** A range deletion a plain write makes: family, [start, end). */
interface LockedRange {
  familyId: number;
  start: Uint8Array;
  end: Uint8Array;
}

/**
 * Replaces the write methods of `target` (the database, or one of its handles, of family
 * `familyId`; `family`: the handle batches name it by, undefined for default) with ones
 * that wait for key locks; `withWrite` (the database) also `write`.
 */
export function installLockingWrites(
  target: SyncWrites,
  familyId: number,
  family: BatchFamily | undefined,
  host: LockingWriteHost,
  withWrite: boolean,
): void {
  const put = target.put.bind(target);
  const del = target.delete.bind(target);
  const merge = target.merge.bind(target);
  const deleteRange = target.deleteRange.bind(target);
  const locks = host.locks;
  const self = target as unknown as LockingWriteMethods & {
    write?: (batch: WriteBatch | WriteBatchWithIndex, options?: WriteOptions) => Promise<void>;
  };

  /**
   * One key: written now unless a transaction holds its lock; then `value` (if bytes) and
   * the key are copied, so the caller may reuse its arrays while the write waits.
   */
  const writeKey = (
    key: Uint8Array | string,
    value: Uint8Array | string,
    write: (k: Uint8Array, v: Uint8Array | string) => void,
  ): Promise<void> => {
    let k: Uint8Array;
    let v: Uint8Array | string;
    try {
      k = toBytes(key, "key");
      v = typeof value === "string" ? value : toBytes(value, "value");
    } catch (e) {
      return Promise.reject(e);
    }
    if (locks.size === 0 || locks.holder(familyId, k) === undefined) return now(() => write(k, v));
    const kc = k.slice();
    const vc = typeof v === "string" ? v : v.slice();
    return lockAndWrite(host, [lockKey(familyId, kc)], undefined, () => write(kc, vc));
  };

  self.put = (key, value, options) => writeKey(key, value, (k, v) => put(k, v, options));
  self.delete = (key, options) => writeKey(key, EMPTY, (k) => del(k, options));
  self.merge = (key, operand, options) => writeKey(key, operand, (k, v) => merge(k, v, options));
  self.deleteRange = (start, end, options) => {
    let s: Uint8Array;
    let e: Uint8Array;
    try {
      s = toBytes(start, "start");
      e = toBytes(end, "end");
    } catch (err) {
      return Promise.reject(err);
    }
    const range: LockedRange = { familyId, start: s, end: e };
    if (locks.size === 0 || heldInRanges(host, [range], undefined).length === 0)
      return now(() => deleteRange(s, e, options));
    const start2 = s.slice();
    const end2 = e.slice();
    return lockAndWrite(host, [], [{ familyId, start: start2, end: end2 }], () =>
      deleteRange(start2, end2, options),
    );
  };
  self.clear = (options) => {
    let batch: WriteBatch | undefined;
    let writeOptions: WriteOptions | undefined;
    try {
      clearRange(
        {
          iterator: (o) => target.iterator(o),
          write: (b, o) => {
            batch = b;
            writeOptions = o;
          },
          family,
        },
        options,
      );
    } catch (e) {
      return Promise.reject(e);
    }
    if (batch === undefined) return RESOLVED;
    return writeBatchLocked(host, batch, writeOptions);
  };
  if (withWrite) {
    self.write = (batch, options) => {
      if (batch instanceof WriteBatchWithIndex) batch = batch.getWriteBatch();
      if (!(batch instanceof WriteBatch))
        return Promise.reject(new TypeError("write() takes a WriteBatch or a WriteBatchWithIndex"));
      return writeBatchLocked(host, batch, options);
    };
  }
}

/** Writes `batch` now unless a transaction holds a key of it (or a key in one of its ranges). */
function writeBatchLocked(
  host: LockingWriteHost,
  batch: WriteBatch,
  options: WriteOptions | undefined,
): Promise<void> {
  const locks = host.locks;
  const write = host.writeBatch;
  if (locks.size === 0 || batch.count === 0) return now(() => write(batch, options));
  const names = new Set<string>();
  let ranges: LockedRange[] | undefined;
  try {
    WriteBatch.iterate(
      batch.seal(0),
      {
        apply(kind, key, value, _index, id) {
          if (kind === ValueKind.RangeDeletion)
            (ranges ??= []).push({ familyId: id, start: key.slice(), end: value.slice() });
          else names.add(lockKey(id, key));
        },
      },
      undefined,
      0,
      true,
    );
  } catch (e) {
    return Promise.reject(e);
  }
  let blocked = ranges !== undefined && heldInRanges(host, ranges, undefined).length > 0;
  if (!blocked)
    for (const n of names)
      if (locks.holder(lockKeyFamily(n), lockKeyBytes(n)) !== undefined) blocked = true;
  if (!blocked) return now(() => write(batch, options));
  return lockAndWrite(host, [...names].sort(), ranges, () => write(batch, options));
}

/**
 * The keys in `ranges` whose lock a transaction other than `except` holds. Scans the lock
 * table (only a plain range deletion on a database with locks held pays for it).
 */
function heldInRanges(
  host: LockingWriteHost,
  ranges: readonly LockedRange[],
  except: LockOwner | undefined,
): string[] {
  const out: string[] = [];
  host.locks.forEachHeld((id, key, owner) => {
    if (owner === except) return;
    for (const r of ranges) {
      if (r.familyId !== id) continue;
      const cmp = host.comparatorOf(id);
      if (cmp.compare(key, r.start) >= 0 && cmp.compare(key, r.end) < 0) {
        out.push(lockKey(id, key));
        return;
      }
    }
  });
  return out.sort();
}

/**
 * Takes the locks of `names` (sorted) in turn, then those of every key in `ranges` a
 * transaction holds (again until none is held by another), runs `write`, and releases them.
 */
async function lockAndWrite(
  host: LockingWriteHost,
  names: readonly string[],
  ranges: readonly LockedRange[] | undefined,
  write: () => void,
): Promise<void> {
  const locks = host.locks;
  const owner = new PlainWriter();
  try {
    let next = names;
    for (;;) {
      for (const name of next) {
        const wait = locks.lock(
          owner,
          lockKeyFamily(name),
          lockKeyBytes(name),
          host.lockTimeoutMs,
          host.deadlockDetect,
        );
        if (wait !== undefined) await wait;
      }
      if (ranges === undefined) break;
      next = heldInRanges(host, ranges, owner);
      if (next.length === 0) break;
    }
    write();
  } finally {
    for (const lock of owner.held) locks.unlock(owner, lock);
    owner.held.length = 0;
  }
}
