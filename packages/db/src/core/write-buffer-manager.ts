/**
 * WriteBufferManager: one memory budget for the memtables of every column family of one or
 * more databases (RocksDB's WriteBufferManager, `db_write_buffer_size`). Each family charges
 * what its memtables take; once the budget is reached, the database being written flushes
 * the family whose mutable memtable is the oldest (column-family/write-budget.ts).
 *
 * ```
 *   memoryUsage()                 = every memtable charged, mutable or not yet flushed
 *   mutableMemtableMemoryUsage()  = the mutable memtables only
 *
 *   a write grows a mutable memtable ── reserve(delta):      used += d, active += d
 *   a switch seals it                ── scheduleFree(bytes): active -= bytes
 *   its flush installs (or close,    ── free(bytes):         used -= bytes
 *     or the family is dropped)
 *
 *   shouldFlush():  active > 7/8 budget,  or  used >= budget while active >= budget / 2
 *   shouldStall():  allowStall and used >= budget
 * ```
 *
 * Worked example: a budget of 64 MiB over four families each writing alike. At 56 MiB of
 * mutable memtables (7/8) the oldest family's (about 14 MiB) is switched and flushed; the
 * others go on growing, so memtables of about a quarter of the budget are flushed one after
 * another and all of them together stay near 64 MiB.
 *
 * A memtable is charged by its `approximateMemoryUsage()` after each write (RocksDB charges
 * its arena blocks as they are allocated); a sealed one keeps the charge it had when sealed
 * until its flush is installed. Flushed memtables kept for transactions'
 * conflict checks (`maxWriteBufferSizeToMaintain`) are not charged.
 *
 * Threading: the thread of the databases that share it (a database's thread is the one that
 * opened it); not shared across worker threads.
 */
import { ShaleError } from "@shale/base";
import { describeValue } from "./validate.js";

/** The options of `new WriteBufferManager`. */
export interface WriteBufferManagerOptions {
  /**
   * RocksDB's `allow_stall`: a write waits while the memtables take the whole budget or more,
   * until flushes of the database written free memory (it waits for its own database's
   * flushes only: another database's are not run during the wait). Default: false.
   */
  allowStall?: boolean;
}

export class WriteBufferManager {
  /** Bytes of the budget; 0: no budget (the manager only counts). */
  readonly bufferSize: number;
  /** RocksDB's `allow_stall` (see WriteBufferManagerOptions). */
  readonly allowStall: boolean;
  /** Bytes charged: the mutable memtables and the sealed ones not yet flushed. */
  private used = 0;
  /** Bytes charged by the mutable memtables. */
  private active = 0;
  /** 7/8 of the budget (RocksDB's mutable_limit_). */
  private readonly mutableLimit: number;

  /**
   * `bufferSize`: bytes of memtables of every database given this manager (0: none; the
   * manager counts, `enabled()` is false and nothing is flushed for it).
   */
  constructor(bufferSize: number, options?: WriteBufferManagerOptions) {
    if (typeof bufferSize !== "number")
      throw new TypeError(
        `WriteBufferManager: bufferSize must be a number; got ${describeValue(bufferSize)}`,
      );
    if (!Number.isSafeInteger(bufferSize) || bufferSize < 0)
      throw ShaleError.invalidArgument(
        `WriteBufferManager: bufferSize must be an integer >= 0; got ${String(bufferSize)}`,
      );
    if (options !== undefined) {
      if (typeof options !== "object" || options === null || Array.isArray(options))
        throw new TypeError(
          `WriteBufferManager: options must be an object; got ${describeValue(options)}`,
        );
      for (const k in options)
        if (k !== "allowStall")
          throw ShaleError.invalidArgument(
            `unknown WriteBufferManager option "${k}" (known: allowStall)`,
          );
      const stall = options.allowStall;
      if (stall !== undefined && typeof stall !== "boolean")
        throw new TypeError(
          `WriteBufferManager: options.allowStall must be a boolean; got ${describeValue(stall)}`,
        );
    }
    this.bufferSize = bufferSize;
    this.allowStall = options?.allowStall ?? false;
    this.mutableLimit = Math.floor((bufferSize * 7) / 8);
  }

  /** True when there is a budget (`bufferSize > 0`). */
  enabled(): boolean {
    return this.bufferSize > 0;
  }

  /** Bytes of memtables charged now: the mutable ones and the sealed ones not yet flushed. */
  memoryUsage(): number {
    return this.used;
  }

  /** Bytes of the mutable memtables charged now. */
  mutableMemtableMemoryUsage(): number {
    return this.active;
  }

  /**
   * @internal RocksDB's ShouldFlush: the mutable memtables take more than 7/8 of the budget,
   * or all memtables the whole budget while the mutable ones take half of it.
   */
  shouldFlush(): boolean {
    const size = this.bufferSize;
    if (size === 0) return false;
    if (this.active > this.mutableLimit) return true;
    return this.used >= size && this.active >= size / 2;
  }

  /** @internal RocksDB's ShouldStall: with `allowStall`, the memtables take the whole budget. */
  shouldStall(): boolean {
    return this.allowStall && this.bufferSize > 0 && this.used >= this.bufferSize;
  }

  /** @internal A mutable memtable grew (or, negative, shrank) by `bytes`. */
  reserve(bytes: number): void {
    this.used += bytes;
    this.active += bytes;
  }

  /** @internal A mutable memtable of `bytes` was sealed: it is no longer mutable. */
  scheduleFree(bytes: number): void {
    this.active -= bytes;
  }

  /** @internal A sealed memtable of `bytes` left memory (flushed, closed or dropped). */
  free(bytes: number): void {
    this.used -= bytes;
  }
}
