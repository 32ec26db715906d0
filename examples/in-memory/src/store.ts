/**
 * A sorted in-memory key-value store on two parts only: @shale/memtable holds the writes
 * (a full memtable is sealed and kept, newest first, and a new one takes the writes) and
 * @shale/merging-iterator merges them into the user's view — newest version per key at a
 * snapshot, deletions and range deletions applied, merge operands resolved. Snapshots are
 * sequence numbers: a reader at `snapshot()` keeps seeing the store as it was.
 */
import {
  bytewiseComparator,
  InternalKeyComparator,
  LookupResult,
  LookupState,
  ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { type MergeOperator, newMergingIterator, UserKeyIterator } from "@shale/merging-iterator";

export class SortedStore {
  private tables = [new MemTable()]; // newest first; only tables[0] takes writes
  private seq = 0;
  private readonly icmp = new InternalKeyComparator(bytewiseComparator);

  constructor(
    private readonly mergeOperator?: MergeOperator,
    private readonly memtableBytes = 1 << 20,
  ) {}

  put(key: Uint8Array, value: Uint8Array): void {
    this.add(ValueKind.Value, key, value);
  }
  delete(key: Uint8Array): void {
    this.add(ValueKind.Deletion, key);
  }
  deleteRange(start: Uint8Array, end: Uint8Array): void {
    this.add(ValueKind.RangeDeletion, start, end);
  }
  merge(key: Uint8Array, operand: Uint8Array): void {
    this.add(ValueKind.Merge, key, operand);
  }

  /** The current sequence number: pass it to `get` / `scan` to read the store as it is now. */
  snapshot(): number {
    return this.seq;
  }

  get(key: Uint8Array, snapshot = this.seq): Uint8Array | undefined {
    const r = new LookupResult();
    for (const t of this.tables) if (!r.done) t.get(key, snapshot, r);
    if (r.operands.length === 0) return r.state === LookupState.Found ? r.value : undefined;
    const base = r.state === LookupState.Found ? r.value : undefined;
    return this.mergeOperator!.fullMerge(key, base, r.operands.slice().reverse());
  }

  /** A user-key iterator over [lowerBound, upperBound) at `snapshot`; close it when done. */
  scan(options: { snapshot?: number; lowerBound?: Uint8Array; upperBound?: Uint8Array } = {}) {
    const { snapshot = this.seq, ...bounds } = options;
    const children = this.tables.map((t) => t.newIterator());
    return new UserKeyIterator(
      newMergingIterator(children, (a, b) => this.icmp.compare(a, b)),
      {
        snapshotSeq: snapshot,
        rangeTombstones: this.tables.map((t) => t.fragmentedRangeTombstones()),
        ...(this.mergeOperator !== undefined && { mergeOperator: this.mergeOperator }),
        ...bounds,
      },
    );
  }

  /** Memtables in use (a new one is started when the newest passes `memtableBytes`). */
  get memtables(): number {
    return this.tables.length;
  }

  private add(kind: ValueKind, key: Uint8Array, value?: Uint8Array): void {
    const mem = this.tables[0]!;
    mem.add(++this.seq, kind, key, value);
    if (mem.approximateMemoryUsage() >= this.memtableBytes) {
      mem.seal(); // read-only from now on; still read by get and scan
      this.tables.unshift(new MemTable());
    }
  }
}
