/**
 * The memtable iterator's copy of its current internal key: a byte array that grows as
 * needed, and one view of it per key length, made the first time a key of that length is
 * copied and handed out again after (so a scan allocates nothing per entry, whether keys
 * keep one length or vary among a few).
 *
 * Pool: an iterator takes one when it is created and gives it back when it is closed, so a
 * new iterator (one per DB iterator, one per seek in a Level `iterator({ gte, limit })`)
 * neither allocates its array nor meets, on its first key, a branch only first keys take.
 * The first calls of a function run before V8 gives it a feedback vector, so such a branch
 * has no type feedback when the step is compiled, and taking it deoptimizes the step: seen
 * in Chromium (`--js-flags=--trace-deopt`) at the start of the second scan of the browser
 * bench, on the view made for the new iterator's first key. Not thread-safe (one pool per module
 * instance); views handed out before a close are invalid by the iterator's contract.
 */
import { invariants } from "@shale/base";

/** Sets kept for new iterators. */
const POOL_MAX = 16;
const pool: IteratorKey[] = [];

export class IteratorKey {
  /** The key bytes, `[0, length)`. */
  bytes = new Uint8Array(64);
  /**
   * Length of the key held (its bytes are only trusted by the iterator that copied them).
   * Kept when the array goes back to the pool: the next iterator's view of it is then the
   * one its keys need, and its first key takes no branch of the copy that no other key takes.
   */
  length = 0;
  /** `views[n]`: bytes[0, n), made on first use. */
  private readonly views: Uint8Array[] = [];

  /** Makes room for a key of `n` bytes, keeping the first `keep`. */
  grow(n: number, keep: number): void {
    const grown = new Uint8Array(Math.max(n, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, keep));
    this.bytes = grown;
    this.views.length = 0; // views of the old array
  }

  /** The view of the held key (`length` bytes). */
  view(): Uint8Array {
    const n = this.length;
    let v = this.views[n];
    if (v === undefined) {
      v = this.bytes.subarray(0, n);
      this.views[n] = v;
    }
    return v;
  }
}

/** A key copy for a new iterator: a pooled one, or a new one. */
export function takeIteratorKey(): IteratorKey {
  return pool.pop() ?? new IteratorKey();
}

/** Gives a closed iterator's key copy back (it must not use it again). */
export function giveIteratorKey(key: IteratorKey): void {
  // Invariants mode: a view kept past close shows garbage, not the last key.
  if (invariants) key.bytes.fill(0xcc);
  if (pool.length < POOL_MAX) pool.push(key);
}
