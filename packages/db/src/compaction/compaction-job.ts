/**
 * The compaction job: reads the input tables, keeps what CompactionIterator keeps, and
 * writes the output tables. Runs in a worker thread (on the node file system) or inline; it
 * never touches the version set — the main thread installs the result with one VersionEdit.
 *
 * ```
 *   input runs (L0: one per file; L1+: one per level, files opened one at a time)
 *        -> MergingIterator (internal-key order)
 *        -> CompactionIterator (drop hidden/covered/bottommost entries, collapse merges)
 *        -> CompactionOutputs (cut at targetFileSize / grandparent overlap, clip tombstones)
 * ```
 *
 * Range tombstones of every input are fragmented together; the compaction view keeps the
 * newest seq per snapshot stripe of each fragment, and drops those of the earliest stripe
 * (no snapshot older than them) over ranges that are bottommost (no deeper file overlaps),
 * since every entry they could hide is then in this compaction and dropped by it.
 *
 * Every output is synced before the job returns; on any failure (or on shutdown, checked
 * every 1024 entries) the outputs written so far are removed.
 */
import {
  bytewiseComparator,
  type Comparator,
  type FileSystem,
  type InternalIterator,
  InternalKeyComparator,
  type RangeTombstone,
  ShaleError,
} from "@shale/base";
import { MergingIterator } from "@shale/merging-iterator";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import { TableReader } from "@shale/sstable";
import { BlobSource } from "../blob/blob-source.js";
import type { CompactionFilterFunction } from "../core/compaction-filter.js";
import { tableFileName } from "../core/filenames.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { LevelFilesIterator } from "../iterator/level-files-iterator.js";
import { FileNumberCounter } from "../version/file-numbers.js";
import type { KeyRange } from "../version/key-range.js";
import type { FileMetaData } from "../version/version-edit.js";
import { BottommostChecker } from "./bottommost.js";
import type { TableWriteOptions } from "./build-table.js";
import { CompactionIterator, type CompactionIteratorStats } from "./compaction-iterator.js";
import { CompactionOutputs, type GrandparentFile } from "./output-writer.js";
import { type FilterSpec, makeValueFilter } from "./value-filter.js";

/** An input table as the job sees it. */
export interface JobFile {
  number: number;
  size: number;
  /** The MANIFEST's largest sequence number (an ingested file's global seqno may be it). */
  largestSeq: number;
  smallest: Uint8Array;
  largest: Uint8Array;
}

/** What a compaction job needs (structured-clone friendly: it crosses to a worker as is). */
export interface CompactionJobSpec {
  dir: string;
  /** Sorted runs of non-overlapping files, newest data first (each L0 file is a run). */
  runs: JobFile[][];
  outputLevel: number;
  /** Live snapshot seqs, ascending. */
  snapshots: number[];
  /** Per level below the output level: ranges of its files overlapping the compaction. */
  lowerLevels: KeyRange[][];
  grandparents: GrandparentFile[];
  targetFileSize: number;
  maxGrandparentOverlapBytes: number;
  table: TableWriteOptions;
  /** The database's FileNumberCounter buffer. */
  fileNumbers: SharedArrayBuffer;
  /** Int32Array(1): non-zero asks the job to stop (the database is closing). */
  shutdown: SharedArrayBuffer;
  /** The compaction filter and TTL of the family (value-filter.ts); undefined: none. */
  filter?: FilterSpec | undefined;
}

export interface CompactionJobStats extends CompactionIteratorStats {
  bytesRead: number;
  bytesWritten: number;
  /** Range tombstones read; (fragment, seq) pairs kept (before clipping to outputs). */
  tombstonesIn: number;
  tombstonesOut: number;
  micros: number;
}

export interface CompactionJobResult {
  files: FileMetaData[];
  stats: CompactionJobStats;
}

/**
 * The inputs' range tombstones, fragmented (for the CompactionIterator's coverage checks)
 * and what is written out: per fragment the newest seq of each snapshot stripe, except one
 * of the earliest stripe over a bottommost range. Surviving tombstones are sorted by start.
 */
export function compactTombstones(
  tombstones: readonly RangeTombstone[],
  comparator: Comparator,
  snapshots: readonly number[],
  bottommost: BottommostChecker,
): { fragmented: FragmentedRangeTombstoneList; surviving: RangeTombstone[] } {
  const fragmented = new FragmentedRangeTombstoneList(tombstones, comparator).forCompaction(
    snapshots,
  );
  const oldest = snapshots.length > 0 ? snapshots[0]! : Number.POSITIVE_INFINITY;
  const surviving: RangeTombstone[] = [];
  for (const t of fragmented.tombstones()) {
    if (t.seq <= oldest && bottommost.isRangeBottommost(t.start, t.end)) continue;
    surviving.push(t);
  }
  return { fragmented, surviving };
}

