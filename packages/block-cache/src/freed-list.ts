/**
 * The entries a cache call freed, waiting for `onEvict` (lru-cache.ts runs them when the call
 * ends): a stack over an array that keeps its capacity.
 *
 * Why not a plain array emptied with `length = 0`: V8 then drops the array's backing store,
 * so the next eviction's `push` allocates a new one — on a block cache that evicts a block per
 * miss, one allocation per miss for nothing. Here slots are overwritten and cleared, and the
 * array's length only grows (to the most entries one call ever freed).
 */
import type { CacheEntry } from "./entry.js";

export class FreedList<V> {
  private readonly items: (CacheEntry<V> | undefined)[] = [];
  /** Entries waiting; `items[0, count)`. */
  count = 0;

  push(e: CacheEntry<V>): void {
    const items = this.items;
    if (this.count < items.length) items[this.count] = e;
    else items.push(e);
    this.count++;
  }

  /** The i-th entry waiting. REQUIRES: i < count. */
  at(i: number): CacheEntry<V> {
    return this.items[i]!;
  }

  /** Drops the first `n` entries waiting (the rest move to the front). */
  dropFirst(n: number): void {
    const items = this.items;
    const count = this.count;
    for (let i = n; i < count; i++) items[i - n] = items[i];
    for (let i = count - n < 0 ? 0 : count - n; i < count; i++) items[i] = undefined;
    this.count = count - n < 0 ? 0 : count - n;
  }
}
