/**
 * BaseDeltaIterator (RocksDB's): a WriteBatchWithIndex's entries (the delta) shown over a
 * database iterator (the base), in the comparator's order, both directions.
 *
 * ```
 *   base  (db):     a=1   b=2         d=4   e=5
 *   delta (batch):        b=DEL  c=9  d+=merge(x)    deleteRange [e, f)
 *   merged:         a=1          c=9  d=merge(4,x)
 * ```
 *
 * At each position the smaller of the two keys is current; on equal keys the delta wins
 * (and the base's value is what its merge operands merge over). Delta entries that read as
 * deleted are stepped over, with the base key they hide; base keys inside one of the
 * batch's range deletions that the batch does not otherwise mention are stepped over too.
 *
 * Direction changes re-seek both sides at the current key (then step once), so each side is
 * always positioned on the first (forward: smallest, reverse: largest) key not yet passed.
 *
 * Writes to the batch while the iterator is open: the next move notices (the batch's
 * `version`), takes the batch's current entries and re-seeks at the current key before
 * moving, so it goes on with the batch as it is now.
 *
 * Bounds: the base iterator applies them; the delta is checked against the same range here.
 * Ownership: `key()`/`value()` are views valid until the next move (the batch's copies or
 * the base's views; a merged value is the operator's result).
 */
import { type Comparator, ShaleError, toBytes } from "@shale/base";
import type { MergeOperator } from "../core/merge-operator.js";
import type { ResolvedRange } from "../core/range-options.js";
import type { DBIterator } from "../iterator/db-iterator.js";
import { EntryIterator } from "../iterator/entry-iterator.js";
import {
  BASE_DELETED,
  BASE_VALUE,
  type BatchDelta,
  fullMerge,
  type IndexEntry,
} from "./batch-index.js";

const CURRENT_NONE = 0;
const CURRENT_BASE = 1;
const CURRENT_DELTA = 2;

export class BaseDeltaIterator {
  private readonly base: DBIterator;
  private readonly batch: BatchDelta;
  private readonly cmp: Comparator;
  private readonly mergeOperator: MergeOperator | undefined;
  private readonly range: ResolvedRange;
  private readonly reverse: boolean;
  private delta: readonly IndexEntry[];
  private seenVersion: number;
  /** The delta cursor: an index into `delta`; outside [lo, hi] when off an end. */
  private di = -1;
  /** The first and the last index of `delta` within the bounds (hi < lo: none). */
  private lo = 0;
  private hi = -1;
  private forward = true;
  private current = CURRENT_NONE;
  /** The base is on the current delta key too. */
  private equalKeys = false;
  /** The value of the current delta entry (its put value, or the merge result). */
  private deltaValue: Uint8Array | undefined;
  private closed = false;

  /** @internal built by `WriteBatchWithIndex.iterator` / `Transaction.iterator`. */
  constructor(
    batch: BatchDelta,
    base: DBIterator,
    mergeOperator: MergeOperator | undefined,
    range: ResolvedRange,
    reverse: boolean,
  ) {
    this.batch = batch;
    this.base = base;
    this.cmp = batch.comparator;
    this.mergeOperator = mergeOperator;
    this.range = range;
    this.reverse = reverse;
    this.delta = batch.sortedEntries();
    this.seenVersion = batch.version;
    this.lo = this.lowerIndex();
    this.hi = this.upperIndex();
  }

