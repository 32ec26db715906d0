/**
 * Two-phase commit (RocksDB's WriteCommitted policy): a named pessimistic transaction's
 * `prepare()` makes its batch durable in the WAL without applying it; `commit()` then
 * applies it (or `rollback()` drops it), also after a crash: recovery rebuilds the prepared
 * transactions, and `db.getPreparedTransactions()` hands them back to be decided. The WAL
 * records and their replay: write/two-phase-records.ts.
 *
 * Which WALs are kept (`PreparedLogs`): the one with a live prepared transaction's prepare
 * record, and, once it committed, the one its prepare was in until the memtables holding its
 * ops are flushed (a replay needs the prepare record to redo the commit). While two-phase
 * commit is in use every flush records the least of those in the MANIFEST
 * (MinLogNumberToKeep), and recovery reads the WALs from there; a TransactionDB whose
 * MANIFEST recorded none (RocksDB keeps a prepare's WAL without recording it) reads every
 * WAL still in the directory for prepare records.
 */
import type { MemTable } from "@shale/memtable";

/**
 * The WALs two-phase commit needs kept (see the file comment): the prepare logs of live
 * prepared transactions, and per memtable the oldest prepare log of a committed one whose
 * ops it holds.
 */
export class PreparedLogs {
  /** Live prepared transactions -> the WAL of their prepare record. */
  private readonly prepared = new Map<object, number>();
  private readonly memRefs = new WeakMap<MemTable, number>();
  /** Set once two-phase commit was used (or recovered): flushes record MinLogNumberToKeep. */
  used = false;

  /** A transaction was prepared in WAL `logNumber`. */
  prepare(owner: object, logNumber: number): void {
    this.used = true;
    this.prepared.set(owner, logNumber);
  }

  /** The prepare log of `owner` (undefined: not prepared). */
  logOf(owner: object): number | undefined {
    return this.prepared.get(owner);
  }

  /** `owner` was decided: a commit left its ops in `mems`, a rollback in none. */
  decided(owner: object, mems: Iterable<MemTable>): void {
    const log = this.prepared.get(owner);
    if (log === undefined) return;
    this.prepared.delete(owner);
    for (const mem of mems) this.refMemTable(mem, log);
  }

  /** `mem` holds ops of a transaction prepared in WAL `logNumber`. */
  refMemTable(mem: MemTable, logNumber: number): void {
    this.used = true;
    const ref = this.memRefs.get(mem);
    if (ref === undefined || logNumber < ref) this.memRefs.set(mem, logNumber);
  }

  /** The oldest WAL needed, given the memtables not flushed yet (Infinity: none). */
  minLog(unflushed: Iterable<MemTable>): number {
    let min = Number.POSITIVE_INFINITY;
    for (const log of this.prepared.values()) if (log < min) min = log;
    for (const mem of unflushed) {
      const ref = this.memRefs.get(mem);
      if (ref !== undefined && ref < min) min = ref;
    }
    return min;
  }
}

/** The memtables of `families` not flushed yet: each one's mutable and immutable ones. */
export function* unflushedMemtables(
  families: Iterable<{
    readonly mem: MemTable;
    readonly flushes: { readonly imm: readonly { mem: MemTable }[] };
  }>,
): Iterable<MemTable> {
  for (const f of families) {
    yield f.mem;
    for (const m of f.flushes.imm) yield m.mem;
  }
}
