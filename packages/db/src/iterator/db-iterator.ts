/**
 * DBIterator: the user-facing iterator of the database — one entry per live user key at a
 * snapshot, in comparator order, within optional bounds. See `db-iterator-core.ts` for the
 * algorithm and `index.ts` for how one is built.
 */
import {
  Histogram,
  invariants,
  KIND_FOR_SEEK,
  MAX_SEQ,
  ShaleError,
  Ticker,
  toBytes,
  ValueKind,
} from "@shale/base";
import {
  DBIteratorCore,
  type DBIteratorCoreOptions,
  FORWARD,
  REVERSE,
  VALUE_FROM_BUFFER,
  VALUE_FROM_ITER,
} from "./db-iterator-core.js";
import { EntryIterator } from "./entry-iterator.js";
import { checkStep } from "./order-check.js";

/** @internal What `newDBIterator` hands the constructor. */
export interface DBIteratorOptions extends DBIteratorCoreOptions {
  reverse: boolean;
  onClose: (() => void) | undefined;
  background: BackgroundPoll | undefined;
  tablesPerSeek: number;
}

/**
 * The database's finished-background-work cell and how to take what it signals (see
 * background/executor.ts): every seek looks at the cell first and, when it is set, has the
 * database install the finished jobs — this iterator reads only the sources it pinned, so
 * what changes is what the next read or iterator sees.
 */
export interface BackgroundPoll {
  readonly finished: Int32Array;
  take(): void;
}

/**
 * An iterator over the database at one snapshot: every user key whose newest visible
 * version is a value (merge operands resolved), in comparator order, between `lowerBound`
 * (inclusive) and `upperBound` (exclusive) when set.
 *
 * ```ts
 * const it = db.iterator({ lowerBound: "a", upperBound: "m" });
 * for (it.seekToFirst(); it.valid(); it.next()) use(it.key(), it.value());
 * it.close();
 * // or: for (const [key, value] of db.iterator()) ...   (closes itself at the end)
 * ```
 *
 * Positioning: `seekToFirst()` / `seekToLast()` — the first / last key in bounds;
 * `seek(k)` — the first key >= k (k below `lowerBound` seeks to it); `seekForPrev(k)` — the
 * last key <= k (k at or above `upperBound` seeks to the last key in bounds). Keys may be
 * given as bytes or strings (UTF-8); anything else is a `TypeError`.
 *
 * Ownership: `key()` is a view of a buffer the iterator reuses; `value()` is a view into a
 * memtable or cached block, into a reused buffer (after backward moves), or, for a merged
 * key, what the merge operator returned (a fresh array, or for operators like `max` that
 * return one of their inputs, a view of the iterator's copy of it). Both stay valid until
 * the iterator next moves or is closed — copy them (`slice()`) to keep them longer. Never
 * modify them.
 *
 * Errors: `next()`, `prev()`, `key()` and `value()` REQUIRE `valid()`; otherwise they throw
 * `ShaleError` InvalidArgument. After `close()` every method throws `ShaleError` Closed,
 * except `valid()`, which returns false, and `close()`, which does nothing. A merge that
 * fails throws Corruption, merge operands without a merge operator throw InvalidArgument,
 * and damaged data throws Corruption, from the call that meets them; the iterator is then
 * not valid.
 *
 * Not thread-safe: use one iterator from one place at a time. It pins the database state it
 * reads (memtables, table files) until closed — close iterators you are done with.
 */
export class DBIterator extends DBIteratorCore implements Iterable<[Uint8Array, Uint8Array]> {
  private readonly reverse: boolean;
  private onClose: (() => void) | undefined;
  private readonly background: BackgroundPoll | undefined;
  private readonly tablesPerSeek: number;
  private closed = false;

  /** @internal Use the database's `iterator()` (or `newDBIterator`). */
  constructor(options: DBIteratorOptions) {
    super(options);
    this.reverse = options.reverse;
    this.onClose = options.onClose;
    this.background = options.background;
    this.tablesPerSeek = options.tablesPerSeek;
  }

  /** True if positioned on an entry. False after `close()`. */
  valid(): boolean {
    return this.isValid;
  }

  /** True once `close()` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Positions at the first key (>= lowerBound when set). */
  seekToFirst(): void {
    this.checkOpen();
    this.countSeek();
    this.direction = FORWARD;
    this.isValid = false;
    const lower = this.lowerBound;
    if (lower !== undefined) {
      this.iter.seek(this.seekKey(lower, lower.length, this.snapshotSeq, KIND_FOR_SEEK));
    } else {
      this.iter.seekToFirst();
    }
    this.findNextUserEntry(false);
  }

  /** Positions at the last key (< upperBound when set). */
  seekToLast(): void {
    this.checkOpen();
    this.countSeek();
    this.seekToLastInternal();
  }

  private seekToLastInternal(): void {
    this.direction = REVERSE;
    this.isValid = false;
    const upper = this.upperBound;
    if (upper !== undefined) {
      // Before every entry of upperBound itself.
      this.iter.seekForPrev(this.seekKey(upper, upper.length, MAX_SEQ, KIND_FOR_SEEK));
    } else {
      this.iter.seekToLast();
    }
    this.prevInternal();
  }

