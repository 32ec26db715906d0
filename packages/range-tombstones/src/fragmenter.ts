/**
 * The fragmenter: overlapping range tombstones in, sorted non-overlapping fragments out, each
 * fragment carrying the descending stack of seqs of the tombstones that cover it.
 *
 * ```
 *   input, any order:            a-------e @10
 *                                    c-------g @20
 *
 *   boundaries (distinct,        a   c   e   g
 *   comparator order):           |---|---|---|
 *
 *   fragments:                   a-c            {10}
 *                                    c-e        {20,10}
 *                                        e-g    {20}
 *
 *   toString():                  a-c:{10} c-e:{20,10} e-g:{20}
 * ```
 *
 * A gap between tombstones produces no fragment (`a-b@5` + `c-d@6` -> `a-b:{5} c-d:{6}`).
 * Adjacent fragments with equal stacks are not merged (RocksDB does not merge them either):
 * `a-c@5` + `c-e@5` stays `a-c:{5} c-e:{5}`. Empty tombstones (start >= end) are ignored and a
 * seq repeated over one fragment appears once in its stack.
 *
 * Sweep (RocksDB's FragmentTombstones, reorganised around a sorted index and a heap):
 * 1. `byStart` = live tombstones sorted by (start asc, seq desc) — internal-key order, so
 *    input read back from a table's range-deletion block is usually sorted already and the
 *    sort is skipped. The active tombstones sit in a min-heap by end key (`end-heap.ts`).
 * 2. The next boundary is the smaller of the next start and the smallest active end. At each
 *    boundary `b`:
 *    - if any tombstone is active, emit `[previous boundary, b)` with the active stack;
 *    - remove the tombstones ending at `b` (counts drop; a seq whose count reaches 0 goes);
 *    - insert the tombstones starting at `b` (their seqs arrive newest first).
 *    The active seqs are two parallel typed arrays (distinct seqs descending, their counts),
 *    and removals + insertions are applied in one merge pass into a second buffer.
 * Cost: O(n log n) comparisons for the sort (none for sorted input), O(n log k) for the heap
 * with k tombstones active at once, plus O(output) for the stacks (a boundary costs the sizes
 * of the stacks on its two sides). Nothing is allocated per tombstone in the sweep.
 *
 * Output (`FragmentParts`), flat like RocksDB's `tombstone_seqs_`:
 * ```
 *   starts     [a,    c,       e   ]      fragment i = [starts[i], ends[i])
 *   ends       [c,    e,       g   ]
 *   seqOffsets [0,    1,       3,   4]    stack of i = seqs[seqOffsets[i] .. seqOffsets[i+1])
 *   seqs       [10,   20, 10,  20  ]      each stack strictly descending
 * ```
 * The sweep works on the caller's key arrays; the boundary keys of the result are then copied
 * into one buffer in key order (`pack-keys.ts`), which makes lookups faster.
 */
import {
  assertInvariant,
  type Comparator,
  invariants,
  MAX_SEQ,
  type RangeTombstone,
  ShaleError,
} from "@shale/base";
import { EndHeap } from "./end-heap.js";
import type { FragmentParts } from "./fragment-parts.js";
import { packKeys } from "./pack-keys.js";

export type { FragmentParts } from "./fragment-parts.js";

/** Checks one input tombstone's types and seq; returns true if it is non-empty. */
function checkTombstone(t: RangeTombstone, index: number, compare: Comparator["compare"]): boolean {
  if (typeof t !== "object" || t === null) {
    throw new TypeError(`tombstones[${index}] must be an object { start, end, seq }`);
  }
  if (!(t.start instanceof Uint8Array) || !(t.end instanceof Uint8Array)) {
    throw new TypeError(`tombstones[${index}].start and .end must be Uint8Arrays`);
  }
  if (typeof t.seq !== "number") throw new TypeError(`tombstones[${index}].seq must be a number`);
  if (!Number.isInteger(t.seq) || t.seq < 0 || t.seq > MAX_SEQ) {
    throw ShaleError.invalidArgument(
      `tombstones[${index}].seq must be an integer in [0, 2^53-1]; got ${t.seq}`,
    );
  }
  return compare(t.start, t.end) < 0;
}

