/**
 * The LSM as `levels` prints and draws it: every live table with its level, size and
 * user-key range, read from the database's current version.
 */
import type { DB } from "@shale/db";

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

const TRAILER = 8;

export function readLevels(db: DB): LevelInfo[] {
  const pinned = db.pinCurrentVersion();
  try {
    return pinned.version.levels.map((files, level) => ({
      level,
      bytes: files.reduce((n, f) => n + f.size, 0),
      files: files.map((f) => ({
        number: f.number,
        size: f.size,
        smallest: f.smallest.slice(0, f.smallest.length - TRAILER),
        largest: f.largest.slice(0, f.largest.length - TRAILER),
        smallestSeq: f.smallestSeq,
        largestSeq: f.largestSeq,
      })),
    }));
  } finally {
    pinned.release();
  }
}
