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

/** The bytes of a key from its `keyString` (write-batch-with-index.ts). */
export function keyBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export const NO_CONFLICT = 0;
/** Written after it was tracked: Busy. */
export const CONFLICT = 1;
/** The memtables no longer reach back to the tracked seq: TryAgain. */
export const NO_HISTORY = 2;

/** The seq after which every write is still in a memtable. */
export function historyStart(
  mem: MemTable,
  imm: readonly { mem: MemTable }[],
  lastSeq: number,
): number {
  for (let i = imm.length - 1; i >= 0; i--) {
    const first = imm[i]!.mem.firstSeq;
    if (first > 0) return first - 1;
  }
  const first = mem.firstSeq;
  return first > 0 ? first - 1 : lastSeq;
}

/**
 * Checks the tracked keys (`keyString` -> seq tracked at) against the memtables `mem` and
 * `imm` (newest first); returns NO_CONFLICT, or CONFLICT / NO_HISTORY with the key in
 * `result.key`.
 */
export function checkConflicts(
  keys: ReadonlyMap<string, number>,
  mem: MemTable,
  imm: readonly { mem: MemTable }[],
  lastSeq: number,
  comparator: Comparator,
  result: { key: Uint8Array | undefined },
): number {
  const start = historyStart(mem, imm, lastSeq);
  let iters: InternalIterator[] | undefined;
  try {
    for (const [name, tracked] of keys) {
      if (tracked >= lastSeq) continue;
      if (tracked < start) {
        result.key = keyBytes(name);
        return NO_HISTORY;
      }
      if (iters === undefined) {
        iters = [mem.newIterator()];
        for (let i = 0; i < imm.length; i++) iters.push(imm[i]!.mem.newIterator());
      }
      const key = keyBytes(name);
      if (latestSeq(key, mem, imm, iters, comparator) > tracked) {
        result.key = key;
        return CONFLICT;
      }
    }
    return NO_CONFLICT;
  } finally {
    if (iters !== undefined) for (const it of iters) it.close();
  }
}

/** The newest seq of a write of `key` in the memtables (0 if none); `iters`: one per memtable. */
function latestSeq(
  key: Uint8Array,
  mem: MemTable,
  imm: readonly { mem: MemTable }[],
  iters: InternalIterator[],
  comparator: Comparator,
): number {
  const target = makeInternalKey(key, MAX_SEQ, KIND_FOR_SEEK);
  for (let i = 0; i < iters.length; i++) {
    const m = i === 0 ? mem : imm[i - 1]!.mem;
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
