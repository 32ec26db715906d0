/**
 * FragmentedRangeTombstoneList: range tombstones fragmented once (see `fragmenter.ts`), then
 * looked up many times. This is what a table reader caches next to its index (RocksDB #4493):
 * a point lookup asks `maxCoveringSeq` and never re-fragments.
 */
import {
  bytewiseComparator,
  type Comparator,
  formatKey,
  MAX_SEQ,
  type RangeTombstone,
  ShaleError,
} from "@shale/base";
import { buildEndPrefixes, type EndPrefixes, firstEndAfterBytewise } from "./end-prefixes.js";
import { type FragmentIterator, ListFragmentIterator } from "./fragment-iterator.js";
import { type FragmentParts, fragmentTombstones } from "./fragmenter.js";
import { firstEndAfter, firstSeqAtOrBelow } from "./search.js";
import { checkSnapshots, keepStripeTops } from "./snapshot-stripes.js";

/** One fragment as plain data (for tests, debugging and small consumers). */
export interface Fragment {
  /** Inclusive start: a view into the list's key buffer (do not modify). */
  start: Uint8Array;
  /** Exclusive end: a view into the list's key buffer (do not modify). */
  end: Uint8Array;
  /** Seqs of the tombstones covering the fragment, newest first, distinct. A fresh array. */
  seqs: number[];
}

function checkSnapshotSeq(snapshotSeq: number): void {
  if (typeof snapshotSeq !== "number") throw new TypeError("snapshotSeq must be a number");
  if (!(snapshotSeq >= 0))
    throw ShaleError.invalidArgument(`snapshotSeq must be >= 0; got ${snapshotSeq}`);
}

/**
 * An immutable set of range tombstones, fragmented into sorted, non-overlapping fragments
 * `[start, end)`, each with the descending stack of seqs of the tombstones covering it.
 *
 * Ownership: the list copies the boundary keys it needs into one buffer of its own, so the
 * caller may reuse the tombstones' key arrays once it is built — except through
 * `tombstones()`, which returns the input objects as given. Keys the list returns (from
 * `fragments()` and iterators) are views into its buffer: valid as long as the list, never
 * to be modified.
 *
 * Thread-safety: immutable after construction; any number of readers.
 */
export class FragmentedRangeTombstoneList {
  /** The comparator that orders the keys. */
  readonly comparator: Comparator;
  private parts: FragmentParts;
  private readonly compare: (a: Uint8Array, b: Uint8Array) => number;
  /** The ends as numbers for `maxCoveringSeq` (end-prefixes.ts); bytewise lists only. */
  private prefixes: EndPrefixes | undefined;
  /** The input tombstones, or undefined for a compaction view (derived from the fragments). */
  private source: readonly RangeTombstone[] | undefined;

  /**
   * Fragments `tombstones`: `[start, end)` ranges in `comparator` order, deleting keys with a
   * seq lower than `seq`; any order, overlapping, duplicated; empty ones (start >= end) are
   * ignored. Cost O(n log n + size of the stacks).
   *
   * Throws `TypeError` for a non-array or a tombstone without Uint8Array `start`/`end` and a
   * number `seq`; `ShaleError` InvalidArgument for a seq outside [0, 2^53-1].
   *
   * @param comparator user-key order. Default: `bytewiseComparator`.
   */
  constructor(tombstones: readonly RangeTombstone[], comparator: Comparator = bytewiseComparator) {
    if (
      typeof comparator !== "object" ||
      comparator === null ||
      typeof comparator.compare !== "function"
    ) {
      throw new TypeError("comparator must be a Comparator");
    }
    this.comparator = comparator;
    this.compare = comparator.compare.bind(comparator);
    this.parts = fragmentTombstones(tombstones, comparator);
    this.prefixes = this.prefixesOf(this.parts);
    this.source = tombstones.slice();
  }

  /** True if no tombstone is non-empty (there are no fragments). */
  get isEmpty(): boolean {
    return this.parts.starts.length === 0;
  }

  /** Number of fragments. */
  get numFragments(): number {
    return this.parts.starts.length;
  }

  /**
   * Number of tombstones this list was built from, empty ones included (for a compaction
   * view: the number of surviving (fragment, seq) pairs, as `tombstones()` returns).
   */
  get numTombstones(): number {
    return this.source !== undefined ? this.source.length : this.parts.seqs.length;
  }

