/**
 * The write loop: every write of the database, whatever its column families, goes through
 * here — one sequence, one WAL (write/write-path.ts), then each family's memtable.
 *
 * ```
 *   checks -> stalls of the family written -> seq = lastSeq + 1 -> batch.seal(seq)
 *   -> ActiveWal.append (one record, handed to the OS; fsync'd with sync: true)
 *   -> memtable insert (seq + i for op i) -> lastSeq moves -> memtable full? switch
 * ```
 *
 * A single put to `default` (the common case) takes `writeOne`: no batch iteration, no
 * family lookup, the same steps db.ts took before the families were split out.
 *
 * Threading: the caller's thread, synchronous.
 */
import {
  bytewiseComparator,
  Histogram,
  invariants,
  ShaleError,
  type Statistics,
  Ticker,
  ValueKind,
} from "@shale/base";
import { WRITE_OPTIONS, type WriteOptions } from "../core/call-options.js";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import { publishChange } from "../core/reader-control.js";
import { appendTimestampInto, StampScratch } from "../core/ttl.js";
import { viewGuard } from "../core/view-guard.js";
import type { WriteBufferManager } from "../core/write-buffer-manager.js";
import type { VersionSet } from "../version/version-set.js";
import { TIMESTAMPED_KINDS, withTimestamps } from "../write/ttl-batch.js";
import { BATCH_HEADER_SIZE, type BatchFamily, WriteBatch } from "../write/write-batch.js";
import {
  type ActiveWal,
  checkRangeOrder,
  FamilyInserter,
  MemTableInserter,
} from "../write/write-path.js";
import type { ColumnFamilyData } from "./column-family-data.js";
import type { DbStatus } from "./db-status.js";

/** What the write loop needs from its database. */
export interface WriteLoopHost {
  readonly wal: ActiveWal;
  readonly versions: VersionSet;
  readonly statistics: Statistics | undefined;
  readonly status: DbStatus;
  /** The executor's finished-job cell (background/executor.ts). */
  readonly finished: Int32Array;
  /** Installs finished background jobs (db.ts `takeFinished`). */
  takeFinished(): void;
  /**
   * The tree of a handle a batch names; InvalidArgument for a handle of another database or
   * of a dropped family.
   */
  familyOf(handle: BatchFamily): ColumnFamilyData;
  /**
   * The live WALs hold more than `maxTotalWalSize`: the families holding the oldest flush
   * (column-family-set.ts `switchForWal`).
   */
  walFull(): void;
  /**
   * The `writeBufferManager` the memtables charge (column-family/write-budget.ts); undefined:
   * none.
   */
  readonly writeBuffer: WriteBufferManager | undefined;
  /** The budget is reached: the oldest family flushes (column-family-set.ts `flushForBudget`). */
  budgetFull(): void;
  /** `allowStall` and the budget is taken: waits for flushes (`stallForBudget`). */
  budgetStall(): void;
}

export class WriteLoop {
  /** The sequence number of the last write. */
  lastSeq: number;
  /** The `default` family (the writes of `db.put` and friends). */
  private readonly cf: ColumnFamilyData;
  private readonly wal: ActiveWal;
  private readonly versions: VersionSet;
  private readonly stats: Statistics | undefined;
  private readonly status: DbStatus;
  private readonly finished: Int32Array;
  private readonly host: WriteLoopHost;
  /** The write-buffer budget (WriteLoopHost.writeBuffer); undefined: none. */
  private readonly writeBuffer: WriteBufferManager | undefined;
  private readonly scratch = new WriteBatch();
  /** A TTL family's value with its timestamp (copied by the batch and the memtable). */
  private readonly stamped = new StampScratch();
  private readonly inserter = new MemTableInserter();
  private readonly familyInserter = new FamilyInserter();
  /** SHALE_INVARIANTS: the views handed out whose lifetime ends at the next call. */
  private readonly views = viewGuard;
  constructor(host: WriteLoopHost, defaultFamily: ColumnFamilyData, lastSeq: number) {
    this.host = host;
    this.cf = defaultFamily;
    this.wal = host.wal;
    this.versions = host.versions;
    this.stats = host.statistics;
    this.status = host.status;
    this.finished = host.finished;
    this.lastSeq = lastSeq;
    this.writeBuffer = host.writeBuffer;
  }

