/**
 * TTL (RocksDB's DBWithTTL, utilities/ttl/db_ttl_impl.cc): every value and merge operand a
 * family with `ttl` writes carries the time it was written, and compactions drop values
 * older than `ttl` seconds.
 *
 * Stored value (docs/formats/ttl.md):
 * ```
 *   +-------------------------+----------------------------+
 *   | user value (n bytes)    | timestamp: fixed32 LE (4)  |   seconds since 1970, int32
 *   +-------------------------+----------------------------+
 *   "v1" written at 1796532389 (0x6B151C31):   76 31 | 31 1C 15 6B
 * ```
 * - Written: the suffix is appended to a Put's value and a Merge's operand (not to
 *   deletions or range-deletion ends) when the write is made — one clock reading per write,
 *   per batch record.
 * - Read: `get`, `getMany`, `getView` and iterators strip it. A stored value shorter than 4
 *   bytes, or whose timestamp is below 1368146402 (2013-05-10, RocksDB's kMinTimestamp: the
 *   release of the feature), is Corruption (RocksDB's SanityCheckTimestamp), which is how a
 *   database written without TTL shows when read with it.
 * - Expiry: a value is stale when `timestamp + ttl < now` (RocksDB's IsStale; `ttl <= 0`:
 *   never). Reads do NOT hide stale values: as in RocksDB, a value is gone only once a
 *   compaction that sees it drops it (the TTL compaction filter, compaction/value-filter.ts).
 * - Merge: the family's merge operator is wrapped (RocksDB's TtlMergeOperator): the
 *   suffixes are stripped from the base and the operands, the user operator runs, and the
 *   result gets the current time.
 * - The clock: `options.clock.nowSeconds()` (default: the system clock). A compaction reads
 *   it once, when it is scheduled, and carries the reading to the worker that runs it.
 */
import { ShaleError } from "@shale/base";
import type { MergeOperator } from "./merge-operator.js";

/** Bytes of the timestamp suffix (RocksDB's kTSLength). Part of the format; do not change. */
export const TTL_TIMESTAMP_BYTES = 4;
/** The smallest timestamp a value can carry (RocksDB's kMinTimestamp, 2013-05-10). */
export const TTL_MIN_TIMESTAMP = 1368146402;

/** Where TTL reads the time (RocksDB's SystemClock::GetCurrentTime). */
export interface Clock {
  /** Seconds since 1970-01-01 UTC, an integer. */
  nowSeconds(): number;
}

/** The system clock. */
export const systemClock: Clock = Object.freeze({
  nowSeconds: () => Math.floor(Date.now() / 1000),
});

/** `value` with the timestamp `now` appended (a new array). */
export function appendTimestamp(value: Uint8Array, now: number): Uint8Array {
  const n = value.length;
  const out = new Uint8Array(n + TTL_TIMESTAMP_BYTES);
  out.set(value, 0);
  out[n] = now;
  out[n + 1] = now >>> 8;
  out[n + 2] = now >>> 16;
  out[n + 3] = now >>> 24;
  return out;
}

/**
 * `value` with the timestamp `now` appended, written into `scratch` when it is large enough
 * (a view of it, valid until `scratch` is used again), else into a new array.
 */
export function appendTimestampInto(
  scratch: StampScratch,
  value: Uint8Array,
  now: number,
): Uint8Array {
  const n = value.length;
  const buf = scratch.buf;
  if (n + TTL_TIMESTAMP_BYTES > buf.length) return appendTimestamp(value, now);
  buf.set(value, 0);
  buf[n] = now;
  buf[n + 1] = now >>> 8;
  buf[n + 2] = now >>> 16;
  buf[n + 3] = now >>> 24;
  // Values of one length in a row (the common case) reuse the view.
  if (scratch.view.length !== n + TTL_TIMESTAMP_BYTES)
    scratch.view = buf.subarray(0, n + TTL_TIMESTAMP_BYTES);
  return scratch.view;
}

/** The reusable buffer of `appendTimestampInto` and its last view. */
export class StampScratch {
  readonly buf = new Uint8Array(4096);
  view: Uint8Array = this.buf.subarray(0, 0);
}

