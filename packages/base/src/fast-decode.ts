/**
 * The engine's one set of fast byte decoders and the in-place internal-key order. The
 * unchecked ones (`fixed32At`, `varint32At`) read bytes the engine wrote itself or already
 * checked (the memtable's arena): no bounds checks, no allocation. The bounded ones
 * (`varint32Before`, `varint64Before`) read a block's bytes up to a limit without throwing
 * or allocating: they accept exactly what `Decoder` accepts and return -1 for the rest, so
 * the caller reports Corruption with its own context. `keyWordAt` is the 4-byte big-endian
 * key prefix the memtable's slices, the index search and the merging iterator's heap
 * compare. Other input goes through `Decoder` (coding.ts), which throws Corruption. A property test
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
 * The varint32 at `src[pos, limit)`, or -1 when it is truncated, longer than 5 bytes or
 * over 32 bits (what `Decoder.readVarint32` rejects); the position after it is left in
 * `varintEnd`.
 */
export function varint32Before(src: Uint8Array, pos: number, limit: number): number {
  if (pos >= limit) return -1;
  const b = src[pos]!;
  if (b < 0x80) {
    varintEnd = pos + 1;
    return b;
  }
  let result = b & 0x7f;
  for (let shift = 7; shift <= 28; shift += 7) {
    if (++pos >= limit) return -1;
    const c = src[pos]!;
    if (shift === 28 && c > 0x0f) return -1;
    result |= (c & 0x7f) << shift;
    if (c < 0x80) {
      varintEnd = pos + 1;
      return result >>> 0;
    }
  }
  return -1;
}

/**
 * The varint64 at `src[pos, limit)`, or -1 when it is truncated, longer than 10 bytes or
 * above 2^53 - 1 (what `Decoder.readVarint64` rejects); the position after it is left in
 * `varintEnd`.
 */
export function varint64Before(src: Uint8Array, pos: number, limit: number): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= limit) return -1;
    const b = src[pos++]!;
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      if (result > Number.MAX_SAFE_INTEGER) return -1;
      varintEnd = pos;
      return result;
    }
    scale *= 128;
  }
  return -1;
}

/**
 * Bytes `[start, start + 4)` of `key` as a big-endian unsigned integer, bytes outside
 * `[0, end)` read as zero. Two keys whose words differ order as the words do under a
 * bytewise order (a zero pad sorts below a real byte only where the shorter key is a prefix
 * of the longer, which sorts first too); equal words decide nothing.
 */
export function keyWordAt(key: Uint8Array, start: number, end: number): number {
  if (start + 4 <= end) {
    return (
      ((key[start]! << 24) | (key[start + 1]! << 16) | (key[start + 2]! << 8) | key[start + 3]!) >>>
      0
    );
  }
  let w = 0;
  for (let i = start; i < start + 4; i++) w = (w << 8) | (i < end && i >= 0 ? key[i]! : 0);
  return w >>> 0;
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
