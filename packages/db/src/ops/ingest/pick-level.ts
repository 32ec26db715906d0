/**
 * Where an external file goes and at which sequence number (RocksDB's
 * ExternalSstFileIngestionJob::AssignLevelAndSeqnoForIngestedFile, leveled compaction):
 *
 * - Walk the levels from L0 down. A level whose data has a key in the file's range stops the
 *   walk: the file must sit above it, and needs a global sequence number (the last sequence
 *   + 1) to be newer than that data.
 * - Among the levels walked, the file goes to the deepest one it fits in: L0 always fits;
 *   a deeper level fits when none of its tables' ranges overlaps the file's, and no running
 *   compaction writes there over the file's range.
 * - A file that overlaps nothing keeps sequence number 0, except while a snapshot is held
 *   and `snapshotConsistency` is on: then it is numbered anyway, so the snapshot does not see
 *   it (`forceGlobalSeqno`).
 *
 * - Under universal and FIFO compaction (`deepestLevel` 0) the file goes to L0: FIFO keeps
 *   every table there, and an L0 table is always a sorted run newer than the levels below
 *   (RocksDB places a universal file in a non-empty level it fits, at that level's largest
 *   sequence number; L0 is the simpler choice with the same reads).
 *
 * Worked example: L0 empty, L1 holds [a, c], L6 holds [m, z]; a file of [d, f] walks L0 (no
 * data), L1 (no key in [d, f]; fits), ..., L6 (no key; fits): L6 at sequence 0. A file of
 * [b, b2] finds a key of L1 in its range: it goes to L0 at last sequence + 1.
 */
import type { Comparator } from "@shale/base";
import { fileRange, type KeyRange, rangesOverlap } from "../../version/key-range.js";
import type { Version } from "../../version/version.js";

/** Where a file is placed. */
export interface Placement {
  readonly level: number;
  /** Its global sequence number (0: none). */
  readonly seqno: number;
}

/** What the walk asks of the family. */
export interface LevelProbe {
  readonly ucmp: Comparator;
  /** True when the data of `level` has a key or range deletion in `range`. */
  levelHasDataIn(level: number, range: KeyRange): boolean;
  /** True when a running compaction writes to `level` over `range`. */
  compactionWritesOver(level: number, range: KeyRange): boolean;
  /** The deepest level a file may go to (compaction styles). Default: the last level. */
  readonly deepestLevel?: number;
}

function fitsInLevel(version: Version, probe: LevelProbe, level: number, range: KeyRange): boolean {
  if (level === 0) return true;
  for (const f of version.levels[level]!) {
    if (rangesOverlap(probe.ucmp, fileRange(f), range)) return false;
  }
  return !probe.compactionWritesOver(level, range);
}

/**
 * The level and sequence number of a file of user keys `range` in `version`, where the
 * last sequence number used is `lastSeq`.
 */
export function pickLevel(
  version: Version,
  probe: LevelProbe,
  range: KeyRange,
  lastSeq: number,
  forceGlobalSeqno: boolean,
): Placement {
  let target = 0;
  let overlapsData = false;
  const deepest = probe.deepestLevel ?? version.levels.length - 1;
  for (let level = 0; level < version.levels.length; level++) {
    if (version.levels[level]!.length > 0 && probe.levelHasDataIn(level, range)) {
      overlapsData = true;
      break;
    }
    if (level <= deepest && fitsInLevel(version, probe, level, range)) target = level;
  }
  return { level: target, seqno: overlapsData || forceGlobalSeqno ? lastSeq + 1 : 0 };
}
