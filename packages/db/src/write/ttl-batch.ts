/**
 * A batch as a database with TTL families writes it (RocksDB's DBWithTTLImpl::Write): the
 * same records, with the current time appended to each Put value and Merge operand of a TTL
 * family (core/ttl.ts); other records, and records of other families, unchanged. LogData
 * blobs are not carried over (shale's batches never hold them; RocksDB's WAL's do).
 */
import { ValueKind } from "@shale/base";
import { appendTimestamp } from "../core/ttl.js";
import { WriteBatch } from "./write-batch.js";

/** The bits of `WriteBatch.kinds` whose values get a timestamp. */
export const TIMESTAMPED_KINDS = (1 << ValueKind.Value) | (1 << ValueKind.Merge);

/** `batch` with timestamps `now` on the values of families `isTtl` says yes to (a new batch). */
export function withTimestamps(
  batch: WriteBatch,
  isTtl: (familyId: number) => boolean,
  now: number,
): WriteBatch {
  const out = new WriteBatch();
  WriteBatch.iterate(
    batch.data(),
    {
      apply: (kind, key, value, _index, family) => {
        const stamp = (kind === ValueKind.Value || kind === ValueKind.Merge) && isTtl(family);
        out.addIn(family, kind, key, stamp ? appendTimestamp(value, now) : value);
      },
    },
    undefined,
    0,
    true,
  );
  out.families = batch.families;
  return out;
}
