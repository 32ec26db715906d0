/**
 * WriteBatch: an atomic group of updates, in RocksDB's representation. The whole batch is
 * one WAL record, and its operations get consecutive sequence numbers.
 *
 * ```
 * rep    := seq: fixed64 ‖ count: fixed32 ‖ record{count}
 * record := 0x01 (Value)          ‖ varstring key ‖ varstring value
 *         | 0x00 (Deletion)       ‖ varstring key
 *         | 0x07 (SingleDeletion) ‖ varstring key
 *         | 0x02 (Merge)          ‖ varstring key ‖ varstring operand
 *         | 0x0F (RangeDeletion)  ‖ varstring start ‖ varstring end
 * varstring := varint32 length ‖ bytes
 * ```
 *
 * Two-phase commit markers (RocksDB's, WAL only; txn/two-phase.ts writes and replays them)
 * take no sequence number and are not counted: 0x09 BeginPrepare, 0x0A EndPrepare ‖
 * varstring xid, 0x0B Commit ‖ varstring xid, 0x0C Rollback ‖ varstring xid, and 0x0D Noop
 * (RocksDB's transactions start their batches with one; skipped everywhere).
 *
 * Example: seq 5, one put("k", "v") →
 * `05 00 00 00 00 00 00 00 | 01 00 00 00 | 01 01 6b 01 76`; op i gets seq 5 + i.
 *
 * Keys and values are copied into the batch when added, so callers may reuse their buffers.
 *
 * Outside the engine a batch travels as these bytes: `batch.data()` is the representation
 * (exactly a WAL record's payload: the header holds the sequence the batch was written
 * with, 0 before that, and its count), `WriteBatch.fromData(bytes)` checks and adopts one
 * (a batch RocksDB wrote, or one from the change feed, `db.getUpdatesSince`), and
 * `for (const op of batch)` walks its operations as `BatchOperation`s.
 */

import {
  ByteWriter,
  compareBytes,
  Decoder,
  putFixed32,
  putFixed64,
  putLengthPrefixed,
  putVarint32,
  ShaleError,
  toBytes,
  ValueKind,
  varintLength,
} from "@shale/base";
import {
  type BatchOperation,
  BatchSurvey,
  OperationCollector,
  type WriteBatchHandler,
} from "./batch-operations.js";

export const BATCH_HEADER_SIZE = 12;

export type { WriteBatchHandler } from "./batch-operations.js";

/**
 * RocksDB's two-phase commit record types (db/dbformat.h): part of the WAL format; do not
 * change.
 */
export const BatchMarker = {
  BeginPrepare: 0x09,
  EndPrepare: 0x0a,
  Commit: 0x0b,
  Rollback: 0x0c,
  Noop: 0x0d,
  /** WritePrepared / WriteUnprepared transactions' begin markers: not supported. */
  BeginPersistedPrepare: 0x12,
  BeginUnprepare: 0x13,
  CommitWithTimestamp: 0x15,
} as const;

/** True for a marker type (see BatchMarker). */
function isMarker(type: number): boolean {
  return (
    (type >= BatchMarker.BeginPrepare && type <= BatchMarker.Noop) ||
    type === BatchMarker.BeginPersistedPrepare ||
    type === BatchMarker.BeginUnprepare ||
    type === BatchMarker.CommitWithTimestamp
  );
}

/** A column family handle as a batch sees it (`db.columnFamily(name)`). */
export interface BatchFamily {
  /** RocksDB's column family id. */
  readonly id: number;
}

/** The record type of `kind` in column family `family` != 0 (RocksDB's kTypeColumnFamily*). */
const FAMILY_RECORD_TYPES: Readonly<Record<number, number>> = Object.freeze({
  [ValueKind.Deletion]: 4,
  [ValueKind.Value]: 5,
  [ValueKind.Merge]: 6,
  [ValueKind.SingleDeletion]: 8,
  [ValueKind.RangeDeletion]: 14,
});

const EMPTY = new Uint8Array(0);

/**
 * @internal The encoded size of a batch of one operation of column family `id` (0: the
 * default family): what `new WriteBatch().addIn(id, kind, key, value).seal(seq)` returns.
 */
export function singleBatchSize(
  id: number,
  kind: ValueKind,
  key: Uint8Array,
  value: Uint8Array,
): number {
  let n = BATCH_HEADER_SIZE + 1 + varintLength(key.length) + key.length;
  if (id !== 0) n += varintLength(id);
  if (kind !== ValueKind.Deletion && kind !== ValueKind.SingleDeletion)
    n += varintLength(value.length) + value.length;
  return n;
}