/** The timestamp a stored value ends with. REQUIRES: `value.length >= 4`. */
export function timestampOf(value: Uint8Array): number {
  const n = value.length;
  return value[n - 4]! | (value[n - 3]! << 8) | (value[n - 2]! << 16) | (value[n - 1]! << 24) | 0;
}

/**
 * The user value of a stored value (a view, without the suffix); Corruption when the value
 * cannot carry a timestamp (RocksDB's SanityCheckTimestamp).
 */
export function stripTimestamp(value: Uint8Array): Uint8Array {
  return value.subarray(0, strippedLength(value, 0, value.length));
}

/**
 * The length of the user value in the stored value `bytes[offset, offset + length)` (the
 * suffix left out); Corruption as `stripTimestamp`.
 */
export function strippedLength(bytes: Uint8Array, offset: number, length: number): number {
  if (length < TTL_TIMESTAMP_BYTES)
    throw ShaleError.corruption(
      "a value of a TTL column family is shorter than its timestamp (was the database written without ttl?)",
    );
  const e = offset + length;
  const stamp =
    bytes[e - 4]! | (bytes[e - 3]! << 8) | (bytes[e - 2]! << 16) | (bytes[e - 1]! << 24);
  if (stamp < TTL_MIN_TIMESTAMP)
    throw ShaleError.corruption(
      "a value of a TTL column family has a timestamp before 2013-05-10 (was the database written without ttl?)",
    );
  return length - TTL_TIMESTAMP_BYTES;
}

/** `stripTimestamp` of each defined entry, in place. */
export function stripTimestamps(values: (Uint8Array | undefined)[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== undefined) values[i] = stripTimestamp(v);
  }
}

/** True if the stored `value` expired at `now` (RocksDB's IsStale). REQUIRES: length >= 4. */
export function isStale(value: Uint8Array, ttl: number, now: number): boolean {
  return ttl > 0 && timestampOf(value) + ttl < now;
}

const ttlInner = new WeakMap<MergeOperator, MergeOperator>();

/** The operator a TTL wrapper wraps, or undefined for any other operator. */
export function ttlInnerOperator(op: MergeOperator): MergeOperator | undefined {
  return ttlInner.get(op);
}

/**
 * The TTL wrapper of a merge operator (RocksDB's TtlMergeOperator): `inner` sees values
 * without their suffix; a result gets `clock`'s time. A base or operand shorter than 4
 * bytes fails the merge (undefined: Corruption), as in RocksDB. Same name as `inner`.
 */
export function ttlMergeOperator(inner: MergeOperator, clock: Clock): MergeOperator {
  const fullMerge = (
    key: Uint8Array,
    existing: Uint8Array | undefined,
    operands: readonly Uint8Array[],
  ): Uint8Array | undefined => {
    if (existing !== undefined && existing.length < TTL_TIMESTAMP_BYTES) return undefined;
    const stripped = new Array<Uint8Array>(operands.length);
    for (let i = 0; i < operands.length; i++) {
      const op = operands[i]!;
      if (op.length < TTL_TIMESTAMP_BYTES) return undefined;
      stripped[i] = op.subarray(0, op.length - TTL_TIMESTAMP_BYTES);
    }
    const base =
      existing === undefined
        ? undefined
        : existing.subarray(0, existing.length - TTL_TIMESTAMP_BYTES);
    const r = inner.fullMerge(key, base, stripped);
    return r === undefined ? undefined : appendTimestamp(r, clock.nowSeconds());
  };
  const partial = inner.partialMerge;
  const op: MergeOperator =
    partial === undefined
      ? { name: inner.name, fullMerge }
      : {
          name: inner.name,
          fullMerge,
          partialMerge: (key, left, right) => {
            if (left.length < TTL_TIMESTAMP_BYTES || right.length < TTL_TIMESTAMP_BYTES)
              return undefined;
            const r = partial.call(
              inner,
              key,
              left.subarray(0, left.length - TTL_TIMESTAMP_BYTES),
              right.subarray(0, right.length - TTL_TIMESTAMP_BYTES),
            );
            return r === undefined ? undefined : appendTimestamp(r, clock.nowSeconds());
          },
        };
  Object.freeze(op);
  ttlInner.set(op, inner);
  return op;
}

/** A clock that always answers `now` (a compaction's reading, in a worker). */
export function fixedClock(now: number): Clock {
  return { nowSeconds: () => now };
}
