/**
 * Write-conflict detection by sequence number (RocksDB's TransactionUtil::CheckKeysForConflicts,
 * with cache_only): a key tracked at sequence S conflicts if the database holds a write of it
 * (a value, deletion, merge operand, or a range deletion covering it) with a seq above S.
 *
 * Only the memtables are looked at, as in RocksDB: a table's entries may have had their seq
 * zeroed by a compaction, so only memory can say "written after S" for sure. The memtables
 * hold every write after `historyStart` (the seq before the oldest memtable's first entry;
 * every write is in the memtables while no flush has dropped one):
 *
 * ```
 *   seqs:  ...flushed... | imm (oldest) 101..180 | imm 181..240 | mem 241..lastSeq
 *                        ^ historyStart = 100
 *   tracked at S >= 100  -> decidable: look the key up in each memtable, newest first
 *   tracked at S <  100  -> TryAgain (writes in S+1..100 are in tables: unknown)
 *   S >= lastSeq         -> nothing was written since: no lookup
 * ```
 *
 * Flushed memtables kept for this (`maxWriteBufferSizeToMaintain`, RocksDB's memtable
 * history) extend the reach: they are looked at after the immutable ones, and the oldest
 * kept one moves `historyStart` back (a commit after a flush is decided instead of TryAgain):
 *
 * ```
 *   seqs:  ...flushed, dropped... | kept 41..100 | imm 101..180 | mem 181..lastSeq
 *                                 ^ historyStart = 40
 * ```
 *
 * Column families: a key is checked against its own family's memtables (a tracked key is a
 * family id and the key's bytes, tracked-keys.ts). A family's mutable memtable also knows the sequence it
 * was made at: with no immutable memtable, every write of the family after that seq is in
 * it, whatever the other families wrote meanwhile.
 */
import {
  type Comparator,
  type InternalIterator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  makeInternalKey,
  seqOf,
  userKeyOf,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";

/** The keys to check, each with its family and the seq it was tracked at (tracked-keys.ts). */
export interface ConflictKeys {
  readonly count: number;
  familyAt(i: number): number;
  /** The key's bytes (a view, valid until the keys change). */
  keyAt(i: number): Uint8Array;
  seqAt(i: number): number;
}

/** What the conflict check reads of one column family. */
export interface ConflictFamily {
  readonly mem: MemTable;
  /** The immutable memtables, newest first. */
  readonly imm: readonly { mem: MemTable }[];
  /** The flushed memtables kept for conflict checks, newest first (older than `imm`). */
  readonly history: readonly { mem: MemTable }[];
  readonly comparator: Comparator;
  /** The last sequence when `mem` was made (see ColumnFamilyData.memCreatedSeq). */
  readonly memCreatedSeq: number;
}

export const NO_CONFLICT = 0;
/** Written after it was tracked: Busy. */
export const CONFLICT = 1;
/** The memtables no longer reach back to the tracked seq: TryAgain. */
export const NO_HISTORY = 2;

/** The seq after which every write is still in a memtable. */
export function historyStart(family: ConflictFamily): number {
  for (const list of [family.history, family.imm]) {
    for (let i = list.length - 1; i >= 0; i--) {
      const first = list[i]!.mem.firstSeq;
      if (first > 0) return first - 1;
    }
  }
  return family.memCreatedSeq;
}

/**
 * Checks the tracked keys (family, key, seq tracked at) against the memtables of their
 * families (`families(id)`; undefined for a family no longer open: not checked, its write
 * fails); returns NO_CONFLICT, or CONFLICT / NO_HISTORY with the key in `result.key`.
 */
export function checkConflicts(
  keys: ConflictKeys,
  families: (id: number) => ConflictFamily | undefined,
  lastSeq: number,
  result: { key: Uint8Array | undefined },
): number {
  let open:
    | Map<
        number,
        { family: ConflictFamily; start: number; mems: MemTable[]; iters: InternalIterator[] }
      >
    | undefined;
  try {
    const n = keys.count;
    for (let i = 0; i < n; i++) {
      const tracked = keys.seqAt(i);
      if (tracked >= lastSeq) continue;
      const id = keys.familyAt(i);
      let f = open?.get(id);
      if (f === undefined) {
        const family = families(id);
        if (family === undefined) continue;
        f = { family, start: historyStart(family), mems: [], iters: [] };
        (open ??= new Map()).set(id, f);
      }
      if (tracked < f.start) {
        result.key = keys.keyAt(i).slice();
        return NO_HISTORY;
      }
      if (f.iters.length === 0) {
        const { mem, imm, history } = f.family;
        f.mems.push(mem);
        for (let i = 0; i < imm.length; i++) f.mems.push(imm[i]!.mem);
        for (let i = 0; i < history.length; i++) f.mems.push(history[i]!.mem);
        for (const m of f.mems) f.iters.push(m.newIterator());
      }
      const key = keys.keyAt(i);
      if (latestSeq(key, f.mems, f.iters, f.family.comparator) > tracked) {
        result.key = key.slice();
        return CONFLICT;
      }
    }
    return NO_CONFLICT;
  } finally {
    if (open !== undefined) for (const f of open.values()) for (const it of f.iters) it.close();
  }
}

/**
 * The newest seq of a write of `key` in `mems` (newest first; 0 if none); `iters`: one per
 * memtable.
 */
function latestSeq(
  key: Uint8Array,
  mems: readonly MemTable[],
  iters: InternalIterator[],
  comparator: Comparator,
): number {
  const target = makeInternalKey(key, MAX_SEQ, KIND_FOR_SEEK);
  for (let i = 0; i < iters.length; i++) {
    const m = mems[i]!;
    let seq = m.numRangeTombstones > 0 ? m.maxCoveringTombstoneSeq(key, MAX_SEQ) : 0;
    const it = iters[i]!;
    it.seek(target);
    if (it.valid()) {
      const ik = it.key();
      if (comparator.compare(userKeyOf(ik), key) === 0) {
        const s = seqOf(ik);
        if (s > seq) seq = s;
      }
    }
    if (seq > 0) return seq;
  }
  return 0;
}
