/**
 * The event-listener infos of one column family (RocksDB's FlushJobInfo, CompactionJobInfo
 * and WriteStallInfo, fields camelCased), built from what the family's schedulers report and
 * handed to the database's `EventListeners` (core/event-listeners.ts), which delivers them
 * after the current call.
 *
 * Threading: the database's thread.
 */
import type { TableCache } from "@shale/sstable";
import { StallCondition } from "../background/write-controller.js";
import { type Compaction, CompactionReason } from "../compaction/compaction.js";
import type { CompactionJobResult } from "../compaction/compaction-job.js";
import type { EventListeners, FlushReason, WriteStallCondition } from "../core/event-listeners.js";
import { tableFileName } from "../core/filenames.js";
import type { FileMetaData } from "../version/version-edit.js";

/** What the infos say of the family. */
export interface EventFamily {
  readonly id: number;
  readonly name: string;
  readonly dir: string;
  readonly tableCache: TableCache;
  /** The family's current L0 write stall. */
  stallCondition(): StallCondition;
}

/** RocksDB's CompactionReason names (GetCompactionReasonString). */
const ROCKSDB_REASON: Record<CompactionReason, string> = {
  [CompactionReason.L0FileCount]: "LevelL0FilesNum",
  [CompactionReason.LevelSize]: "LevelMaxLevelSize",
  [CompactionReason.Manual]: "ManualCompaction",
  [CompactionReason.UniversalSizeAmplification]: "UniversalSizeAmplification",
  [CompactionReason.UniversalSizeRatio]: "UniversalSizeRatio",
  [CompactionReason.UniversalSortedRunNum]: "UniversalSortedRunNum",
  [CompactionReason.FifoMaxSize]: "FIFOMaxSize",
  [CompactionReason.FifoTtl]: "FIFOTtl",
  [CompactionReason.FifoReduceNumFiles]: "FIFOReduceNumFiles",
};

const CONDITION_NAME: Record<StallCondition, WriteStallCondition> = {
  [StallCondition.Normal]: "Normal",
  [StallCondition.Delayed]: "Delayed",
  [StallCondition.Stopped]: "Stopped",
};

export class FamilyEvents {
  constructor(
    private readonly family: EventFamily,
    private readonly listeners: EventListeners,
  ) {}

  /** A flush installed `file` (an L0 table). */
  flush(file: FileMetaData, reason: FlushReason): void {
    const l = this.listeners;
    if (!l.wants("onFlushCompleted")) {
      l.nextJobId();
      return;
    }
    const f = this.family;
    const condition = f.stallCondition();
    l.flushCompleted({
      cfId: f.id,
      cfName: f.name,
      filePath: tableFileName(f.dir, file.number),
      fileNumber: file.number,
      threadId: 0,
      jobId: l.nextJobId(),
      triggeredWritesSlowdown: condition === StallCondition.Delayed,
      triggeredWritesStop: condition === StallCondition.Stopped,
      smallestSeqno: file.smallestSeq,
      largestSeqno: file.largestSeq,
      tableProperties: f.tableCache.get(file.number, file.size).properties,
      flushReason: reason,
    });
  }

  /** Compaction `c` installed its outputs. */
  compaction(c: Compaction, result: CompactionJobResult): void {
    const l = this.listeners;
    const jobId = l.nextJobId();
    if (!l.wants("onCompactionCompleted")) return;
    const f = this.family;
    const s = result.stats;
    const inputs = c.allInputs();
    const bytes = (files: readonly FileMetaData[]) => files.reduce((n, x) => n + x.size, 0);
    l.compactionCompleted({
      cfId: f.id,
      cfName: f.name,
      status: undefined,
      threadId: 0,
      jobId,
      baseInputLevel: c.level,
      outputLevel: c.outputLevel,
      inputFiles: inputs.map((x) => tableFileName(f.dir, x.number)),
      outputFiles: result.files.map((x) => tableFileName(f.dir, x.number)),
      compactionReason: ROCKSDB_REASON[c.reason],
      stats: {
        elapsedMicros: s.micros,
        numInputRecords: s.inputEntries,
        numInputFiles: inputs.length,
        numInputFilesAtOutputLevel: c.inputs[1].length,
        numOutputRecords: s.outputEntries,
        numOutputFiles: result.files.length,
        totalInputBytes: bytes(inputs),
        totalOutputBytes: s.bytesWritten,
        numRecordsReplaced: s.droppedHidden + s.droppedCovered + s.droppedDeletions,
      },
    });
  }

  /** The family's L0 write stall went from `prev` to `cur`. */
  stallChanged(prev: StallCondition, cur: StallCondition): void {
    this.listeners.stallConditionsChanged({
      cfName: this.family.name,
      condition: { cur: CONDITION_NAME[cur], prev: CONDITION_NAME[prev] },
    });
  }
}
