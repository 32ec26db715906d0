/**
 * The forward search a LogReader runs after damage: where does the next valid record start?
 *
 * A valid record start is a FULL fragment, or a FIRST fragment that fills the rest of its
 * block (as LogWriter always writes them), lying wholly inside its block, whose checksum
 * verifies; or the same in the recyclable format (types 5/6) carrying this log's number (a
 * recyclable fragment of another number is a leftover of the file's previous log). MIDDLE and LAST fragments do not count: after damage, they may be the rest of
 * the damaged record itself. Ignorable types (>= 128) do not count either: losing them
 * loses nothing. The type and layout checks reject almost every candidate position before a
 * checksum is computed, so a search costs little more than a pass over the bytes.
 *
 * Buffers hold whole blocks from a block boundary of the file (index 0 is a block start),
 * so block boundaries are at multiples of BLOCK_SIZE in the buffer too.
 */

import { getFixed32, maskedCrc32c } from "@shale/base";
import { BLOCK_SIZE, HEADER_SIZE, RECYCLABLE_HEADER_SIZE, RecordType } from "./format.js";

const BLOCK_MASK = BLOCK_SIZE - 1;

/**
 * The first index in `[from, end)` of `buf` where a valid record starts, or -1. `end` is the
 * number of valid bytes in `buf` (a fragment must end by then). `logNumber`: the low 32 bits
 * recyclable fragments must carry, or -1 to accept any.
 */
export function findRecordStart(
  buf: Uint8Array,
  from: number,
  end: number,
  logNumber: number,
): number {
  let q = from;
  while (q < end) {
    const blockEnd = Math.min((q | BLOCK_MASK) + 1, end);
    const lastHeader = blockEnd - HEADER_SIZE;
    for (; q <= lastHeader; q++) if (isRecordStart(buf, q, blockEnd, logNumber)) return q;
    q = blockEnd;
  }
  return -1;
}

/** True if a valid record starts at `q`, in a block whose bytes end at `blockEnd`. */
function isRecordStart(buf: Uint8Array, q: number, blockEnd: number, logNumber: number): boolean {
  const type = buf[q + 6]!;
  let headerSize = HEADER_SIZE;
  let first: boolean;
  if (type === RecordType.Full || type === RecordType.First) {
    first = type === RecordType.First;
  } else if (type === RecordType.RecyclableFull || type === RecordType.RecyclableFirst) {
    first = type === RecordType.RecyclableFirst;
    headerSize = RECYCLABLE_HEADER_SIZE;
  } else {
    return false;
  }
  const end = q + headerSize + (buf[q + 4]! | (buf[q + 5]! << 8));
  if (end > blockEnd) return false;
  if (first && end !== (q | BLOCK_MASK) + 1) return false;
  if (headerSize === RECYCLABLE_HEADER_SIZE && logNumber >= 0) {
    if (getFixed32(buf, q + HEADER_SIZE) !== logNumber) return false;
  }
  return getFixed32(buf, q) === maskedCrc32c(buf, q + 6, end);
}

/** True if `buf[from, to)` holds only zero bytes. */
export function allZero(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] !== 0) return false;
  return true;
}
