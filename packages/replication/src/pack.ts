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

/** The size of a batch's header: fixed64 sequence ‖ fixed32 count. */
export const BATCH_HEADER = 12;

/**
 * One batch encoding `parts` (each a batch's representation, consecutive: each starts at
 * the sequence where the one before it ends) as a single batch starting at `sequence` with
 * `count` operations in all. A single part is returned as it is.
 */
export function packBatches(parts: readonly Uint8Array[], sequence: number, count: number) {
  if (parts.length === 1) return parts[0]!;
  let size = BATCH_HEADER;
  for (const p of parts) size += p.length - BATCH_HEADER;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, sequence >>> 0, true);
  view.setUint32(4, Math.floor(sequence / 2 ** 32), true);
  view.setUint32(8, count, true);
  let pos = BATCH_HEADER;
  for (const p of parts) {
    out.set(p.subarray(BATCH_HEADER), pos);
    pos += p.length - BATCH_HEADER;
  }
  return out;
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
