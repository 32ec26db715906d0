/**
 * Iteration over the fragments of a list that are visible at a snapshot.
 *
 * This is deliberately not an `InternalIterator`: it positions on fragments (a start, an end
 * and a seq), not on internal keys, so its seeks are defined by coverage:
 *
 * ```
 *   fragments:     a-c:{10}   c-e:{20,10}   g-k:{5}      snapshot 15
 *   visible:       a-c seq 10 c-e seq 10    g-k seq 5
 *   seek("d")        -> c-e  (first fragment whose end > "d")
 *   seek("e")        -> g-k  (c-e ends at "e", which it does not cover)
 *   seekForPrev("f") -> c-e  (last fragment whose start <= "f")
 *   seekForPrev("0") -> invalid
 * ```
 *
 * At snapshot 8 the first two fragments are invisible (their oldest seq, 10, is newer than
 * the snapshot), so `seekToFirst()` lands on g-k.
 */
import type { FragmentParts } from "./fragment-parts.js";
import { firstEndAfter, firstSeqAtOrBelow, lastStartAtOrBefore } from "./search.js";

/**
 * A cursor over the fragments visible at one snapshot, in comparator order. A fragment is
 * visible when some seq of its stack is <= the snapshot.
 *
 * Positioning:
 * - `seekToFirst()` / `seekToLast()`: the first / last visible fragment.
 * - `seek(userKey)`: the first visible fragment whose end > userKey (it covers userKey, or
 *   lies entirely after it).
 * - `seekForPrev(userKey)`: the last visible fragment whose start <= userKey (it covers
 *   userKey, or lies entirely before it).
 * - `next()` / `prev()`: REQUIRES `valid()`; moving off either end makes the iterator invalid.
 *
 * Access (REQUIRES `valid()`): `start()` and `end()` are views into the list's key buffer
 * (not copies) — valid as long as the list, and never to be modified. `seq()` is the newest seq of
 * the fragment at or below the snapshot; `seqs()` is the visible part of the stack (newest
 * first) as a read-only view.
 *
 * Iterators hold no resources; drop them when done. Not thread-safe (one cursor per caller).
 */
export interface FragmentIterator {
  /** The snapshot this iterator reads at. */
  readonly snapshotSeq: number;
  valid(): boolean;
  seekToFirst(): void;
  seekToLast(): void;
  seek(userKey: Uint8Array): void;
  seekForPrev(userKey: Uint8Array): void;
  next(): void;
  prev(): void;
  start(): Uint8Array;
  end(): Uint8Array;
  seq(): number;
  seqs(): Float64Array;
}

/** The implementation behind `FragmentedRangeTombstoneList.newIterator`. */
export class ListFragmentIterator implements FragmentIterator {
  readonly snapshotSeq: number;
  private readonly parts: FragmentParts;
  private readonly compare: (a: Uint8Array, b: Uint8Array) => number;
  private readonly count: number;
  /** Current fragment, -1 or count when invalid. */
  private index = -1;
  /** Index in parts.seqs of the current fragment's top visible seq. */
  private seqIndex = 0;

  constructor(
    parts: FragmentParts,
    compare: (a: Uint8Array, b: Uint8Array) => number,
    snapshotSeq: number,
  ) {
    this.parts = parts;
    this.compare = compare;
    this.snapshotSeq = snapshotSeq;
    this.count = parts.starts.length;
  }

  valid(): boolean {
    return this.index >= 0 && this.index < this.count;
  }

  seekToFirst(): void {
    this.forwardToVisible(0);
  }

  seekToLast(): void {
    this.backwardToVisible(this.count - 1);
  }

  seek(userKey: Uint8Array): void {
    this.forwardToVisible(firstEndAfter(this.parts, this.compare, userKey));
  }

  seekForPrev(userKey: Uint8Array): void {
    this.backwardToVisible(lastStartAtOrBefore(this.parts, this.compare, userKey));
  }

  next(): void {
    this.checkValid("next");
    this.forwardToVisible(this.index + 1);
  }

  prev(): void {
    this.checkValid("prev");
    this.backwardToVisible(this.index - 1);
  }

  start(): Uint8Array {
    this.checkValid("start");
    return this.parts.starts[this.index]!;
  }

  end(): Uint8Array {
    this.checkValid("end");
    return this.parts.ends[this.index]!;
  }

  seq(): number {
    this.checkValid("seq");
    return this.parts.seqs[this.seqIndex]!;
  }

  seqs(): Float64Array {
    this.checkValid("seqs");
    return this.parts.seqs.subarray(this.seqIndex, this.parts.seqOffsets[this.index + 1]!);
  }

  /** Positions on the first visible fragment at index >= from. */
  private forwardToVisible(from: number): void {
    const { seqOffsets, seqs } = this.parts;
    const snapshot = this.snapshotSeq;
    for (let f = from; f < this.count; f++) {
      const end = seqOffsets[f + 1]!;
      if (seqs[end - 1]! <= snapshot) {
        this.index = f;
        this.seqIndex = firstSeqAtOrBelow(seqs, seqOffsets[f]!, end, snapshot);
        return;
      }
    }
    this.index = this.count;
  }

  /** Positions on the last visible fragment at index <= from. */
  private backwardToVisible(from: number): void {
    const { seqOffsets, seqs } = this.parts;
    const snapshot = this.snapshotSeq;
    for (let f = from; f >= 0; f--) {
      const end = seqOffsets[f + 1]!;
      if (seqs[end - 1]! <= snapshot) {
        this.index = f;
        this.seqIndex = firstSeqAtOrBelow(seqs, seqOffsets[f]!, end, snapshot);
        return;
      }
    }
    this.index = -1;
  }

  private checkValid(what: string): void {
    if (this.index < 0 || this.index >= this.count) {
      throw new RangeError(`${what}() on an invalid fragment iterator`);
    }
  }
}