/**
 * @internal Writes at `dst[pos, ...)` the batch of one operation that `singleBatchSize`
 * measured, sealed with `seq` (the bytes `addIn` and `seal` make); returns the end.
 * REQUIRES: room for `singleBatchSize(id, kind, key, value)` bytes.
 */
export function encodeSingleBatch(
  dst: Uint8Array,
  pos: number,
  seq: number,
  id: number,
  kind: ValueKind,
  key: Uint8Array,
  value: Uint8Array,
): number {
  putFixed64(dst, pos, seq);
  putFixed32(dst, pos + 8, 1);
  pos += BATCH_HEADER_SIZE;
  if (id === 0) {
    dst[pos++] = kind;
  } else {
    dst[pos++] = FAMILY_RECORD_TYPES[kind]!;
    pos = putVarint32(dst, pos, id);
  }
  pos = putLengthPrefixed(dst, pos, key);
  if (kind !== ValueKind.Deletion && kind !== ValueKind.SingleDeletion)
    pos = putLengthPrefixed(dst, pos, value);
  return pos;
}

/** RocksDB's kTypeLogData: a varstring blob, not an operation. */
const LOG_DATA = 0x03;
/** RocksDB's column-family record types -> the operation they carry (db/dbformat.h). */
const COLUMN_FAMILY_KINDS: Readonly<Record<number, ValueKind>> = Object.freeze({
  4: ValueKind.Deletion,
  5: ValueKind.Value,
  6: ValueKind.Merge,
  8: ValueKind.SingleDeletion,
  14: ValueKind.RangeDeletion,
  16: ValueKind.BlobIndex, // kTypeColumnFamilyBlobIndex
});

/** The operation a column-family record type carries (undefined: not one). @internal */
export function familyRecordKind(type: number): ValueKind | undefined {
  return COLUMN_FAMILY_KINDS[type];
}

/**
 * A column family named by its id alone: what `WriteBatch.fromData` records for a batch's
 * records of families other than default. The database that writes the batch maps the id to
 * its own family of that id (InvalidArgument if it has none).
 */
export class FamilyId implements BatchFamily {
  constructor(readonly id: number) {}
}

export class WriteBatch {
  /** @internal the encoded batch (header + records). */
  readonly rep: ByteWriter;
  private n = 0;
  /** @internal bit (1 << kind) set for every kind the batch holds. */
  kinds = 0;
  /** @internal the handles of families other than default the batch writes (undefined: none). */
  families: BatchFamily[] | undefined;

  constructor() {
    this.rep = new ByteWriter(64);
    this.rep.ensure(BATCH_HEADER_SIZE);
    this.rep.pos = BATCH_HEADER_SIZE;
  }

