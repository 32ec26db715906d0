/**
 * The entries a cache call freed, waiting for `onEvict` (lru-cache.ts runs them when the call
 * ends): their value, id and offset (the slot itself is reused at once), in three arrays used
 * as a queue that keeps its capacity.
 *
 * Why not a plain array emptied with `length = 0`: V8 then drops the array's backing store,
 * so the next eviction's `push` allocates a new one — on a block cache that evicts a block per
 * miss, one allocation per miss for nothing. Here slots are overwritten and cleared, and the
 * arrays' length only grows (to the most entries one call ever freed).
 */
export class FreedList<V> {
  private readonly values: (V | undefined)[] = [];
  private readonly ids: number[] = [];
  private readonly offsets: number[] = [];
  /** Entries waiting: index 0 .. count - 1. */
  count = 0;

  push(value: V, id: number, offset: number): void {
    const n = this.count;
    if (n < this.values.length) {
      this.values[n] = value;
      this.ids[n] = id;
      this.offsets[n] = offset;
    } else {
      this.values.push(value);
      this.ids.push(id);
      this.offsets.push(offset);
    }
    this.count = n + 1;
  }

  /** The value of the i-th entry waiting. REQUIRES: i < count. */
  valueAt(i: number): V {
    return this.values[i] as V;
  }

  idAt(i: number): number {
    return this.ids[i]!;
  }

  offsetAt(i: number): number {
    return this.offsets[i]!;
  }

  /** Drops the first `n` entries waiting (the rest move to the front). */
  dropFirst(n: number): void {
    const { values, ids, offsets } = this;
    const count = this.count;
    const left = count - n < 0 ? 0 : count - n;
    for (let i = 0; i < left; i++) {
      values[i] = values[i + n];
      ids[i] = ids[i + n]!;
      offsets[i] = offsets[i + n]!;
    }
    for (let i = left; i < count; i++) values[i] = undefined;
    this.count = left;
  }
}