/** Readers opened to collect tombstones are kept for iteration up to this many. */
const KEEP_OPEN = 32;

export function runCompactionJob(
  fs: FileSystem,
  spec: CompactionJobSpec,
  comparator: Comparator,
  mergeOperator: MergeOperator | undefined,
  compactionFilter?: CompactionFilterFunction,
): CompactionJobResult {
  const t0 = performance.now();
  const icmp = new InternalKeyComparator(comparator);
  const shutdown = new Int32Array(spec.shutdown);
  const readers = new Map<number, TableReader>();
  const openReader = (f: JobFile): TableReader => {
    const path = tableFileName(spec.dir, f.number);
    const file = fs.openRandomAccess(path);
    try {
      return TableReader.open(file, {
        fileSize: f.size,
        fileName: path,
        fileNumber: f.number,
        largestSeqno: f.largestSeq,
        comparator,
        fillCache: false,
      });
    } catch (e) {
      file.close();
      throw e;
    }
  };
  let merged: InternalIterator | undefined;
  let outputs: CompactionOutputs | undefined;
  // Blob indexes are carried through as they are; a merge onto one reads its blob.
  const blobs = new BlobSource({
    fs,
    dir: spec.dir,
    columnFamilyId: spec.table.columnFamily.id,
    cacheBytes: 0,
  });
  try {
    // 1. Every input's range tombstones.
    let bytesRead = 0;
    const all: RangeTombstone[] = [];
    for (const run of spec.runs) {
      for (const f of run) {
        bytesRead += f.size;
        const reader = openReader(f);
        for (const t of reader.rangeTombstones().tombstones()) all.push(t);
        if (readers.size < KEEP_OPEN) readers.set(f.number, reader);
        else reader.close();
      }
    }
    const bottommost = new BottommostChecker(comparator, spec.lowerLevels);
    const { fragmented, surviving } = compactTombstones(
      all,
      comparator,
      spec.snapshots,
      bottommost,
    );

    // 2. Merge the runs (a table's reader closes when the run leaves it).
    const open = (f: JobFile): InternalIterator => {
      const reader = readers.get(f.number) ?? openReader(f);
      readers.delete(f.number);
      // Values last until the input moves (the CompactionIterator copies what it keeps), so
      // the input reuses its readahead and block memory (@shale/sstable's scan buffers).
      const it = reader.newIterator({ fillCache: false, reuseScanBuffers: true });
      reader.close(); // the file closes when the iterator does
      return it;
    };
    const compare = (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b);
    merged = new MergingIterator(
      spec.runs.map((run) => new LevelFilesIterator(run, open, compare)),
      compare,
      { bytewiseInternalKeys: comparator === bytewiseComparator },
    );
    const iter = new CompactionIterator(merged, {
      icmp,
      snapshots: spec.snapshots,
      mergeOperator,
      tombstones: fragmented,
      bottommost,
      blobs,
      filter: makeValueFilter(spec.filter, compactionFilter),
    });

    // 3. Write.
    const counter = new FileNumberCounter(spec.fileNumbers);
    outputs = new CompactionOutputs({
      fs,
      dir: spec.dir,
      builder: {
        ...spec.table,
        comparator,
        filterContext: { reason: "compaction", levelAtCreation: spec.outputLevel },
      },
      newFileNumber: () => counter.allocate(),
      targetFileSize: spec.targetFileSize,
      grandparents: spec.grandparents,
      maxGrandparentOverlapBytes: spec.maxGrandparentOverlapBytes,
      tombstones: surviving,
    });
    let n = 0;
    for (iter.seekToFirst(); iter.valid(); iter.next()) {
      if ((++n & 1023) === 0 && Atomics.load(shutdown, 0) !== 0) {
        throw ShaleError.incomplete("compaction stopped: the database is closing");
      }
      outputs.add(iter.key(), iter.value(), iter.startsUserKey());
    }
    const files = outputs.finish();
    // The new names must be durable before an edit can refer to them.
    if (files.length > 0) fs.syncDir(spec.dir);
    return {
      files,
      stats: {
        ...iter.stats,
        bytesRead,
        bytesWritten: outputs.bytesWritten,
        tombstonesIn: all.length,
        tombstonesOut: surviving.length,
        micros: Math.round((performance.now() - t0) * 1000),
      },
    };
  } catch (e) {
    outputs?.abandon();
    throw e;
  } finally {
    merged?.close();
    for (const r of readers.values()) r.close();
    blobs.close();
  }
}
