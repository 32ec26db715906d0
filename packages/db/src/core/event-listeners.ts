/**
 * Event listeners (RocksDB's EventListener, include/rocksdb/listener.h): the open option
 * `listeners`, an array of objects whose members, all optional, are called as background
 * work completes — with RocksDB's info structs, fields camelCased:
 *
 * | member                     | RocksDB                    | when                               |
 * |----------------------------|----------------------------|------------------------------------|
 * | onFlushCompleted           | OnFlushCompleted           | a flush's L0 table is installed    |
 * | onCompactionCompleted      | OnCompactionCompleted      | a compaction's edit is installed   |
 * |                            |                            | (a trivial move too: the file moved |
 * |                            |                            | is input and output, stats zero)   |
 * | onTableFileDeleted         | OnTableFileDeleted         | an obsolete table file was deleted |
 * | onBackgroundError          | OnBackgroundError          | the database turned read-only      |
 * | onStallConditionsChanged   | OnStallConditionsChanged   | a family's L0 write stall changed  |
 *
 * Delivery: on the main thread, never inside a database call. Events are queued where they
 * happen (often at an operation boundary inside a put, where finished background work is
 * installed) and delivered together on the next turn of the event loop (`setImmediate`), in
 * the order they happened, each listener in array order — so a slow listener never blocks a
 * write, and a listener may call the database. A listener that throws (or rejects) is
 * reported and never fatal: the error goes to `process.emitWarning` (type "ShaleWarning",
 * code SHALE_LISTENER_ERROR: shale writes no info LOG) and the statistics ticker
 * `ListenerErrors`; the other listeners still hear the event.
 *
 * Validation (at open): `listeners` must be an array of objects whose members named above
 * are functions (TypeError naming the one that is not); other members are ignored, as a C++
 * subclass's other methods are.
 */
import type { Statistics } from "@shale/base";
import { Ticker } from "@shale/base";
import type { TableProperties } from "@shale/sstable";

/** Why a memtable was flushed (RocksDB's FlushReason, as GetFlushReasonString names it). */
export type FlushReason =
  | "WriteBufferFull"
  | "WriteBufferManager"
  | "ManualFlush"
  | "WalFull"
  | "Others";

/** RocksDB's FlushJobInfo. */
export interface FlushJobInfo {
  cfId: number;
  cfName: string;
  /** The L0 table written. */
  filePath: string;
  fileNumber: number;
  /** 0: shale names no threads. */
  threadId: number;
  /** The job's id, unique within this open (compactions and flushes share the counter). */
  jobId: number;
  /** Whether the family's writes are slowed down / stopped (L0 files) after this flush. */
  triggeredWritesSlowdown: boolean;
  triggeredWritesStop: boolean;
  smallestSeqno: number;
  largestSeqno: number;
  tableProperties: TableProperties;
  flushReason: FlushReason;
}

/** RocksDB's CompactionJobStats (the fields shale counts). */
export interface CompactionJobStats {
  elapsedMicros: number;
  numInputRecords: number;
  numInputFiles: number;
  numInputFilesAtOutputLevel: number;
  numOutputRecords: number;
  numOutputFiles: number;
  totalInputBytes: number;
  totalOutputBytes: number;
  /** Entries dropped as hidden by newer ones, covered by range tombstones, or deletions. */
  numRecordsReplaced: number;
}

/** RocksDB's CompactionJobInfo. */
export interface CompactionJobInfo {
  cfId: number;
  cfName: string;
  /** undefined: it succeeded (only completed compactions are reported). */
  status: Error | undefined;
  threadId: number;
  jobId: number;
  baseInputLevel: number;
  outputLevel: number;
  inputFiles: string[];
  outputFiles: string[];
  /** RocksDB's CompactionReason name (e.g. "LevelL0FilesNum", "LevelMaxLevelSize", "ManualCompaction"). */
  compactionReason: string;
  stats: CompactionJobStats;
}

/** RocksDB's TableFileDeletionInfo. */
export interface TableFileDeletionInfo {
  dbName: string;
  filePath: string;
  /** The id of the job that made the file obsolete (0 when none is known). */
  jobId: number;
  /**
   * undefined: deleted (RocksDB's Status::OK). A failed unlink is not reported: the file is
   * an orphan the next open removes, so only deletions that happened are told.
   */
  status: Error | undefined;
}

/** RocksDB's BackgroundErrorReason. */
export type BackgroundErrorReason = "Flush" | "Compaction" | "WriteCallback" | "ManifestWrite";

/** RocksDB's OnBackgroundError arguments. */
export interface BackgroundErrorInfo {
  reason: BackgroundErrorReason;
  /** The background error (a ShaleError; what every refused call reports from now on). */
  status: Error;
}

