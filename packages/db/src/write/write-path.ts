/**
 * The write path's pieces below the DB facade: the live WAL (append a batch, roll to a new
 * log when the memtable is switched, and the read-only latch after a failed write), the
 * batch-to-memtable inserter, and the range-order check of a batch.
 *
 * A write is, in order (db.ts drives it):
 *
 * ```
 *   stall check -> seq = lastSeq + 1 -> batch.seal(seq) -> ActiveWal.append (record handed to
 *   the OS; fsync'd with sync: true) -> memtable insert (seq + i for op i) -> lastSeq moves ->
 *   memtable full? -> switch: ActiveWal.roll(new log), seal the memtable, start a new one
 * ```
 *
 * Threading: the caller's thread, synchronous.
 */
import {
  type Comparator,
  type FileSystem,
  Histogram,
  ShaleError,
  type Statistics,
  Ticker,
  ValueKind,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { LogWriter } from "@shale/wal";
import { logFileName } from "../core/filenames.js";
import type { WriteOptions } from "../core/options.js";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import {
  encodeSingleBatch,
  singleBatchSize,
  WriteBatch,
  type WriteBatchHandler,
} from "./write-batch.js";

/**
 * How a live WAL is opened: without a user-space buffer. Every write hands its record to the
 * OS before it returns (the one `write(2)` per write RocksDB makes too), so a buffer only
 * cost a copy of each record: each fragment now goes to the OS straight from the log
 * writer's scratch, where it was assembled and checksummed.
 */
export const WAL_FILE_OPTIONS: { readonly bufferSize: number } = { bufferSize: 0 };

/** Applies a batch's records to a memtable with consecutive seqs (also used by recovery). */
export class MemTableInserter implements WriteBatchHandler {
  mem!: MemTable;
  /** The seq of the batch's first record. */
  seq = 0;
  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, index: number): void {
    this.mem.add(this.seq + index, kind, key, value);
  }
}

/**
 * Applies a batch's records of every column family (`WriteBatch.iterate(..., allFamilies)`)
 * to each family's memtable, `mems[id]`; records of a family missing there are skipped (a
 * dropped family's, or one a replayed WAL has already flushed).
 */
export class FamilyInserter implements WriteBatchHandler {
  readonly mems: (MemTable | undefined)[] = [];
  /** The seq of the batch's first record. */
  seq = 0;
  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, index: number, family: number): void {
    const mem = this.mems[family];
    if (mem !== undefined) mem.add(this.seq + index, kind, key, value);
  }
}

/**
 * Throws InvalidArgument if a range deletion of `batch` has start > end under `comparator`
 * (WriteBatch.deleteRange only checked bytewise order).
 */
export function checkRangeOrder(batch: WriteBatch, comparator: Comparator): void {
  // Sealed (count stamped; the write seals it again with its seq): the unsealed bytes say
  // "0 records", and iterate rejected every such batch as having bytes after the last one.
  WriteBatch.iterate(batch.seal(0), {
    apply(kind, key, value) {
      if (kind === ValueKind.RangeDeletion && comparator.compare(key, value) > 0) {
        throw ShaleError.invalidArgument("deleteRange: start is after end");
      }
    },
  });
}

/**
 * The WAL the database appends to. Every memtable switch starts a new log (`roll`), so
 * after a switch `number` is also the oldest log holding data of the mutable memtable. The
 * one exception is the memtable a WAL replay left mutable (recovery.ts,
 * `avoidFlushDuringRecovery`): its data starts in a replayed log older than the fresh log
 * the open started, and `memtableLogNumber` says which. Once no memtable in memory needs an
 * older log than `memtableLogNumber` (and the immutable ones' `logNumber`), the older ones
 * are obsolete.
 */
export class ActiveWal {
  private writer: LogWriter | undefined;
  private fileNumber: number;
  /** The oldest log holding data of the mutable memtable (<= fileNumber). */
  private memLog: number;
  /**
   * Logs switched away from and not synced yet, oldest first (their data is in the OS).
   * They are synced before the next synced write (so a synced write never survives a power
   * cut that loses earlier writes) and, with several column families, before a flush is
   * installed (`syncSwitchedLogs`), and closed unsynced once their memtables are flushed
   * (`releaseBelow`): syncing a 64 MiB log at the switch stalled the writer for ~50 ms.
   */
  private readonly unsynced: { number: number; writer: LogWriter }[] = [];
  private failure: ShaleError | undefined;
  private readonly stats: Statistics | undefined;
  /**
   * The live logs before the current one (switched away from, or kept by recovery) and the
   * record bytes of each, oldest first: RocksDB's alive_log_files. A log leaves once it is
   * obsolete (`releaseBelow`).
   */
  private readonly liveNumbers: number[] = [];
  private readonly liveSizes: number[] = [];
  /** The record bytes in `liveSizes`, summed. */
  private switchedBytes = 0;
  /** Record bytes in every live log, the current one included (RocksDB's total_log_size). */
  totalBytes = 0;
  /**
   * The `maxTotalWalSize` in force (column-family-set.ts): above it, the write loop has the
   * families holding the oldest live log flush. Infinity: no limit (one family).
   */
  maxTotalBytes = Number.POSITIVE_INFINITY;

