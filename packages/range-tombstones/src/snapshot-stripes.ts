/**
 * Compaction view of a fragmented list (RocksDB's `for_compaction` mode).
 *
 * Live snapshots cut the seq space into stripes; a reader at any snapshot sees, of the
 * tombstones over a fragment, only the newest one at or below its snapshot, so within one
 * stripe only the newest seq matters. With snapshots [5, 12]:
 *
 * ```
 *   stripes:        [0..5]      (5..12]       (12..)
 *   stack:          {4, 3}      {11, 9, 6}    {20, 15}
 *   kept:           {4}         {11}          {20}         -> {20, 11, 4}
 * ```
 *
 * A seq s belongs to the stripe of the first snapshot >= s (the top stripe if none). Walking a
 * stack newest first, a seq is kept when its stripe is lower than that of the last kept seq;
 * after keeping a seq of the lowest stripe the walk stops. Fragment boundaries are shared with
 * the source list; only the seqs are rebuilt.
 */
import { MAX_SEQ, ShaleError } from "@shale/base";
import type { FragmentParts } from "./fragmenter.js";

/** Validates `snapshots` (seqs, ascending) and copies them into a typed array. */
export function checkSnapshots(snapshots: readonly number[]): Float64Array {
  if (!Array.isArray(snapshots)) throw new TypeError("snapshots must be an array of seqs");
  const out = new Float64Array(snapshots.length);
  for (let i = 0; i < snapshots.length; i++) {
    const s = snapshots[i];
    if (typeof s !== "number") throw new TypeError(`snapshots[${i}] must be a number`);
    if (!Number.isInteger(s) || s < 0 || s > MAX_SEQ) {
      throw ShaleError.invalidArgument(
        `snapshots[${i}] must be an integer in [0, 2^53-1]; got ${s}`,
      );
    }
    if (i > 0 && s < out[i - 1]!) {
      throw ShaleError.invalidArgument(
        `snapshots must be sorted ascending; snapshots[${i}] = ${s} < ${out[i - 1]}`,
      );
    }
    out[i] = s;
  }
  return out;
}

/** Index of the first snapshot >= seq (snapshots.length for the top stripe). */
function stripeOf(snapshots: Float64Array, seq: number): number {
  let lo = 0;
  let hi = snapshots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (snapshots[mid]! < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The parts with every stack reduced to its per-stripe maxima. */
export function keepStripeTops(parts: FragmentParts, snapshots: Float64Array): FragmentParts {
  const { seqOffsets, seqs } = parts;
  const count = seqOffsets.length - 1;
  const outOffsets = new Uint32Array(count + 1);
  const outSeqs = new Float64Array(seqs.length);
  let out = 0;
  for (let f = 0; f < count; f++) {
    const end = seqOffsets[f + 1]!;
    let lastStripe = snapshots.length + 1;
    for (let j = seqOffsets[f]!; j < end; j++) {
      const seq = seqs[j]!;
      const stripe = stripeOf(snapshots, seq);
      if (stripe < lastStripe) {
        outSeqs[out++] = seq;
        lastStripe = stripe;
        if (stripe === 0) break;
      }
    }
    outOffsets[f + 1] = out;
  }
  return {
    starts: parts.starts,
    ends: parts.ends,
    seqOffsets: outOffsets,
    seqs: outSeqs.slice(0, out),
  };
}
