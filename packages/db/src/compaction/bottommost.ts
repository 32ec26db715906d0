/**
 * "Is the output level the bottom for this key?" (LevelDB's IsBaseLevelForKey): true when no
 * file of a level below the output level has a range holding the key, so no older entry of
 * it can exist anywhere below and deletions of it (and merges onto nothing) are final.
 *
 * The compaction passes, per deeper level, the sorted ranges of its files that overlap the
 * compaction. Point keys arrive in ascending order, so each level keeps a cursor that only
 * moves forward: amortised O(1) per key.
 */
import type { Comparator } from "@shale/base";
import { endsBefore, type KeyRange } from "../version/key-range.js";

export class BottommostChecker {
  private readonly ucmp: Comparator;
  private readonly levels: readonly (readonly KeyRange[])[];
  private readonly cursors: Int32Array;

  /** @param levels per level below the output level: its file ranges, sorted, disjoint. */
  constructor(ucmp: Comparator, levels: readonly (readonly KeyRange[])[]) {
    this.ucmp = ucmp;
    this.levels = levels.filter((l) => l.length > 0);
    this.cursors = new Int32Array(this.levels.length);
  }

  /** True if no deeper file holds `userKey`. REQUIRES: keys ascend from call to call. */
  isBottommost(userKey: Uint8Array): boolean {
    const levels = this.levels;
    for (let l = 0; l < levels.length; l++) {
      const files = levels[l]!;
      let i = this.cursors[l]!;
      while (i < files.length && endsBefore(this.ucmp, files[i]!, userKey)) i++;
      this.cursors[l] = i;
      if (i < files.length && this.ucmp.compare(files[i]!.lo, userKey) <= 0) return false;
    }
    return true;
  }

  /** True if no deeper file overlaps the user keys `[start, end)` (any order of calls). */
  isRangeBottommost(start: Uint8Array, end: Uint8Array): boolean {
    for (const files of this.levels) {
      for (const f of files) {
        if (!endsBefore(this.ucmp, f, start) && this.ucmp.compare(f.lo, end) < 0) return false;
      }
    }
    return true;
  }
}