  /**
   * Takes ownership of `writer`, the open log numbered `number`; the mutable memtable's data
   * starts in log `memtableLogNumber` (default `number`: the memtable is empty).
   */
  constructor(
    writer: LogWriter,
    number: number,
    stats: Statistics | undefined,
    memtableLogNumber = number,
  ) {
    this.writer = writer;
    this.fileNumber = number;
    this.memLog = memtableLogNumber;
    this.stats = stats;
  }

  /**
   * Counts log `number`, older than the current one and kept by recovery (its data is in a
   * replayed memtable), with its `bytes` on disk. REQUIRES: called oldest first, before any
   * roll.
   */
  addRecoveredLog(number: number, bytes: number): void {
    this.liveNumbers.push(number);
    this.liveSizes.push(bytes);
    this.switchedBytes += bytes;
    this.totalBytes += bytes;
  }

  /** The oldest live log (the current one when no other is live). */
  get oldestLiveLog(): number {
    return this.liveNumbers.length > 0 ? this.liveNumbers[0]! : this.fileNumber;
  }

  /** The file number of the current log. */
  get number(): number {
    return this.fileNumber;
  }

  /** The oldest log holding data of the mutable memtable (see the class comment). */
  get memtableLogNumber(): number {
    return this.memLog;
  }

  /**
   * Set after a failed append or roll: the log may end in a partial record, so the database
   * is read-only until reopened (recovery keeps every acknowledged write).
   */
  get error(): ShaleError | undefined {
    return this.failure;
  }

  /**
   * Appends the encoded batch `rep` (`count` operations) as one record (unless
   * `disableWAL`) and hands it to the OS, or to the disk with `sync`. REQUIRES: not closed.
   * Counts WalBytes, WalSyncs, WalSyncMicros and KeysWritten.
   */
  append(rep: Uint8Array, count: number, options: WriteOptions | undefined): void {
    let sync = false;
    let disableWAL = false;
    if (options !== undefined) {
      sync = options.sync === true;
      disableWAL = options.disableWAL === true;
      if (sync && disableWAL)
        throw ShaleError.invalidArgument("sync and disableWAL cannot be combined");
    }
    if (disableWAL) return;
    const stats = this.stats;
    const t0 = stats !== undefined && sync ? stats.now() : 0;
    const tTrace = tracingPauses ? pauseStart() : 0;
    try {
      const wal = this.writer!;
      wal.addRecord(rep);
      this.totalBytes += rep.length;
      if (sync) {
        if (this.unsynced.length > 0) this.syncSwitchedLogs();
        wal.sync();
      } else {
        wal.flush();
      }
    } catch (e) {
      this.failure = ShaleError.ioError(
        "WAL write failed; the database is read-only until reopened",
        undefined,
        e,
      );
      throw e;
    }
    if (tracingPauses) pauseEnd(tTrace, sync ? "wal append + sync" : "wal append");
    if (stats !== undefined) {
      stats.tick(Ticker.WalBytes, rep.length);
      if (sync) {
        stats.tick(Ticker.WalSyncs);
        stats.recordTime(Histogram.WalSyncMicros, t0, 1000);
      }
      stats.tick(Ticker.KeysWritten, count);
    }
  }

