/**
 * The keys an optimistic transaction tracks for its commit's conflict check (RocksDB's
 * tracked-key set): (column family id, key bytes) -> the seq the key was first tracked at,
 * in the order tracked (a savepoint rollback cuts the list back to a length).
 *
 * ```
 *   bytes: | k e y 1 | k 2 | l o n g e r - k e y |      families: [0, 0, 3]
 *   ends:            7    10                   20       seqs:     [41, 41, 57]
 * ```
 *
 * The keys' bytes are copied end to end into one buffer, so tracking a key allocates
 * nothing once the buffer is large enough; a finished transaction's set is cleared and
 * handed to the next transaction (txn/db-transactions.ts). Up to `SMALL_SET` keys, a lookup
 * compares bytes one key after the other; past that, a Map from `lockKey` names to indexes
 * is built (and dropped by a savepoint rollback, built again on the next lookup).
 *
 * Threading: the database's thread.
 */
import { lockKey } from "../write/write-batch-with-index.js";
import type { ConflictKeys } from "./conflict-check.js";

/** Up to this many keys, a lookup is a linear search. */
const SMALL_SET = 8;
/** A set whose buffer grew past this is not reused (its buffer is dropped at `clear`). */
const MAX_KEPT_BYTES = 1 << 16;
const INITIAL_BYTES = 256;
/** A set that tracked more keys than this drops its arrays at `clear`. */
const MAX_KEPT_KEYS = 4096;

export class TrackedKeys implements ConflictKeys {
  /** Number of keys tracked. */
  count = 0;
  /** The smallest seq a key is tracked at (Infinity when none). */
  minSeq = Number.POSITIVE_INFINITY;
  private bytes = new Uint8Array(INITIAL_BYTES);
  /** Key i is bytes[ends[i - 1] (0 for the first), ends[i]). */
  private readonly ends: number[] = [];
  private readonly families: number[] = [];
  private readonly seqs: number[] = [];
  /** `lockKey` name -> index, once there are more than SMALL_SET keys. */
  private index: Map<string, number> | undefined = undefined;

  familyAt(i: number): number {
    return this.families[i]!;
  }

  seqAt(i: number): number {
    return this.seqs[i]!;
  }

  /** Key i's bytes: a view into the set, valid until it changes. */
  keyAt(i: number): Uint8Array {
    return this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1]!, this.ends[i]!);
  }

  /** The index of (`familyId`, `key`), or -1 if it is not tracked. */
  indexOf(familyId: number, key: Uint8Array): number {
    const count = this.count;
    if (count > SMALL_SET) return this.bigIndex().get(lockKey(familyId, key)) ?? -1;
    const n = key.length;
    const bytes = this.bytes;
    const ends = this.ends;
    let start = 0;
    for (let i = 0; i < count; i++) {
      const end = ends[i]!;
      if (end - start === n && this.families[i] === familyId) {
        let j = 0;
        while (j < n && bytes[start + j] === key[j]) j++;
        if (j === n) return i;
      }
      start = end;
    }
    return -1;
  }

  /** Tracks (`familyId`, `key`) at `seq` unless it is tracked already (then it keeps its seq). */
  add(familyId: number, key: Uint8Array, seq: number): void {
    if (this.indexOf(familyId, key) >= 0) return;
    const i = this.count;
    const start = i === 0 ? 0 : this.ends[i - 1]!;
    const end = start + key.length;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(end, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, start));
      this.bytes = grown;
    }
    this.bytes.set(key, start);
    const ends = this.ends;
    if (i < ends.length) {
      ends[i] = end;
      this.families[i] = familyId;
      this.seqs[i] = seq;
    } else {
      ends.push(end);
      this.families.push(familyId);
      this.seqs.push(seq);
    }
    this.count = i + 1;
    if (seq < this.minSeq) this.minSeq = seq;
    if (this.index !== undefined) this.index.set(lockKey(familyId, key), i);
  }

  /**
   * Stops tracking the keys from index `n` on (a savepoint rollback). The arrays keep their
   * length (setting it is a slow call): the slots past `count` are overwritten as keys come.
   */
  truncate(n: number): void {
    if (n >= this.count) return;
    this.count = n;
    this.index = undefined;
  }

  /** Empties the set (for reuse by another transaction). */
  clear(): void {
    if (this.count > 0) this.truncate(0);
    this.minSeq = Number.POSITIVE_INFINITY;
    if (this.bytes.length > MAX_KEPT_BYTES) this.bytes = new Uint8Array(INITIAL_BYTES);
    if (this.ends.length > MAX_KEPT_KEYS) {
      this.ends.length = 0;
      this.families.length = 0;
      this.seqs.length = 0;
    }
  }

  private bigIndex(): Map<string, number> {
    let index = this.index;
    if (index === undefined) {
      index = new Map();
      for (let i = 0; i < this.count; i++) index.set(lockKey(this.families[i]!, this.keyAt(i)), i);
      this.index = index;
    }
    return index;
  }
}

/** One key to check (a pessimistic transaction's key locked under a snapshot). */
export class OneKey implements ConflictKeys {
  readonly count = 1;

  constructor(
    private readonly familyId: number,
    private readonly key: Uint8Array,
    private readonly seq: number,
  ) {}

  familyAt(_i: number): number {
    return this.familyId;
  }

  keyAt(_i: number): Uint8Array {
    return this.key;
  }

  seqAt(_i: number): number {
    return this.seq;
  }
}
