/**
 * flushMemTable: writes a memtable (or anything that lists internal-key entries in order and
 * range tombstones) into a finished, durable table file — the copy loop, the range
 * tombstones, `finish`, `sync` and `close` that a component user would otherwise write.
 *
 * ```
 * source.newIterator():     a#7,SET "1"  a#3,DEL  b#5,MERGE "+1" ...   (internal-key order)
 * source.rangeTombstones(): [c, f)@9 ...                               (any order)
 *        |  TableBuilder.add each entry, addRangeTombstone each tombstone, finish()
 *        v  file.sync() (unless sync: false), file.close()
 * 000012.sst                                                           -> TableProperties
 * ```
 *
 * Every entry is written, every version of every key: dropping versions no snapshot can see
 * is a compaction's decision (it needs the snapshots), not a flush's. The source is typed
 * structurally (`FlushSource`) so this package does not depend on @shale/memtable; a
 * `MemTable` of @shale/memtable is one, and so is any `{ newIterator, rangeTombstones }`.
 *
 * On failure the builder is abandoned and the file closed (its contents are then
 * undefined: remove it), and the error is rethrown.
 */
import type { InternalIterator, RangeTombstone, WritableFile } from "@shale/base";
import type { TableProperties } from "../format/properties.js";
import type { TableBuilderOptions } from "./builder-options.js";
import { TableBuilder } from "./table-builder.js";

/** What `flushMemTable` reads: a memtable of @shale/memtable, or your own. */
export interface FlushSource {
  /** Point entries in increasing internal-key order; closed by flushMemTable. */
  newIterator(): InternalIterator;
  /** Range tombstones `[start, end)@seq`, in any order. */
  rangeTombstones(): readonly RangeTombstone[];
}

export interface FlushOptions extends TableBuilderOptions {
  /** fsync the file before closing it. Default: true. */
  sync?: boolean;
}

/**
 * Writes every point entry and range tombstone of `source` into a table in `file` (from its
 * current end, normally a new file), syncs it (unless `sync: false`) and closes it. Returns
 * the table's properties. Throws what `TableBuilder` throws (InvalidArgument for entries out
 * of order) and the file's IOError; TypeError for a source without `newIterator` /
 * `rangeTombstones`.
 */
export function flushMemTable(
  source: FlushSource,
  file: WritableFile,
  options: FlushOptions = {},
): TableProperties {
  if (
    typeof source !== "object" ||
    source === null ||
    typeof source.newIterator !== "function" ||
    typeof source.rangeTombstones !== "function"
  ) {
    throw new TypeError("source must have newIterator() and rangeTombstones() (a MemTable)");
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError("options must be an object");
  }
  const { sync = true, ...builderOptions } = options;
  if (typeof sync !== "boolean") throw new TypeError("options.sync must be a boolean");
  let builder: TableBuilder | undefined;
  let finished = false;
  try {
    builder = new TableBuilder(file, builderOptions);
    const it = source.newIterator();
    try {
      for (it.seekToFirst(); it.valid(); it.next()) builder.add(it.key(), it.value());
    } finally {
      it.close();
    }
    for (const t of source.rangeTombstones()) builder.addRangeTombstone(t.start, t.end, t.seq);
    const properties = builder.finish();
    finished = true;
    if (sync) file.sync();
    file.close();
    return properties;
  } catch (e) {
    if (builder !== undefined && !finished) {
      try {
        builder.abandon();
      } catch {
        // already failed: nothing more is written either way
      }
    }
    try {
      file.close();
    } catch {
      // the first error is the one to report
    }
    throw e;
  }
}
