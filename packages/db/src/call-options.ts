/**
 * The options of the database's calls and their validation tables (rules: validate.ts):
 * `WriteOptions` (put, delete, merge, deleteRange, write), `ReadOptions` (get, getMany),
 * `IteratorOptions` (iterator), `FlushOptions` (flush). Open options: options.ts.
 *
 * Each table is a list of rows; a new option is one row (and its field in the interface).
 * `READ_OPTION_ROWS` is shared by `ReadOptions` and `IteratorOptions`, so a read option
 * added there applies to both.
 *
 * What is checked here is each value on its own. What needs the database (a snapshot
 * belongs to it and is not released; `sync` with `disableWAL`; bounds in order under the
 * comparator) is checked at the call.
 */
import { Snapshot } from "./snapshot.js";
import { booleanRow, customRow, keyRow, type OptionRow, OptionTable } from "./validate.js";

export interface WriteOptions {
  /** fsync the WAL before returning (survives a power cut). Default: false (survives a process crash). */
  sync?: boolean;
  /** Skip the WAL: the write is lost if the process dies before a flush. Default: false. */
  disableWAL?: boolean;
}

export interface ReadOptions {
  /**
   * Read as of this snapshot, from `db.snapshot()` of this database and not released
   * (else InvalidArgument). Default: the latest state.
   */
  snapshot?: Snapshot;
  /** Put blocks read into the block cache. Default: true. */
  fillCache?: boolean;
  /** Verify block checksums. Default: true. */
  verifyChecksums?: boolean;
}

/** Read options of `db.iterator()`. */
export interface IteratorOptions extends ReadOptions {
  /** Inclusive lower bound on keys. Default: none. */
  lowerBound?: Uint8Array | string;
  /** Exclusive upper bound on keys. Default: none. */
  upperBound?: Uint8Array | string;
  /** The iterable protocol walks from the last key backwards. Default: false. */
  reverse?: boolean;
}

/** Options of `db.flush()` (RocksDB's FlushOptions). */
export interface FlushOptions {
  /**
   * Wait until the memtable is on disk. With false, the memtable is switched and its flush
   * started, and the promise resolves at once. Default: true.
   */
  wait?: boolean;
}

export const WRITE_OPTIONS = new OptionTable("writeOptions", [
  booleanRow("sync"),
  booleanRow("disableWAL"),
]);

/** Rows shared by every read: `get`, `getMany`, `iterator`. */
export const READ_OPTION_ROWS: readonly OptionRow[] = [
  customRow("snapshot", "a Snapshot from db.snapshot()", (v) => v instanceof Snapshot),
  booleanRow("fillCache"),
  booleanRow("verifyChecksums"),
];

export const READ_OPTIONS = new OptionTable("readOptions", READ_OPTION_ROWS);

export const ITERATOR_OPTIONS = new OptionTable("readOptions", [
  ...READ_OPTION_ROWS,
  keyRow("lowerBound"),
  keyRow("upperBound"),
  booleanRow("reverse"),
]);

export const FLUSH_OPTIONS = new OptionTable("flushOptions", [booleanRow("wait")]);
