/**
 * The engine's one set of unchecked byte decoders and the in-place internal-key order, for
 * bytes the engine wrote itself or already checked (a checksummed block, the memtable's
 * arena): no bounds checks, no allocation. Untrusted input goes through `Decoder`
 * (coding.ts), which checks every read and throws Corruption. A property test
 * (fast-decode.property.test.ts, and the cross-package one in @shale/db) holds every fast
 * path to the reference (`Decoder`, `getFixed32`, `InternalKeyComparator`).
 */
import { TRAILER_SIZE } from "./internal-key.js";

/** The little-endian fixed32 at `b[p, p + 4)`, unsigned. REQUIRES: p + 4 <= b.length. */
export function fixed32At(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

/** Position after the varint read by the last `varint32At` call. */
export let varintEnd = 0;

/**
 * Reads the varint32 at `pos` of trusted memory (no bounds or overflow checks) and leaves
 * the position after it in `varintEnd`.
 */
export function varint32At(src: Uint8Array, pos: number): number {
  const b = src[pos]!;
  if (b < 0x80) {
    varintEnd = pos + 1;
    return b;
  }
  let result = b & 0x7f;
  let shift = 7;
  for (;;) {
    const c = src[++pos]!;
    result += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) break;
    shift += 7;
  }
  varintEnd = pos + 1;
  return result;
}

/**
 * The internal-key order with bytewise user keys, in place: `a[aOff, aOff + aLen)` against
 * `b[0, bLen)` — user parts bytewise ascending, then trailers descending (the larger (hi, lo)
 * pair of fixed32 words, i.e. the higher seq, then the higher kind, first). Equals
 * `new InternalKeyComparator(bytewiseComparator).compare` in sign. REQUIRES: aLen, bLen >= 8.
 */
export function compareInternalBytewise(
  a: Uint8Array,
  aOff: number,
  aLen: number,
  b: Uint8Array,
  bLen: number,
): number {
  const au = aLen - TRAILER_SIZE;
  const bu = bLen - TRAILER_SIZE;
  const n = au < bu ? au : bu;
  for (let i = 0; i < n; i++) {
    const d = a[aOff + i]! - b[i]!;
    if (d !== 0) return d;
  }
  if (au !== bu) return au - bu;
  const at = aOff + au;
  const ahi = fixed32At(a, at + 4);
  const bhi = fixed32At(b, bu + 4);
  if (ahi !== bhi) return bhi - ahi;
  return fixed32At(b, bu) - fixed32At(a, at);
}
