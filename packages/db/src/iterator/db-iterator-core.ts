/**
 * The engine of the DB iterator (RocksDB's DBIter, `db/db_iter.cc`): it walks the merged
 * stream of internal keys of every source and yields one entry per user key — the newest
 * version visible at the snapshot, with deletions, range deletions and merge operands
 * resolved.
 *
 * ```
 *   merged internal keys (newest first per user key), snapshot 8:
 *     a#9,SET  a#7,MERGE  a#5,SET  b#6,DEL  b#3,SET  c#4,MERGE  c#2,MERGE   rangedel [c, d)@3
 *     ^^^^^^^  invisible (9 > 8)
 *   a: newest visible a#7,MERGE -> operands [7], base a#5      -> fullMerge(a, v5, [v7])
 *   b: newest visible b#6,DEL                                  -> hidden
 *   c: c#4,MERGE; c#2 is below the tombstone's 3 (deleted)     -> fullMerge(c, undefined, [v4])
 * ```
 *
 * Forward (`direction = FORWARD`): the merged iterator sits ON the entry that produced the
 * current key (after a merge: on the entry that ended the operands — the base, a deletion,
 * or the next user key). `next()` skips
 * every remaining entry of the saved user key, then takes the first entry of a new user key
 * that decides it: a Value yields, a deletion (or a point under a newer range tombstone)
 * hides the key and skipping goes on, a Merge collects operands down to a base.
 *
 * Reverse (`direction = REVERSE`): entries of a user key come oldest first, so `prev()` must
 * read all of them to learn the newest visible state — it replays the key's history
 * (a Value or a deletion resets the operands, each Merge adds one), and leaves the merged
 * iterator BEFORE the key's entries. Direction switches re-seek the merged iterator around the
 * saved key. Long runs of versions of one key (more than MAX_SKIP) are crossed with a seek.
 *
 * Buffers (`iterator-buffers.ts`, an object the core holds): the current user key is copied
 * into a reused buffer, and so is a value found backwards; merged values are the operator's
 * results.
 */
