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
import { type PrefixExtractor, samePrefix } from "@shale/sstable";
import { stripTimestamp } from "../core/ttl.js";
import { viewGuard } from "../core/view-guard.js";
import {
  DBIteratorCore,
  type DBIteratorCoreOptions,
  FORWARD,
  REVERSE,
  VALUE_FROM_BUFFER,
  VALUE_FROM_ITER,
} from "./db-iterator-core.js";
import { EntryIterator } from "./entry-iterator.js";
import { giveBuffers } from "./iterator-buffers.js";
import { checkStep } from "./order-check.js";
import type { PrefixSeek } from "./prefix-seek.js";

/** @internal What `newDBIterator` hands the constructor. */
export interface DBIteratorOptions extends DBIteratorCoreOptions {
  reverse: boolean;
  /** The most entries the iterator lands on (see `DBIteratorSources.limit`). */
  limit: number;
  onClose: (() => void) | undefined;
  background: BackgroundPoll | undefined;
  tablesPerSeek: number;
  /** prefixSameAsStart's extractor (undefined: not bounded by prefix). */
  prefixExtractor: PrefixExtractor | undefined;
  /** The children's prefix filtering: on for seeks, off for seekToFirst/Last. */
  prefixSeek: PrefixSeek | undefined;
  /** Values end with TTL's timestamp, which `value()` strips (core/ttl.ts). */
  ttl: boolean;
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
 * Range: `lowerBound` (inclusive) or, as built from Level's options, an exclusive lower
 * bound (`gt`), and `upperBound` (exclusive) or an inclusive one (`lte`). With a `limit`, the
 * iterator lands on at most that many entries in total, over every seek and move; the next
 * position after that is not valid.
 *
 * Ownership — the cursor: `key()` is a view of a buffer the iterator reuses; `value()` is a
 * view into a memtable arena (a SharedArrayBuffer) or a cached block, into a reused buffer
 * (after backward moves), or, for a merged key, what the merge operator returned. Both are
 * ZERO-COPY VIEWS with this lifetime: valid until the iterator next moves (any seek, `next`,
 * `prev`) or is closed; copy them (`slice()`) to keep them longer. READ-ONLY: they are the
 * store's own memory; writing into one changes the stored value (and the next flush makes
 * that durable) or the iteration. With SHALE_INVARIANTS=1 (tests), the next move checks that
 * they were not written into and throws an invariant error if they were (view-guard.ts).
 * The iterable protocol instead yields `[key, value]` copies the caller owns (see
 * `[Symbol.iterator]`).
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
  /** Entries it may still land on (`limit`); Infinity when unlimited. */
  private remaining: number;
  private closed = false;
  /** prefixSameAsStart: the extractor, and the prefix of the last seek (undefined: none). */
  private readonly prefixExtractor: PrefixExtractor | undefined;
  private prefix: Uint8Array | undefined;
  private readonly prefixSeek: PrefixSeek | undefined;
  private readonly ttl: boolean;

  /** @internal Use the database's `iterator()` (or `newDBIterator`). */
  constructor(options: DBIteratorOptions) {
    super(options);
    this.prefixExtractor = options.prefixExtractor;
    this.prefixSeek = options.prefixSeek;
    this.reverse = options.reverse;
    this.onClose = options.onClose;
    this.background = options.background;
    this.tablesPerSeek = options.tablesPerSeek;
    this.remaining = options.limit;
    this.ttl = options.ttl;
  }

  /** True if positioned on an entry. False after `close()`. */
  valid(): boolean {
    return this.isValid;
  }

  /** True once `close()` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Positions at the first key in bounds. */
  seekToFirst(): void {
    this.checkOpen();
    this.countSeek();
    if (this.prefixSeek !== undefined) this.prefixSeek.active = false;
    this.seekToFirstInternal();
    if (this.prefixExtractor !== undefined) this.startPrefixAtKey();
    if (this.remaining !== Number.POSITIVE_INFINITY) this.countEntry();
  }

  private seekToFirstInternal(): void {
    this.direction = FORWARD;
    this.isValid = false;
    const lower = this.lowerBound;
    if (lower === undefined) {
      this.iter.seekToFirst();
      this.findNextUserEntry(false);
    } else if (this.lowerExclusive) {
      // After every entry of the bound itself, skipping whatever of it is left.
      this.buffers.saveKey(lower, lower.length);
      this.iter.seek(this.buffers.seekKey(lower, lower.length, 0, ValueKind.Deletion));
      this.findNextUserEntry(true);
    } else {
      this.iter.seek(this.buffers.seekKey(lower, lower.length, this.snapshotSeq, KIND_FOR_SEEK));
      this.findNextUserEntry(false);
    }
  }

  /** Positions at the last key in bounds. */
  seekToLast(): void {
    this.checkOpen();
    this.countSeek();
    if (this.prefixSeek !== undefined) this.prefixSeek.active = false;
    this.seekToLastInternal();
    if (this.prefixExtractor !== undefined) this.startPrefixAtKey();
    if (this.remaining !== Number.POSITIVE_INFINITY) this.countEntry();
  }

  private seekToLastInternal(): void {
    this.direction = REVERSE;
    this.isValid = false;
    const upper = this.upperBound;
    if (upper === undefined) {
      this.iter.seekToLast();
    } else if (this.upperInclusive) {
      // After every entry of the bound itself.
      this.iter.seekForPrev(this.buffers.seekKey(upper, upper.length, 0, ValueKind.Deletion));
    } else {
      // Before every entry of upperBound itself.
      this.iter.seekForPrev(this.buffers.seekKey(upper, upper.length, MAX_SEQ, KIND_FOR_SEEK));
    }
    this.prevInternal();
  }

  /** Positions at the first key >= `target` that is in bounds. */
  seek(target: Uint8Array | string): void {
    this.checkOpen();
    const t = toBytes(target, "target");
    this.countSeek();
    if (this.prefixSeek !== undefined)
      this.prefixSeek.active = this.prefixSeek.extractor.inDomain(t);
    this.seekInternal(t);
    if (this.prefixExtractor !== undefined) this.startPrefix(t);
    if (this.remaining !== Number.POSITIVE_INFINITY) this.countEntry();
  }

  private seekInternal(t: Uint8Array): void {
    const lower = this.lowerBound;
    if (lower !== undefined) {
      const c = this.order.compare(t, lower);
      if (this.lowerExclusive ? c <= 0 : c < 0) {
        this.seekToFirstInternal();
        return;
      }
    }
    this.direction = FORWARD;
    this.isValid = false;
    const upper = this.upperBound;
    if (upper !== undefined) {
      const c = this.order.compare(t, upper);
      if (this.upperInclusive ? c > 0 : c >= 0) return;
    }
    this.iter.seek(this.buffers.seekKey(t, t.length, this.snapshotSeq, KIND_FOR_SEEK));
    this.findNextUserEntry(false);
  }

  /** Positions at the last key <= `target` that is in bounds. */
  seekForPrev(target: Uint8Array | string): void {
    this.checkOpen();
    const t = toBytes(target, "target");
    this.countSeek();
    if (this.prefixSeek !== undefined)
      this.prefixSeek.active = this.prefixSeek.extractor.inDomain(t);
    this.seekForPrevInternal(t);
    if (this.prefixExtractor !== undefined) this.startPrefix(t);
    if (this.remaining !== Number.POSITIVE_INFINITY) this.countEntry();
  }

  private seekForPrevInternal(t: Uint8Array): void {
    const upper = this.upperBound;
    if (upper !== undefined && this.order.compare(t, upper) >= 0) {
      this.seekToLastInternal();
      return;
    }
    this.direction = REVERSE;
    this.isValid = false;
    const lower = this.lowerBound;
    if (lower !== undefined) {
      const c = this.order.compare(t, lower);
      if (this.lowerExclusive ? c <= 0 : c < 0) return;
    }
    // After every entry of target: (target, seq 0, the smallest kind).
    this.iter.seekForPrev(this.buffers.seekKey(t, t.length, 0, ValueKind.Deletion));
    this.prevInternal();
  }

  /**
   * prefixSameAsStart after a seek to `target`: the iterator stays within target's prefix
   * (a target outside the extractor's domain bounds nothing).
   */
  private startPrefix(target: Uint8Array): void {
    const e = this.prefixExtractor!;
    this.prefix = e.inDomain(target) ? e.transform(target).slice() : undefined;
    if (this.prefix !== undefined) this.checkPrefix();
  }

  /** prefixSameAsStart after seekToFirst/seekToLast: the prefix of the key landed on. */
  private startPrefixAtKey(): void {
    const e = this.prefixExtractor!;
    const key = this.isValid ? this.buffers.savedKey() : undefined;
    this.prefix = key !== undefined && e.inDomain(key) ? e.transform(key).slice() : undefined;
  }

  /** prefixSameAsStart: not valid on a key outside the seek's prefix (RocksDB's DBIter). */
  private checkPrefix(): void {
    if (!this.isValid) return;
    const e = this.prefixExtractor!;
    const key = this.buffers.savedKey();
    if (!e.inDomain(key) || !samePrefix(e.transform(key), this.prefix!)) this.isValid = false;
  }

  /**
   * `limit`: counts an entry the iterator landed on; past the limit it is not valid. Called
   * only when a limit is set.
   */
  private countEntry(): void {
    if (!this.isValid) return;
    if (this.remaining === 0) this.isValid = false;
    else this.remaining--;
  }

  /** Moves to the next key. REQUIRES: `valid()`. */
  next(): void {
    if (invariants && viewGuard.pending) viewGuard.verify();
    this.checkValid("next");
    const before = invariants ? this.buffers.savedKey().slice() : undefined;
    const stats = this.stats;
    if (stats !== undefined) stats.tick(Ticker.IterNexts);
    this.isValid = false;
    if (this.direction === REVERSE) {
      // The merged iterator is before the current key: go to its first entry.
      this.direction = FORWARD;
      this.iter.seek(this.buffers.savedSeekKey(MAX_SEQ, KIND_FOR_SEEK));
    } else if (!this.currentEntryIsMerged) {
      this.iter.next();
    }
    this.findNextUserEntry(true);
    if (this.prefix !== undefined) this.checkPrefix();
    if (before !== undefined)
      checkStep(this.order, before, this.isValid ? this.buffers.savedKey() : undefined, 1);
    if (this.remaining !== Number.POSITIVE_INFINITY) this.countEntry();
  }

  /** Moves to the previous key. REQUIRES: `valid()`. */
  prev(): void {
    if (invariants && viewGuard.pending) viewGuard.verify();
    this.checkValid("prev");
    const before = invariants ? this.buffers.savedKey().slice() : undefined;
    const stats = this.stats;
    if (stats !== undefined) stats.tick(Ticker.IterNexts);
    this.isValid = false;
    if (this.direction === FORWARD) {
      // The merged iterator is on (or past) the current key: go before its entries.
      this.direction = REVERSE;
      this.iter.seekForPrev(this.buffers.savedSeekKey(MAX_SEQ, KIND_FOR_SEEK));
    }
    this.prevInternal();
    if (this.prefix !== undefined) this.checkPrefix();
    if (before !== undefined)
      checkStep(this.order, before, this.isValid ? this.buffers.savedKey() : undefined, -1);
    if (this.remaining !== Number.POSITIVE_INFINITY) this.countEntry();
  }

  /**
   * The current user key. REQUIRES: `valid()`. A read-only view of a reused buffer: valid
   * until the iterator moves or is closed (see the class comment).
   */
  key(): Uint8Array {
    this.checkValid("key");
    const key = this.buffers.savedKey();
    return invariants ? viewGuard.record(key, "iterator.key()") : key;
  }

  /**
   * The current value. REQUIRES: `valid()`. A read-only zero-copy view (into a memtable, a
   * cached block or a reused buffer) or, for a merged key, the merge operator's result;
   * valid until the iterator moves or is closed (see the class comment).
   */
  value(): Uint8Array {
    this.checkValid("value");
    const source = this.valueSource;
    let value =
      source === VALUE_FROM_ITER
        ? this.iter.value()
        : source === VALUE_FROM_BUFFER
          ? this.buffers.savedValue()
          : this.merged;
    if (this.ttl) value = stripTimestamp(value);
    return invariants ? viewGuard.record(value, "iterator.value()") : value;
  }

  /**
   * Releases what the iterator pins (sources, memtables, table files). Idempotent. The
   * release runs even if closing a source throws (or, in invariants mode, a returned view was
   * written into); that error is rethrown.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.isValid = false;
    const onClose = this.onClose;
    this.onClose = undefined;
    try {
      // Before the release: closing may overwrite released blocks (the invariants mode's
      // mangling), and a view is only checked while it is valid.
      if (invariants && viewGuard.pending) viewGuard.verify();
    } finally {
      try {
        this.iter.close();
      } finally {
        // Nothing reads them after this: every method checks `closed` first.
        giveBuffers(this.buffers);
        onClose?.();
      }
    }
  }

  /**
   * Iterates `[key, value]` pairs from the first key (or, if built with `reverse: true`, from
   * the last key backwards), whatever the current position, at most `limit` entries. Yields
   * a fresh `[key, value]` array per entry, both copies the caller owns (never shared
   * memory; write into them, keep them: see owned-bytes.ts for how small copies share a
   * pooled plain ArrayBuffer). The loop consumes the iterator: it is closed when the loop
   * ends, breaks or throws.
   */
  [Symbol.iterator](): IterableIterator<[Uint8Array, Uint8Array]> {
    this.checkOpen();
    return new EntryIterator(this, this.reverse);
  }

  /** At the start of every seek (after the open check): counts it, takes finished jobs. */
  private countSeek(): void {
    if (invariants && viewGuard.pending) viewGuard.verify();
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
