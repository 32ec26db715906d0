/**
 * @shale/range-tombstones — range deletions for any sorted keyspace.
 *
 * Overlapping `[start, end)@seq` tombstones are fragmented once into sorted, non-overlapping
 * fragments, each with the descending stack of the seqs covering it; then
 * `maxCoveringSeq(key, snapshot)` answers "is this version of the key deleted?" in
 * O(log fragments + log stack), and a `FragmentIterator` walks the fragments visible at a
 * snapshot. `forCompaction(snapshots)` keeps only what some snapshot can still see.
 */

/** Re-exported from `@shale/base` for convenience: `{ start, end, seq }`. */
export type { RangeTombstone } from "@shale/base";
export type { FragmentIterator } from "./fragment-iterator.js";
export { type Fragment, FragmentedRangeTombstoneList } from "./fragmented-list.js";