  /**
   * Applies a batch atomically: all of it or none of it survives a crash. (A TransactionDB
   * takes the keys' locks before it calls this: txn/transaction-db.ts.) `walRecord`: what
   * the WAL gets instead of the batch, given its seq (a two-phase commit's Commit record).
   */
  write(
    batch: WriteBatch,
    options: WriteOptions | undefined,
    walRecord?: (seq: number) => Uint8Array,
  ): void {
    if (!(batch instanceof WriteBatch))
      throw new TypeError("write() takes a WriteBatch or a WriteBatchWithIndex");
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    const t0 = this.stats?.timersEnabled ? this.stats.now() : 0;
    if (Atomics.load(this.finished, 0) !== 0) this.host.takeFinished();
    this.status.checkWritable();
    const count = batch.count;
    if (count === 0) return;
    if (this.wal.totalBytes > this.wal.maxTotalBytes) this.host.walFull();
    if (this.writeBuffer?.shouldStall()) this.host.budgetStall();
    if (batch.families !== undefined) {
      this.writeFamilies(batch, options, t0, walRecord);
      return;
    }
    const cf = this.cf;
    if (cf.options.ttl !== undefined && (batch.kinds & TIMESTAMPED_KINDS) !== 0)
      batch = withTimestamps(batch, () => true, cf.options.clock.nowSeconds());
    if (cf.stalled) cf.delayWrite(batch.byteSize);
    if ((batch.kinds & (1 << ValueKind.Merge)) !== 0 && cf.mergeOperator === undefined) {
      throw ShaleError.invalidArgument(
        "the batch has merge operands but options.mergeOperator is not set",
      );
    }
    if (
      (batch.kinds & (1 << ValueKind.RangeDeletion)) !== 0 &&
      cf.icmp.user !== bytewiseComparator
    ) {
      checkRangeOrder(batch, cf.icmp.user);
    }
    const seq = this.lastSeq + 1;
    const rep = batch.seal(seq);
    this.wal.append(walRecord === undefined ? rep : walRecord(seq), count, options);
    const inserter = this.inserter;
    inserter.mem = cf.mem;
    inserter.seq = seq;
    WriteBatch.iterate(rep, inserter);
    this.finishWrite(cf, seq + count - 1, rep.length, t0);
  }

  /**
   * A batch naming column families: every family it writes is checked (the handle is this
   * database's and live, its stalls, its merge operator), then ONE WAL record, then each
   * record goes to its family's memtable.
   */
  private writeFamilies(
    batch: WriteBatch,
    options: WriteOptions | undefined,
    t0: number,
    walRecord: ((seq: number) => Uint8Array) | undefined,
  ): void {
    const touched = new Set<ColumnFamilyData>([this.cf]);
    for (const h of batch.families!) touched.add(this.host.familyOf(h));
    let clock: ColumnFamilyData["options"]["clock"] | undefined;
    for (const cf of touched) if (cf.options.ttl !== undefined) clock = cf.options.clock;
    if (clock !== undefined && (batch.kinds & TIMESTAMPED_KINDS) !== 0)
      batch = withTimestamps(
        batch,
        (id) => this.familyById(touched, id).options.ttl !== undefined,
        clock.nowSeconds(),
      );
    const inserter = this.familyInserter;
    inserter.mems.length = 0;
    for (const cf of touched) {
      if (cf.stalled) cf.delayWrite(batch.byteSize);
      inserter.mems[cf.id] = cf.mem;
    }
    const count = batch.count;
    const seq = this.lastSeq + 1;
    const rep = batch.seal(seq);
    // Checked per record (a merge needs its family's operator; a range its comparator's order).
    WriteBatch.iterate(
      rep,
      {
        apply: (kind, key, value, _index, id) => {
          const cf = this.familyById(touched, id);
          if (kind === ValueKind.Merge && cf.mergeOperator === undefined)
            throw ShaleError.invalidArgument(
              `the batch has merge operands for column family "${cf.name}", which has no mergeOperator`,
            );
          if (kind === ValueKind.RangeDeletion && cf.icmp.user.compare(key, value) > 0)
            throw ShaleError.invalidArgument("deleteRange: start is after end");
        },
      },
      undefined,
      0,
      true,
    );
    this.wal.append(walRecord === undefined ? rep : walRecord(seq), count, options);
    inserter.seq = seq;
    WriteBatch.iterate(rep, inserter, undefined, 0, true);
    if (this.cf.chunkPool.hasPending) this.cf.chunkPool.promote();
    this.lastSeq = seq + count - 1;
    this.versions.lastSequence = this.lastSeq;
    if (this.versions.readerControl !== undefined) publishChange(this.versions.readerControl);
    const stats = this.stats;
    if (stats !== undefined) {
      stats.tick(Ticker.BytesWritten, rep.length - BATCH_HEADER_SIZE);
      stats.record(Histogram.BytesPerWrite, rep.length - BATCH_HEADER_SIZE);
    }
    for (const cf of touched) {
      if (cf !== this.cf && cf.chunkPool.hasPending) cf.chunkPool.promote();
      cf.afterWrite();
    }
    if (this.writeBuffer?.shouldFlush()) this.host.budgetFull();
    if (stats !== undefined) stats.recordTime(Histogram.WriteMicros, t0, 1000);
  }

