/**
 * UserKeyIterator: the user's view of any internal iterator — one entry per live user key,
 * its newest version visible at a snapshot, with deletions and range tombstones applied and
 * merge operands resolved by a merge operator (RocksDB's DBIter, LevelDB's DBIter), without
 * the database.
 *
 * ```
 * internal (e.g. a MergingIterator over a memtable and a table), snapshot 8:
 *   a#9,SET "x"  a#7,SET "1"  b#6,DEL  b#2,SET "2"  c#5,MERGE "+1"  c#3,SET "1"  d#4,SET "4"
 *   range tombstone [d, e)@6
 * user view:
 *   a -> "1"   (a#9 is above the snapshot)     b: deleted at 6
 *   c -> merge("1", ["+1"])                   d: d#4 < 6, covered by the tombstone
 * ```
 *
 * Forward (`seekToFirst`, `seek`, `next`): the inner iterator is placed at `key#snapshot`
 * (entries above the snapshot are skipped), then a user key's versions are read newest
 * first: a Value ends it (the key is live), a Deletion / SingleDeletion or a version with a
 * seq below the newest range tombstone covering the key ends it as deleted, Merge operands
 * are gathered (copied) until a base value, a deletion or the next key, and then merged.
 *
 * Reverse (`seekToLast`, `seekForPrev`, `prev`): the inner iterator steps back to the
 * previous user key with `seekForPrev(key#MAX_SEQ)`, and that key is then resolved forward
 * as above (a `seek`), repeated while the keys found are deleted. So a reverse step costs two
 * inner seeks; the db's own iterator (@shale/db) does a one-pass reverse scan instead, and
 * is the one to use for long reverse scans of a database.
 *
 * Range tombstones come from sources that answer `maxCoveringSeq(userKey, snapshotSeq)`:
 * a `FragmentedRangeTombstoneList` (`memtable.fragmentedRangeTombstones()`,
 * `tableReader.rangeTombstones()`); the newest covering seq over all sources applies to
 * every inner entry, since sequence numbers are global.
 *
 * Ownership: `key()` is a view of a buffer this iterator reuses; `value()` a view into the
 * inner iterator's entry, or the merge operator's result. Both are valid until the iterator
 * next moves or is closed: copy them to keep them. The iterator owns the inner iterator and
 * closes it in `close()`.
 *
 * Errors: `next()`, `prev()`, `key()`, `value()` REQUIRE `valid()` (else ShaleError
 * InvalidArgument); after `close()` everything but `valid()` (false) and `close()` throws
 * Closed. Merge operands without a merge operator are InvalidArgument; a merge that returns
 * undefined is Corruption; errors of the inner iterator propagate. Not thread-safe.
 */