  valid(): boolean {
    return this.current !== CURRENT_NONE;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  seekToFirst(): void {
    this.checkOpen();
    this.refresh();
    this.forward = true;
    this.base.seekToFirst();
    this.di = this.lo;
    this.update();
  }

  seekToLast(): void {
    this.checkOpen();
    this.refresh();
    this.forward = false;
    this.base.seekToLast();
    this.di = this.hi;
    this.update();
  }

  /** The first key >= target (in bounds). */
  seek(target: Uint8Array | string): void {
    this.checkOpen();
    const t = toBytes(target, "target");
    this.refresh();
    this.seekAt(t);
  }

  /** The last key <= target (in bounds). */
  seekForPrev(target: Uint8Array | string): void {
    this.checkOpen();
    const t = toBytes(target, "target");
    this.refresh();
    this.seekForPrevAt(t);
  }

  /** REQUIRES: valid(). */
  next(): void {
    this.checkValid("next");
    if (this.batch.version !== this.seenVersion || !this.forward) {
      const k = this.key().slice();
      this.refresh();
      this.seekAt(k);
      if (this.current !== CURRENT_NONE && this.cmp.compare(this.key(), k) === 0) this.step();
      return;
    }
    this.step();
  }

  /** REQUIRES: valid(). */
  prev(): void {
    this.checkValid("prev");
    if (this.batch.version !== this.seenVersion || this.forward) {
      const k = this.key().slice();
      this.refresh();
      this.seekForPrevAt(k);
      if (this.current !== CURRENT_NONE && this.cmp.compare(this.key(), k) === 0) this.step();
      return;
    }
    this.step();
  }

  /** REQUIRES: valid(). A view valid until the next move. */
  key(): Uint8Array {
    this.checkValid("key");
    return this.current === CURRENT_DELTA ? this.delta[this.di]!.key : this.base.key();
  }

  /** REQUIRES: valid(). A view valid until the next move. */
  value(): Uint8Array {
    this.checkValid("value");
    return this.current === CURRENT_DELTA ? this.deltaValue! : this.base.value();
  }

  /** Closes the base iterator. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.current = CURRENT_NONE;
    this.base.close();
  }

  /** `[key, value]` copies from the first key (or the last, for `reverse`); closes at the end. */
  [Symbol.iterator](): IterableIterator<[Uint8Array, Uint8Array]> {
    this.checkOpen();
    return new EntryIterator(this, this.reverse);
  }

  // ------------------------------------------------------------------ internals

  private refresh(): void {
    if (this.batch.version !== this.seenVersion) {
      this.delta = this.batch.sortedEntries();
      this.seenVersion = this.batch.version;
      this.lo = this.lowerIndex();
      this.hi = this.upperIndex();
    }
  }

  private seekAt(t: Uint8Array): void {
    this.forward = true;
    this.base.seek(t);
    const at = this.lowerBoundIndex(t);
    this.di = at > this.lo ? at : this.lo;
    this.update();
  }

  private seekForPrevAt(t: Uint8Array): void {
    this.forward = false;
    this.base.seekForPrev(t);
    const at = this.upperBoundIndex(t);
    this.di = at < this.hi ? at : this.hi;
    this.update();
  }

  /** One step in the current direction from a valid position. */
  private step(): void {
    const forward = this.forward;
    // On a delta key the base is on it too when the keys are equal: both move.
    if (this.current === CURRENT_BASE || this.equalKeys) {
      if (forward) this.base.next();
      else this.base.prev();
    }
    if (this.current === CURRENT_DELTA) this.di += forward ? 1 : -1;
    this.update();
  }

  /**
   * Settles on the first visible key at or past both cursors in the current direction
   * (forward: the smallest, reverse: the largest).
   */
  private update(): void {
    const base = this.base;
    const cmp = this.cmp;
    const delta = this.delta;
    const forward = this.forward;
    const dir = forward ? 1 : -1;
    for (;;) {
      const di = this.di;
      const deltaValid = di >= this.lo && di <= this.hi;
      const baseValid = base.valid();
      if (!deltaValid && !baseValid) {
        this.settle(CURRENT_NONE, false);
        return;
      }
      // > 0: the base key comes first in this direction (an end counts as past every key);
      // 0: both cursors on one key.
      const c = !deltaValid
        ? 1
        : !baseValid
          ? -1
          : forward
            ? cmp.compare(delta[di]!.key, base.key())
            : cmp.compare(base.key(), delta[di]!.key);
      if (c > 0) {
        if (this.hiddenByRange(base.key())) {
          if (forward) base.next();
          else base.prev();
          continue;
        }
        this.settle(CURRENT_BASE, false);
        return;
      }
      if (this.resolve(delta[di]!, c === 0)) {
        this.settle(CURRENT_DELTA, c === 0);
        return;
      }
      // deleted in the batch: skip it, and the base key it hides
      if (c === 0) {
        if (forward) base.next();
        else base.prev();
      }
      this.di = di + dir;
    }
  }

  private settle(current: number, equalKeys: boolean): void {
    this.current = current;
    this.equalKeys = equalKeys;
  }

  /**
   * Sets `deltaValue` for entry `e` and returns true, or returns false when the entry reads
   * as deleted. `onBase`: the base iterator is on the same key (its value is the merge base
   * when the batch wrote none).
   */
  private resolve(e: IndexEntry, onBase: boolean): boolean {
    const operands = e.operands;
    if (operands === undefined) {
      if (e.base !== BASE_VALUE) return false;
      this.deltaValue = e.value;
      return true;
    }
    const op = this.mergeOperator;
    if (op === undefined)
      throw ShaleError.invalidArgument(
        "the batch has merge operands but the database has no mergeOperator",
      );
    const baseValue =
      e.base === BASE_VALUE
        ? e.value
        : e.base === BASE_DELETED || !onBase
          ? undefined
          : this.base.value();
    this.deltaValue = fullMerge(op, e.key, baseValue, operands);
    return true;
  }

  /** A base key the batch does not mention but one of its range deletions covers. */
  private hiddenByRange(key: Uint8Array): boolean {
    const batch = this.batch;
    return batch.hasRanges && batch.inDeletedRange(key) && batch.entry(key) === undefined;
  }

  /** The first delta index in bounds on the lower side. */
  private lowerIndex(): number {
    const lower = this.range.lower;
    if (lower === undefined) return 0;
    return this.range.lowerExclusive
      ? this.upperBoundIndex(lower) + 1
      : this.lowerBoundIndex(lower);
  }

  /** The last delta index in bounds on the upper side. */
  private upperIndex(): number {
    const upper = this.range.upper;
    if (upper === undefined) return this.delta.length - 1;
    return this.range.upperInclusive
      ? this.upperBoundIndex(upper)
      : this.lowerBoundIndex(upper) - 1;
  }

  /** The first index whose key is >= t (delta.length if none). */
  private lowerBoundIndex(t: Uint8Array): number {
    const d = this.delta;
    let lo = 0;
    let hi = d.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cmp.compare(d[mid]!.key, t) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The last index whose key is <= t (-1 if none). */
  private upperBoundIndex(t: Uint8Array): number {
    const d = this.delta;
    let lo = 0;
    let hi = d.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cmp.compare(d[mid]!.key, t) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  private checkOpen(): void {
    if (this.closed) throw ShaleError.closed("the iterator is closed");
  }

  private checkValid(op: string): void {
    if (this.current === CURRENT_NONE) {
      this.checkOpen();
      throw ShaleError.invalidArgument(`${op}() requires a valid iterator`);
    }
  }
}
