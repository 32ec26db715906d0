/**
 * Reading and writing one block with its 5-byte trailer (format in `format.ts`):
 * `block bytes ‖ u8 compressionType ‖ fixed32 LE checksum(block bytes ‖ compressionType)`,
 * the checksum computed by the table's checksum type (`blockChecksum` of `@shale/base`: RocksDB's
 * ComputeBuiltinChecksumWithLastByte; the type byte directly follows the block, so the
 * checksummed bytes `[offset, offset + size]` are contiguous), plus, from format version 6,
 * the context modifier of the block's offset (`contextChecksumModifier`; `contextChecksum`
 * is the footer's base, 0 before version 6). As RocksDB's VerifyBlockChecksum, the stored
 * value minus the modifier must equal the computed checksum (0 for checksum type none).
 */
import {
  blockChecksum,
  getFixed32,
  putFixed32,
  type RandomAccessFile,
  ShaleError,
  type WritableFile,
} from "@shale/base";
import { compressBlock, decompressBlock, decompressBlockInto } from "../compression/compression.js";
import {
  type BlockHandle,
  CompressionType,
  contextChecksumModifier,
  TableFormat,
} from "../format/format.js";
import { allocUninitialized, BlockSlab, blockMemory, MAX_POOLED_BLOCK } from "./alloc.js";

const TRAILER = TableFormat.BLOCK_TRAILER_SIZE;

/** The compression type byte of the block `writeBlock` wrote last. */
let writtenType: number = CompressionType.None;

/** The compression type `writeBlock` chose for the block it wrote last (none if not worth it). */
export function lastWrittenCompression(): number {
  return writtenType;
}

/**
 * Compresses `raw` (when `type` is not none and it saves >= 12.5 %), appends it with its
 * trailer at `offset` (the file's current end) and returns the block's handle.
 * `raw` is not retained. `contextChecksum`: the table's base context checksum (format
 * version >= 6; 0 before). zstd blocks use `zstdLevel` and the table's dictionary `dict`
 * if given (data blocks only).
 */
export function writeBlock(
  file: WritableFile,
  offset: number,
  raw: Uint8Array,
  type: CompressionType,
  checksumType: number,
  contextChecksum = 0,
  dict?: Uint8Array,
  zstdLevel?: number,
): BlockHandle {
  // One contiguous buffer so the checksum covers contents ‖ type in one pass: the compressor
  // leaves room for the trailer after the stream.
  let out = compressBlock(raw, type, TRAILER, dict, zstdLevel);
  let size: number;
  if (out !== undefined) {
    size = out.length - TRAILER;
    out[size] = type;
  } else {
    size = raw.length;
    out = new Uint8Array(size + TRAILER);
    out.set(raw, 0);
    out[size] = CompressionType.None;
  }
  writtenType = out[size]!;
  const checksum = blockChecksum(checksumType, out, 0, size + 1);
  putFixed32(out, size + 1, (checksum + contextChecksumModifier(contextChecksum, offset)) >>> 0);
  file.append(out, 0, out.length);
  return { offset, size };
}

/** Blocks up to this size are read into `readScratch` when expected to be compressed. */
const MAX_SCRATCH = 1 << 20;
/** Reused for compressed blocks, which are garbage once decompressed (single-threaded). */
let readScratch = new Uint8Array(0);

/**
 * A `BlockSlab` whose `reserve` takes a buffer from `blockMemory` (blocks up to
 * `MAX_POOLED_BLOCK`; larger ones get memory of their own), so the codecs that write into a
 * slab (snappy, lz4) decompress into pooled memory. `took` says whether the last reserve did.
 */
class PoolSlab extends BlockSlab {
  took = false;

  override reserve(n: number): void {
    this.took = n > 0 && n <= MAX_POOLED_BLOCK;
    this.buf = this.took ? blockMemory.take(n) : allocUninitialized(n);
    this.pos = 0;
  }
}

const poolSlab = new PoolSlab();

/** Whether the contents the last `readBlock` / `decodeBlock` returned are in `blockMemory`. */
let decodedPooled = false;

/**
 * True if the contents the last `readBlock` or `decodeBlock` call returned (asked for
 * `pooled`) are a buffer of `blockMemory` (whole, from offset 0): the caller may hand it back
 * once nothing reads it (see `Block.recyclable`). False when the codec wrote memory of its
 * own (zstd, zlib) or the block is over `MAX_POOLED_BLOCK`.
 */
export function decodedIntoPool(): boolean {
  return decodedPooled;
}

