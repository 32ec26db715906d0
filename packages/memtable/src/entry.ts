/**
 * A memtable entry as it sits in the arena (RocksDB's memtable entry format):
 *
 * ```
 * +----------------+---------------+----------------------+---------------+-------------+
 * | varint32       | user key      | trailer: fixed64 LE  | varint32      | value       |
 * | ikey_len = n+8 | (n bytes)     | (seq << 8) | kind    | val_len = m   | (m bytes)   |
 * +----------------+---------------+----------------------+---------------+-------------+
 *                   \________ internal key (n + 8) ______/
 * ```
 *
 * Entries are byte-aligned, written once and never changed; an entry with a value of
 * ALIGN_MIN bytes or more starts where its value lands as aligned (mod 8) as the value's
 * source (up to 7 bytes skipped before it; see valueResidue). A range tombstone is an entry of
 * kind RangeDeletion whose user key is the range start and whose value is the range end.
 * No checksum: the arena lives in memory only and is written by this process.
 *
 * Example: user key "ab", seq 5, kind Value, value "xyz" (15 bytes):
 * `0a 61 62 01 05 00 00 00 00 00 00 03 78 79 7a`.
 */
import { putVarint32, TRAILER_SIZE, varintLength } from "@shale/base";
import type { Arena } from "./arena.js";

/** Bytes an entry takes. */
export function entrySize(userKeyLength: number, valueLength: number): number {
  const ikeyLength = userKeyLength + TRAILER_SIZE;
  return varintLength(ikeyLength) + ikeyLength + varintLength(valueLength) + valueLength;
}

/** Values at least this long are copied word-aligned (see `valueResidue`). */
export const ALIGN_MIN = 32;

/**
 * The residue modulo 8 that an entry's address should have so that its value lands at an
 * address congruent to the source's byte offset (Arena.allocateEntry); -1 for short
 * values, which are copied byte by byte anyway.
 */
export function valueResidue(userKeyLength: number, value: Uint8Array): number {
  const n = value.length;
  if (n < ALIGN_MIN) return -1;
  const ikeyLength = userKeyLength + TRAILER_SIZE;
  return (value.byteOffset - varintLength(ikeyLength) - ikeyLength - varintLength(n)) & 7;
}

/** Copies `src` to `dst[pos, ...)`: a loop for a few bytes, `set` (a call) for more. */
function copyBytes(dst: Uint8Array, pos: number, src: Uint8Array): void {
  const n = src.length;
  if (n <= 24) {
    for (let i = 0; i < n; i++) dst[pos + i] = src[i]!;
  } else {
    dst.set(src, pos);
  }
}

/**
 * Writes an entry at `pos`; returns the position after it. The seq comes split as the tree's
 * target holds it (key-target.ts): `seqHigh` = seq div 2^24, `seqLow` = seq mod 2^24, so the
 * trailer's eight bytes are stored directly (`putTrailer`'s bytes, without its division).
 * REQUIRES: room for entrySize.
 */
export function writeEntry(
  dst: Uint8Array,
  pos: number,
  userKey: Uint8Array,
  seqHigh: number,
  seqLow: number,
  kind: number,
  value: Uint8Array,
): number {
  const keyLength = userKey.length;
  const ikeyLength = keyLength + TRAILER_SIZE;
  if (ikeyLength < 0x80) dst[pos++] = ikeyLength;
  else pos = putVarint32(dst, pos, ikeyLength);
  copyBytes(dst, pos, userKey);
  pos += keyLength;
  // The trailer, fixed64 little-endian of (seq << 8) | kind: kind, seqLow's 3 bytes, then
  // seqHigh's 4.
  dst[pos] = kind;
  dst[pos + 1] = seqLow;
  dst[pos + 2] = seqLow >>> 8;
  dst[pos + 3] = seqLow >>> 16;
  dst[pos + 4] = seqHigh;
  dst[pos + 5] = seqHigh >>> 8;
  dst[pos + 6] = seqHigh >>> 16;
  dst[pos + 7] = seqHigh >>> 24;
  pos += TRAILER_SIZE;
  const valueLength = value.length;
  if (valueLength < 0x80) dst[pos++] = valueLength;
  else pos = putVarint32(dst, pos, valueLength);
  copyBytes(dst, pos, value);
  return pos + valueLength;
}

/**
 * Copies a new entry into `arena` (`writeEntry`'s arguments, the seq split as there);
 * returns its address.
 */
export function storeEntry(
  arena: Arena,
  userKey: Uint8Array,
  seqHigh: number,
  seqLow: number,
  kind: number,
  value: Uint8Array,
): number {
  const address = arena.allocateEntry(
    entrySize(userKey.length, value.length),
    valueResidue(userKey.length, value),
  );
  writeEntry(
    arena.entryChunks[address >>> arena.shift]!,
    address & arena.mask,
    userKey,
    seqHigh,
    seqLow,
    kind,
    value,
  );
  return address;
}

/**
 * The trusted-memory varint32 reader and its end position, from @shale/base (fast-decode.ts):
 * `readVarint32(src, pos)` leaves the position after the varint in `varintEnd`.
 */
export { varint32At as readVarint32, varintEnd } from "@shale/base";
