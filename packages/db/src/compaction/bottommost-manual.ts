/**
 * The last step of a manual compaction (`compactRange`) of a family with a compaction filter
 * or TTL: the files of the deepest non-empty level in the range are rewritten into that same
 * level, so that the filter sees every value in the range, also those that were already at
 * the bottom (RocksDB's `BottommostLevelCompaction::kIfHaveCompactionFilter`, the default of
 * CompactRangeOptions). As in RocksDB it runs only when that level already had files before
 * the compaction started (then a value just moved down is filtered twice); data only in L0
 * is filtered once, on its way to L1.
 *
 * ```
 *   L1 [a..f] [g..m]     compactRange()      L1 [a..f]' [g..m]'   (L1 -> L1, filtered)
 * ```
 */
import type { Comparator } from "@shale/base";
import { type KeyRange, overlappingInLevel, rangesOverlap } from "../version/key-range.js";
import type { Version } from "../version/version-set.js";
import { Compaction, CompactionReason } from "./compaction.js";
import { compactionCompression, type LevelCompressionOptions } from "./output-compression.js";
import type { ManualPick, RunningCompaction } from "./picker.js";

/** The in-place compaction of `level` (> 0) over `range` (everything when undefined). */
export function pickBottommostManual(
  version: Version,
  level: number,
  range: KeyRange | undefined,
  busy: ReadonlySet<number>,
  running: readonly RunningCompaction[],
  ucmp: Comparator,
  codecs: LevelCompressionOptions | undefined,
): ManualPick {
  const files = version.levels[level]!;
  const inputs = range === undefined ? files.slice() : overlappingInLevel(ucmp, files, range);
  if (inputs.length === 0) return "empty";
  if (inputs.some((f) => busy.has(f.number))) return "busy";
  const c = new Compaction({
    version,
    level,
    outputLevel: level,
    inputs: [inputs, []],
    reason: CompactionReason.Manual,
    score: 0,
    ucmp,
    allowTrivialMove: false,
    maxGrandparentOverlapBytes: Number.POSITIVE_INFINITY,
    // The level's own codec (compressionPerLevel, bottommostCompression), as a compaction into it.
    outputCompression:
      codecs === undefined ? undefined : compactionCompression(codecs, level, version.levels),
  });
  for (const r of running)
    if (r.outputLevel === level && rangesOverlap(ucmp, r.range, c.range)) return "busy";
  return c;
}
