/**
 * Merge resolution for the DB iterator: operands are copied as they are met (the child
 * iterators' views are only guaranteed until they move), then handed to the operator's
 * `fullMerge`, oldest first, with the base value or `undefined`.
 *
 * The copies live in one growable buffer with an array of end offsets — no allocation per
 * operand once the buffer is large enough; only the views passed to the operator are new.
 */
import { EMPTY_BYTES, Histogram, ShaleError, type Statistics, Ticker } from "@shale/base";
import type { MergeOperator } from "../core/merge-operator.js";

export class MergeOperands {
  /** Grown on the first operand: a typed array over 64 bytes costs ~0.5 µs to create. */
  private buf: Uint8Array = EMPTY_BYTES;
  /** ends[i] = end offset of operand i in buf, for i < count (entries past count are stale). */
  private readonly ends: number[] = [];
  private n = 0;
  private used = 0;

  get count(): number {
    return this.n;
  }

  /** Forgets every operand (cheap: no array truncation, called once per key backwards). */
  clear(): void {
    this.n = 0;
    this.used = 0;
  }

  /** Appends a copy of `operand`. */
  push(operand: Uint8Array): void {
    const need = this.used + operand.length;
    if (need > this.buf.length) {
      const grown = new Uint8Array(Math.max(need, 256, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.used));
      this.buf = grown;
    }
    this.buf.set(operand, this.used);
    this.used = need;
    if (this.n < this.ends.length) this.ends[this.n] = need;
    else this.ends.push(need);
    this.n++;
  }

  /**
   * Views of the operands, oldest first. `pushedNewestFirst` says the order they were pushed
   * in (forward scans meet the newest first, backward scans the oldest). Views are valid
   * until the next `push` or `clear`.
   */
  oldestFirst(pushedNewestFirst: boolean): Uint8Array[] {
    const ends = this.ends;
    const n = this.n;
    const out = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) {
      const view = this.buf.subarray(i === 0 ? 0 : ends[i - 1]!, ends[i]!);
      out[pushedNewestFirst ? n - 1 - i : i] = view;
    }
    return out;
  }
}

/** The error for merge operands met without a merge operator (as the db's `get` reports it). */
export function missingMergeOperator(): ShaleError {
  return ShaleError.invalidArgument("found merge operands but options.mergeOperator is not set");
}

/**
 * `operator.fullMerge(key, base, operands)` with the db's rules: no operator configured ->
 * InvalidArgument; the operator returns undefined -> Corruption; something else than bytes ->
 * TypeError. Counts MergeOperations / MergeFailures and times MergeNanos when `stats` is set.
 * Returns the operator's result (a fresh array, owned by the caller).
 */
export function fullMerge(
  operator: MergeOperator | undefined,
  key: Uint8Array,
  base: Uint8Array | undefined,
  operands: readonly Uint8Array[],
  stats: Statistics | undefined,
): Uint8Array {
  if (operator === undefined) throw missingMergeOperator();
  const t0 = stats !== undefined ? stats.now() : 0;
  const result = operator.fullMerge(key, base, operands);
  if (stats !== undefined) {
    stats.tick(Ticker.MergeOperations);
    stats.recordTime(Histogram.MergeNanos, t0, 1, Ticker.MergeTimeNanos);
  }
  if (result === undefined) {
    if (stats !== undefined) stats.tick(Ticker.MergeFailures);
    throw ShaleError.corruption(`merge operator "${operator.name}" failed`);
  }
  if (!(result instanceof Uint8Array)) {
    throw new TypeError(`merge operator "${operator.name}" must return a Uint8Array`);
  }
  return result;
}
