/**
 * @shale/merging-iterator — a k-way merge of sorted iterators on a binary heap whose
 * replaceTop costs one comparison when the same input stays smallest (RocksDB's
 * `util/heap.h` and `MergingIterator`).
 */
export { BinaryHeap, type LowerPriority } from "./binary-heap.js";
export {
  MergingIterator,
  type MergingIteratorOptions,
  newMergingIterator,
} from "./merging-iterator.js";
export {
  type MergeOperator,
  newUserKeyIterator,
  type RangeTombstoneSource,
  UserKeyIterator,
  type UserKeyIteratorOptions,
} from "./user-key-iterator.js";
