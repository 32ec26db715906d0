/**
 * Reading and writing one block with its 5-byte trailer (format in `format.ts`):
 * `block bytes ‖ u8 compressionType ‖ fixed32 LE masked XXH32(block bytes ‖ compressionType)`.
 */
import {
  getFixed32,
  maskedChecksum32,
  putFixed32,
  type RandomAccessFile,
  ShaleError,
  type WritableFile,
} from "@shale/base";
import { compressBlock, decompressBlock } from "./compression.js";
import { type BlockHandle, CompressionType, TableFormat } from "./format.js";

const TRAILER = TableFormat.BLOCK_TRAILER_SIZE;

/**
 * Compresses `raw` (when `type` is not none and it saves >= 12.5 %), appends it with its
 * trailer at `offset` (the file's current end) and returns the block's handle.
 * `raw` is not retained.
 */
export function writeBlock(
  file: WritableFile,
  offset: number,
  raw: Uint8Array,
  type: CompressionType,
): BlockHandle {
  const compressed = compressBlock(raw, type);
  const contents = compressed ?? raw;
  const size = contents.length;
  // One contiguous buffer so the checksum covers contents ‖ type in one pass.
  const out = new Uint8Array(size + TRAILER);
  out.set(contents, 0);
  out[size] = compressed !== undefined ? type : CompressionType.None;
  putFixed32(out, size + 1, maskedChecksum32(out, 0, size + 1));
  file.append(out, 0, out.length);
  return { offset, size };
}

/**
 * Reads the block at `handle`, verifies its checksum (unless `verify` is false) and
 * decompresses it. Returns the contents in memory of their own (never shared with another
 * block). Throws Corruption naming `fileName` and the block offset for a block past the end
 * of the file, a short read, a checksum mismatch, an unknown compression type or a bad
 * compressed stream.
 */
export function readBlock(
  file: RandomAccessFile,
  fileSize: number,
  handle: BlockHandle,
  fileName: string | undefined,
  verify: boolean,
): Uint8Array {
  const offset = handle.offset;
  const n = handle.size + TRAILER;
  if (offset + n > fileSize) {
    throw ShaleError.corruption(
      `block [${offset}, ${offset + n}) extends past the end of the file (${fileSize} bytes)`,
      fileName,
      offset,
    );
  }
  const buf = new Uint8Array(n);
  const got = file.read(offset, n, buf, 0);
  if (got !== n)
    throw ShaleError.corruption(`truncated block read: ${got} of ${n} bytes`, fileName, offset);
  const size = handle.size;
  if (verify && getFixed32(buf, size + 1) !== maskedChecksum32(buf, 0, size + 1)) {
    throw ShaleError.corruption("block checksum mismatch", fileName, offset);
  }
  const type = buf[size]!;
  if (type === CompressionType.None) return buf.subarray(0, size);
  return decompressBlock(buf.subarray(0, size), type, fileName, offset);
}