  /** Stores `key -> value`. Strings are UTF-8 encoded. */
  put(key: Uint8Array | string, value: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.Value, toBytes(key, "key"), toBytes(value, "value"));
  }

  /** Deletes `key` (of column family `family`; default: the default family). */
  delete(key: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.Deletion, toBytes(key, "key"), EMPTY);
  }

  /**
   * Deletes `key`, which must have been put at most once since its last deletion and never
   * merged (RocksDB's SingleDelete). Cheaper in compaction; undefined results otherwise.
   */
  singleDelete(key: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.SingleDeletion, toBytes(key, "key"), EMPTY);
  }

  /** Adds a merge operand for `key` (the family needs a merge operator). */
  merge(key: Uint8Array | string, operand: Uint8Array | string, family?: BatchFamily): this {
    return this.addTo(family, ValueKind.Merge, toBytes(key, "key"), toBytes(operand, "operand"));
  }

  /**
   * Deletes every key in [start, end) (bytewise order; the database checks the order again
   * with its comparator). start > end is an InvalidArgument error.
   */
  deleteRange(start: Uint8Array | string, end: Uint8Array | string, family?: BatchFamily): this {
    const s = toBytes(start, "start");
    const e = toBytes(end, "end");
    if (compareBytes(s, e) > 0) throw ShaleError.invalidArgument("deleteRange: start is after end");
    return this.addTo(family, ValueKind.RangeDeletion, s, e);
  }

  /**
   * Appends one record for `family` (undefined or id 0: a plain record; else RocksDB's
   * column-family record: its type, varint32 id, then the fields). The handle is checked to
   * be the database's when the batch is written. @internal
   */
  addTo(
    family: BatchFamily | undefined,
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
  ): this {
    if (family === undefined) return this.add(kind, key, value);
    if (typeof family !== "object" || family === null || typeof family.id !== "number")
      throw new TypeError("the column family must be a handle from db.columnFamily()");
    const families = (this.families ??= []);
    if (!families.includes(family)) families.push(family);
    return this.addIn(family.id, kind, key, value);
  }

  /** @internal appends one record of column family `id` (0: a plain record). */
  addIn(id: number, kind: ValueKind, key: Uint8Array, value: Uint8Array): this {
    if (id === 0) return this.add(kind, key, value);
    const w = this.rep;
    w.ensure(16 + key.length + value.length);
    w.buf[w.pos++] = FAMILY_RECORD_TYPES[kind]!;
    w.varint32(id);
    w.lengthPrefixed(key);
    if (kind !== ValueKind.Deletion && kind !== ValueKind.SingleDeletion) w.lengthPrefixed(value);
    this.n++;
    this.kinds |= 1 << kind;
    return this;
  }

  /** @internal appends one record. */
  add(kind: ValueKind, key: Uint8Array, value: Uint8Array): this {
    const w = this.rep;
    w.ensure(11 + key.length + value.length);
    w.buf[w.pos++] = kind;
    w.lengthPrefixed(key);
    if (kind !== ValueKind.Deletion && kind !== ValueKind.SingleDeletion) w.lengthPrefixed(value);
    this.n++;
    this.kinds |= 1 << kind;
    return this;
  }

  /** Number of operations. */
  get count(): number {
    return this.n;
  }

  /**
   * The sequence number in the batch's header: the one it was last written with (or came
   * with, from `fromData`), its first operation's; 0 for a batch never written.
   */
  get sequence(): number {
    return WriteBatch.sequence(this.rep.buf);
  }

  /** Encoded size in bytes (what the WAL record will hold). */
  get byteSize(): number {
    return this.rep.pos;
  }

  /**
   * @internal cuts the batch back to an earlier state: `byteSize`, `count` and `kinds` as
   * they were then (savepoints of WriteBatchWithIndex and transactions).
   */
  truncate(byteSize: number, count: number, kinds: number): void {
    this.rep.pos = byteSize;
    this.n = count;
    this.kinds = kinds;
  }

  clear(): this {
    this.rep.pos = BATCH_HEADER_SIZE;
    this.n = 0;
    this.kinds = 0;
    this.families = undefined;
    return this;
  }

  /**
   * RocksDB's representation of the batch (a copy): `sequence: fixed64 ‖ count: fixed32 ‖
   * records`, exactly what a WAL record of it holds. The sequence is the one the batch was
   * last written with (or came with, from `fromData`); 0 for a batch never written.
   */
  data(): Uint8Array {
    return this.stamped().slice();
  }

  /**
   * The batch whose representation is `data` (as `data()` returns it, or a RocksDB WAL
   * record's payload), checked record by record and copied. Records of column families
   * other than default keep their family id (`FamilyId`): the database that writes the
   * batch applies them to its family of that id. Two-phase commit markers and LogData blobs
   * are kept as they are. TypeError if `data` is not a Uint8Array; Corruption if it is not a
   * whole, well-formed batch (too short, an unknown record type, a record cut short, fewer
   * records than the header's count, or bytes after the last record).
   */
  static fromData(data: Uint8Array): WriteBatch {
    if (!(data instanceof Uint8Array)) throw new TypeError("fromData takes a Uint8Array");
    const survey = new BatchSurvey();
    WriteBatch.iterate(data, survey, "write batch data", 0, true);
    const batch = new WriteBatch();
    const w = batch.rep;
    w.pos = 0;
    w.ensure(data.length);
    w.buf.set(data, 0);
    w.pos = data.length;
    batch.n = WriteBatch.countOf(data);
    batch.kinds = survey.kinds;
    if (survey.families.size > 0)
      batch.families = [...survey.families].sort((a, b) => a - b).map((id) => new FamilyId(id));
    return batch;
  }

  /**
   * The operations of the batch, in order, as `BatchOperation`s (copies; markers and LogData
   * blobs are not operations). Operation i of a batch written at sequence s has sequence
   * s + i.
   */
  [Symbol.iterator](): IterableIterator<BatchOperation> {
    const collector = new OperationCollector();
    WriteBatch.iterate(this.stamped(), collector, undefined, 0, true);
    return collector.ops[Symbol.iterator]();
  }

  /** The encoded batch with its count stamped (a view; the sequence as it is). */
  private stamped(): Uint8Array {
    putFixed32(this.rep.buf, 8, this.n);
    return this.rep.finish();
  }

  /** @internal stamps the first sequence number and count; returns the encoded batch (a view). */
  seal(seq: number): Uint8Array {
    putFixed64(this.rep.buf, 0, seq);
    putFixed32(this.rep.buf, 8, this.n);
    return this.rep.finish();
  }

  /**
   * @internal Calls `handler.apply` for every operation of an encoded batch, in order. Batches written
   * by RocksDB may also hold column-family records (types 0x04/0x05/0x06/0x08/0x0E: the
   * operation's type, a varint32 family id, then its fields) and LogData blobs (0x03,
   * varstring, not counted): operations of the default family (id 0) are applied; those of
   * other families are skipped but keep their index (each takes a sequence number, as in
   * RocksDB); blobs are skipped.
   */
  static iterate(
    rep: Uint8Array,
    handler: WriteBatchHandler,
    file?: string,
    fileOffset = 0,
    allFamilies = false,
  ): void {
    const d = new Decoder(rep, 0, rep.length, fileOffset, file);
    if (rep.length < BATCH_HEADER_SIZE)
      throw ShaleError.corruption("write batch shorter than its header", file, fileOffset);
    d.skip(8);
    const count = d.readFixed32();
    for (let i = 0; i < count; ) {
      const at = d.pos;
      let kind = d.readByte();
      let family = 0;
      if (
        kind > ValueKind.Merge &&
        kind !== ValueKind.SingleDeletion &&
        kind !== ValueKind.RangeDeletion &&
        kind !== ValueKind.BlobIndex
      ) {
        const base = COLUMN_FAMILY_KINDS[kind];
        if (base !== undefined) {
          family = d.readVarint32();
          kind = base;
        } else if (kind === LOG_DATA) {
          d.readLengthPrefixed();
          continue;
        } else if (isMarker(kind)) {
          WriteBatch.marker(d, kind, handler, i, file, fileOffset + at);
          continue;
        }
      }
      const key = d.readLengthPrefixed();
      let value: Uint8Array = EMPTY;
      switch (kind) {
        case ValueKind.Value:
        case ValueKind.Merge:
        case ValueKind.RangeDeletion:
        case ValueKind.BlobIndex: // RocksDB's blob index (read like any value, see blob/)
          value = d.readLengthPrefixed();
          break;
        case ValueKind.Deletion:
        case ValueKind.SingleDeletion:
          break;
        default:
          throw ShaleError.corruption(
            `unknown write batch record type ${kind}`,
            file,
            fileOffset + at,
          );
      }
      if (family === 0 || allFamilies) handler.apply(kind as ValueKind, key, value, i, family);
      i++;
    }
    // Markers after the last operation (EndPrepare, Commit, Rollback).
    while (!d.done && isMarker(rep[d.pos]!)) {
      const at = d.pos;
      WriteBatch.marker(d, d.readByte(), handler, count, file, fileOffset + at);
    }
    if (!d.done)
      throw ShaleError.corruption(
        "write batch has bytes after its last record",
        file,
        fileOffset + d.pos,
      );
  }

  /** Reads one marker's payload and hands it to `handler.marker` (see BatchMarker). */
  private static marker(
    d: Decoder,
    type: number,
    handler: WriteBatchHandler,
    index: number,
    file: string | undefined,
    offset: number,
  ): void {
    if (type === BatchMarker.Noop) return;
    if (
      type === BatchMarker.BeginPersistedPrepare ||
      type === BatchMarker.BeginUnprepare ||
      type === BatchMarker.CommitWithTimestamp
    )
      throw ShaleError.notSupported(
        `the WAL holds a transaction of RocksDB's WritePrepared/WriteUnprepared policy or a commit timestamp (record type ${type}; ${file ?? "batch"} offset ${offset}): shale replays WriteCommitted two-phase commits only`,
      );
    const xid = type === BatchMarker.BeginPrepare ? undefined : d.readLengthPrefixed();
    if (handler.marker === undefined)
      throw ShaleError.notSupported(
        `the WAL holds prepared transactions (two-phase commit markers, ${file ?? "batch"} offset ${offset}): open it with transactionDB`,
      );
    handler.marker(type, xid, index);
  }

  /** @internal The first sequence number stamped in an encoded batch. */
  static sequence(rep: Uint8Array): number {
    return new Decoder(rep, 0, BATCH_HEADER_SIZE).readFixed64();
  }

  /** @internal The operation count of an encoded batch. */
  static countOf(rep: Uint8Array): number {
    return new Decoder(rep, 8, BATCH_HEADER_SIZE).readFixed32();
  }
}
