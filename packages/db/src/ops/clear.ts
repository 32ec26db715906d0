/**
 * `db.clear(options?)`: deletes every live key of a range (Level's `clear`), in ONE atomic
 * write batch.
 *
 * A range deletion needs two keys, `[start, end)`, but a clear range may be open on either
 * side (`clear()` is everything; `{ gt: "k" }` has no end) and exclusive at its start (`gt`).
 * No "largest key" can be made up for an arbitrary comparator, and a made-up one (a run of
 * 0xff bytes) would still miss longer keys. So the range is first narrowed to the keys that
 * exist: the first and the last live key in it, found with two seeks of an iterator at the
 * current state. Then
 *
 * ```
 *   range {gt: "b"}, live keys  a  b  c  d  f           first = c, last = f
 *   batch: deleteRange(c, f)  +  delete(f)             -> removes c d f; a and b stay
 * ```
 *
 * — one range tombstone and one point tombstone, whatever the number of keys (RocksDB's
 * DeleteRange costs the same), correct under any comparator, and nothing else is covered:
 * between two live keys of a contiguous range every key is in the range. A key that is not
 * live there (deleted, or never written) is covered harmlessly. One live key: one point
 * delete; none: no write at all.
 *
 * With a finite `limit`, the first `limit` keys of the range (the last ones with `reverse`)
 * are deleted with point deletions, one batch: a limit is a count of keys, which a range
 * tombstone cannot express (and it is what Level's `clear({ limit })` does).
 */
import { bytesEqual, ShaleError, ValueKind } from "@shale/base";
import type { ClearOptions, IteratorOptions, WriteOptions } from "../core/call-options.js";
import { resolveLimit, resolveRange } from "../core/range-options.js";
import type { DBIterator } from "../iterator/index.js";
import { type BatchFamily, WriteBatch } from "../write/write-batch.js";

/** REQUIRES: `options` passed CLEAR_OPTIONS. */
/** The part of `DB` a clear uses (an interface: db.ts imports this file). */
export interface ClearTarget {
  iterator(options?: IteratorOptions): DBIterator;
  write(batch: WriteBatch, options?: WriteOptions): void;
  /** The column family cleared (undefined: default). */
  readonly family?: BatchFamily | undefined;
}

export function clearRange(db: ClearTarget, options: ClearOptions | undefined): void {
  const o = options ?? {};
  resolveRange(o, "clearOptions"); // conflicts reported as clearOptions'
  const range: IteratorOptions = {};
  if (o.gt !== undefined) range.gt = o.gt;
  if (o.gte !== undefined) range.gte = o.gte;
  if (o.lt !== undefined) range.lt = o.lt;
  if (o.lte !== undefined) range.lte = o.lte;
  if (o.lowerBound !== undefined) range.lowerBound = o.lowerBound;
  if (o.upperBound !== undefined) range.upperBound = o.upperBound;
  const writeOptions: WriteOptions = {};
  if (o.sync !== undefined) writeOptions.sync = o.sync;
  if (o.disableWAL !== undefined) writeOptions.disableWAL = o.disableWAL;
  const limit = resolveLimit(o.limit);
  if (limit === 0) return;
  const batch = new WriteBatch();
  const it = db.iterator(range);
  try {
    if (limit !== Number.POSITIVE_INFINITY) {
      let n = 0;
      if (o.reverse === true) {
        for (it.seekToLast(); it.valid() && n < limit; it.prev(), n++)
          batch.delete(it.key(), db.family);
      } else {
        for (it.seekToFirst(); it.valid() && n < limit; it.next(), n++)
          batch.delete(it.key(), db.family);
      }
    } else {
      it.seekToFirst();
      if (!it.valid()) return;
      const first = it.key().slice();
      it.seekToLast();
      if (!it.valid()) throw ShaleError.corruption("clear: the range lost its last key");
      const last = it.key();
      // first <= last in the database's order (the same key when the range holds one);
      // `add`, not `deleteRange`: that one checks bytewise order, the write checks this one.
      if (!bytesEqual(first, last)) batch.addTo(db.family, ValueKind.RangeDeletion, first, last);
      batch.delete(last, db.family);
    }
  } finally {
    it.close();
  }
  if (batch.count > 0) db.write(batch, writeOptions);
}
