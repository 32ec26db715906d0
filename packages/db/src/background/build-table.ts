/**
 * Writes one table file from sorted internal entries and range tombstones: the shared core
 * of flush and compaction, run in a worker thread or inline. The file is synced and closed
 * before this returns; on failure it is removed. The caller makes it visible through a
 * MANIFEST edit.
 */
import {
  bytewiseComparator,
  type FileSystem,
  type InternalIterator,
  type RangeTombstone,
  ShaleError,
} from "@shale/base";
import { TableBuilder, type TableBuilderOptions } from "@shale/sstable";
import { tableFileName } from "../filenames.js";
import type { FileMetaData } from "../version-edit.js";

/** Table options that cross to a worker (structured-clone friendly: no functions). */
export interface TableWriteOptions {
  blockSize: number;
  bitsPerKey: number;
  compression: NonNullable<TableBuilderOptions["compression"]>;
}

/** The table options of a database's options. */
export function tableWriteOptions(options: {
  blockSize: number;
  bloomBitsPerKey: number;
  compression: TableWriteOptions["compression"];
}): TableWriteOptions {
  return {
    blockSize: options.blockSize,
    bitsPerKey: options.bloomBitsPerKey,
    compression: options.compression,
  };
}

/**
 * Builds table `fileNumber` in `dir` from `iterator` (positioned by this function) and
 * `tombstones`. Returns its metadata, or undefined when there was nothing to write (the
 * empty file is removed).
 */
export function buildTable(
  fs: FileSystem,
  dir: string,
  fileNumber: number,
  iterator: InternalIterator,
  tombstones: readonly RangeTombstone[],
  builderOptions: TableBuilderOptions,
): FileMetaData | undefined {
  const path = tableFileName(dir, fileNumber);
  const file = fs.openWritable(path, { bufferSize: 256 * 1024 });
  let ok = false;
  try {
    const builder = new TableBuilder(file, builderOptions);
    for (iterator.seekToFirst(); iterator.valid(); iterator.next())
      builder.add(iterator.key(), iterator.value());
    const user = builderOptions.comparator ?? bytewiseComparator;
    let ranges = 0;
    for (const t of tombstones) {
      if (user.compare(t.start, t.end) >= 0) continue; // an empty range deletes nothing
      builder.addRangeTombstone(t.start, t.end, t.seq);
      ranges++;
    }
    if (builder.numEntries === 0 && ranges === 0) {
      builder.abandon();
      file.close();
      fs.remove(path);
      ok = true;
      return undefined;
    }
    const props = builder.finish();
    file.sync();
    file.close();
    if (props.smallestKey === undefined || props.largestKey === undefined) {
      throw ShaleError.corruption("a finished table has no key range", path);
    }
    ok = true;
    return {
      number: fileNumber,
      size: fs.fileSize(path),
      smallest: props.smallestKey,
      largest: props.largestKey,
      smallestSeq: props.smallestSeq,
      largestSeq: props.largestSeq,
    };
  } finally {
    iterator.close();
    if (!ok) {
      try {
        file.close();
      } catch {
        // already failing; keep the first error
      }
      if (fs.exists(path)) fs.remove(path);
    }
  }
}
