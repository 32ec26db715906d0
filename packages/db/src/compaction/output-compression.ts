/**
 * Which codec a new table is written with: RocksDB's per-level compression
 * (`compression_per_level`, `bottommost_compression`), decided as RocksDB decides it —
 * flushes by `GetCompressionFlush` (db/db_impl/db_impl.cc), compactions by
 * `GetCompressionType` (db/compaction/compaction_picker.cc):
 *
 * ```
 * flush (L0):      compressionPerLevel[0] if the list is given, else compression
 *                  (bottommostCompression never applies to a flush)
 * compaction to L: bottommostCompression if given and L >= (deepest non-empty level of the
 *                  version the inputs were picked from; -1 when all are empty);
 *                  else compressionPerLevel[min(L, length - 1)] if the list is given
 *                  (shorter lists repeat their last entry); else compression
 * ```
 *
 * RocksDB indexes the list by `L == 0 ? 0 : L - base_level + 1`. shale levels statically
 * (no `level_compaction_dynamic_level_bytes`, the OPTIONS file says false), so its base
 * level is always L1 and the index is the level itself. A compaction that would move one
 * file down without rewriting it (a trivial move) is a move only when the input level's
 * codec equals the output level's (RocksDB's `InputCompressionMatchesOutput`); otherwise it
 * rewrites the file in the output level's codec.
 *
 * Example: compressionPerLevel ["none", "none", "lz4"], bottommostCompression "zstd", data
 * down to L4: flushes write none; L0 -> L1 none; L1 -> L2 lz4; L3 -> L4 zstd (bottommost);
 * L2 -> L3 lz4 (index 3 clamps to the last entry) — until L3 is the deepest level, then zstd.
 */
import type { CompressionName } from "@shale/sstable";

/** The options that decide a table's codec (the database's, resolved). */
export interface LevelCompressionOptions {
  readonly compression: CompressionName;
  /** Per output level; empty means "use `compression`" (RocksDB's empty vector). */
  readonly compressionPerLevel: readonly CompressionName[];
  /** For outputs at the bottommost level; undefined is RocksDB's kDisableCompressionOption. */
  readonly bottommostCompression: CompressionName | undefined;
}

/** The codec of a flush's table (L0). */
export function flushCompression(o: LevelCompressionOptions): CompressionName {
  return o.compressionPerLevel.length > 0 ? o.compressionPerLevel[0]! : o.compression;
}

/**
 * The codec of a compaction writing into `level`, given the levels' file counts in the
 * version the compaction was picked from (`levels[i].length`).
 */
export function compactionCompression(
  o: LevelCompressionOptions,
  level: number,
  levels: readonly { readonly length: number }[],
): CompressionName {
  if (o.bottommostCompression !== undefined && level >= deepestNonEmptyLevel(levels)) {
    return o.bottommostCompression;
  }
  const list = o.compressionPerLevel;
  if (list.length === 0) return o.compression;
  return list[Math.max(0, Math.min(level, list.length - 1))]!;
}

/** RocksDB's `num_non_empty_levels() - 1`: the deepest level holding a file, or -1. */
function deepestNonEmptyLevel(levels: readonly { readonly length: number }[]): number {
  for (let l = levels.length - 1; l >= 0; l--) if (levels[l]!.length > 0) return l;
  return -1;
}