  /**
   * The highest seq <= `snapshotSeq` of a tombstone covering `userKey`, or 0 if none: a point
   * entry for `userKey` with a lower seq is deleted. O(log fragments + log stack), no
   * allocation.
   *
   * REQUIRES: `userKey` is a Uint8Array (not checked: this is the point-lookup hot path).
   *
   * @param snapshotSeq the reader's snapshot. Default: `MAX_SEQ` (sees every tombstone).
   */
  maxCoveringSeq(userKey: Uint8Array, snapshotSeq: number = MAX_SEQ): number {
    const parts = this.parts;
    const p = this.prefixes;
    let f = p !== undefined ? firstEndAfterBytewise(parts.ends, p, userKey) : -1;
    if (f < 0) f = firstEndAfter(parts, this.compare, userKey);
    if (f === parts.starts.length || this.compare(parts.starts[f]!, userKey) > 0) return 0;
    const offsets = parts.seqOffsets;
    const end = offsets[f + 1]!;
    const i = firstSeqAtOrBelow(parts.seqs, offsets[f]!, end, snapshotSeq);
    return i < end ? parts.seqs[i]! : 0;
  }

  /**
   * A new iterator over the fragments visible at `snapshotSeq`, unpositioned (call a seek
   * first). See `FragmentIterator`.
   *
   * @param snapshotSeq Default: `MAX_SEQ` (every fragment, reporting its newest seq).
   */
  newIterator(snapshotSeq: number = MAX_SEQ): FragmentIterator {
    checkSnapshotSeq(snapshotSeq);
    return new ListFragmentIterator(this.parts, this.compare, snapshotSeq);
  }

  /**
   * The list a compaction writes (RocksDB's for_compaction mode): same fragments, but each
   * stack keeps only the newest seq of every snapshot stripe — between consecutive live
   * snapshots, and above the newest one. Every reader at a listed snapshot, or at the newest
   * state, gets the same `maxCoveringSeq` from both lists.
   *
   * @param snapshots live snapshot seqs, sorted ascending (duplicates allowed). Throws
   *   `ShaleError` InvalidArgument if unsorted or not seqs, `TypeError` if not numbers.
   */
  forCompaction(snapshots: readonly number[]): FragmentedRangeTombstoneList {
    const stripes = checkSnapshots(snapshots);
    const out = new FragmentedRangeTombstoneList([], this.comparator);
    out.parts = keepStripeTops(this.parts, stripes);
    out.prefixes = out.prefixesOf(out.parts);
    out.source = undefined;
    return out;
  }

  /**
   * The tombstones this list represents, unfragmented: the input as given (same objects,
   * empty ones included), for writing a table's range-deletion block. For a compaction view,
   * one tombstone per surviving (fragment, seq), which fragments back to the same list.
   * A fresh array each call.
   */
  tombstones(): RangeTombstone[] {
    if (this.source !== undefined) return this.source.slice();
    const { starts, ends, seqOffsets, seqs } = this.parts;
    const out: RangeTombstone[] = [];
    for (let f = 0; f < starts.length; f++) {
      for (let j = seqOffsets[f]!; j < seqOffsets[f + 1]!; j++) {
        out.push({ start: starts[f]!, end: ends[f]!, seq: seqs[j]! });
      }
    }
    return out;
  }

  private prefixesOf(parts: FragmentParts): EndPrefixes | undefined {
    if (this.comparator !== bytewiseComparator) return undefined;
    return buildEndPrefixes(parts.starts, parts.ends);
  }

  /** Every fragment with its whole stack, in order (fresh objects; keys are views). */
  fragments(): Fragment[] {
    const { starts, ends, seqOffsets, seqs } = this.parts;
    const out: Fragment[] = [];
    for (let f = 0; f < starts.length; f++) {
      out.push({
        start: starts[f]!,
        end: ends[f]!,
        seqs: Array.from(seqs.subarray(seqOffsets[f]!, seqOffsets[f + 1]!)),
      });
    }
    return out;
  }

  /**
   * Deterministic rendering for tests and logs: `a-c:{10} c-e:{20,10} e-g:{20}` (keys through
   * `formatKey`, fragments separated by one space; "" when empty).
   */
  toString(): string {
    const { starts, ends, seqOffsets, seqs } = this.parts;
    const out: string[] = [];
    for (let f = 0; f < starts.length; f++) {
      const stack = Array.from(seqs.subarray(seqOffsets[f]!, seqOffsets[f + 1]!)).join(",");
      out.push(`${formatKey(starts[f]!)}-${formatKey(ends[f]!)}:{${stack}}`);
    }
    return out.join(" ");
  }
}