import {
  bytewiseComparator,
  type Comparator,
  type InternalIterator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  type MergeOperator,
  putTrailer,
  ShaleError,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";

/** Where range tombstones come from (a `FragmentedRangeTombstoneList` is one). */
export interface RangeTombstoneSource {
  /** The highest seq <= snapshotSeq of a tombstone covering userKey; 0 if none. */
  maxCoveringSeq(userKey: Uint8Array, snapshotSeq: number): number;
}

export type { MergeOperator };

export interface UserKeyIteratorOptions {
  /** Newest sequence number visible. Default: `MAX_SEQ` (everything, the latest). */
  snapshotSeq?: number;
  /** Order of user keys; the inner iterator's internal keys follow it. Default: bytewise. */
  comparator?: Comparator;
  /** Range tombstones applied to every inner entry. Default: none. */
  rangeTombstones?: readonly RangeTombstoneSource[];
  /** Resolves Merge entries. Default: none (meeting a Merge entry is InvalidArgument). */
  mergeOperator?: MergeOperator;
  /** First user key in view (inclusive). Default: none. */
  lowerBound?: Uint8Array;
  /** User keys in view are below it (exclusive). Default: none. */
  upperBound?: Uint8Array;
}

export class UserKeyIterator implements Iterable<[Uint8Array, Uint8Array]> {
  private readonly inner: InternalIterator;
  private readonly snapshot: number;
  private readonly comparator: Comparator;
  private readonly bytewise: boolean;
  private readonly tombstones: readonly RangeTombstoneSource[];
  private readonly mergeOperator: MergeOperator | undefined;
  private readonly lowerBound: Uint8Array | undefined;
  private readonly upperBound: Uint8Array | undefined;

  private isValid = false;
  private closed = false;
  /** The current user key: keyView = keyBuf[0, length). */
  private keyBuf = new Uint8Array(64);
  private keyView: Uint8Array = this.keyBuf.subarray(0, 0);
  private currentValue: Uint8Array = new Uint8Array(0);
  /** Seek keys are built here: user key ‖ trailer. */
  private seekBuf = new Uint8Array(64);
  private readonly operands: Uint8Array[] = [];

  constructor(inner: InternalIterator, options: UserKeyIteratorOptions = {}) {
    if (typeof inner !== "object" || inner === null || typeof inner.seek !== "function") {
      throw new TypeError("inner must be an InternalIterator");
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError("options must be an object");
    }
    const snapshot = options.snapshotSeq ?? MAX_SEQ;
    if (typeof snapshot !== "number") throw new TypeError("options.snapshotSeq must be a number");
    if (!(Number.isInteger(snapshot) && snapshot >= 0 && snapshot <= MAX_SEQ)) {
      throw ShaleError.invalidArgument(`options.snapshotSeq out of range: ${snapshot}`);
    }
    const tombstones = options.rangeTombstones ?? [];
    if (!Array.isArray(tombstones)) throw new TypeError("options.rangeTombstones must be an array");
    for (const t of tombstones) {
      if (typeof t?.maxCoveringSeq !== "function") {
        throw new TypeError("options.rangeTombstones[] must have maxCoveringSeq(userKey, seq)");
      }
    }
    const merge = options.mergeOperator;
    if (merge !== undefined && typeof merge.fullMerge !== "function") {
      throw new TypeError("options.mergeOperator must have fullMerge(key, existing, operands)");
    }
    for (const name of ["lowerBound", "upperBound"] as const) {
      const b = options[name];
      if (b !== undefined && !(b instanceof Uint8Array)) {
        throw new TypeError(`options.${name} must be a Uint8Array`);
      }
    }
    this.inner = inner;
    this.snapshot = snapshot;
    this.comparator = options.comparator ?? bytewiseComparator;
    this.bytewise = this.comparator === bytewiseComparator;
    this.tombstones = tombstones;
    this.mergeOperator = merge;
    this.lowerBound = options.lowerBound?.slice();
    this.upperBound = options.upperBound?.slice();
  }

  valid(): boolean {
    return this.isValid;
  }

  /** The first live key (at or after `lowerBound`). */
  seekToFirst(): void {
    this.checkOpen();
    if (this.lowerBound !== undefined) {
      this.seek(this.lowerBound);
      return;
    }
    this.inner.seekToFirst();
    this.findNext();
  }

  /** The first live key >= `userKey` (a key below `lowerBound` seeks to it). */
  seek(userKey: Uint8Array): void {
    this.checkOpen();
    checkKey(userKey);
    const lower = this.lowerBound;
    const target =
      lower !== undefined && this.comparator.compare(userKey, lower) < 0 ? lower : userKey;
    this.inner.seek(this.seekKey(target, this.snapshot, KIND_FOR_SEEK));
    this.findNext();
  }

  /** The last live key (below `upperBound`). */
  seekToLast(): void {
    this.checkOpen();
    if (this.upperBound !== undefined) {
      this.findPrev(this.upperBound, false);
      return;
    }
    this.inner.seekToLast();
    this.resolveBackward();
  }

  /** The last live key <= `userKey` (a key at or above `upperBound`: the last in bounds). */
  seekForPrev(userKey: Uint8Array): void {
    this.checkOpen();
    checkKey(userKey);
    const upper = this.upperBound;
    if (upper !== undefined && this.comparator.compare(userKey, upper) >= 0) {
      this.findPrev(upper, false);
    } else {
      this.findPrev(userKey, true);
    }
  }

  /** REQUIRES: valid(). The next live key. */
  next(): void {
    this.checkValid();
    const inner = this.inner;
    while (inner.valid() && this.isCurrentUserKey(inner.key())) inner.next();
    this.findNext();
  }

  /** REQUIRES: valid(). The previous live key. */
  prev(): void {
    this.checkValid();
    this.findPrev(this.keyView, false);
  }

  /** REQUIRES: valid(). The user key: a view valid until the next move. */
  key(): Uint8Array {
    this.checkValid();
    return this.keyView;
  }

  /** REQUIRES: valid(). The newest visible value (merged): a view valid until the next move. */
  value(): Uint8Array {
    this.checkValid();
    return this.currentValue;
  }

  /** Closes the inner iterator. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.isValid = false;
    this.operands.length = 0;
    this.inner.close();
  }

  /** Every live key from the first, as copies `[key, value]`; closes the iterator at the end. */
  *[Symbol.iterator](): Iterator<[Uint8Array, Uint8Array]> {
    try {
      for (this.seekToFirst(); this.isValid; this.next()) {
        yield [this.keyView.slice(), this.currentValue.slice()];
      }
    } finally {
      this.close();
    }
  }

  // ---------------------------------------------------------------------------------------

  private checkOpen(): void {
    if (this.closed) throw ShaleError.closed("user-key iterator is closed");
  }

  private checkValid(): void {
    this.checkOpen();
    if (!this.isValid) throw ShaleError.invalidArgument("iterator is not valid");
  }

  /** `userKey ‖ trailer(seq, kind)` in the reused seek buffer (a view of it). */
  private seekKey(userKey: Uint8Array, seq: number, kind: number): Uint8Array {
    const n = userKey.length + TRAILER_SIZE;
    if (n > this.seekBuf.length)
      this.seekBuf = new Uint8Array(Math.max(n, 2 * this.seekBuf.length));
    this.seekBuf.set(userKey, 0);
    putTrailer(this.seekBuf, userKey.length, seq, kind);
    return this.seekBuf.subarray(0, n);
  }

  /** Compares the user-key part of `ikey` with `userKey`. */
  private compareUser(ikey: Uint8Array, userKey: Uint8Array): number {
    const n = ikey.length - TRAILER_SIZE;
    if (this.bytewise) {
      const m = userKey.length;
      const len = n < m ? n : m;
      for (let i = 0; i < len; i++) {
        const d = ikey[i]! - userKey[i]!;
        if (d !== 0) return d;
      }
      return n - m;
    }
    return this.comparator.compare(ikey.subarray(0, n), userKey);
  }

  private isCurrentUserKey(ikey: Uint8Array): boolean {
    return this.compareUser(ikey, this.keyView) === 0;
  }

  /** Copies the user-key part of `ikey` into keyBuf. */
  private setKey(ikey: Uint8Array): void {
    const n = ikey.length - TRAILER_SIZE;
    if (n > this.keyBuf.length) this.keyBuf = new Uint8Array(Math.max(n, 2 * this.keyBuf.length));
    this.keyBuf.set(ikey.subarray(0, n), 0);
    this.keyView = this.keyBuf.subarray(0, n);
  }

  /** From the inner position on, the first live user key in bounds (or invalid). */
  private findNext(): void {
    const inner = this.inner;
    const upper = this.upperBound;
    this.isValid = false;
    while (inner.valid()) {
      const ikey = inner.key();
      if (trailerSeq(ikey, ikey.length - TRAILER_SIZE) > this.snapshot) {
        inner.next();
        continue;
      }
      if (upper !== undefined && this.compareUser(ikey, upper) >= 0) return;
      if (this.resolve()) {
        this.isValid = true;
        return;
      }
      while (inner.valid() && this.isCurrentUserKey(inner.key())) inner.next();
    }
  }

  /**
   * The last live user key before `userKey` (or at it, when `inclusive`), above `lowerBound`.
   * `userKey` may be the current key's view: it is read before anything moves.
   */
  private findPrev(userKey: Uint8Array, inclusive: boolean): void {
    // userKey#0,0 is the last internal key of userKey; userKey#MAX_SEQ,KIND_FOR_SEEK its first.
    const target = inclusive
      ? this.seekKey(userKey, 0, 0)
      : this.seekKey(userKey, MAX_SEQ, KIND_FOR_SEEK);
    this.inner.seekForPrev(target);
    if (!inclusive) {
      // Only an entry equal to the target itself can share its user key.
      while (this.inner.valid() && this.compareUser(this.inner.key(), userKey) === 0)
        this.inner.prev();
    }
    this.resolveBackward();
  }

  /** From the inner position backwards: the last live user key whose entry is at or before it. */
  private resolveBackward(): void {
    const inner = this.inner;
    const lower = this.lowerBound;
    const upper = this.upperBound;
    this.isValid = false;
    while (inner.valid()) {
      const ikey = inner.key();
      if (lower !== undefined && this.compareUser(ikey, lower) < 0) return;
      if (upper !== undefined && this.compareUser(ikey, upper) >= 0) {
        inner.prev();
        continue;
      }
      this.setKey(ikey);
      // Resolve this user key forward, from its newest version visible at the snapshot.
      inner.seek(this.seekKey(this.keyView, this.snapshot, KIND_FOR_SEEK));
      if (inner.valid() && this.isCurrentUserKey(inner.key()) && this.resolve()) {
        this.isValid = true;
        return;
      }
      inner.seekForPrev(this.seekKey(this.keyView, MAX_SEQ, KIND_FOR_SEEK));
      while (inner.valid() && this.isCurrentUserKey(inner.key())) inner.prev();
    }
  }

  /**
   * REQUIRES: the inner iterator is at the newest version visible at the snapshot of a user
   * key. Takes that key and reads its versions: true (key, value set) if it is live; false if
   * deleted. Leaves the inner iterator at the entry that decided, or past the key's versions.
   */
  private resolve(): boolean {
    const inner = this.inner;
    this.setKey(inner.key());
    const userKey = this.keyView;
    let covering = 0;
    const tombstones = this.tombstones;
    for (let i = 0; i < tombstones.length; i++) {
      const s = tombstones[i]!.maxCoveringSeq(userKey, this.snapshot);
      if (s > covering) covering = s;
    }
    const operands = this.operands;
    operands.length = 0;
    for (;;) {
      const ikey = inner.key();
      const t = ikey.length - TRAILER_SIZE;
      const seq = trailerSeq(ikey, t);
      const kind = seq < covering ? ValueKind.Deletion : ikey[t]!;
      if (kind === ValueKind.Value) {
        this.currentValue = operands.length === 0 ? inner.value() : this.merge(inner.value());
        return true;
      }
      if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
        if (operands.length === 0) return false;
        this.currentValue = this.merge(undefined);
        return true;
      }
      if (kind === ValueKind.Merge) {
        if (this.mergeOperator === undefined) {
          throw ShaleError.invalidArgument("a merge operand was met without a merge operator");
        }
        operands.push(inner.value().slice());
      } else if (kind === ValueKind.BlobIndex) {
        throw ShaleError.notSupported(
          "a blob index (a value in a RocksDB blob file) needs @shale/db's iterator to be read",
        );
      } else if (kind !== ValueKind.RangeDeletion) {
        throw ShaleError.corruption(`unknown value kind ${kind} in an internal key`);
      }
      inner.next();
      if (!inner.valid() || !this.isCurrentUserKey(inner.key())) {
        if (operands.length === 0) return false;
        this.currentValue = this.merge(undefined);
        return true;
      }
    }
  }

  /** Merges the gathered operands (newest first) onto `base`. */
  private merge(base: Uint8Array | undefined): Uint8Array {
    const operands = this.operands;
    operands.reverse(); // oldest first
    const merged = this.mergeOperator!.fullMerge(this.keyView, base, operands);
    operands.length = 0;
    if (merged === undefined) {
      throw ShaleError.corruption(`merge operator ${this.mergeOperator!.name} failed`);
    }
    return merged;
  }
}

function checkKey(userKey: unknown): void {
  if (!(userKey instanceof Uint8Array)) throw new TypeError("key must be a Uint8Array");
}

/** A `UserKeyIterator` over `inner` (which it owns). */
export function newUserKeyIterator(
  inner: InternalIterator,
  options?: UserKeyIteratorOptions,
): UserKeyIterator {
  return new UserKeyIterator(inner, options);
}
