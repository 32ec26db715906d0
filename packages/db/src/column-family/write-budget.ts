/**
 * The write-buffer budget of a database (`dbWriteBufferSize` / `writeBufferManager`,
 * core/write-buffer-manager.ts): what each column family charges to the manager, and what a
 * write does once the budget is reached (RocksDB's DBImpl::HandleWriteBufferManagerFlush and
 * WriteBufferManagerStallWrites).
 *
 * ```
 *   family write   -> MemoryCharge.update(mem usage)        (mutable bytes, after each write)
 *   switch         -> MemoryCharge.seal(mem)                (mutable -> sealed)
 *   flush installed, family dropped, database closed
 *                  -> MemoryCharge.release(mem) / releaseAll()
 *
 *   after a write:  manager.shouldFlush()  -> flushForBudget: the family whose mutable
 *                   memtable is the oldest (smallest creation sequence), among those holding
 *                   data with no flush queued or running; with atomicFlush, every family
 *   before a write: manager.shouldStall()  -> stallForBudget: wait for this database's
 *                   flushes while the memtables take the whole budget (allowStall)
 * ```
 *
 * A database flushes only its own families: with a manager shared by several databases, the
 * one being written flushes its oldest memtable even when another database holds more
 * (RocksDB's rule).
 *
 * Threading: the database's thread.
 */
import type { MemTable } from "@shale/memtable";
import type { WriteBufferManager } from "../core/write-buffer-manager.js";

/** What one column family has charged to the database's WriteBufferManager. */
export class MemoryCharge {
  /** Bytes charged for the mutable memtable. */
  private mutable = 0;
  /** Bytes charged for each sealed memtable not yet released. */
  private readonly sealed = new Map<MemTable, number>();

  constructor(readonly manager: WriteBufferManager) {}

  /** The mutable memtable takes `usage` bytes now. */
  update(usage: number): void {
    const delta = usage - this.mutable;
    if (delta === 0) return;
    this.mutable = usage;
    this.manager.reserve(delta);
  }

  /** The mutable memtable `mem` (taking `usage` bytes) was sealed; the next one starts at 0. */
  seal(mem: MemTable, usage: number): void {
    this.update(usage);
    this.sealed.set(mem, usage);
    this.manager.scheduleFree(usage);
    this.mutable = 0;
  }

  /** A sealed memtable left memory (its flush installed): its charge goes. */
  release(mem: MemTable): void {
    const bytes = this.sealed.get(mem);
    if (bytes === undefined) return;
    this.sealed.delete(mem);
    this.manager.free(bytes);
  }

  /** The family is gone (closed or dropped): everything it charged goes. */
  releaseAll(): void {
    for (const bytes of this.sealed.values()) this.manager.free(bytes);
    this.sealed.clear();
    this.manager.scheduleFree(this.mutable);
    this.manager.free(this.mutable);
    this.mutable = 0;
  }
}

/** What picking a family to flush looks at (ColumnFamilyData). */
export interface BudgetFamily {
  readonly dropped: boolean;
  readonly memHasData: boolean;
  /** The database's last sequence when the mutable memtable was made. */
  readonly memCreatedSeq: number;
  /** Immutable memtables queued or being flushed. */
  readonly immCount: number;
}

/**
 * The family to flush when the budget is reached (RocksDB's choice): of the families holding
 * data in their mutable memtable and with no flush queued or running, the one whose mutable
 * memtable was made first; undefined when none qualifies.
 */
export function pickFamilyForBudget<F extends BudgetFamily>(families: Iterable<F>): F | undefined {
  let picked: F | undefined;
  for (const f of families) {
    if (f.dropped || !f.memHasData || f.immCount > 0) continue;
    if (picked === undefined || f.memCreatedSeq < picked.memCreatedSeq) picked = f;
  }
  return picked;
}
