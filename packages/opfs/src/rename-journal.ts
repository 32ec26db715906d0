/**
 * The rename journal: how a rename survives a crash where the browser has no atomic
 * `FileSystemHandle.move()` (or refuses to move onto an existing file).
 *
 * Without an atomic rename, replacing CURRENT by copying would leave a window where a crash
 * leaves it half written. So the I/O worker first writes the whole intent — both names and
 * the new contents — to one journal file and flushes it, then copies the contents over the
 * target, flushes, removes the source and finally removes the journal. Opening the file
 * system replays a journal whose checksum holds (the copy is idempotent) and deletes one
 * whose checksum fails (it was torn before the switch began: the source and the old target
 * are both intact).
 *
 * ```
 * offset     size   field
 *      0        4   magic "SRJ1"
 *      4        4   crc32c (little-endian) of every byte from offset 8 to the end
 *      8        4   fromLength (uint32 LE)
 *     12        4   toLength   (uint32 LE)
 *     16        4   dataLength (uint32 LE)
 *     20   fromLength  from (UTF-8 path)
 *      .   toLength    to   (UTF-8 path)
 *      .   dataLength  the new contents of `to`
 * ```
 *
 * Worked example: renaming "db/CURRENT.dbtmp" (16 bytes) to "db/CURRENT" (10) with the 16
 * bytes "MANIFEST-000005\n" is a 62-byte journal: "SRJ1", the checksum, 16, 10, 16, then the
 * three strings.
 */
import { crc32c } from "@shale/base";

/** Name of the journal, in the file system's directory. Hidden from `list`. */
export const RENAME_JOURNAL = ".shale-rename";

const MAGIC = [0x53, 0x52, 0x4a, 0x31] as const; // "SRJ1"; part of the format, do not change
const HEADER = 20;

export interface RenameIntent {
  from: string;
  to: string;
  data: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The journal bytes for renaming `from` to `to`, which will hold `data`. */
export function encodeRenameJournal(intent: RenameIntent): Uint8Array {
  const from = encoder.encode(intent.from);
  const to = encoder.encode(intent.to);
  const out = new Uint8Array(HEADER + from.length + to.length + intent.data.length);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, from.length, true);
  view.setUint32(12, to.length, true);
  view.setUint32(16, intent.data.length, true);
  out.set(from, HEADER);
  out.set(to, HEADER + from.length);
  out.set(intent.data, HEADER + from.length + to.length);
  view.setUint32(4, crc32c(out, 8, out.length), true);
  return out;
}

/** The intent a journal holds, or `undefined` when it is torn (short, bad magic or checksum). */
export function decodeRenameJournal(bytes: Uint8Array): RenameIntent | undefined {
  if (bytes.length < HEADER) return undefined;
  for (let i = 0; i < 4; i++) if (bytes[i] !== MAGIC[i]) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fromLength = view.getUint32(8, true);
  const toLength = view.getUint32(12, true);
  const dataLength = view.getUint32(16, true);
  if (HEADER + fromLength + toLength + dataLength !== bytes.length) return undefined;
  if (view.getUint32(4, true) !== crc32c(bytes, 8, bytes.length)) return undefined;
  const toStart = HEADER + fromLength;
  const dataStart = toStart + toLength;
  return {
    from: decoder.decode(bytes.subarray(HEADER, toStart)),
    to: decoder.decode(bytes.subarray(toStart, dataStart)),
    data: bytes.slice(dataStart),
  };
}
