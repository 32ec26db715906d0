/**
 * The layout of an open table, for tools (`shale sst`, sst_dump's `--show_properties` and
 * `raw` commands): the footer's fields, the meta blocks the metaindex names, and one entry
 * per data block from the index (its separator key and block handle).
 *
 * ```
 * [data block 0] ... [data block n-1] [meta blocks: filter, range-del, properties]
 * [metaindex] [index] [footer]        (table-builder.ts draws the bytes)
 * ```
 * Reads the metaindex and walks the index block once; nothing here is on a hot path.
 */
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockHandle } from "../format/format.js";
import { PartitionedIndexIterator } from "../index/partitioned-index-iterator.js";
import { readMetaindex } from "./table-open.js";
import type { TableReader } from "./table-reader.js";

export interface TableLayout {
  /** The footer's format version (2-7). */
  readonly formatVersion: number;
  /** The footer's checksum type byte (ChecksumType). */
  readonly checksumType: number;
  /** The footer's base context checksum (format version >= 6; 0 before; format.ts). */
  readonly baseContextChecksum: number;
  readonly metaindex: BlockHandle;
  readonly index: BlockHandle;
  /** The meta blocks by name ("rocksdb.properties", "fullfilter....", ...), in name order. */
  readonly metaBlocks: readonly { readonly name: string; readonly handle: BlockHandle }[];
}

export interface IndexEntry {
  /** Separator: an internal key >= every key of the block and < the next block's keys. */
  readonly separator: Uint8Array;
  readonly handle: BlockHandle;
}

/** The footer and meta blocks of `reader`'s table. Throws Corruption for a damaged metaindex. */
export function tableLayout(reader: TableReader): TableLayout {
  const footer = reader.footer;
  const meta = readMetaindex(reader.source, footer.metaindexHandle);
  return {
    formatVersion: footer.formatVersion,
    checksumType: footer.checksumType,
    baseContextChecksum: footer.baseContextChecksum,
    metaindex: { ...footer.metaindexHandle },
    index: { ...footer.indexHandle },
    metaBlocks: [...meta.entries()].map(([name, handle]) => ({ name, handle: { ...handle } })),
  };
}

/** Every index entry of `reader`'s table, in order (copies). Throws Corruption for a bad entry. */
export function tableIndexEntries(reader: TableReader): IndexEntry[] {
  const partitioned = reader.partitioned;
  if (partitioned !== undefined) {
    // Every partition's entries, in order (the top level is not listed).
    const walker = new PartitionedIndexIterator(partitioned, reader.order, reader.fileName);
    const out: IndexEntry[] = [];
    try {
      for (walker.seekToFirst(); walker.valid(); walker.next()) {
        const handle: BlockHandle = { offset: 0, size: 0 };
        walker.handle(handle);
        out.push({ separator: walker.entries.key().slice(), handle });
      }
    } finally {
      walker.close();
    }
    return out;
  }
  const it = new BlockIterator(reader.order).init(
    reader.indexBlock(),
    reader.fileName,
    reader.footer.indexHandle.offset,
  );
  const entries: IndexEntry[] = [];
  try {
    for (it.seekToFirst(); it.valid(); it.next()) {
      const handle: BlockHandle = { offset: 0, size: 0 };
      reader.decodeIndexValue(it, handle);
      entries.push({ separator: it.key().slice(), handle });
    }
  } finally {
    it.close();
  }
  return entries;
}
