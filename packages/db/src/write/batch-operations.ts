/**
 * The handlers of a batch's records (`WriteBatchHandler`: what `WriteBatch.iterate` calls
 * for each record it decodes, write-batch.ts), and two of them: a batch's operations as a
 * JavaScript caller sees them (`for (const op of batch)`), and what `WriteBatch.fromData`
 * learns while it checks a batch.
 */
import { ValueKind } from "@shale/base";

/** Receives the operations of a batch in order (see `WriteBatch.iterate`). */
export interface WriteBatchHandler {
  /**
   * `value` is the value, merge operand or range end; views into the batch. `family`: the
   * column family id (0 = default; other ids only with `iterate(..., allFamilies)`).
   */
  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, index: number, family: number): void;
  /**
   * A two-phase commit marker (`BatchMarker`; `xid` for EndPrepare, Commit and Rollback, a
   * view into the batch); `index`: the number of operations before it. Without this method
   * a marker is NotSupported (a WAL of prepared transactions opened without transactionDB).
   */
  marker?(type: number, xid: Uint8Array | undefined, index: number): void;
}

/**
 * One operation of a batch, as `for (const op of batch)` yields it. `key` and `value` are
 * copies the caller owns. `columnFamily` is RocksDB's column family id (0: default).
 * - `put`: `value` is the value; `merge`: the operand;
 * - `delete`, `singleDelete`: no value;
 * - `deleteRange`: `key` is the range's start and `value` its end (exclusive), as RocksDB's
 *   record stores them;
 * - `blobIndex`: a RocksDB BlobDB record (the value is a blob index, not the value); only
 *   batches RocksDB wrote hold one.
 */
export type BatchOperation =
  | {
      readonly type: "put" | "merge" | "deleteRange" | "blobIndex";
      readonly key: Uint8Array;
      readonly value: Uint8Array;
      readonly columnFamily: number;
    }
  | {
      readonly type: "delete" | "singleDelete";
      readonly key: Uint8Array;
      readonly columnFamily: number;
    };

/** The operation names of `BatchOperation`, by ValueKind. */
const OPERATION_TYPES: Readonly<Record<number, BatchOperation["type"]>> = Object.freeze({
  [ValueKind.Value]: "put",
  [ValueKind.Deletion]: "delete",
  [ValueKind.SingleDeletion]: "singleDelete",
  [ValueKind.Merge]: "merge",
  [ValueKind.RangeDeletion]: "deleteRange",
  [ValueKind.BlobIndex]: "blobIndex",
});

/** Collects a batch's operations as BatchOperations (copies). */
export class OperationCollector implements WriteBatchHandler {
  readonly ops: BatchOperation[] = [];
  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, _index: number, family: number) {
    const type = OPERATION_TYPES[kind]!;
    this.ops.push(
      type === "delete" || type === "singleDelete"
        ? { type, key: key.slice(), columnFamily: family }
        : { type, key: key.slice(), value: value.slice(), columnFamily: family },
    );
  }
  marker(): void {}
}

/** What `fromData` learns while checking a batch: its kinds and column families. */
export class BatchSurvey implements WriteBatchHandler {
  kinds = 0;
  readonly families = new Set<number>();
  apply(kind: ValueKind, _key: Uint8Array, _value: Uint8Array, _index: number, family: number) {
    this.kinds |= 1 << kind;
    if (family !== 0) this.families.add(family);
  }
  marker(): void {}
}
