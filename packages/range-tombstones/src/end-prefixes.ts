/**
 * A bytewise list's fragment ends as numbers, for `maxCoveringSeq`'s binary search.
 *
 * ```
 *   ends      0000000000123456  0000000000123556  0000000000400000   (sorted)
 *   skip      10: the bytes every boundary shares ("0000000000")
 *   hi / lo   ends[f][skip, skip + 8) as two big-endian u32s, zero-padded past the key's end
 * ```
 *
 * Why: a search over fragment ends takes ~log2(fragments) steps, and comparing Uint8Arrays
 * chases each end's view object to its bytes (a cache miss per step over a large list) and
 * then walks the shared leading bytes. Two Uint32Arrays answer a step with integer loads from
 * one contiguous array; only keys whose 8 bytes after the shared part tie are compared whole.
 *
 * Why the order of the numbers is the order of the keys: every end and every key searched
 * here (a key that does not start with the shared bytes takes the generic search) share the
 * first `skip` bytes, so their order is that of what follows. If the zero-padded 8-byte
 * prefixes of two such suffixes differ, at the first differing byte either both have a real
 * byte, which decides, or one has padding (0) and the other a real byte above 0, and then the
 * padded one is a proper prefix of the other, so smaller — the same answer. Ties are compared
 * in full.
 */
import { compareBytes } from "@shale/base";

export interface EndPrefixes {
  /** Length of the prefix every fragment boundary shares. */
  readonly skip: number;
  /** That shared prefix (a view of the first fragment's start). */
  readonly common: Uint8Array;
  /** Bytes [skip, skip + 4) of each end, big-endian, zero-padded. */
  readonly hi: Uint32Array;
  /** Bytes [skip + 4, skip + 8) of each end, big-endian, zero-padded. */
  readonly lo: Uint32Array;
}

/** Big-endian u32 of key[at, at + 4), zero-padded past the key's end. */
function be32(key: Uint8Array, at: number): number {
  const n = key.length;
  if (at + 4 <= n) {
    return ((key[at]! << 24) | (key[at + 1]! << 16) | (key[at + 2]! << 8) | key[at + 3]!) >>> 0;
  }
  let v = 0;
  for (let i = 0; i < 4; i++) v = v * 256 + (at + i < n ? key[at + i]! : 0);
  return v;
}

/**
 * The prefixes of `ends` (sorted, with `starts`: starts[0] is the smallest boundary and
 * ends[last] the largest), or undefined for no fragments.
 */
export function buildEndPrefixes(
  starts: readonly Uint8Array[],
  ends: readonly Uint8Array[],
): EndPrefixes | undefined {
  const count = ends.length;
  if (count === 0) return undefined;
  // Sorted: what the smallest and the largest boundary share, every boundary shares.
  const first = starts[0]!;
  const last = ends[count - 1]!;
  const max = first.length < last.length ? first.length : last.length;
  let skip = 0;
  while (skip < max && first[skip] === last[skip]) skip++;
  const hi = new Uint32Array(count);
  const lo = new Uint32Array(count);
  for (let f = 0; f < count; f++) {
    const end = ends[f]!;
    hi[f] = be32(end, skip);
    lo[f] = be32(end, skip + 4);
  }
  return { skip, common: first.subarray(0, skip), hi, lo };
}

/**
 * Index of the first fragment whose end > key (ends.length if none), or -1 when `key` does
 * not start with the shared prefix (the caller then searches with the comparator).
 */
export function firstEndAfterBytewise(
  ends: readonly Uint8Array[],
  p: EndPrefixes,
  key: Uint8Array,
): number {
  const skip = p.skip;
  if (key.length < skip) return -1;
  const common = p.common;
  for (let i = 0; i < skip; i++) if (key[i] !== common[i]) return -1;
  const kHi = be32(key, skip);
  const kLo = be32(key, skip + 4);
  const his = p.hi;
  const los = p.lo;
  let lo = 0;
  let hi = his.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const h = his[mid]!;
    // end <= key: the answer is after mid.
    let endAtOrBefore: boolean;
    if (h !== kHi) endAtOrBefore = h < kHi;
    else {
      const l = los[mid]!;
      endAtOrBefore = l !== kLo ? l < kLo : compareBytes(ends[mid]!, key) <= 0;
    }
    if (endAtOrBefore) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
