/**
 * `db.getProperty(name)`: RocksDB-style introspection, as strings.
 */
import type { Statistics } from "@shale/base";
import type { LRUCache } from "@shale/block-cache";
import type { MemTable } from "@shale/memtable";
import type { SnapshotList } from "./snapshot.js";
import { NUM_LEVELS } from "./version-edit.js";
import type { Version } from "./version-set.js";

export interface PropertySource {
  mem: MemTable;
  imm: readonly { mem: MemTable }[];
  version: Version;
  snapshots: SnapshotList;
  lastSeq: number;
  stats: Statistics | undefined;
  blockCache: LRUCache<unknown>;
  stallMicros: number;
  backgroundError: Error | undefined;
}

const LEVEL_FILES = /^shale\.num-files-at-level(\d+)$/;

export function formatProperty(name: string, s: PropertySource): string | undefined {
  const m = LEVEL_FILES.exec(name);
  if (m) {
    const level = Number(m[1]);
    return level < NUM_LEVELS ? String(s.version.numFiles(level)) : undefined;
  }
  switch (name) {
    case "shale.num-immutable-mem-table":
      return String(s.imm.length);
    case "shale.cur-size-active-mem-table":
      return String(s.mem.approximateMemoryUsage());
    case "shale.size-all-mem-tables":
      return String(
        s.imm.reduce((n, i) => n + i.mem.approximateMemoryUsage(), s.mem.approximateMemoryUsage()),
      );
    case "shale.num-entries-active-mem-table":
      return String(s.mem.numEntries);
    case "shale.num-snapshots":
      return String(s.snapshots.size);
    case "shale.oldest-snapshot-seq":
      return String(s.snapshots.oldest() ?? 0);
    case "shale.latest-sequence":
      return String(s.lastSeq);
    case "shale.block-cache-capacity":
      return String(s.blockCache.capacity);
    case "shale.block-cache-usage":
      return String(s.blockCache.usage);
    case "shale.block-cache-pinned-usage":
      return String(s.blockCache.pinnedUsage);
    case "shale.block-cache-hits":
      return String(s.blockCache.stats().hits);
    case "shale.block-cache-misses":
      return String(s.blockCache.stats().misses);
    case "shale.total-sst-files-size": {
      let n = 0;
      for (let l = 0; l < NUM_LEVELS; l++) n += s.version.levelBytes(l);
      return String(n);
    }
    case "shale.stall-micros":
      return String(s.stallMicros);
    case "shale.background-errors":
      return s.backgroundError === undefined ? "0" : "1";
    case "shale.stats":
      return stats(s);
    default:
      return undefined;
  }
}

function stats(s: PropertySource): string {
  const lines = [
    "** DB Stats **",
    `Latest sequence: ${s.lastSeq}`,
    "",
    "** Levels **",
    "Level  Files  Size(MB)",
  ];
  for (let l = 0; l < NUM_LEVELS; l++) {
    lines.push(
      `  L${l}  ${String(s.version.numFiles(l)).padStart(5)}  ${(s.version.levelBytes(l) / 1048576).toFixed(2).padStart(8)}`,
    );
  }
  lines.push(
    "",
    "** Memtables **",
    `Active: ${s.mem.numEntries} entries, ${s.mem.approximateMemoryUsage()} bytes`,
    `Immutable: ${s.imm.length}`,
    `Snapshots: ${s.snapshots.size}`,
    "",
    "** Block cache **",
    (() => {
      const c = s.blockCache.stats();
      return `Capacity: ${c.capacity} Usage: ${c.usage} Pinned: ${c.pinnedUsage} Entries: ${c.entries} Hits: ${c.hits} Misses: ${c.misses}`;
    })(),
    `Write stall micros: ${s.stallMicros}`,
  );
  if (s.stats !== undefined) lines.push("", "** Statistics **", s.stats.toString());
  return lines.join("\n");
}