/** RocksDB's WriteStallCondition. */
export type WriteStallCondition = "Normal" | "Delayed" | "Stopped";

/** RocksDB's WriteStallInfo. */
export interface WriteStallInfo {
  cfName: string;
  condition: { cur: WriteStallCondition; prev: WriteStallCondition };
}

/** What one entry of the `listeners` option may have (every member optional). */
export interface EventListener {
  onFlushCompleted?(info: FlushJobInfo): unknown;
  onCompactionCompleted?(info: CompactionJobInfo): unknown;
  onTableFileDeleted?(info: TableFileDeletionInfo): unknown;
  onBackgroundError?(info: BackgroundErrorInfo): unknown;
  onStallConditionsChanged?(info: WriteStallInfo): unknown;
}

const MEMBERS = [
  "onFlushCompleted",
  "onCompactionCompleted",
  "onTableFileDeleted",
  "onBackgroundError",
  "onStallConditionsChanged",
] as const;
type Member = (typeof MEMBERS)[number];

/** TypeError unless `value` is an array of listener objects (see the file comment). */
export function checkListeners(value: unknown): void {
  if (!Array.isArray(value)) throw new TypeError("options.listeners must be an array");
  value.forEach((l, i) => {
    if (typeof l !== "object" || l === null || Array.isArray(l))
      throw new TypeError(`options.listeners[${i}] must be an object of functions`);
    for (const m of MEMBERS) {
      const f = (l as Record<string, unknown>)[m];
      if (f !== undefined && typeof f !== "function")
        throw new TypeError(`options.listeners[${i}].${m} must be a function`);
    }
  });
}

/** Tells `listeners` of the table files (`.sst`) among `paths` the database deleted. */
export function tablesDeleted(
  listeners: EventListeners,
  dir: string,
  paths: readonly string[],
): void {
  for (const filePath of paths)
    if (filePath.endsWith(".sst"))
      listeners.tableFileDeleted({ dbName: dir, filePath, jobId: 0, status: undefined });
}

/** The database's listeners: queues events and delivers them (see the file comment). */
export class EventListeners {
  private readonly listeners: readonly EventListener[];
  private readonly stats: Statistics | undefined;
  private readonly queue: { member: Member; info: object }[] = [];
  private scheduled = false;
  private jobs = 0;

  constructor(listeners: readonly EventListener[], stats: Statistics | undefined) {
    this.listeners = listeners.slice();
    this.stats = stats;
  }

  /** A new job id (RocksDB's job_id: one counter for flushes and compactions). */
  nextJobId(): number {
    return ++this.jobs;
  }

  /** True if some listener has `member` (callers skip building the info otherwise). */
  wants(member: Member): boolean {
    for (const l of this.listeners) if (typeof l[member] === "function") return true;
    return false;
  }

  flushCompleted(info: FlushJobInfo): void {
    this.emit("onFlushCompleted", info);
  }

  compactionCompleted(info: CompactionJobInfo): void {
    this.emit("onCompactionCompleted", info);
  }

  tableFileDeleted(info: TableFileDeletionInfo): void {
    this.emit("onTableFileDeleted", info);
  }

  backgroundError(info: BackgroundErrorInfo): void {
    this.emit("onBackgroundError", info);
  }

  stallConditionsChanged(info: WriteStallInfo): void {
    this.emit("onStallConditionsChanged", info);
  }

  /** Resolves once every event queued so far was delivered. */
  async drained(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled) await new Promise<void>((r) => setImmediate(r));
  }

  private emit(member: Member, info: object): void {
    if (!this.wants(member)) return;
    this.queue.push({ member, info });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.deliver());
  }

  private deliver(): void {
    const events = this.queue.splice(0);
    this.scheduled = false;
    for (const { member, info } of events) {
      for (const l of this.listeners) {
        const f = l[member] as ((info: object) => unknown) | undefined;
        if (typeof f !== "function") continue;
        try {
          const r = f.call(l, info);
          if (r instanceof Promise) r.catch((e: unknown) => this.failed(member, e));
        } catch (e) {
          this.failed(member, e);
        }
      }
    }
  }

  private failed(member: Member, error: unknown): void {
    if (this.stats !== undefined) this.stats.tick(Ticker.ListenerErrors);
    const text = error instanceof Error ? error.message : String(error);
    const p = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } })
      .process;
    p?.emitWarning?.(`an event listener's ${member} threw: ${text}`, {
      type: "ShaleWarning",
      code: "SHALE_LISTENER_ERROR",
    });
  }
}