  /**
   * `append` of the batch of one operation (`singleBatchSize` / `encodeSingleBatch`) at
   * `seq`, encoded straight into the log writer's scratch when it fits in the current block
   * (else into `fallback`, cleared first, then appended as any batch). Returns the batch's
   * encoded size. The same record, checks, errors and counters as `append`.
   */
  appendOne(
    seq: number,
    id: number,
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
    options: WriteOptions | undefined,
    fallback: WriteBatch,
  ): number {
    const size = singleBatchSize(id, kind, key, value);
    const wal = this.writer!;
    const at =
      options === undefined || (options.sync !== true && options.disableWAL !== true)
        ? wal.reserveRecord(size)
        : -1;
    if (at < 0 || tracingPauses) {
      const rep = fallback.clear().addIn(id, kind, key, value).seal(seq);
      this.append(rep, 1, options);
      return size;
    }
    encodeSingleBatch(wal.recordScratch, at, seq, id, kind, key, value);
    try {
      wal.commitRecord(size);
      this.totalBytes += size;
      wal.flush();
    } catch (e) {
      this.failure = ShaleError.ioError(
        "WAL write failed; the database is read-only until reopened",
        undefined,
        e,
      );
      throw e;
    }
    const stats = this.stats;
    if (stats !== undefined) {
      stats.tick(Ticker.WalBytes, size);
      stats.tick(Ticker.KeysWritten, 1);
    }
    return size;
  }

  /**
   * Syncs and closes the logs switched away from (see `unsynced`). Also before a flush is
   * installed while there are several column families (RocksDB's SyncClosedLogs): the
   * flushed table must not outlive, after a power cut, earlier writes of the other families
   * that are only in those logs. A failure throws (the caller fails the flush).
   */
  syncSwitchedLogs(): void {
    const logs = this.unsynced;
    while (logs.length > 0) {
      const log = logs[0]!;
      log.writer.sync();
      log.writer.close();
      logs.shift();
    }
  }

  /**
   * Closes, without syncing, the switched-away logs numbered below `logNumber`: their data
   * is in synced tables now (a flush was installed), so they are obsolete.
   */
  releaseBelow(logNumber: number): void {
    const logs = this.unsynced;
    while (logs.length > 0 && logs[0]!.number < logNumber) logs.shift()!.writer.close();
    const live = this.liveNumbers;
    let n = 0;
    while (n < live.length && live[n]! < logNumber) {
      this.switchedBytes -= this.liveSizes[n]!;
      this.totalBytes -= this.liveSizes[n]!;
      n++;
    }
    if (n > 0) {
      live.splice(0, n);
      this.liveSizes.splice(0, n);
    }
  }

  /**
   * Starts log `number` in `dir` (created, directory synced); the current one, its data
   * handed to the OS, is synced later (see `unsynced`). On failure the error latches (see
   * `error`) and is thrown. REQUIRES: not closed.
   */
  roll(fs: FileSystem, dir: string, number: number): void {
    let writer: LogWriter;
    try {
      // The new log is compressed as the current one (the walCompression option).
      const compressor = this.writer?.compressor;
      writer = new LogWriter(
        fs.openWritable(logFileName(dir, number), WAL_FILE_OPTIONS),
        compressor !== undefined ? { compressor } : {},
      );
      fs.syncDir(dir);
      this.writer!.flush();
    } catch (e) {
      this.failure = ShaleError.ioError(
        "could not start a new WAL; the database is read-only until reopened",
        undefined,
        e,
      );
      throw this.failure;
    }
    this.unsynced.push({ number: this.fileNumber, writer: this.writer! });
    this.liveNumbers.push(this.fileNumber);
    this.liveSizes.push(this.totalBytes - this.switchedBytes);
    this.switchedBytes = this.totalBytes;
    this.writer = writer;
    this.fileNumber = number;
    this.memLog = number;
  }

  /**
   * Syncs every open log (RocksDB's SyncWAL): every write acknowledged so far is durable.
   * A failure latches (see `error`) and is thrown. No-op once closed.
   */
  syncAll(): void {
    if (this.failure !== undefined) throw this.failure;
    try {
      this.syncSwitchedLogs();
      this.writer?.sync();
    } catch (e) {
      this.failure = ShaleError.ioError(
        "WAL sync failed; the database is read-only until reopened",
        undefined,
        e,
      );
      throw this.failure;
    }
    this.stats?.tick(Ticker.WalSyncs);
  }

  /** Syncs every open log unless a write failed (close does so). No-op once closed. */
  syncUnlessFailed(): void {
    if (this.failure !== undefined) return;
    this.syncSwitchedLogs();
    this.writer?.sync();
  }

  /**
   * Closes every open log (without syncing). Idempotent. Every handle is released even if
   * closing one fails (a failed write leaves bytes it cannot hand over); then the first
   * error is thrown.
   */
  close(): void {
    const writers = this.unsynced.map((log) => log.writer);
    if (this.writer !== undefined) writers.push(this.writer);
    this.unsynced.length = 0;
    this.writer = undefined;
    let first: unknown;
    for (const w of writers) {
      try {
        w.close();
      } catch (e) {
        first ??= e;
      }
    }
    if (first !== undefined) throw first;
  }
}
