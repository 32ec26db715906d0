/**
 * The data blocks of a RocksDB table (format_version 2-5) as stored — trailer type byte and
 * payload — found without the table reader, for the compression tests and benchmark: the
 * 53-byte footer's index handle, then the index block's entries (restart interval 1, so every
 * value is a full `varint64 offset ‖ varint64 size` handle; from format_version 4 no value
 * length precedes it). Test and benchmark support only; throws Error on anything unexpected.
 */
import { varint64Before, varintEnd } from "@shale/base";
import { decompressBlock } from "../compression/compression.js";

export interface StoredBlock {
  /** File offset of the block. */
  offset: number;
  /** The trailer's compression type byte. */
  type: number;
  /** The stored (maybe compressed) block bytes, a view of the file. */
  bytes: Uint8Array;
}

/** Reads a varint64 at `at.pos` (@shale/base's decoder), advancing it. */
function varint(buf: Uint8Array, at: { pos: number }): number {
  const v = varint64Before(buf, at.pos, buf.length);
  if (v < 0) throw new Error("bad varint");
  at.pos = varintEnd;
  return v;
}

export function rocksdbDataBlocks(file: Uint8Array): {
  formatVersion: number;
  blocks: StoredBlock[];
} {
  const dv = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (
    dv.getUint32(file.length - 8, true) !== 0x85f4cff7 ||
    dv.getUint32(file.length - 4, true) !== 0x88e241b7
  ) {
    throw new Error("not a RocksDB block-based table");
  }
  const formatVersion = dv.getUint32(file.length - 12, true);
  const at = { pos: file.length - 53 + 1 };
  varint(file, at); // metaindex offset
  varint(file, at); // metaindex size
  const indexOffset = varint(file, at);
  const indexSize = varint(file, at);
  let index = file.subarray(indexOffset, indexOffset + indexSize);
  const indexType = file[indexOffset + indexSize]!;
  if (indexType !== 0) index = decompressBlock(index, indexType, "index", indexOffset);
  const restarts = new DataView(index.buffer, index.byteOffset, index.byteLength).getUint32(
    index.length - 4,
    true,
  );
  const entriesEnd = index.length - 4 * (restarts + 1);
  const blocks: StoredBlock[] = [];
  const p = { pos: 0 };
  while (p.pos < entriesEnd) {
    varint(index, p); // shared key bytes
    const nonShared = varint(index, p);
    if (formatVersion < 4) varint(index, p); // value length
    p.pos += nonShared;
    const offset = varint(index, p);
    const size = varint(index, p);
    blocks.push({
      offset,
      type: file[offset + size]!,
      bytes: file.subarray(offset, offset + size),
    });
  }
  return { formatVersion, blocks };
}
