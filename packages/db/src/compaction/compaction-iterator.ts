/**
 * CompactionIterator: what a compaction keeps of its merged input (RocksDB's
 * CompactionIterator + MergeHelper, LevelDB's DoCompactionWork).
 *
 * The input is every entry of the input tables in internal-key order (user key ascending,
 * seq descending). The live snapshots s0 < s1 < ... cut the seqs into stripes: stripe i holds
 * the seqs in (s(i-1), s(i)], the last stripe the seqs above every snapshot. A reader at
 * snapshot s(i) (or at the latest state, for the last stripe) sees, of each user key, only
 * the newest entry of stripes <= i — so within one stripe only the newest entry matters.
 *
 * Rules, per user key, walking its entries newest first:
 * 1. Hidden: an entry in the same stripe as a newer entry of the key is dropped.
 * 2. Covered: an entry with seq x covered by a range tombstone of the inputs with seq t > x
 *    in the same stripe (no snapshot in [x, t): every reader that sees the entry also sees
 *    the tombstone) is dropped; older entries of the stripe then count as hidden.
 * 3. Deletion is dropped when it is in the earliest stripe (no snapshot is older than it)
 *    and the key is bottommost: no level below the output level has a file whose range holds
 *    the key (LevelDB's IsBaseLevelForKey), so nothing older can exist; the older entries of
 *    the stripe go by rule 1.
 * 4. Merge: the operands of a stripe, newest first, are collected until
 *    - a Value, a Deletion or a covered entry of the same stripe (a base): they become ONE
 *      Value `fullMerge(key, base value or undefined, operands oldest first)` with the seq
 *      of the newest operand; the base is consumed and older entries go by rule 1;
 *    - the end of the key's entries when the key is bottommost: likewise, with no base;
 *    - otherwise (a snapshot boundary, or the end of the key above older levels): the
 *      operands stay operands — combined into one (newest seq) by `partialMerge` when the
 *      operator has it and it succeeds for every pair, else kept as they are. Operands of
 *      different stripes are never combined.
 *    With a compaction filter that takes operands (rule 6), each operand of the last stripe
 *    (newer than every snapshot) is first shown to it: removed ones are left out, changed
 *    ones replaced; with none left, the entry under them goes by the rules as if they had
 *    never been (it is not consumed as a base).
 *    Without a merge operator (a flush), operands are kept as they are and hide nothing:
 *    the entries under them in their stripe go by their own kind (a Value or a deletion
 *    under an operand is its base and stays; rule 1 applies from it on).
 * 5. SingleDeletion (RocksDB's SingleDelete: "deleted" to readers, and a promise that the key
 *    was put once since its last SingleDelete) is decided before rules 1 and 2, by the next
 *    entry of its key (RocksDB's CompactionIterator):
 *    - in the same stripe: the SingleDeletion and that entry (its Put) both vanish; if that
 *      entry is another SingleDeletion, only the first vanishes and the second is decided
 *      the same way;
 *    - in an older stripe (a snapshot between them): the SingleDeletion stays, and the
 *      entry goes by the rules from its stripe on;
 *    - none (the key's entries end): dropped like a Deletion by rule 3, otherwise kept.
 *    Entries of the stripe after a vanished pair go by rule 1. A Delete, Merge or second Put
 *    of the key breaks the promise and the outcome is undefined, as in RocksDB (a Put a
 *    vanished pair covered may show again). The write-conflict snapshots of RocksDB's
 *    TransactionDB (its "optimization 3") do not exist here: shale's transactions check
 *    conflicts in memtables, never in compaction output.
 * 6. Compaction filter (the `filter` option; TTL's and the user's, value-filter.ts): the
 *    newest entry of each user key in the input, when it is a Value that rule 2 does not
 *    drop, is shown to the filter before it is output, whatever its stripe (RocksDB 7's
 *    contract, core/compaction-filter.ts). Kept: output as it is. Changed: output with the
 *    new value and its seq. Removed: it becomes a Deletion with its seq (RocksDB's kRemove)
 *    and rule 3 decides whether that stays; either way older entries of its stripe go by
 *    rule 1.
 * A BlobIndex (a reference into a RocksDB blob file) is a Value whose bytes are not the
 * value: it is kept, hidden, covered or dropped exactly like a Value and written out
 * unchanged; only a merge onto it reads the blob (the `blobs` option) to use as the base.
 * The range tombstones themselves are written by the job (see compaction-job.ts): per
 * fragment the newest seq of each stripe, minus those of the earliest stripe over ranges
 * that are bottommost.
 *
 * Example, snapshots [10], input `k#14,MERGE "3"  k#12,SET "7"  k#9,MERGE "1"  k#8,DEL
 * k#5,SET "2"`, operator uint64add, k bottommost:
 * ```
 *   stripe 1 (10..]:  k#14,MERGE + k#12,SET    -> k#14,SET 10     (rule 4, base 7)
 *   stripe 0 [..10]:  k#9,MERGE + k#8,DEL      -> k#9,SET 1       (rule 4, deletion base)
 *                     k#5,SET                  -> dropped         (rule 1)
 * ```
 * A reader at snapshot 10 still gets 1, the latest state 10.
 */
