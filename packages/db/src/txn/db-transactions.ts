/**
 * DbTransactions: what a database keeps for its transactions — the key locks of a
 * TransactionDB (lock-manager.ts) and the waiting plain writes installed on the database
 * and its handles (transaction-db.ts), the WALs two-phase commit keeps (two-phase.ts), the
 * host transactions call back into (transaction.ts), a finished transaction's batch and
 * tracked-key set for reuse — and `begin` and `run`, which back `db.beginTransaction` and `db.transaction`.
 * db.ts keeps the public methods.
 *
 * Threading: the database's thread.
 */
import { ShaleError } from "@shale/base";
import type { ColumnFamilyData } from "../column-family/column-family-data.js";
import type { ColumnFamilySet } from "../column-family/column-family-set.js";
import type { DbStatus } from "../column-family/db-status.js";
import type { FamilyMethodsCore } from "../column-family/family-methods.js";
import { ColumnFamilyHandle } from "../column-family/handle.js";
import type { WriteLoop } from "../column-family/write-loop.js";
import type { WriteOptions } from "../core/call-options.js";
import type { Snapshot } from "../core/snapshot.js";
import {
  type ResolvedTransactionDBOptions,
  RUN_TRANSACTION_OPTIONS,
  type RunTransactionOptions,
  TRANSACTION_OPTIONS,
  type TransactionOptions,
} from "../core/transaction-options.js";
import { type BatchReadDB, WriteBatchWithIndex } from "../write/write-batch-with-index.js";
import { type ConflictFamily, checkConflicts } from "./conflict-check.js";
import { type KeyLock, LockManager } from "./lock-manager.js";
import { TrackedKeys } from "./tracked-keys.js";
import {
  OptimisticTransaction,
  PessimisticTransaction,
  type Transaction,
  type TransactionHost,
} from "./transaction.js";
import { installLockingWrites, type LockingWriteHost } from "./transaction-db.js";
import type { PreparedLogs } from "./two-phase.js";

/** What DbTransactions uses of the database. */
export interface DbTransactionsParts {
  readonly db: BatchReadDB;
  readonly families: ColumnFamilySet;
  readonly writes: WriteLoop;
  readonly status: DbStatus;
  /** The `default` family (a transaction's batch orders keys like it). */
  readonly defaultFamily: ColumnFamilyData;
  /** The WALs two-phase commit keeps (made with the database's parts: its WAL rule reads them). */
  readonly preparedLogs: PreparedLogs;
  snapshot(): Snapshot;
  /** Throws what a write would throw. */
  checkWritable(): void;
}

export class DbTransactions {
  /** A TransactionDB's key locks; undefined for other databases. */
  readonly locks: LockManager | undefined;
  private hostCache: TransactionHost | undefined;
  private lockingHost: LockingWriteHost | undefined;
  /** A finished transaction's batch, kept for the next transaction. */
  private spareBatch: WriteBatchWithIndex | undefined;
  /** A finished optimistic transaction's tracked-key set, kept for the next one. */
  private spareTracked: TrackedKeys | undefined;
  /** A finished pessimistic transaction's (empty) held-lock list, kept for the next one. */
  private spareHeld: KeyLock[] | undefined;

  constructor(
    private readonly parts: DbTransactionsParts,
    private readonly options: ResolvedTransactionDBOptions | undefined,
  ) {
    this.locks = options !== undefined ? new LockManager() : undefined;
  }

  /**
   * On a TransactionDB, makes the plain writes of `target` (the database, `family` undefined,
   * or a family's handle) wait for the key locks of pessimistic transactions
   * (transaction-db.ts); nothing otherwise.
   */
  installLockingWrites(
    target: FamilyMethodsCore | object,
    familyId: number,
    family: ColumnFamilyHandle | undefined,
  ): void {
    const locks = this.locks;
    if (locks === undefined) return;
    const { families, writes, defaultFamily } = this.parts;
    const options = this.options!;
    this.lockingHost ??= {
      locks,
      lockTimeoutMs: options.defaultLockTimeoutMs,
      deadlockDetect: options.deadlockDetect,
      comparatorOf: (id) => (families.get(id) ?? defaultFamily).icmp.user,
      writeBatch: (batch, writeOptions) => writes.write(batch, writeOptions),
    };
    installLockingWrites(
      target as Parameters<typeof installLockingWrites>[0],
      familyId,
      family,
      this.lockingHost,
      family === undefined,
    );
  }

