/**
 * The fixed reads of opening a table: the footer, the metaindex (name -> BlockHandle), the
 * properties block and the range-deletion block (decoded into tombstones, to be fragmented
 * once by the reader). Formats in `format.ts`, `block-builder.ts` and docs/formats/sstable.md.
 *
 * The properties block of an ingested external file may hold a global seqno that RocksDB's
 * ingestion (`write_global_seqno`) wrote in place after the block's checksum was computed
 * over 0: as RocksDB's ReadTablePropertiesHelper, a checksum mismatch is checked again with
 * those 8 bytes zeroed (format/external-file.ts).
 */
import {
  bytewiseComparator,
  isShaleError,
  type RandomAccessFile,
  type RangeTombstone,
  ShaleError,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import { Block } from "../block/block.js";
import { decodeBlock } from "../block/block-io.js";
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockSource } from "../block/block-source.js";
import { KeyOrder } from "../block/key-order.js";
import { decodeFooter, type Footer } from "../format/footer.js";
import {
  type BlockHandle,
  CompressionType,
  decodeBlockHandleInto,
  TableFormat,
} from "../format/format.js";
import { PropertyName } from "../format/properties.js";

/** Reads and checks the footer: Corruption for a file shorter than a footer or a bad one. */
export function readFooter(
  file: RandomAccessFile,
  fileSize: number,
  fileName: string | undefined,
): Footer {
  if (fileSize < TableFormat.FOOTER_SIZE) {
    throw ShaleError.corruption(
      `file of ${fileSize} bytes is too short to be a table`,
      fileName,
      0,
    );
  }
  const footerOffset = fileSize - TableFormat.FOOTER_SIZE;
  const bytes = new Uint8Array(TableFormat.FOOTER_SIZE);
  const got = file.read(footerOffset, TableFormat.FOOTER_SIZE, bytes, 0);
  if (got !== TableFormat.FOOTER_SIZE) {
    throw ShaleError.corruption(`truncated footer read: ${got} bytes`, fileName, footerOffset);
  }
  return decodeFooter(bytes, fileName, footerOffset);
}

/** The metaindex: meta block name -> handle. Corruption (at the metaindex offset) if malformed. */
export function readMetaindex(source: BlockSource, handle: BlockHandle): Map<string, BlockHandle> {
  const block = source.readKeyValueBlock(handle);
  const order = new KeyOrder(bytewiseComparator, false);
  const it = new BlockIterator(order).init(block, source.fileName, handle.offset);
  const decoder = new TextDecoder();
  const cursor = new Int32Array(1);
  const out = new Map<string, BlockHandle>();
  for (it.seekToFirst(); it.valid(); it.next()) {
    const h: BlockHandle = { offset: 0, size: 0 };
    const v = it.value();
    const end = decodeBlockHandleInto(v, 0, v.length, h, cursor, source.fileName, handle.offset);
    if (end !== v.length) {
      throw ShaleError.corruption("bad metaindex entry", source.fileName, handle.offset);
    }
    out.set(decoder.decode(it.key()), h);
  }
  return out;
}

/**
 * The tombstones of the range-deletion block, as copies (the block is not kept).
 * Corruption (at the block offset) for a key that is not a RANGEDEL internal key.
 */
export function readTombstones(
  source: BlockSource,
  handle: BlockHandle,
  order: KeyOrder,
): RangeTombstone[] {
  const block = source.readKeyValueBlock(handle);
  const it = new BlockIterator(order).init(block, source.fileName, handle.offset);
  const out: RangeTombstone[] = [];
  for (it.seekToFirst(); it.valid(); it.next()) {
    const key = it.key();
    const t = key.length - TRAILER_SIZE;
    if (t < 0 || key[t] !== ValueKind.RangeDeletion) {
      throw ShaleError.corruption(
        "range-deletion block holds a non-RANGEDEL key",
        source.fileName,
        handle.offset,
      );
    }
    out.push({ start: key.slice(0, t), end: it.value().slice(), seq: trailerSeq(key, t) });
  }
  return out;
}

/** Offset in `block`'s bytes of the 8-byte global seqno property value; -1 when absent. */
export function globalSeqnoValueOffset(block: Block, source: BlockSource, at: number): number {
  const it = new BlockIterator(new KeyOrder(bytewiseComparator, false)).init(
    block,
    source.fileName,
    at,
  );
  const name = new TextEncoder().encode(PropertyName.EXTERNAL_SST_FILE_GLOBAL_SEQNO);
  for (it.seekToFirst(); it.valid(); it.next()) {
    if (bytewiseComparator.compare(it.key(), name) !== 0) continue;
    return it.valueLength === 8 ? it.valueOffset : -1;
  }
  return -1;
}

/**
 * The properties block at `handle`. A checksum mismatch is accepted when the block holds the
 * external-file global seqno and its checksum matches with that value zeroed (RocksDB's
 * `write_global_seqno` leaves the checksum computed over 0); any other mismatch is the
 * Corruption it was.
 */
export function readPropertiesBlock(source: BlockSource, handle: BlockHandle): Block {
  try {
    return source.readKeyValueBlock(handle);
  } catch (e) {
    if (!isShaleError(e, "Corruption") || !source.verifyChecksums) throw e;
    const stored = source.readStored(handle);
    if (stored[handle.size] !== CompressionType.None) throw e;
    const block = Block.keyValue(stored.slice(0, handle.size), source.fileName, handle.offset);
    let at: number;
    try {
      at = globalSeqnoValueOffset(block, source, handle.offset);
    } catch {
      throw e;
    }
    if (at < 0) throw e;
    stored.fill(0, at, at + 8);
    try {
      decodeBlock(
        stored,
        0,
        handle,
        source.fileName,
        source.checksumType,
        true,
        true,
        undefined,
        false,
        source.contextChecksum,
      );
    } catch {
      throw e;
    }
    return block;
  }
}
