/**
 * The merge operator contract (RocksDB's MergeOperator), shared by every package that
 * resolves merge operands: the engine (@shale/db, with its built-in operators) and the
 * user-key iterator of @shale/merging-iterator. One definition, so an operator written for
 * one is accepted by the other.
 *
 * `fullMerge(key, existing, operands)` gets the base value (`undefined` when there is none
 * or it was deleted) and the operands oldest first (at least one), and returns the merged
 * value, or `undefined` for a failed merge. `partialMerge(key, left, right)`, optional,
 * combines two adjacent operands (left older) into one, or returns `undefined` when it
 * cannot. Views passed in are valid during the call only. The `name` is what a database
 * records: reopening it with another operator is refused.
 */
export interface MergeOperator {
  readonly name: string;
  fullMerge(
    key: Uint8Array,
    existing: Uint8Array | undefined,
    operands: readonly Uint8Array[],
  ): Uint8Array | undefined;
  partialMerge?(key: Uint8Array, left: Uint8Array, right: Uint8Array): Uint8Array | undefined;
}
