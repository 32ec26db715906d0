/**
 * @shale/db — the shale engine. Most users want the `shale` package, which re-exports this
 * with defaults; use @shale/db directly to assemble an engine with your own parts.
 */

export type {
  ClearOptions,
  CompactRangeOptions,
  RangeOptions,
  SnapshotOptions,
} from "./call-options.js";
export type { ImmutableMemTable, PinnedVersion } from "./db.js";
export { DB } from "./db.js";
export { DBIterator } from "./iterator/index.js";
export {
  decodeUint64,
  encodeUint64,
  type MergeOperator,
  maxOperator,
  resolveMergeOperator,
  stringAppendOperator,
  uint64AddOperator,
} from "./merge-operator.js";
export type {
  DbOptions,
  FlushOptions,
  IteratorOptions,
  ReadOptions,
  WriteOptions,
} from "./options.js";
export { Snapshot } from "./snapshot.js";
export { WriteBatch } from "./write-batch.js";
