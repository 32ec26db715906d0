/**
 * Assembles what a DB iterator reads: one point iterator per memtable and L0 table, one
 * concatenating iterator per deeper level, the fragmented range tombstones of each, and the
 * largest seq each child can hold (so children older than a covering tombstone can jump
 * over the deleted run).
 *
 * The mutable memtable's tombstones are fragmented when the iterator is created; a sealed
 * memtable's are fragmented once and cached (it never changes again); tables fragment theirs
 * once when they are opened (seed 001). Deeper levels' tombstones come from opening every
 * table of the level that the iterator could reach — a known cost for very large databases
 * (RocksDB reads them lazily per file).
 */
import type { Comparator, InternalIterator, InternalKeyComparator } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import type { TableCache, TableReadOptions } from "@shale/sstable";
import { LevelFilesIterator } from "./compaction/level-files-iterator.js";
import type { DBIteratorSources } from "./iterator/index.js";
import { type FileMetaData, NUM_LEVELS } from "./version-edit.js";
import type { Version } from "./version-set.js";

const sealedFragments = new WeakMap<MemTable, FragmentedRangeTombstoneList>();

/** The fragmented tombstones of a memtable (cached once it is sealed). */
export function memTableTombstones(
  mem: MemTable,
  comparator: Comparator,
): FragmentedRangeTombstoneList {
  const cached = sealedFragments.get(mem);
  if (cached !== undefined) return cached;
  const list = new FragmentedRangeTombstoneList(mem.rangeTombstones(), comparator);
  if (mem.isSealed) sealedFragments.set(mem, list);
  return list;
}

export interface SourceState {
  mem: MemTable;
  /** Newest first. */
  imm: readonly { mem: MemTable }[];
  version: Version;
  tableCache: TableCache;
  icmp: InternalKeyComparator;
  readOptions: TableReadOptions | undefined;
}

export type CollectedSources = Pick<
  DBIteratorSources,
  "children" | "rangeTombstones" | "childMaxSeqs"
>;

export function collectSources(s: SourceState): CollectedSources {
  const children: InternalIterator[] = [];
  const rangeTombstones: FragmentedRangeTombstoneList[] = [];
  const childMaxSeqs: number[] = [];
  const user = s.icmp.user;
  try {
    for (const mem of [s.mem, ...s.imm.map((m) => m.mem)]) {
      children.push(mem.newIterator());
      childMaxSeqs.push(mem.largestSeq);
      if (mem.numRangeTombstones > 0) rangeTombstones.push(memTableTombstones(mem, user));
    }
    const open = (f: FileMetaData) => s.tableCache.get(f.number, f.size);
    for (const f of s.version.levels[0]!) {
      const reader = open(f);
      children.push(reader.newIterator(s.readOptions));
      childMaxSeqs.push(f.largestSeq);
      const list = reader.rangeTombstones();
      if (!list.isEmpty) rangeTombstones.push(list);
    }
    const compare = (a: Uint8Array, b: Uint8Array) => s.icmp.compare(a, b);
    for (let level = 1; level < NUM_LEVELS; level++) {
      const files = s.version.levels[level]!;
      if (files.length === 0) continue;
      let maxSeq = 0;
      for (const f of files) {
        if (f.largestSeq > maxSeq) maxSeq = f.largestSeq;
        const list = open(f).rangeTombstones();
        if (!list.isEmpty) rangeTombstones.push(list);
      }
      children.push(
        new LevelFilesIterator(files, (f) => open(f).newIterator(s.readOptions), compare),
      );
      childMaxSeqs.push(maxSeq);
    }
  } catch (e) {
    for (const c of children) c.close();
    throw e;
  }
  return { children, rangeTombstones, childMaxSeqs };
}