  /** Positions at the first key >= `target` (and >= lowerBound, < upperBound). */
  seek(target: Uint8Array | string): void {
    this.checkOpen();
    let t = toBytes(target, "target");
    this.countSeek();
    this.direction = FORWARD;
    this.isValid = false;
    const lower = this.lowerBound;
    if (lower !== undefined && this.order.compare(t, lower) < 0) t = lower;
    const upper = this.upperBound;
    if (upper !== undefined && this.order.compare(t, upper) >= 0) return;
    this.iter.seek(this.seekKey(t, t.length, this.snapshotSeq, KIND_FOR_SEEK));
    this.findNextUserEntry(false);
  }

  /** Positions at the last key <= `target` (and >= lowerBound, < upperBound). */
  seekForPrev(target: Uint8Array | string): void {
    this.checkOpen();
    const t = toBytes(target, "target");
    this.countSeek();
    const upper = this.upperBound;
    if (upper !== undefined && this.order.compare(t, upper) >= 0) {
      this.seekToLastInternal();
      return;
    }
    this.direction = REVERSE;
    this.isValid = false;
    const lower = this.lowerBound;
    if (lower !== undefined && this.order.compare(t, lower) < 0) return;
    // After every entry of target: (target, seq 0, the smallest kind).
    this.iter.seekForPrev(this.seekKey(t, t.length, 0, ValueKind.Deletion));
    this.prevInternal();
  }

  /** Moves to the next key. REQUIRES: `valid()`. */
  next(): void {
    this.checkValid("next");
    const before = invariants ? this.savedKey().slice() : undefined;
    const stats = this.stats;
    if (stats !== undefined) stats.tick(Ticker.IterNexts);
    this.isValid = false;
    if (this.direction === REVERSE) {
      // The merged iterator is before the current key: go to its first entry.
      this.direction = FORWARD;
      this.iter.seek(this.savedSeekKey(MAX_SEQ, KIND_FOR_SEEK));
    } else if (!this.currentEntryIsMerged) {
      this.iter.next();
    }
    this.findNextUserEntry(true);
    if (before !== undefined)
      checkStep(this.order, before, this.isValid ? this.savedKey() : undefined, 1);
  }

  /** Moves to the previous key. REQUIRES: `valid()`. */
  prev(): void {
    this.checkValid("prev");
    const before = invariants ? this.savedKey().slice() : undefined;
    const stats = this.stats;
    if (stats !== undefined) stats.tick(Ticker.IterNexts);
    this.isValid = false;
    if (this.direction === FORWARD) {
      // The merged iterator is on (or past) the current key: go before its entries.
      this.direction = REVERSE;
      this.iter.seekForPrev(this.savedSeekKey(MAX_SEQ, KIND_FOR_SEEK));
    }
    this.prevInternal();
    if (before !== undefined)
      checkStep(this.order, before, this.isValid ? this.savedKey() : undefined, -1);
  }

  /**
   * The current user key. REQUIRES: `valid()`. A view of a reused buffer: valid until the
   * iterator moves or is closed.
   */
  key(): Uint8Array {
    this.checkValid("key");
    return this.savedKey();
  }

  /**
   * The current value. REQUIRES: `valid()`. A view (into a memtable, a cached block or a
   * reused buffer) or, for a merged key, the merge operator's result; valid until the
   * iterator moves or is closed (see the class comment).
   */
  value(): Uint8Array {
    this.checkValid("value");
    const source = this.valueSource;
    if (source === VALUE_FROM_ITER) return this.iter.value();
    if (source === VALUE_FROM_BUFFER) return this.savedValue();
    return this.merged;
  }

  /**
   * Releases what the iterator pins (sources, memtables, table files). Idempotent. The
   * release runs even if closing a source throws; that error is rethrown.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.isValid = false;
    const onClose = this.onClose;
    this.onClose = undefined;
    try {
      this.iter.close();
    } finally {
      onClose?.();
    }
  }

  /**
   * Iterates `[key, value]` pairs from the first key (or, if built with `reverse: true`, from
   * the last key backwards), whatever the current position. Yields fresh copies the caller
   * owns. The loop consumes the iterator: it is closed when the loop ends, breaks or throws.
   */
  [Symbol.iterator](): IterableIterator<[Uint8Array, Uint8Array]> {
    this.checkOpen();
    return new EntryIterator(this, this.reverse);
  }

  /** At the start of every seek (after the open check): counts it, takes finished jobs. */
  private countSeek(): void {
    const stats = this.stats;
    if (stats !== undefined) {
      stats.tick(Ticker.IterSeeks);
      stats.record(Histogram.TablesPerSeek, this.tablesPerSeek);
    }
    const bg = this.background;
    if (bg !== undefined && Atomics.load(bg.finished, 0) !== 0) bg.take();
  }

  private checkOpen(): void {
    if (this.closed) throw ShaleError.closed("the iterator is closed");
  }

  private checkValid(op: string): void {
    if (!this.isValid) {
      this.checkOpen();
      throw ShaleError.invalidArgument(`${op}() requires a valid iterator`);
    }
  }
}
