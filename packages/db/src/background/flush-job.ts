/**
 * Flush: writes a sealed memtable (its point entries and range tombstones) as one table.
 * Runs in a worker thread (on a MemTable reopened from shared memory) or inline.
 */
import type { FileSystem } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableBuilderOptions } from "@shale/sstable";
import type { FileMetaData } from "../version-edit.js";
import { buildTable } from "./build-table.js";

export function flushMemTable(
  fs: FileSystem,
  dir: string,
  fileNumber: number,
  mem: MemTable,
  options: TableBuilderOptions,
): FileMetaData | undefined {
  const file = buildTable(fs, dir, fileNumber, mem.newIterator(), mem.rangeTombstones(), options);
  // The new name must be durable before the MANIFEST edit can refer to it.
  if (file !== undefined) fs.syncDir(dir);
  return file;
}