import {
  type InternalIterator,
  type InternalKeyComparator,
  MAX_SEQ,
  makeInternalKey,
  ShaleError,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import type { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import type { BlobResolver } from "../blob/blob-source.js";
import type { MergeOperator } from "../core/merge-operator.js";
import type { BottommostChecker } from "./bottommost.js";
import { KeptBytes } from "./kept-bytes.js";
import type { ValueFilter } from "./value-filter.js";

const EMPTY = new Uint8Array(0);
/** Outcomes of rule 6 (`filtered`). */
const KEPT = 0;
const QUEUED = 1;
const DROPPED = 2;

export interface CompactionIteratorOptions {
  icmp: InternalKeyComparator;
  /** Live snapshot seqs, ascending (duplicates allowed). */
  snapshots: readonly number[];
  mergeOperator: MergeOperator | undefined;
  /** The range tombstones of every input table (undefined or empty: none). */
  tombstones: FragmentedRangeTombstoneList | undefined;
  /** Whether older data can exist below the output level for a key. */
  bottommost: Pick<BottommostChecker, "isBottommost">;
  /** Reads blob values a merge uses as its base. Default: none (such a merge is Corruption). */
  blobs?: BlobResolver | undefined;
  /**
   * The compaction filter (value-filter.ts): shown the newest entry of each user key when it
   * is a Value not covered by a range tombstone (rule 6). Default: none.
   */
  filter?: ValueFilter | undefined;
}

/** Counters of one compaction's point entries. */
export interface CompactionIteratorStats {
  inputEntries: number;
  outputEntries: number;
  /** Rule 1. */
  droppedHidden: number;
  /** Rule 2. */
  droppedCovered: number;
  /** Rules 3 and 5 (SingleDeletions). */
  droppedDeletions: number;
  /** Operands folded into something else by rule 4. */
  mergedOperands: number;
  /** Values the compaction filter removed (rule 6; RocksDB's num_record_drop_user). */
  filterRemoved: number;
  /** Values the compaction filter changed (rule 6). */
  filterChanged: number;
}

/**
 * Usage: `seekToFirst()`, then `while (valid()) { key(); value(); next(); }`. Not an
 * InternalIterator (forward only, no seeks). Owns nothing: the caller closes the input.
 * `key()` and `value()` are views valid until `next()`.
 */
export class CompactionIterator {
  private readonly input: InternalIterator;
  private readonly icmp: InternalKeyComparator;
  private readonly snapshots: Float64Array;
  private readonly mergeOperator: MergeOperator | undefined;
  private readonly tombstones: FragmentedRangeTombstoneList | undefined;
  private readonly bottommost: Pick<BottommostChecker, "isBottommost">;
  private readonly blobs: BlobResolver | undefined;
  private readonly filter: ValueFilter | undefined;
  readonly stats: CompactionIteratorStats = {
    inputEntries: 0,
    outputEntries: 0,
    droppedHidden: 0,
    droppedCovered: 0,
    droppedDeletions: 0,
    mergedOperands: 0,
    filterRemoved: 0,
    filterChanged: 0,
  };

  /** The current user key (a copy; `curUser` is a view of `curBuf`). */
  private curBuf = new Uint8Array(64);
  private curUser: Uint8Array = this.curBuf.subarray(0, 0);
  private hasCurUser = false;
  /** Stripe of the last entry seen of the current user key (-1: none yet). */
  private curStripe = -1;
  /** Counts user keys seen; the output entry's key and whether it is its key's first. */
  private userGen = 0;
  private emittedGen = -1;
  private first = false;

  /** true: the output is the input's current entry; false: `queue[queuePos]`. */
  private direct = false;
  private readonly queueKeys: Uint8Array[] = [];
  private readonly queueValues: Uint8Array[] = [];
  private queuePos = 0;
  private isValid = false;
  /** Copies of input values the queue keeps across moves of the input (see `held`). */
  private readonly kept = new KeptBytes();

  constructor(input: InternalIterator, options: CompactionIteratorOptions) {
    this.input = input;
    this.icmp = options.icmp;
    this.snapshots = Float64Array.from(options.snapshots);
    this.mergeOperator = options.mergeOperator;
    const t = options.tombstones;
    this.tombstones = t !== undefined && !t.isEmpty ? t : undefined;
    this.bottommost = options.bottommost;
    this.blobs = options.blobs;
    this.filter = options.filter;
  }

  seekToFirst(): void {
    this.input.seekToFirst();
    this.hasCurUser = false;
    this.curStripe = -1;
    this.findNext();
  }

  valid(): boolean {
    return this.isValid;
  }

  /** True if the current output entry is the first one output for its user key. */
  startsUserKey(): boolean {
    return this.first;
  }

  /** REQUIRES: valid(). */
  key(): Uint8Array {
    return this.direct ? this.input.key() : this.queueKeys[this.queuePos]!;
  }

  /** REQUIRES: valid(). */
  value(): Uint8Array {
    return this.direct ? this.input.value() : this.queueValues[this.queuePos]!;
  }

  /** REQUIRES: valid(). */
  next(): void {
    if (this.direct) {
      this.input.next();
    } else if (++this.queuePos < this.queueKeys.length) {
      this.stats.outputEntries++;
      this.first = false;
      return;
    }
    this.findNext();
  }

  /** Stripe of `seq`: index of the first snapshot >= seq (snapshots.length if none). */
  private stripeOf(seq: number): number {
    const s = this.snapshots;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Rule 2: a tombstone newer than `seq` in the same stripe covers the current key. */
  private covered(seq: number, stripe: number): boolean {
    const t = this.tombstones;
    if (t === undefined) return false;
    const upper = stripe < this.snapshots.length ? this.snapshots[stripe]! : MAX_SEQ;
    return t.maxCoveringSeq(this.curUser, upper) > seq;
  }

  /** True if the input's current key has the current user key. */
  private sameUser(ikey: Uint8Array): boolean {
    return this.hasCurUser && this.icmp.compareUserKeyTo(this.curUser, ikey) === 0;
  }

  private setCurrentUser(ikey: Uint8Array): void {
    const n = ikey.length - TRAILER_SIZE;
    if (n > this.curBuf.length) this.curBuf = new Uint8Array(Math.max(n, this.curBuf.length * 2));
    const buf = this.curBuf;
    for (let i = 0; i < n; i++) buf[i] = ikey[i]!;
    if (this.curUser.length !== n || this.curUser.buffer !== buf.buffer) {
      this.curUser = buf.subarray(0, n);
    }
    this.hasCurUser = true;
    this.curStripe = -1;
    this.userGen++;
  }

  private findNext(): void {
    const input = this.input;
    const stats = this.stats;
    while (input.valid()) {
      const k = input.key();
      const t = k.length - TRAILER_SIZE;
      const firstOfKey = !this.sameUser(k);
      if (firstOfKey) this.setCurrentUser(k);
      const seq = trailerSeq(k, t);
      const kind = k[t]!;
      const stripe = this.snapshots.length === 0 ? 0 : this.stripeOf(seq);
      if (kind === ValueKind.SingleDeletion) {
        // Rule 5, ahead of rules 1 and 2 as in RocksDB: a SingleDelete hidden by a newer
        // entry still pairs with the Put under it, or the Put would resurface later.
        stats.inputEntries++;
        this.curStripe = stripe;
        if (this.singleDelete(stripe)) return;
        continue;
      }
      if (stripe === this.curStripe) {
        stats.inputEntries++;
        stats.droppedHidden++;
        input.next();
        continue;
      }
      this.curStripe = stripe;
      if (this.covered(seq, stripe)) {
        stats.inputEntries++;
        stats.droppedCovered++;
        input.next();
        continue;
      }
      switch (kind) {
        case ValueKind.Value:
          stats.inputEntries++;
          if (firstOfKey && this.filter !== undefined) {
            const outcome = this.filtered(k, seq, stripe);
            if (outcome === QUEUED) return;
            if (outcome === DROPPED) continue;
          }
          this.emitDirect();
          return;
        case ValueKind.BlobIndex:
          stats.inputEntries++;
          this.emitDirect();
          return;
        case ValueKind.Deletion:
          stats.inputEntries++;
          if (stripe === 0 && this.bottommost.isBottommost(this.curUser)) {
            stats.droppedDeletions++;
            input.next();
            continue;
          }
          this.emitDirect();
          return;
        case ValueKind.Merge:
          if (this.mergeOperator === undefined) {
            // Kept as it is, and so is what lies under it in its stripe (the operand needs
            // its base): the next entry is not hidden by this one.
            stats.inputEntries++;
            this.emitDirect();
            this.curStripe = -1;
            return;
          }
          if (!this.mergeStripe(stripe, this.mergeOperator)) {
            // Every operand removed by the filter: nothing of the stripe is out yet.
            this.curStripe = -1;
            continue;
          }
          this.direct = false;
          this.queuePos = 0;
          this.isValid = true;
          stats.outputEntries++;
          this.markEmitted();
          return;
        default:
          throw ShaleError.corruption(`unexpected value kind ${kind} in a compaction input`);
      }
    }
    this.isValid = false;
  }

  /**
   * Rule 5. REQUIRES: the input is at a SingleDeletion of the current user key in `stripe`
   * (already counted in `inputEntries`). Moves past it and, when the next entry of the key is
   * in the same stripe, past that one too (the pair vanishes; a second SingleDeletion is
   * left for the caller). Returns true if the SingleDeletion is the output (queued, the
   * input then at the first entry not consumed).
   */
  private singleDelete(stripe: number): boolean {
    const input = this.input;
    const stats = this.stats;
    const sdKey = input.key().slice(); // the input reuses its key buffer
    input.next();
    if (input.valid() && this.sameUser(input.key())) {
      const k = input.key();
      const t = k.length - TRAILER_SIZE;
      const nextSeq = trailerSeq(k, t);
      if ((this.snapshots.length === 0 ? 0 : this.stripeOf(nextSeq)) === stripe) {
        stats.droppedDeletions++;
        if (k[t] === ValueKind.SingleDeletion) return false; // two in a row: the next decides
        // Its Put (or, against the contract, a Delete or Merge: compacted out all the same).
        stats.inputEntries++;
        stats.droppedHidden++;
        input.next();
        return false;
      }
    } else if (stripe === 0 && this.bottommost.isBottommost(this.curUser)) {
      stats.droppedDeletions++;
      return false;
    }
    const keys = this.queueKeys;
    const values = this.queueValues;
    keys.length = 1;
    values.length = 1;
    keys[0] = sdKey;
    values[0] = EMPTY;
    this.direct = false;
    this.queuePos = 0;
    this.isValid = true;
    stats.outputEntries++;
    this.markEmitted();
    return true;
  }

  /**
   * Rule 6, the compaction filter. REQUIRES: the input is at `ikey`, a Value, the newest
   * entry of the current user key, in `stripe`. Returns true if the output is queued (a new
   * value, or a Deletion that stays); KEPT with the input unmoved; DROPPED with the input
   * past the entry (removed, and the Deletion it became dropped by rule 3).
   */
  private filtered(ikey: Uint8Array, seq: number, stripe: number): number {
    const input = this.input;
    const value = input.value();
    const d = this.filter!.filter(this.curUser, value);
    if (d === undefined) return KEPT;
    this.kept.clear();
    const keys = this.queueKeys;
    const values = this.queueValues;
    keys.length = 1;
    values.length = 1;
    if (d === null) {
      // RocksDB's kRemove: a Deletion at the same seq, then the Deletion rules (rule 3).
      this.stats.filterRemoved++;
      if (stripe === 0 && this.bottommost.isBottommost(this.curUser)) {
        this.stats.droppedDeletions++;
        input.next();
        return DROPPED;
      }
      keys[0] = makeInternalKey(this.curUser, seq, ValueKind.Deletion);
      values[0] = EMPTY;
    } else {
      this.stats.filterChanged++;
      keys[0] = ikey.slice();
      // A new value may be a view of the input's (a filter that cuts it): it is output after
      // the input moves.
      values[0] = d.buffer === value.buffer ? this.held(d) : d;
    }
    input.next();
    this.direct = false;
    this.queuePos = 0;
    this.isValid = true;
    this.stats.outputEntries++;
    this.markEmitted();
    return QUEUED;
  }

  /**
   * `bytes` (a view of the input's current value, or of memory the input's blocks share)
   * as the queue keeps it across moves of the input: as it is when the input's values keep
   * their bytes (`isValuePinned`), else a copy in `kept`, valid until the next group.
   */
  private held(bytes: Uint8Array): Uint8Array {
    return this.input.isValuePinned?.() === true ? bytes : this.kept.keep(bytes);
  }

  private emitDirect(): void {
    this.direct = true;
    this.isValid = true;
    this.stats.outputEntries++;
    this.markEmitted();
  }

  private markEmitted(): void {
    this.first = this.emittedGen !== this.userGen;
    this.emittedGen = this.userGen;
  }

  /**
   * Rule 4. REQUIRES: the input is at the newest Merge operand of `stripe` for the current
   * user key. Leaves the result in the queue and the input at the first entry not consumed;
   * false (nothing queued) when the compaction filter removed every operand, the input then
   * at the first entry after them.
   */
  private mergeStripe(stripe: number, op: MergeOperator): boolean {
    const input = this.input;
    const stats = this.stats;
    const keys = this.queueKeys;
    const values = this.queueValues;
    keys.length = 0;
    values.length = 0;
    this.kept.clear();
    // Operands newest first; keys copied (the input reuses its key buffer), values too unless
    // the input says their bytes stay (`held`): a table input that reuses its memory rewrites
    // them when it moves to its next block (@shale/sstable's scan buffers).
    let base: Uint8Array | undefined;
    let hasBase = false;
    // RocksDB's MergeHelper asks the filter about operands above the latest snapshot only.
    const filter =
      this.filter?.filtersOperands === true && stripe === this.snapshots.length
        ? this.filter
        : undefined;
    for (;;) {
      stats.inputEntries++;
      if (filter === undefined) {
        keys.push(input.key().slice());
        values.push(this.held(input.value()));
      } else {
        const operand = input.value();
        const d = filter.filterOperand(this.curUser, operand);
        if (d === null) stats.filterRemoved++;
        else {
          keys.push(input.key().slice());
          if (d === undefined) values.push(this.held(operand));
          else {
            stats.filterChanged++;
            values.push(d.buffer === operand.buffer ? this.held(d) : d);
          }
        }
      }
      input.next();
      if (!input.valid()) break;
      const k = input.key();
      if (!this.sameUser(k)) break;
      const t = k.length - TRAILER_SIZE;
      const seq = trailerSeq(k, t);
      if ((this.snapshots.length === 0 ? 0 : this.stripeOf(seq)) !== stripe) break;
      const kind = k[t]!;
      // With no operand left, what follows is not a base: the caller decides it.
      if (kind !== ValueKind.Merge && keys.length === 0) break;
      if (this.covered(seq, stripe)) {
        stats.inputEntries++;
        stats.droppedCovered++;
        input.next();
        hasBase = true;
        break;
      }
      if (kind === ValueKind.Merge) continue;
      if (kind === ValueKind.Value) base = this.held(input.value());
      else if (kind === ValueKind.BlobIndex) {
        if (this.blobs === undefined)
          throw ShaleError.corruption(
            "a merge onto a blob index in a compaction without blob files",
          );
        base = this.blobs.resolve(this.curUser, input.value());
      } else if (kind !== ValueKind.Deletion && kind !== ValueKind.SingleDeletion)
        throw ShaleError.corruption(`unexpected value kind ${kind} in a compaction input`);
      stats.inputEntries++;
      stats.mergedOperands++; // the base is folded in too
      input.next();
      hasBase = true;
      break;
    }
    if (keys.length === 0) return false;
    const keyEnded = !input.valid() || !this.sameUser(input.key());
    const newest = keys[0]!;
    const newestSeq = trailerSeq(newest, newest.length - TRAILER_SIZE);
    if (hasBase || (keyEnded && this.bottommost.isBottommost(this.curUser))) {
      const operands = values.slice().reverse();
      const merged = op.fullMerge(this.curUser, base, operands);
      if (merged === undefined)
        throw ShaleError.corruption(`merge operator "${op.name}" failed in a compaction`);
      stats.mergedOperands += operands.length - 1;
      keys.length = 1;
      values.length = 1;
      keys[0] = makeInternalKey(this.curUser, newestSeq, ValueKind.Value);
      values[0] = merged;
      return true;
    }
    if (values.length > 1 && op.partialMerge !== undefined) {
      let acc: Uint8Array | undefined = values[values.length - 1]!;
      for (let i = values.length - 2; i >= 0 && acc !== undefined; i--) {
        acc = op.partialMerge(this.curUser, acc, values[i]!);
      }
      if (acc !== undefined) {
        stats.mergedOperands += values.length - 1;
        keys.length = 1;
        values.length = 1;
        values[0] = acc;
      }
    }
    return true;
  }
}
