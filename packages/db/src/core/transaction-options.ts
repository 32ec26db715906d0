/**
 * The options of transactions and their validation tables (rules: core/validate.ts):
 * `TransactionDBOptions` (the open option `transactionDB`, which makes every transaction
 * pessimistic), `TransactionOptions` (`db.beginTransaction`) and `RunTransactionOptions`
 * (`db.transaction`).
 */
import { booleanRow, customRow, type OptionRow, OptionTable } from "./validate.js";

/** The open option `transactionDB` (RocksDB's TransactionDBOptions). */
export interface TransactionDBOptions {
  /**
   * How long a transaction waits for a key's lock before failing with `TimedOut`, in
   * milliseconds; 0 fails at once when the key is locked; -1 waits without a limit.
   * Default: 1000 (RocksDB's transaction_lock_timeout).
   */
  lockTimeoutMs?: number;
  /**
   * How long a plain write (`db.put`, `delete`, `merge`, `deleteRange`, `clear`, `write`,
   * of the database or a column family handle) waits for the lock of a key a transaction
   * holds before its promise rejects with `TimedOut`, per key, in milliseconds; 0 and -1 as
   * for `lockTimeoutMs`. Default: 1000 (RocksDB's default_lock_timeout).
   */
  defaultLockTimeoutMs?: number;
  /**
   * Detect deadlocks when a transaction starts to wait: if the wait would close a cycle of
   * waiters, it fails at once with `Busy` ("deadlock") instead of waiting out the timeout.
   * Default: false (RocksDB's deadlock_detect); a transaction can turn it on for itself.
   * Plain writes that wait for a lock check too when this is on.
   */
  deadlockDetect?: boolean;
}

/** Options of `db.beginTransaction()`. */
export interface TransactionOptions {
  /**
   * Take a snapshot when the transaction begins: its reads see the database as of then
   * (with its own writes over it), and a commit fails with `Busy` if a key it read with
   * `getForUpdate` or wrote was written by someone else after the snapshot. Without one,
   * reads see the latest state and a key conflicts only if written after the transaction
   * first tracked it. Default: false.
   */
  snapshot?: boolean;
  /** Pessimistic transactions: this transaction's lock timeout. Default: the database's. */
  lockTimeoutMs?: number;
  /** Pessimistic transactions: deadlock detection for this transaction. Default: the database's. */
  deadlockDetect?: boolean;
}

/** Options of `db.transaction(fn, options)`. */
export interface RunTransactionOptions {
  /**
   * How many times the function is run again after a commit (or a lock wait) failed with
   * `Busy` or `TryAgain`. Default: 10.
   */
  retries?: number;
  /** As TransactionOptions.snapshot. Default: false. */
  snapshot?: boolean;
  /** fsync the WAL at commit (WriteOptions.sync). Default: false. */
  sync?: boolean;
}

/** A lock timeout: an integer >= -1. */
const lockTimeoutRow = (name: string): OptionRow =>
  customRow(
    name,
    "a number",
    (v) => typeof v === "number",
    (v: number) =>
      Number.isInteger(v) && v >= -1 ? undefined : "must be an integer >= -1 (-1: no limit)",
  );

export const TRANSACTION_DB_OPTIONS = new OptionTable("options.transactionDB", [
  lockTimeoutRow("lockTimeoutMs"),
  lockTimeoutRow("defaultLockTimeoutMs"),
  booleanRow("deadlockDetect"),
]);

export const TRANSACTION_OPTIONS = new OptionTable("transactionOptions", [
  booleanRow("snapshot"),
  lockTimeoutRow("lockTimeoutMs"),
  booleanRow("deadlockDetect"),
]);

export const RUN_TRANSACTION_OPTIONS = new OptionTable("transactionOptions", [
  customRow(
    "retries",
    "a number",
    (v) => typeof v === "number",
    (v: number) => (Number.isInteger(v) && v >= 0 ? undefined : "must be an integer >= 0"),
  ),
  booleanRow("snapshot"),
  booleanRow("sync"),
]);

/** The resolved `transactionDB` option. */
export interface ResolvedTransactionDBOptions {
  lockTimeoutMs: number;
  defaultLockTimeoutMs: number;
  deadlockDetect: boolean;
}

export function resolveTransactionDBOptions(o: unknown): ResolvedTransactionDBOptions {
  TRANSACTION_DB_OPTIONS.check(o);
  const t = o as TransactionDBOptions;
  return {
    lockTimeoutMs: t.lockTimeoutMs ?? 1000,
    defaultLockTimeoutMs: t.defaultLockTimeoutMs ?? 1000,
    deadlockDetect: t.deadlockDetect ?? false,
  };
}