import {
  EMPTY_BYTES,
  type InternalIterator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  ShaleError,
  type Statistics,
  Ticker,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import type { BlobResolver } from "../blob/blob-source.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { type IteratorBuffers, takeBuffers } from "./iterator-buffers.js";
import { fullMerge, type MergeOperands, missingMergeOperator } from "./merge-operands.js";
import type { PinnedIterators } from "./pinned-iterators.js";
import type { RangeDelAggregator } from "./range-del-aggregator.js";
import type { UserKeyOrder } from "./user-key-order.js";

/** Versions of one user key stepped over before seeking instead (RocksDB's default, 8). */
export const MAX_SKIP = 8;

export const FORWARD = 0;
export const REVERSE = 1;

/** Where `value()` comes from. */
export const VALUE_FROM_ITER = 0;
export const VALUE_FROM_BUFFER = 1;
export const VALUE_MERGED = 2;

// Outcome of replaying a user key's history backwards.
const STATE_DELETED = 0;
const STATE_VALUE = 1;
const STATE_MERGE = 2;

/** What the core needs; built by `newDBIterator`. */
export interface DBIteratorCoreOptions {
  iter: InternalIterator;
  order: UserKeyOrder;
  mergeOperator: MergeOperator | undefined;
  snapshotSeq: number;
  lowerBound: Uint8Array | undefined;
  upperBound: Uint8Array | undefined;
  /** `lowerBound` is exclusive (Level's `gt`). Default: inclusive. */
  lowerExclusive?: boolean | undefined;
  /** `upperBound` is inclusive (Level's `lte`). Default: exclusive. */
  upperInclusive?: boolean | undefined;
  rangeDel: RangeDelAggregator | undefined;
  statistics: Statistics | undefined;
  /** Keeps the table iterators the levels leave while a key is resolved backwards. */
  pins?: PinnedIterators | undefined;
  /** Reads the values of BlobIndex entries (RocksDB's blob files). Default: none (Corruption). */
  blobs?: BlobResolver | undefined;
}

function badKey(ikey: Uint8Array): ShaleError {
  return ShaleError.corruption(`DB iterator met a malformed internal key (${ikey.length} bytes)`);
}

function badKind(kind: number): ShaleError {
  return ShaleError.corruption(`DB iterator met an entry of unexpected kind ${kind}`);
}

export class DBIteratorCore {
  /** The saved key, value and seek keys (iterator-buffers.ts). */
  protected readonly buffers: IteratorBuffers = takeBuffers();
  protected readonly iter: InternalIterator;
  protected readonly order: UserKeyOrder;
  protected readonly mergeOperator: MergeOperator | undefined;
  protected readonly snapshotSeq: number;
  protected readonly lowerBound: Uint8Array | undefined;
  protected readonly upperBound: Uint8Array | undefined;
  /** The lower bound is exclusive (gt): keys equal to it are out. Default: inclusive. */
  protected readonly lowerExclusive: boolean;
  /** The upper bound is inclusive (lte): keys equal to it are in. Default: exclusive. */
  protected readonly upperInclusive: boolean;
  protected readonly rangeDel: RangeDelAggregator | undefined;
  protected readonly stats: Statistics | undefined;

  protected direction = FORWARD;
  protected isValid = false;
  /** Forward: the merged iterator already moved past the current key's operands. */
  protected currentEntryIsMerged = false;
  protected valueSource = VALUE_FROM_ITER;
  protected merged: Uint8Array = EMPTY_BYTES;

  private readonly operands: MergeOperands = this.buffers.operands;
  private readonly pins: PinnedIterators | undefined;
  private readonly blobs: BlobResolver | undefined;
  /** The value saved backwards (`saveValue`) is a blob index, not the value. */
  private savedIsBlob = false;
  /**
   * The merged iterator gives step hints (`userKeyDiffersAt`) and the order is bytewise, so a
   * forward step compares one byte with the saved key instead of the whole key.
   */
  private readonly hinted: boolean;
  /** Set by findValueForCurrentKey: the merged iterator is already before the saved key. */
  private beforeSavedKey = false;

  constructor(options: DBIteratorCoreOptions) {
    this.iter = options.iter;
    this.order = options.order;
    this.mergeOperator = options.mergeOperator;
    this.snapshotSeq = options.snapshotSeq;
    this.lowerBound = options.lowerBound;
    this.upperBound = options.upperBound;
    this.lowerExclusive = options.lowerExclusive === true;
    this.upperInclusive = options.upperInclusive === true;
    this.rangeDel = options.rangeDel;
    this.stats = options.statistics;
    this.pins = options.pins;
    this.blobs = options.blobs;
    this.hinted = this.order.bytewise && typeof this.iter.userKeyDiffersAt === "function";
  }

  /** The value a blob index of the saved key points at (read from its blob file). */
  private resolveBlob(index: Uint8Array): Uint8Array {
    if (this.blobs === undefined)
      throw ShaleError.corruption("DB iterator met a blob index but has no blob files to read");
    return this.blobs.resolve(this.buffers.savedKey(), index);
  }

  private compareToSaved(ikey: Uint8Array, n: number): number {
    return this.order.comparePrefixes(ikey, n, this.buffers.keyBuf, this.buffers.keyLength);
  }

  // ------------------------------------------------------------------ forward

  /**
   * From the merged iterator's position, finds the first user key with a visible, undeleted
   * state; with `skipping`, entries of user keys <= the saved key are passed over first.
   * Sets isValid.
   */
  protected findNextUserEntry(skipping: boolean): void {
    const iter = this.iter;
    const snapshot = this.snapshotSeq;
    const upper = this.upperBound;
    const upperInclusive = this.upperInclusive;
    const order = this.order;
    const rangeDel = this.rangeDel;
    const buffers = this.buffers;
    const hinted = this.hinted;
    const bytewise = order.bytewise;
    // Not valid until an entry is found. Stored on entry, not after the loop: a store met only
    // at the end of a scan has no type feedback when the function is compiled mid-scan, and
    // would deoptimize it there, so the next scan would start in unoptimized code again.
    this.isValid = false;
    this.pins?.release(); // the views of the last key backwards end with the move
    this.currentEntryIsMerged = false;
    this.valueSource = VALUE_FROM_ITER;
    let numSkipped = 0;
    let reseekDone = false;
    // The merged iterator's previous entry holds the saved user key (true on every call that
    // skips: the iterator is on, or just past, the saved key's entries). Then its step hint
    // — where the current user key first differs from that entry's — is where it differs
    // from the saved key: one byte decides the comparison, and the copy starts there.
    // Without a hint, a bytewise order finds that byte in the same pass that compares.
    let onSaved = skipping;
    while (iter.valid()) {
      const ikey = iter.key();
      const n = ikey.length - TRAILER_SIZE;
      if (n < 0) throw badKey(ikey);
      if (upper !== undefined) {
        const c = order.comparePrefixes(ikey, n, upper, upper.length);
        if (upperInclusive ? c > 0 : c >= 0) break;
      }
      const seq = trailerSeq(ikey, n);
      // `c`: the user key against the saved one (1 when not skipping and visible: no
      // comparison needed); `at`: how many leading bytes they share, where a copy starts.
      let c = 1;
      let at = 0;
      if (skipping || seq > snapshot) {
        const hint = onSaved && hinted ? iter.userKeyDiffersAt!() : -1;
        if (hint >= 0) {
          // A hint of n: the user key is the saved one (the contract's "equal" answer).
          at = hint;
          c = at < n ? ikey[at]! - buffers.keyBuf[at]! : 0;
        } else if (bytewise) {
          const saved = buffers.keyBuf;
          const savedLength = buffers.keyLength;
          const shorter = n < savedLength ? n : savedLength;
          while (at < shorter && ikey[at] === saved[at]) at++;
          c = at < shorter ? ikey[at]! - saved[at]! : n - savedLength;
        } else {
          c = this.compareToSaved(ikey, n);
        }
      }
      if (seq <= snapshot) {
        if (c <= 0) {
          numSkipped++; // an older version of a key already decided
          onSaved = c === 0;
        } else {
          numSkipped = 0;
          reseekDone = false;
          onSaved = true;
          const kind = ikey[n]!;
          buffers.saveKey(ikey, n, at);
          if (
            kind === ValueKind.Value ||
            kind === ValueKind.Merge ||
            kind === ValueKind.BlobIndex
          ) {
            if (rangeDel !== undefined && seq < rangeDel.coveringSeqOf(ikey)) {
              if (this.stats !== undefined) this.stats.tick(Ticker.RangeDelCoveredKeys);
              skipping = true; // deleted by a range tombstone
            } else {
              if (kind === ValueKind.Merge) this.mergeForward(rangeDel);
              else if (kind === ValueKind.BlobIndex) {
                // Read now (RocksDB's default); the iterator stays on the entry.
                this.merged = this.resolveBlob(iter.value());
                this.valueSource = VALUE_MERGED;
              }
              this.isValid = true;
              return;
            }
          } else if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
            skipping = true;
          } else {
            throw badKind(kind);
          }
        }
      } else {
        // Newer than the snapshot: invisible, but it tells where the next user key starts.
        if (c === 0 || (skipping && c < 0)) {
          numSkipped++;
          onSaved = c === 0;
        } else {
          buffers.saveKey(ikey, n, at);
          onSaved = true;
          skipping = false;
          numSkipped = 0;
          reseekDone = false;
        }
      }
      if (numSkipped > MAX_SKIP && !reseekDone) {
        // Many versions of one key in a row: seek over them instead of stepping.
        numSkipped = 0;
        reseekDone = true;
        iter.seek(
          skipping
            ? buffers.savedSeekKey(0, ValueKind.Deletion) // past the key's last version
            : buffers.savedSeekKey(snapshot, KIND_FOR_SEEK), // to its newest visible version
        );
      } else {
        iter.next();
      }
    }
  }

  /**
   * The merged iterator is on the newest visible, undeleted Merge entry of the saved key:
   * collects operands forward down to a Value (the base), a deletion, a range-deleted entry
   * or the end of the key, and merges. Leaves the iterator on the entry that stopped it.
   */
  private mergeForward(rangeDel: RangeDelAggregator | undefined): void {
    const iter = this.iter;
    const operands = this.operands;
    if (this.mergeOperator === undefined) throw missingMergeOperator();
    const cover = rangeDel !== undefined ? rangeDel.coveringSeqOf(iter.key()) : 0;
    operands.clear();
    operands.push(iter.value());
    iter.next();
    let base: Uint8Array | undefined;
    while (iter.valid()) {
      const ikey = iter.key();
      const n = ikey.length - TRAILER_SIZE;
      if (n < 0) throw badKey(ikey);
      if (this.compareToSaved(ikey, n) !== 0) break;
      // Older than a visible entry, so visible too.
      if (trailerSeq(ikey, n) < cover) break; // range-deleted: no base
      const kind = ikey[n]!;
      if (kind === ValueKind.Merge) {
        operands.push(iter.value());
        iter.next();
      } else if (kind === ValueKind.Value) {
        base = iter.value(); // used before the iterator moves
        break;
      } else if (kind === ValueKind.BlobIndex) {
        base = this.resolveBlob(iter.value()); // a merge over a blob merges onto its value
        break;
      } else if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
        break;
      } else {
        throw badKind(kind);
      }
    }
    this.merged = fullMerge(
      this.mergeOperator,
      this.buffers.savedKey(),
      base,
      operands.oldestFirst(true),
      this.stats,
    );
    this.currentEntryIsMerged = true;
    this.valueSource = VALUE_MERGED;
  }

  // ------------------------------------------------------------------ reverse

  /**
   * From the merged iterator's position (on or before the last entry of some user key),
   * finds the previous user key with a visible, undeleted state. Sets isValid.
   */
  protected prevInternal(): void {
    const iter = this.iter;
    const lower = this.lowerBound;
    const lowerExclusive = this.lowerExclusive;
    const order = this.order;
    this.isValid = false; // on entry, not after the loop: see findNextUserEntry
    this.pins?.release();
    while (iter.valid()) {
      const ikey = iter.key();
      const n = ikey.length - TRAILER_SIZE;
      if (n < 0) throw badKey(ikey);
      if (lower !== undefined) {
        const c = order.comparePrefixes(ikey, n, lower, lower.length);
        if (lowerExclusive ? c <= 0 : c < 0) break;
      }
      this.buffers.saveKey(ikey, n);
      const found = this.findValueForCurrentKey();
      if (!this.beforeSavedKey) this.findUserKeyBeforeSavedKey();
      if (found) {
        this.isValid = true;
        return;
      }
    }
  }

  /**
   * REQUIRES: the merged iterator is on the entry the saved key was just copied from.
   * Replays the saved key's entries backwards (oldest first) from the merged iterator's
   * position, leaving it on the first entry that is not a visible entry of the key (and
   * `beforeSavedKey` false if that is a newer version of the key itself). Returns whether the
   * key has a value at the snapshot; sets valueSource / merged.
   */
  private findValueForCurrentKey(): boolean {
    const iter = this.iter;
    const snapshot = this.snapshotSeq;
    const operands = this.operands;
    const rangeDel = this.rangeDel;
    const cover = rangeDel !== undefined ? rangeDel.coveringSeqOf(iter.key()) : 0;
    let state = STATE_DELETED;
    let lastNotMerge = STATE_DELETED;
    let numSkipped = 0;
    operands.clear();
    // A pinned value is kept (saveValue) while the levels move on: they hold what they leave.
    this.pins?.start();
    this.beforeSavedKey = true;
    while (iter.valid()) {
      const ikey = iter.key();
      const n = ikey.length - TRAILER_SIZE;
      if (n < 0) throw badKey(ikey);
      // The first entry is the one the key was saved from: no need to compare it.
      if (numSkipped > 0 && this.compareToSaved(ikey, n) !== 0) break;
      const seq = trailerSeq(ikey, n);
      if (seq > snapshot) {
        this.beforeSavedKey = false; // the rest of the key is newer still
        break;
      }
      if (numSkipped >= MAX_SKIP) return this.findValueForCurrentKeyUsingSeek();
      const kind = ikey[n]!;
      if (kind === ValueKind.Value || kind === ValueKind.BlobIndex) {
        operands.clear();
        if (seq < cover) {
          state = STATE_DELETED;
        } else {
          this.buffers.saveValue(iter.value(), iter.isValuePinned?.() === true);
          this.savedIsBlob = kind === ValueKind.BlobIndex;
          state = STATE_VALUE;
        }
        lastNotMerge = state;
      } else if (kind === ValueKind.Merge) {
        if (seq < cover) {
          operands.clear();
          state = lastNotMerge = STATE_DELETED;
        } else {
          operands.push(iter.value());
          state = STATE_MERGE;
        }
      } else if (kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
        operands.clear();
        state = lastNotMerge = STATE_DELETED;
      } else {
        throw badKind(kind);
      }
      iter.prev();
      numSkipped++;
    }
    if (state === STATE_DELETED) return false;
    if (state === STATE_VALUE) {
      if (this.savedIsBlob) {
        this.merged = this.resolveBlob(this.buffers.savedValue());
        this.valueSource = VALUE_MERGED;
      } else this.valueSource = VALUE_FROM_BUFFER;
      return true;
    }
    const saved = lastNotMerge === STATE_VALUE ? this.buffers.savedValue() : undefined;
    const base = saved !== undefined && this.savedIsBlob ? this.resolveBlob(saved) : saved;
    this.merged = fullMerge(
      this.mergeOperator,
      this.buffers.savedKey(),
      base,
      operands.oldestFirst(false),
      this.stats,
    );
    this.valueSource = VALUE_MERGED;
    return true;
  }

  /**
   * The key has many versions: seek to its newest visible one and resolve forward, then put
   * the merged iterator back before the key.
   */
  private findValueForCurrentKeyUsingSeek(): boolean {
    const iter = this.iter;
    iter.seek(this.buffers.savedSeekKey(this.snapshotSeq, KIND_FOR_SEEK));
    let found = false;
    if (iter.valid()) {
      const ikey = iter.key();
      const n = ikey.length - TRAILER_SIZE;
      if (n < 0) throw badKey(ikey);
      if (this.compareToSaved(ikey, n) === 0) {
        const rangeDel = this.rangeDel;
        const covered =
          rangeDel !== undefined && trailerSeq(ikey, n) < rangeDel.coveringSeqOf(ikey);
        const kind = ikey[n]!;
        if (covered || kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion) {
          found = false;
        } else if (kind === ValueKind.Value) {
          this.buffers.saveValue(iter.value(), iter.isValuePinned?.() === true);
          this.valueSource = VALUE_FROM_BUFFER;
          found = true;
        } else if (kind === ValueKind.BlobIndex) {
          this.merged = this.resolveBlob(iter.value());
          this.valueSource = VALUE_MERGED;
          found = true;
        } else if (kind === ValueKind.Merge) {
          this.mergeForward(rangeDel);
          found = true;
        } else {
          throw badKind(kind);
        }
      }
    }
    iter.seekForPrev(this.buffers.savedSeekKey(MAX_SEQ, KIND_FOR_SEEK));
    return found;
  }

  /** Moves the merged iterator back to the last entry of a user key < the saved key. */
  private findUserKeyBeforeSavedKey(): void {
    const iter = this.iter;
    let numSkipped = 0;
    while (iter.valid()) {
      const ikey = iter.key();
      const n = ikey.length - TRAILER_SIZE;
      if (n < 0) throw badKey(ikey);
      if (this.compareToSaved(ikey, n) < 0) return;
      if (numSkipped >= MAX_SKIP) {
        iter.seekForPrev(this.buffers.savedSeekKey(MAX_SEQ, KIND_FOR_SEEK));
        return;
      }
      numSkipped++;
      iter.prev();
    }
  }
}
