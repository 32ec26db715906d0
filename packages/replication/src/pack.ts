/**
 * Several write batches in one message, and the part of a message a follower still lacks.
 *
 * Packing: consecutive batches of the feed (each starting where the one before it ended)
 * concatenate into one batch, in RocksDB's representation:
 * ```
 *   batch A: seq 7 ‖ count 2 ‖ rA        batch B: seq 9 ‖ count 1 ‖ rB
 *   packed:  seq 7 ‖ count 3 ‖ rA ‖ rB
 * ```
 * Applied as one write, the packed batch gives its operations the sequence numbers A and B
 * had (7, 8 and 9), in the same order, so a follower ends in the same state as after A then
 * B; it only sees them land together. Records are self-contained (a column-family record
 * names its family), so the concatenation is a well-formed batch.
 *
 * A message's suffix: a follower whose database already holds the message's first
 * operations (it started from a checkpoint taken between two batches that travel in one
 * message) applies the operations after them, each in its column family.
 */
import { ShaleError } from "@shale/base";
import { FamilyId, WriteBatch } from "@shale/db";
import { batchCount, batchSequence } from "@shale/db/internal";

/** The size of a batch's header: fixed64 sequence ‖ fixed32 count. */
export const BATCH_HEADER = 12;

/**
 * One batch encoding `parts` (each a batch's representation, consecutive: each starts at
 * the sequence where the one before it ends) as a single batch starting at `sequence` with
 * `count` operations in all. A single part is returned as it is.
 */
export function packBatches(parts: readonly Uint8Array[], sequence: number, count: number) {
  if (parts.length === 1) return parts[0]!;
  const packed = new PackedBatch();
  packed.start(parts[0]!);
  for (let i = 1; i < parts.length; i++) packed.append(parts[i]!);
  if (packed.sequence !== sequence || packed.end !== sequence + count - 1)
    throw ShaleError.invalidArgument(
      `the parts hold sequences ${packed.sequence}..${packed.end}, not ${sequence} (+${count})`,
    );
  return packed.finish();
}

/**
 * A packed batch being built, batch by batch, in one buffer reused from message to message
 * (the publisher's: it copies each batch once, from the WAL reader's buffer into here).
 */
export class PackedBatch {
  private buf = new Uint8Array(64 * 1024);
  private pos = BATCH_HEADER;
  private first = 0;
  private count = 0;

  /** Bytes so far (header included). */
  get size(): number {
    return this.pos;
  }

  /** The sequence of the first operation. */
  get sequence(): number {
    return this.first;
  }

  /** The sequence of the last operation. */
  get end(): number {
    return this.first + this.count - 1;
  }

  /** Starts a new packed batch with `batch` (a batch's representation). */
  start(batch: Uint8Array): void {
    this.pos = BATCH_HEADER;
    this.first = batchSequence(batch);
    this.count = 0;
    this.append(batch);
  }

  /** Whether `batch` follows the last one and keeps the whole within `maxBytes`. */
  fits(batch: Uint8Array, maxBytes: number): boolean {
    return (
      batchSequence(batch) === this.first + this.count &&
      this.pos + batch.length - BATCH_HEADER <= maxBytes
    );
  }

  /** Appends `batch`'s records. REQUIRES: it starts where the last one ended. */
  append(batch: Uint8Array): void {
    const need = this.pos + batch.length - BATCH_HEADER;
    if (need > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, this.pos));
      this.buf = next;
    }
    this.buf.set(batch.subarray(BATCH_HEADER), this.pos);
    this.pos = need;
    this.count += batchCount(batch);
  }

  /** The packed batch (a copy; the builder's buffer is reused by the next `start`). */
  finish(): Uint8Array {
    const b = this.buf;
    const seq = this.first;
    const high = Math.floor(seq / 2 ** 32);
    b[0] = seq;
    b[1] = seq >>> 8;
    b[2] = seq >>> 16;
    b[3] = seq >>> 24;
    b[4] = high;
    b[5] = high >>> 8;
    b[6] = high >>> 16;
    b[7] = high >>> 24;
    const n = this.count;
    b[8] = n;
    b[9] = n >>> 8;
    b[10] = n >>> 16;
    b[11] = n >>> 24;
    return b.slice(0, this.pos);
  }
}

/**
 * The operations of `batch` from the `skip`-th on, as a batch of their own (the records'
 * column families kept; two-phase commit markers and LogData blobs, which take no sequence
 * number, are left out). NotSupported for a BlobDB record among them: only RocksDB writes
 * those, and a batch cannot be built with one.
 */
export function batchSuffix(batch: WriteBatch, skip: number): WriteBatch {
  const out = new WriteBatch();
  let i = 0;
  for (const op of batch) {
    if (i++ < skip) continue;
    const family = op.columnFamily === 0 ? undefined : new FamilyId(op.columnFamily);
    switch (op.type) {
      case "put":
        out.put(op.key, op.value, family);
        break;
      case "merge":
        out.merge(op.key, op.value, family);
        break;
      case "deleteRange":
        out.deleteRange(op.key, op.value, family);
        break;
      case "delete":
        out.delete(op.key, family);
        break;
      case "singleDelete":
        out.singleDelete(op.key, family);
        break;
      default:
        throw ShaleError.notSupported(
          `a ${op.type} record in the part of a message a follower lacks cannot be applied`,
        );
    }
  }
  return out;
}