  private familyById(touched: Set<ColumnFamilyData>, id: number): ColumnFamilyData {
    for (const cf of touched) if (cf.id === id) return cf;
    throw ShaleError.invalidArgument(`the batch names column family ${id}, which is not open`);
  }

  /**
   * Appends `record` to the WAL only (no memtable, no sequence number): a two-phase commit's
   * prepare or rollback record (txn/two-phase.ts).
   */
  appendToWal(record: Uint8Array, options: WriteOptions | undefined): void {
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (Atomics.load(this.finished, 0) !== 0) this.host.takeFinished();
    this.status.checkWritable();
    this.wal.append(record, 0, options);
  }

  /** Makes every write acknowledged so far durable (the WALs synced). */
  syncWal(): void {
    this.wal.syncAll();
  }

  /** The number of the WAL written now. */
  get walNumber(): number {
    return this.wal.number;
  }

  /** One operation on family `cf`: put, delete, merge or deleteRange. */
  writeOne(
    cf: ColumnFamilyData,
    kind: ValueKind,
    key: Uint8Array,
    value: Uint8Array,
    options: WriteOptions | undefined,
  ): void {
    if (options !== undefined) WRITE_OPTIONS.check(options);
    if (invariants && this.views.pending) this.views.verify();
    const t0 = this.stats?.timersEnabled ? this.stats.now() : 0;
    if (Atomics.load(this.finished, 0) !== 0) this.host.takeFinished();
    this.status.checkWritable();
    if (cf.dropped) throw cf.droppedError();
    if (this.wal.totalBytes > this.wal.maxTotalBytes) this.host.walFull();
    if (this.writeBuffer?.shouldStall()) this.host.budgetStall();
    if (cf.stalled) cf.delayWrite(key.length + value.length);
    if (cf.options.ttl !== undefined && (kind === ValueKind.Value || kind === ValueKind.Merge))
      value = appendTimestampInto(this.stamped, value, cf.options.clock.nowSeconds());
    const seq = this.lastSeq + 1;
    const batch = this.scratch.clear();
    batch.addIn(cf.id, kind, key, value);
    const rep = batch.seal(seq);
    this.wal.append(rep, 1, options);
    const tTrace = tracingPauses ? pauseStart() : 0;
    cf.mem.add(seq, kind, key, value);
    if (tracingPauses) pauseEnd(tTrace, "memtable insert");
    this.finishWrite(cf, seq, rep.length, t0);
  }

  /** `t0`: the write's start (`stats.now()`) for WriteMicros. */
  private finishWrite(cf: ColumnFamilyData, lastSeq: number, bytes: number, t0: number): void {
    // Released memtables' chunks become reusable only now (write/chunk-pool.ts).
    if (cf.chunkPool.hasPending) cf.chunkPool.promote();
    this.lastSeq = lastSeq;
    this.versions.lastSequence = lastSeq;
    if (this.versions.readerControl !== undefined) publishChange(this.versions.readerControl);
    const stats = this.stats;
    if (stats !== undefined) {
      stats.tick(Ticker.BytesWritten, bytes - BATCH_HEADER_SIZE);
      stats.record(Histogram.BytesPerWrite, bytes - BATCH_HEADER_SIZE);
    }
    cf.afterWrite();
    if (this.writeBuffer?.shouldFlush()) this.host.budgetFull();
    // The whole write, stalls included (RocksDB's DB_WRITE).
    if (stats !== undefined) stats.recordTime(Histogram.WriteMicros, t0, 1000);
  }
}
