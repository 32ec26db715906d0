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
 * By default every entry is written, every version of every key. The `rules` option puts the
 * compaction rules between the memtable and the table: a function that wraps the memtable's
 * entries in an iterator of those to keep (dropping versions no snapshot can see, entries
 * under a range tombstone, merging operands: what a database's flush decides with its
 * snapshots; @shale/db passes its CompactionIterator). `copyMemTable` is the loop alone, for
 * an engine writing through its own table wrapper (@shale/db's flush job). The source is typed
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

/** What `flushMemTable` and `copyMemTable` read: a memtable of @shale/memtable, or your own. */
export interface FlushSource {
  /** Point entries in increasing internal-key order; closed by flushMemTable / copyMemTable. */
  newIterator(): InternalIterator;
  /** Range tombstones `[start, end)@seq`, in any order. */
  rangeTombstones(): readonly RangeTombstone[];
}

/**
 * The entries a flush writes, in increasing internal-key order: what `FlushRules` returns
 * (an `InternalIterator` is one). Only walked forward from the first.
 */
export interface FlushEntries {
  seekToFirst(): void;
  valid(): boolean;
  /** REQUIRES: valid(). A view, valid until the next move. */
  key(): Uint8Array;
  /** REQUIRES: valid(). A view, valid until the next move. */
  value(): Uint8Array;
  next(): void;
}

/**
 * The compaction rules of a flush: given the source's point entries, the entries to write
 * (the same ones or fewer, or merged, in the same order). Called once per flush; the source's
 * iterator is closed by the flush, after the last entry was read.
 */
export type FlushRules = (entries: InternalIterator) => FlushEntries;

/** Where `copyMemTable` writes: a `TableBuilder`, or an engine's wrapper around one. */
export interface FlushTarget {
  add(key: Uint8Array, value: Uint8Array): void;
  addRangeTombstone(start: Uint8Array, end: Uint8Array, seq: number): void;
}

export interface FlushOptions extends TableBuilderOptions {
  /** fsync the file before closing it. Default: true. */
  sync?: boolean;
  /** The compaction rules (see `FlushRules`). Default: none, every entry is written. */
  rules?: FlushRules;
}

/**
 * Adds every point entry of `source` (through `rules`, when given) and then every range
 * tombstone to `target`, and closes the source's iterator (also when a write throws). The
 * caller finishes the table.
 */
export function copyMemTable(source: FlushSource, target: FlushTarget, rules?: FlushRules): void {
  const it = source.newIterator();
  try {
    const entries = rules === undefined ? it : rules(it);
    for (entries.seekToFirst(); entries.valid(); entries.next()) {
      target.add(entries.key(), entries.value());
    }
  } finally {
    it.close();
  }
  for (const t of source.rangeTombstones()) target.addRangeTombstone(t.start, t.end, t.seq);
}

/**
 * Writes every point entry and range tombstone of `source` into a table in `file` (from its
 * current end, normally a new file), syncs it (unless `sync: false`) and closes it. Returns
 * the table's properties. Throws what `TableBuilder` throws (InvalidArgument for entries out
 * of order) and the file's IOError; TypeError for a source without `newIterator` /
 * `rangeTombstones`, or `rules` that is not a function.
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
  const { sync = true, rules, ...builderOptions } = options;
  if (typeof sync !== "boolean") throw new TypeError("options.sync must be a boolean");
  if (rules !== undefined && typeof rules !== "function") {
    throw new TypeError("options.rules must be a function");
  }
  let builder: TableBuilder | undefined;
  let finished = false;
  try {
    builder = new TableBuilder(file, builderOptions);
    copyMemTable(source, builder, rules);
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
