/**
 * shale — an embedded, durable, sorted key-value store for Node.js.
 *
 * ```ts
 * import { open, WriteBatch } from "shale";
 * const db = await open("./data");
 * db.put("hello", "world");
 * db.get("hello"); // a Uint8Array copy of "world" (db.getView: zero-copy, read-only)
 * await db.close();
 * ```
 *
 * This package is thin: `open()` with defaults, and re-exports of the engine (@shale/db)
 * and of the types users meet (errors, comparators, file systems, statistics).
 */
import { DB, type DbOptions } from "@shale/db";

/** Opens (creating if missing) the database in `dir`. */
export function open(dir: string, options?: DbOptions): Promise<DB> {
  return DB.open(dir, options);
}

export {
  bytewiseComparator,
  type Comparator,
  ErrorCode,
  FaultInjectionFileSystem,
  type FileSystem,
  Histogram,
  isShaleError,
  MemoryFileSystem,
  NodeFileSystem,
  reverseBytewiseComparator,
  ShaleError,
  Statistics,
  Ticker,
} from "@shale/base";
export {
  type ClearOptions,
  DB,
  type DbOptions,
  decodeUint64,
  encodeUint64,
  type FlushOptions,
  type IteratorOptions,
  type MergeOperator,
  maxOperator,
  type RangeOptions,
  type ReadOptions,
  Snapshot,
  stringAppendOperator,
  uint64AddOperator,
  WriteBatch,
  type WriteOptions,
} from "@shale/db";
export { WalRecoveryMode } from "@shale/wal";