  /** `db.beginTransaction`: optimistic, or pessimistic on a TransactionDB. */
  begin(options: TransactionOptions | undefined): Transaction {
    if (options !== undefined) TRANSACTION_OPTIONS.check(options);
    const { families, defaultFamily } = this.parts;
    this.parts.checkWritable();
    // `default` alone (the common case) is checked without iterating the set.
    if (families.size === 1 ? defaultFamily.options.ttl !== undefined : true)
      for (const f of families.values())
        if (f.options.ttl !== undefined)
          throw ShaleError.notSupported(
            `transactions on a database with ttl (column family ${JSON.stringify(f.name)}) are not supported, as in RocksDB's DBWithTTL`,
          );
    const host = this.host();
    const snapshot = options?.snapshot === true;
    if (this.locks === undefined) {
      if (options?.lockTimeoutMs !== undefined || options?.deadlockDetect !== undefined)
        throw ShaleError.invalidArgument(
          "lockTimeoutMs and deadlockDetect are for pessimistic transactions (open with transactionDB)",
        );
      return new OptimisticTransaction(host, snapshot);
    }
    return new PessimisticTransaction(
      host,
      snapshot,
      options?.lockTimeoutMs ?? host.lockTimeoutMs,
      options?.deadlockDetect ?? host.deadlockDetect,
    );
  }

  /** `db.transaction`: runs `fn` in a transaction, retrying on Busy and TryAgain. */
  async run<T>(
    fn: (txn: Transaction) => T | Promise<T>,
    options: RunTransactionOptions | undefined,
  ): Promise<T> {
    if (typeof fn !== "function") throw new TypeError("transaction() takes a function");
    if (options !== undefined) RUN_TRANSACTION_OPTIONS.check(options);
    const retries = options?.retries ?? 10;
    const begin: TransactionOptions | undefined =
      options?.snapshot === true ? { snapshot: true } : undefined;
    const commitOptions: WriteOptions | undefined =
      options?.sync === true ? { sync: true } : undefined;
    for (let attempt = 0; ; attempt++) {
      const txn = this.begin(begin);
      try {
        const result = await fn(txn);
        if (txn.isActive) txn.commit(commitOptions);
        return result;
      } catch (e) {
        if (txn.isActive) txn.rollback();
        const retry = ShaleError.isInstance(e) && (e.code === "Busy" || e.code === "TryAgain");
        if (!retry || attempt >= retries) throw e;
      }
    }
  }

  /** What transactions use of the database (made once). */
  host(): TransactionHost {
    if (this.hostCache !== undefined) return this.hostCache;
    const { db, families, writes, status, defaultFamily } = this.parts;
    const conflictFamily = (id: number): ConflictFamily | undefined => {
      const cf = families.get(id);
      if (cf === undefined || cf.dropped) return undefined;
      return {
        mem: cf.mem,
        imm: cf.flushes.imm,
        history: cf.flushes.history,
        comparator: cf.icmp.user,
        memCreatedSeq: cf.memCreatedSeq,
      };
    };
    const host: TransactionHost = {
      db,
      locks: this.locks,
      lockTimeoutMs: this.options?.lockTimeoutMs ?? 0,
      deadlockDetect: this.options?.deadlockDetect ?? false,
      lastSequence: () => writes.lastSeq,
      snapshot: () => this.parts.snapshot(),
      checkFamily: (handle) => {
        if (!(handle instanceof ColumnFamilyHandle))
          throw new TypeError("the column family must be a handle from db.columnFamily()");
        families.familyOf(handle);
        return handle;
      },
      checkConflicts: (keys, result) => {
        status.checkOpen();
        return checkConflicts(keys, conflictFamily, writes.lastSeq, result);
      },
      commitBatch: (batch, options) => writes.write(batch, options),
      commitOne: (kind, key, value, options) =>
        writes.writeOne(defaultFamily, kind, key, value, options),
      takeBatch: () => {
        const spare = this.spareBatch;
        if (spare !== undefined) {
          this.spareBatch = undefined;
          return spare;
        }
        return new WriteBatchWithIndex({
          comparator: defaultFamily.icmp.user,
          ...(defaultFamily.mergeOperator !== undefined
            ? { mergeOperator: defaultFamily.mergeOperator }
            : {}),
        });
      },
      returnBatch: (batch) => {
        this.spareBatch = batch;
      },
      takeTracked: () => {
        const spare = this.spareTracked;
        if (spare === undefined) return new TrackedKeys();
        this.spareTracked = undefined;
        return spare;
      },
      returnTracked: (tracked) => {
        this.spareTracked = tracked;
      },
      takeHeld: () => {
        const spare = this.spareHeld;
        if (spare === undefined) return [];
        this.spareHeld = undefined;
        return spare;
      },
      returnHeld: (held) => {
        this.spareHeld = held;
      },
      names: new Map(),
      preparedLogs: this.parts.preparedLogs,
      appendToWal: (record, options) => {
        writes.appendToWal(record, options);
        return writes.walNumber;
      },
      commitPrepared: (batch, walRecord, options) => {
        const mems = [defaultFamily.mem];
        for (const h of batch.families ?? []) mems.push(families.familyOf(h).mem);
        writes.write(batch, options, walRecord);
        return mems;
      },
      familyHandle: (id) => {
        const cf = families.get(id);
        if (cf === undefined) throw ShaleError.invalidArgument(`no column family ${id}`);
        return families.handleOf(cf);
      },
    };
    this.hostCache = host;
    return host;
  }
}