/**
 * Reads the block at `handle`, verifies its checksum (unless `verify` is false) and
 * decompresses it. Returns the contents in memory of their own (never shared with another
 * block). Throws Corruption naming `fileName` and the block offset for a block past the end
 * of the file, a short read, a checksum mismatch, an unknown compression type or a bad
 * compressed stream.
 *
 * `expectCompressed` only picks the read buffer: a block expected compressed is read into
 * a reused scratch buffer (an uncompressed one is then copied out), one expected raw into
 * its own new memory (a compressed one is then decompressed from it): see `alloc.ts`.
 * `pooled`: that memory comes from `blockMemory` where it can (see `decodedIntoPool`).
 * `contextChecksum`: the footer's base context checksum (format version >= 6; 0 before).
 * `dict`: the table's compression dictionary, for its data blocks.
 */
export function readBlock(
  file: RandomAccessFile,
  fileSize: number,
  handle: BlockHandle,
  fileName: string | undefined,
  checksumType: number,
  verify: boolean,
  expectCompressed = false,
  pooled = false,
  contextChecksum = 0,
  dict?: Uint8Array,
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
  const scratch = expectCompressed && n <= MAX_SCRATCH;
  if (scratch && readScratch.length < n)
    readScratch = new Uint8Array(Math.max(n, 2 * readScratch.length));
  const readPooled = pooled && !scratch && n <= MAX_POOLED_BLOCK;
  const buf = scratch ? readScratch : readPooled ? blockMemory.take(n) : allocUninitialized(n);
  const got = file.read(offset, n, buf, 0);
  if (got !== n)
    throw ShaleError.corruption(`truncated block read: ${got} of ${n} bytes`, fileName, offset);
  const data = decodeBlock(
    buf,
    0,
    handle,
    fileName,
    checksumType,
    verify,
    !scratch,
    undefined,
    pooled,
    contextChecksum,
    dict,
  );
  if (readPooled) {
    if (data.buffer === buf.buffer)
      decodedPooled = true; // a view of the pooled read buffer
    else blockMemory.give(buf.buffer); // decompressed elsewhere: the raw bytes are garbage
  }
  return data;
}

/**
 * The contents of the block whose bytes and trailer are `buf[pos, pos + handle.size + 5)`:
 * verified by `checksumType` (unless `verify` is false or the type is None) and decompressed. Uncompressed contents are a view of
 * `buf` when `view`, else a copy; decompressed contents have memory of their own, or are
 * carved from `slab` if given (blocks that will not be cached), or taken from `blockMemory`
 * if `pooled` (where the codec allows: see `decodedIntoPool`; copies too). Throws Corruption
 * (at the block's file offset) for a checksum mismatch, an unknown compression type or a bad
 * compressed stream.
 */
export function decodeBlock(
  buf: Uint8Array,
  pos: number,
  handle: BlockHandle,
  fileName: string | undefined,
  checksumType: number,
  verify: boolean,
  view: boolean,
  slab?: BlockSlab,
  pooled = false,
  contextChecksum = 0,
  dict?: Uint8Array,
): Uint8Array {
  decodedPooled = false;
  const size = handle.size;
  const end = pos + size;
  if (verify) {
    // RocksDB's VerifyBlockChecksum: take the context out of the stored value.
    const modifier = contextChecksumModifier(contextChecksum, handle.offset);
    const stored = (getFixed32(buf, end + 1) - modifier) >>> 0;
    const computed = checksumType === 0 ? 0 : blockChecksum(checksumType, buf, pos, end + 1);
    if (stored !== computed) {
      throw ShaleError.corruption(
        `block checksum mismatch: stored${modifier !== 0 ? " (context removed)" : ""} ` +
          `0x${stored.toString(16)}, computed ` +
          `0x${computed.toString(16)} (checksum type ${checksumType})`,
        fileName,
        handle.offset,
      );
    }
  }
  const type = buf[end]!;
  if (type === CompressionType.None) {
    if (view) return buf.subarray(pos, end);
    const toPool = pooled && size > 0 && size <= MAX_POOLED_BLOCK;
    const copy = toPool ? blockMemory.take(size) : allocUninitialized(size);
    copy.set(buf.subarray(pos, end));
    decodedPooled = toPool;
    return copy;
  }
  const compressed = buf.subarray(pos, end);
  if (pooled && slab === undefined) {
    poolSlab.took = false;
    const out = decompressBlockInto(compressed, type, fileName, handle.offset, poolSlab, dict);
    decodedPooled = poolSlab.took && out.buffer === poolSlab.buf.buffer;
    poolSlab.buf = EMPTY_SLAB; // hold no pooled buffer
    return out;
  }
  return slab !== undefined
    ? decompressBlockInto(compressed, type, fileName, handle.offset, slab, dict)
    : decompressBlock(compressed, type, fileName, handle.offset, dict);
}

const EMPTY_SLAB = new Uint8Array(0);
