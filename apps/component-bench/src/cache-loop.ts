/**
 * The request loops of cache-bench.ts. The bench imports a fresh copy of this module for each
 * contender (`cache-loop.js?<name>`), so every contender's loop has its own call sites and
 * type feedback: one cache's classes never make another's loop polymorphic.
 */

/** The part of a shale LRUCache the loops use. */
export interface ShaleLike {
  get(id: number, offset: number): unknown;
  lookup(id: number, offset: number): object | undefined;
  release(handle: object): void;
  insertUnpinned(id: number, offset: number, value: unknown, charge: number): boolean;
}

/** The part of a peer (a Map-like LRU) the loops use. */
export interface MapLike {
  get(k: number): unknown;
  set(k: number, v: unknown): unknown;
}

/**
 * Serves `keys` ("get; on a miss, insert"); returns the hits. Key k as shale takes it: a
 * table's block, (1 + k >> 10, (k & 1023) * 4096).
 */
export function runShale(cache: ShaleLike, keys: Int32Array, value: unknown): number {
  let hits = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const id = 1 + (k >> 10);
    const offset = (k & 1023) * 4096;
    if (cache.get(id, offset) !== undefined) hits++;
    else cache.insertUnpinned(id, offset, value, 4096);
  }
  return hits;
}

/**
 * As runShale, but a hit pins the entry (`lookup`) and lets it go (`release`): what a reader
 * that must keep the value from being evicted while it uses it pays.
 */
export function runShalePinned(cache: ShaleLike, keys: Int32Array, value: unknown): number {
  let hits = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const id = 1 + (k >> 10);
    const offset = (k & 1023) * 4096;
    const handle = cache.lookup(id, offset);
    if (handle !== undefined) {
      hits++;
      cache.release(handle);
    } else cache.insertUnpinned(id, offset, value, 4096);
  }
  return hits;
}

/** Inserts keys 0 .. n-1. */
export function fillShale(cache: ShaleLike, n: number, value: unknown): void {
  for (let k = 0; k < n; k++) cache.insertUnpinned(1 + (k >> 10), (k & 1023) * 4096, value, 4096);
}

/** Serves `keys` ("get; on a miss, set"); returns the hits. */
export function runMap(cache: MapLike, keys: Int32Array, value: unknown): number {
  let hits = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (cache.get(k) !== undefined) hits++;
    else cache.set(k, value);
  }
  return hits;
}

/** Sets keys 0 .. n-1. */
export function fillMap(cache: MapLike, n: number, value: unknown): void {
  for (let k = 0; k < n; k++) cache.set(k, value);
}
