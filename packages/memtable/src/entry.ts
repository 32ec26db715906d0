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
 * Entries are byte-aligned, written once and never changed. A range tombstone is an entry of
 * kind RangeDeletion whose user key is the range start and whose value is the range end.
 * No checksum: the arena lives in memory only and is written by this process.
 *
 * Example: user key "ab", seq 5, kind Value, value "xyz" (15 bytes):
 * `0a 61 62 01 05 00 00 00 00 00 00 03 78 79 7a`.
 */
import { putTrailer, putVarint32, TRAILER_SIZE, varintLength } from "@shale/base";

/** Bytes an entry takes. */
export function entrySize(userKeyLength: number, valueLength: number): number {
  const ikeyLength = userKeyLength + TRAILER_SIZE;
  return varintLength(ikeyLength) + ikeyLength + varintLength(valueLength) + valueLength;
}

/** Writes an entry at `pos`; returns the position after it. REQUIRES: room for entrySize. */
export function writeEntry(
  dst: Uint8Array,
  pos: number,
  userKey: Uint8Array,
  seq: number,
  kind: number,
  value: Uint8Array,
): number {
  pos = putVarint32(dst, pos, userKey.length + TRAILER_SIZE);
  dst.set(userKey, pos);
  pos = putTrailer(dst, pos + userKey.length, seq, kind);
  pos = putVarint32(dst, pos, value.length);
  dst.set(value, pos);
  return pos + value.length;
}

/** Position after the varint read by the last `readVarint32` call. */
export let varintEnd = 0;

/**
 * Reads a varint32 written by this process at `pos` (trusted memory: no bounds checks) and
 * leaves the position after it in `varintEnd`.
 */
export function readVarint32(src: Uint8Array, pos: number): number {
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
