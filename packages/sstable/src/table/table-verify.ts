/**
 * Verifying a whole table (RocksDB's VerifyChecksum / `sst_dump --command=verify`): every
 * block the table holds is read again from the file — never from the block cache — and its
 * trailer checksum checked: the metaindex, every meta block it names (properties, filter,
 * range deletions, ...) and the partitions of partitioned filters, the index (with a
 * partitioned index's partitions), and every data block the index points at. The footer
 * was checked when the reader opened.
 *
 * Damage is Corruption naming the file and the offset of the damaged block (block-io.ts).
 * Cost: one read of the whole table; nothing is cached.
 */
import type { Block } from "../block/block.js";
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockSource } from "../block/block-source.js";
import type { KeyOrder } from "../block/key-order.js";
import type { Footer } from "../format/footer.js";
import { type BlockHandle, MetaBlockName } from "../format/format.js";
import type { PartitionedIndex } from "../index/partitioned-index.js";
import { PartitionedIndexIterator } from "../index/partitioned-index-iterator.js";
import { readMetaindex } from "./table-open.js";

/** The part of `TableReader` a verification reads (an interface: table-reader.ts imports this file). */
export interface VerifiableTable {
  readonly fileName: string | undefined;
  readonly order: KeyOrder;
  readonly footer: Footer;
  readonly source: BlockSource;
  /** A partitioned index (its partitions are verified too), or undefined. */
  readonly partitioned: PartitionedIndex | undefined;
  indexBlock(): Block;
  decodeIndexValue(index: BlockIterator, out: BlockHandle): void;
  /** Handles of partitioned filters' partitions (none for a full filter). */
  filterPartitions(): BlockHandle[];
}

/** What `TableReader.verifyChecksums` read. */
export interface TableVerifyResult {
  /** Blocks read and verified (data, index, metaindex and meta blocks). */
  blocks: number;
  /** Bytes read (each block with its 5-byte trailer). */
  bytes: number;
  /** Data blocks among `blocks`. */
  dataBlocks: number;
}

export function verifyTableBlocks(reader: VerifiableTable): TableVerifyResult {
  const source = reader.source;
  const footer = reader.footer;
  const result: TableVerifyResult = { blocks: 0, bytes: 0, dataBlocks: 0 };
  const read = (h: BlockHandle): void => {
    source.readRaw(h, true);
    result.blocks++;
    result.bytes += h.size + 5;
  };
  read(footer.metaindexHandle);
  // From format version 6 the metaindex names the index too: it is read once, below.
  for (const [name, h] of readMetaindex(source, footer.metaindexHandle)) {
    if (name !== MetaBlockName.INDEX) read(h);
  }
  for (const h of reader.filterPartitions()) read(h);
  read(footer.indexHandle);
  const partitioned = reader.partitioned;
  if (partitioned !== undefined) {
    const d = partitioned.directory;
    for (let i = 0; i < d.count; i++) read({ offset: d.offsets[i]!, size: d.sizes[i]! });
    const walker = new PartitionedIndexIterator(partitioned, reader.order, reader.fileName);
    const h: BlockHandle = { offset: 0, size: 0 };
    try {
      for (walker.seekToFirst(); walker.valid(); walker.next()) {
        walker.handle(h);
        read(h);
        result.dataBlocks++;
      }
    } finally {
      walker.close();
    }
    return result;
  }
  const at = footer.indexHandle.offset;
  const index = new BlockIterator(reader.order).init(reader.indexBlock(), reader.fileName, at);
  const h: BlockHandle = { offset: 0, size: 0 };
  for (index.seekToFirst(); index.valid(); index.next()) {
    reader.decodeIndexValue(index, h);
    source.readRaw(h, true, false, source.compressionDict);
    result.blocks++;
    result.bytes += h.size + 5;
    result.dataBlocks++;
  }
  return result;
}
