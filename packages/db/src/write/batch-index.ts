/**
 * The index entries of a WriteBatchWithIndex (write-batch-with-index.ts): what the batch's
 * operations on one user key add up to, and the merge helper both the batch and its
 * BaseDeltaIterator use. Kept apart so the iterator needs nothing of the batch class.
 */

import type { Comparator } from "@shale/base";
import { ShaleError } from "@shale/base";
import type { MergeOperator } from "../core/merge-operator.js";

/** The entry's operands merge over the database's value (the batch wrote no base). */
export const BASE_NONE = 0;
/** The batch put `value`. */
export const BASE_VALUE = 1;
/** The batch deleted the key (delete, singleDelete or a covering range deletion). */
export const BASE_DELETED = 2;

/** What the batch holds for one user key. */
export class IndexEntry {
  readonly key: Uint8Array;
  /** The key's `keyString` (its name in the index). */
  readonly name: string;
  /** BASE_NONE, BASE_VALUE or BASE_DELETED. */
  base: number;
  /** The value when `base === BASE_VALUE`. */
  value: Uint8Array | undefined;
  /** Merge operands over the base, oldest first; undefined when none. */
  operands: Uint8Array[] | undefined;

  constructor(key: Uint8Array, name: string, base: number) {
    this.key = key;
    this.name = name;
    this.base = base;
    this.value = undefined;
    this.operands = undefined;
  }
}

/** What a BaseDeltaIterator reads of its batch (WriteBatchWithIndex has it). */
export interface BatchDelta {
  readonly comparator: Comparator;
  /** Counts changes to the batch. */
  readonly version: number;
  /** True if the batch holds range deletions. */
  readonly hasRanges: boolean;
  /** The entries sorted by the comparator. */
  sortedEntries(): readonly IndexEntry[];
  /** True if a range deletion of the batch covers `key`. */
  inDeletedRange(key: Uint8Array): boolean;
  /** The entry of `key`, if the batch has a point operation on it. */
  entry(key: Uint8Array): IndexEntry | undefined;
}

/** Applies `op`; its failure (undefined) is Corruption, as on every read path. */
export function fullMerge(
  op: MergeOperator,
  key: Uint8Array,
  base: Uint8Array | undefined,
  operands: readonly Uint8Array[],
): Uint8Array {
  const v = op.fullMerge(key, base, operands);
  if (v === undefined) throw ShaleError.corruption(`merge operator ${op.name} failed`);
  return v;
}