/** Fragments `tombstones` under `comparator`. Validates the input; see the file comment. */
export function fragmentTombstones(
  tombstones: readonly RangeTombstone[],
  comparator: Comparator,
): FragmentParts {
  if (!Array.isArray(tombstones)) throw new TypeError("tombstones must be an array");
  const compare = comparator.compare.bind(comparator);
  const total = tombstones.length;

  // Live (non-empty) tombstones, flattened into parallel arrays.
  const starts: Uint8Array[] = [];
  const ends: Uint8Array[] = [];
  const seqOf = new Float64Array(total);
  let n = 0;
  let sorted = true;
  for (let i = 0; i < total; i++) {
    const t = tombstones[i]!;
    if (!checkTombstone(t, i, compare)) continue;
    if (n > 0 && sorted) {
      const c = compare(starts[n - 1]!, t.start);
      if (c > 0 || (c === 0 && seqOf[n - 1]! < t.seq)) sorted = false;
    }
    starts.push(t.start);
    ends.push(t.end);
    seqOf[n++] = t.seq;
  }

  const byStart = new Int32Array(n);
  for (let i = 0; i < n; i++) byStart[i] = i;
  if (!sorted) {
    byStart.sort((x, y) => compare(starts[x]!, starts[y]!) || seqOf[y]! - seqOf[x]!);
  }
  const endHeap = new EndHeap(ends, compare);

  // Output, grown by doubling.
  const outStarts: Uint8Array[] = [];
  const outEnds: Uint8Array[] = [];
  let offsets = new Uint32Array(Math.max(4, n + 1));
  let seqs = new Float64Array(Math.max(4, n));
  let seqCount = 0;
  let fragmentCount = 0;

  // Active set: distinct seqs (descending) and how many live tombstones carry each.
  let activeSeqs = new Float64Array(n);
  let activeCounts = new Int32Array(n);
  let nextSeqs = new Float64Array(n);
  let nextCounts = new Int32Array(n);
  let active = 0;

  let ps = 0;
  let previous: Uint8Array | undefined;
  while (ps < n || endHeap.size > 0) {
    // The next boundary: the smaller of the next start and the smallest active end.
    let boundary: Uint8Array;
    if (endHeap.size === 0) {
      boundary = starts[byStart[ps]!]!;
    } else {
      boundary = endHeap.topEnd();
      if (ps < n && compare(starts[byStart[ps]!]!, boundary) < 0) boundary = starts[byStart[ps]!]!;
    }

    if (active > 0) {
      // Emit [previous, boundary) with the active stack (every count is > 0 here).
      if (seqCount + active > seqs.length) {
        const grown = new Float64Array(Math.max(seqs.length * 2, seqCount + active));
        grown.set(seqs.subarray(0, seqCount));
        seqs = grown;
      }
      for (let j = 0; j < active; j++) seqs[seqCount + j] = activeSeqs[j]!;
      seqCount += active;
      if (fragmentCount + 2 > offsets.length) {
        const grown = new Uint32Array(offsets.length * 2);
        grown.set(offsets);
        offsets = grown;
      }
      outStarts.push(previous!);
      outEnds.push(boundary);
      offsets[++fragmentCount] = seqCount;
    }

    // Removals: tombstones ending here. Each seq is found by binary search (descending).
    while (endHeap.size > 0 && compare(endHeap.topEnd(), boundary) === 0) {
      const seq = seqOf[endHeap.top()]!;
      endHeap.pop();
      let lo = 0;
      let hi = active;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (activeSeqs[mid]! > seq) lo = mid + 1;
        else hi = mid;
      }
      activeCounts[lo]!--;
    }

    // Insertions: tombstones starting here, newest first; merged with the survivors.
    let i = 0;
    let out = 0;
    while (ps < n && compare(starts[byStart[ps]!]!, boundary) === 0) {
      const index = byStart[ps]!;
      const seq = seqOf[index]!;
      endHeap.push(index);
      while (i < active && activeSeqs[i]! > seq) {
        if (activeCounts[i]! > 0) {
          nextSeqs[out] = activeSeqs[i]!;
          nextCounts[out++] = activeCounts[i]!;
        }
        i++;
      }
      if (i < active && activeSeqs[i] === seq) {
        activeCounts[i]!++;
      } else if (out > 0 && nextSeqs[out - 1] === seq) {
        nextCounts[out - 1]!++;
      } else {
        nextSeqs[out] = seq;
        nextCounts[out++] = 1;
      }
      ps++;
    }
    for (; i < active; i++) {
      if (activeCounts[i]! > 0) {
        nextSeqs[out] = activeSeqs[i]!;
        nextCounts[out++] = activeCounts[i]!;
      }
    }
    const swapSeqs = activeSeqs;
    const swapCounts = activeCounts;
    activeSeqs = nextSeqs;
    activeCounts = nextCounts;
    nextSeqs = swapSeqs;
    nextCounts = swapCounts;
    active = out;
    previous = boundary;
  }

  const parts = packKeys({
    starts: outStarts,
    ends: outEnds,
    seqOffsets: offsets.slice(0, fragmentCount + 1),
    // Trim unless the slack is small (a copy of a large output costs more than it saves).
    seqs:
      seqCount >= seqs.length - (seqs.length >> 3)
        ? seqs.subarray(0, seqCount)
        : seqs.slice(0, seqCount),
  });
  if (invariants) checkParts(parts, comparator);
  return parts;
}

/**
 * Invariant check (tests): fragments sorted, non-empty, non-overlapping; stacks non-empty and
 * strictly descending.
 */
export function checkParts(parts: FragmentParts, comparator: Comparator): void {
  const { starts, ends, seqOffsets, seqs } = parts;
  const count = starts.length;
  assertInvariant(
    ends.length === count && seqOffsets.length === count + 1,
    "fragment arrays disagree",
  );
  assertInvariant(
    seqOffsets[0] === 0 && seqOffsets[count] === seqs.length,
    "seq offsets do not span seqs",
  );
  for (let f = 0; f < count; f++) {
    assertInvariant(comparator.compare(starts[f]!, ends[f]!) < 0, `fragment ${f} is empty`);
    if (f > 0) {
      assertInvariant(
        comparator.compare(ends[f - 1]!, starts[f]!) <= 0,
        `fragment ${f} overlaps ${f - 1}`,
      );
    }
    const begin = seqOffsets[f]!;
    const end = seqOffsets[f + 1]!;
    assertInvariant(begin < end, `fragment ${f} has an empty stack`);
    for (let j = begin + 1; j < end; j++) {
      assertInvariant(seqs[j - 1]! > seqs[j]!, `fragment ${f}'s stack is not strictly descending`);
    }
  }
}
