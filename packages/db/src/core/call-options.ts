/**
 * The options of the database's calls and their validation tables (rules: validate.ts):
 * `WriteOptions` (put, delete, merge, deleteRange, write), `ReadOptions` (get, getView,
 * getMany, has), `IteratorOptions` (iterator), `ClearOptions` (clear), `FlushOptions`
 * (flush), `SnapshotOptions` (snapshot) and `CompactRangeOptions` (compactRange), the last
 * two with no option yet (any name is unknown, as RocksDB's ManagedSnapshot takes none).
 * Open options: options.ts.
 *
 * Each table is a list of rows; a new option is one row (and its field in the interface).
 * `READ_OPTION_ROWS` is shared by `ReadOptions` and `IteratorOptions`, so a read option
 * added there applies to both.
 *
 * What is checked here is each value on its own. What needs the database (a snapshot
 * belongs to it and is not released; `sync` with `disableWAL`; bounds in order under the
 * comparator) is checked at the call.
 */
import type { RangeOptions } from "./range-options.js";
import { Snapshot } from "./snapshot.js";
import { booleanRow, customRow, keyRow, type OptionRow, OptionTable } from "./validate.js";

export type { RangeOptions } from "./range-options.js";

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

/**
 * Read options of `db.iterator()`: the read options, and the range (Level's `gt`, `gte`,
 * `lt`, `lte` beside RocksDB's `lowerBound`, `upperBound`; at most one per side, see
 * core/range-options.ts), `limit` and `reverse`.
 */
export interface IteratorOptions extends ReadOptions, RangeOptions {
  /**
   * The most entries the iterator lands on, counted over all its seeks and moves (the
   * for-of walk yields at most this many). A number >= 0; `Infinity` or -1 (Level's
   * spelling) means none. Default: no limit.
   */
  limit?: number;
  /**
   * The for-of walk starts at the last key in range and goes backwards (with `limit`: the
   * last `limit` keys, largest first). The cursor methods are not affected. Default: false.
   */
  reverse?: boolean;
  /**
   * RocksDB's prefix_same_as_start: with the family's `prefixExtractor`, a seek stays within
   * the seek key's prefix — the iterator is not valid past the last key of that prefix (after
   * seekToFirst/seekToLast: the first/last key's prefix). Ignored without an extractor.
   * Default: false.
   */
  prefixSameAsStart?: boolean;
  /**
   * RocksDB's total_order_seek: seeks use no prefix filter, so every seek is exact over all
   * keys (as without an extractor). Without it (and without `autoPrefixMode`), a seek with a
   * `prefixExtractor` skips the tables whose filter lacks the seek key's prefix, and what
   * follows that prefix is undefined (iterator/prefix-seek.ts). Default: false.
   */
  totalOrderSeek?: boolean;
  /**
   * RocksDB's auto_prefix_mode: results as in total order, the prefix filters used only
   * where the upper bound keeps a seek within the seek key's prefix. Default: false.
   */
  autoPrefixMode?: boolean;
}

/**
 * Options of `db.clear()`: which keys (a range as for iterators, `limit` keys of it from the
 * start — or from the end with `reverse`), and how to write the deletion.
 */
export interface ClearOptions extends RangeOptions, WriteOptions {
  /** Deletes at most this many keys (see IteratorOptions.limit). Default: no limit. */
  limit?: number;
  /** With `limit`: the last keys of the range are deleted. Default: false. */
  reverse?: boolean;
}

/** Options of `db.snapshot()`: none yet (an empty object is fine; any name is unknown). */
export type SnapshotOptions = Readonly<Record<string, never>>;

/** Options of `db.compactRange()`: none yet (an empty object is fine; any name is unknown). */
export type CompactRangeOptions = Readonly<Record<string, never>>;

/** Options of `db.flush()` (RocksDB's FlushOptions). */
export interface FlushOptions {
  /**
   * Wait until the memtable is on disk. With false, the memtable is switched and its flush
   * started, and the promise resolves at once. Default: true.
   */
  wait?: boolean;
}

const WRITE_OPTION_ROWS: readonly OptionRow[] = [booleanRow("sync"), booleanRow("disableWAL")];

export const WRITE_OPTIONS = new OptionTable("writeOptions", WRITE_OPTION_ROWS);

/** Level's range options and RocksDB's bounds (iterator, clear). */
const RANGE_OPTION_ROWS: readonly OptionRow[] = [
  keyRow("gt"),
  keyRow("gte"),
  keyRow("lt"),
  keyRow("lte"),
  keyRow("lowerBound"),
  keyRow("upperBound"),
];

/** Level's `limit`: an integer >= 0, Infinity, or -1 (no limit). */
const LIMIT_ROW = customRow(
  "limit",
  "a number",
  (v) => typeof v === "number",
  (v: number) =>
    v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && v >= -1)
      ? undefined
      : "must be an integer >= 0, or Infinity or -1 for no limit",
);

/** Rows shared by every read: `get`, `getMany`, `iterator`. */
export const READ_OPTION_ROWS: readonly OptionRow[] = [
  customRow("snapshot", "a Snapshot from db.snapshot()", (v) => v instanceof Snapshot),
  booleanRow("fillCache"),
  booleanRow("verifyChecksums"),
];

export const READ_OPTIONS = new OptionTable("readOptions", READ_OPTION_ROWS);

export const ITERATOR_OPTIONS = new OptionTable("readOptions", [
  ...READ_OPTION_ROWS,
  ...RANGE_OPTION_ROWS,
  LIMIT_ROW,
  booleanRow("reverse"),
  booleanRow("prefixSameAsStart"),
  booleanRow("totalOrderSeek"),
  booleanRow("autoPrefixMode"),
]);

export const CLEAR_OPTIONS = new OptionTable("clearOptions", [
  ...RANGE_OPTION_ROWS,
  LIMIT_ROW,
  booleanRow("reverse"),
  ...WRITE_OPTION_ROWS,
]);

export const FLUSH_OPTIONS = new OptionTable("flushOptions", [booleanRow("wait")]);

export const SNAPSHOT_OPTIONS = new OptionTable("snapshotOptions", []);

export const COMPACT_RANGE_OPTIONS = new OptionTable("compactRangeOptions", []);
