/**
 * The LSM as `levels` prints and draws it: every live table with its level, size and
 * user-key range, from `db.getLiveFiles()` (RocksDB's GetLiveFilesMetaData).
 */
import type { ColumnFamilyHandle, DB } from "@shale/db";

export interface TableInfo {
  readonly number: number;
  readonly size: number;
  /** Smallest / largest user key (range tombstone bounds included). */
  readonly smallest: Uint8Array;
  readonly largest: Uint8Array;
  readonly smallestSeq: number;
  readonly largestSeq: number;
}

export interface LevelInfo {
  readonly level: number;
  /** L0 newest first (the order reads see them); other levels by key. */
  readonly files: readonly TableInfo[];
  readonly bytes: number;
}

/** Every level of `family` (empty ones included), with its live tables. */
export function readLevels(db: DB, family: ColumnFamilyHandle): LevelInfo[] {
  let count = 0;
  while (family.getProperty(`shale.num-files-at-level${count}`) !== undefined) count++;
  const levels: { level: number; files: TableInfo[]; bytes: number }[] = [];
  for (let level = 0; level < count; level++) levels.push({ level, files: [], bytes: 0 });
  for (const t of db.getLiveFiles().tables) {
    if (t.columnFamily !== family.id) continue;
    const l = levels[t.level]!;
    l.files.push({
      number: t.number,
      size: t.size,
      smallest: t.smallestKey,
      largest: t.largestKey,
      smallestSeq: t.smallestSeq,
      largestSeq: t.largestSeq,
    });
    l.bytes += t.size;
  }
  return levels;
}
