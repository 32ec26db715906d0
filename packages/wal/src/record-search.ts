/**
 * The forward search a LogReader runs after damage: where does the next valid record start?
 *
 * A valid record start is a FULL fragment, or a FIRST fragment that fills the rest of its
 * block (as LogWriter always writes them), lying wholly inside its block, whose checksum
 * verifies. MIDDLE and LAST fragments do not count: after damage, they may be the rest of
 * the damaged record itself. Ignorable types (>= 128) do not count either: losing them
 * loses nothing. The type and layout checks reject almost every candidate position before a
 * checksum is computed, so a search costs little more than a pass over the bytes.
 *
 * Buffers hold whole blocks from a block boundary of the file (index 0 is a block start),
 * so block boundaries are at multiples of BLOCK_SIZE in the buffer too.
 */

import { checksum32, getFixed32, maskChecksum } from "@shale/base";
import { BLOCK_SIZE, HEADER_SIZE, RecordType } from "./format.js";

const BLOCK_MASK = BLOCK_SIZE - 1;

/**
 * The first index in `[from, end)` of `buf` where a valid record starts, or -1. `end` is the
 * number of valid bytes in `buf` (a fragment must end by then).
 */
export function findRecordStart(buf: Uint8Array, from: number, end: number): number {
  let q = from;
  while (q < end) {
    const blockEnd = Math.min((q | BLOCK_MASK) + 1, end);
    const lastHeader = blockEnd - HEADER_SIZE;
    for (; q <= lastHeader; q++) if (isRecordStart(buf, q, blockEnd)) return q;
    q = blockEnd;
  }
  return -1;
}

/** True if a valid record starts at `q`, in a block whose bytes end at `blockEnd`. */
function isRecordStart(buf: Uint8Array, q: number, blockEnd: number): boolean {
  const type = buf[q + 6]!;
  if (type !== RecordType.Full && type !== RecordType.First) return false;
  const end = q + HEADER_SIZE + (buf[q + 4]! | (buf[q + 5]! << 8));
  if (end > blockEnd) return false;
  if (type === RecordType.First && end !== (q | BLOCK_MASK) + 1) return false;
  return getFixed32(buf, q) === maskChecksum(checksum32(buf, q + 6, end));
}

/** True if `buf[from, to)` holds only zero bytes. */
export function allZero(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] !== 0) return false;
  return true;
}
