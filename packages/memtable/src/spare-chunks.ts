/**
 * Spare chunks: arena chunks nothing reads any more, kept through WeakRefs (process-wide,
 * one list per thread) so that the next arena needing a chunk of the same size and kind
 * takes one the garbage collector has not collected yet instead of making a new one, while
 * the collector frees the others as usual: nothing is held once no arena needs it.
 *
 * Who gives chunks here: a ChunkPool (chunk-pool.ts) the full-size SharedArrayBuffers it
 * drops or holds when its database closes; an arena without a pool (arena.ts) every chunk
 * but the first buffer (spare-first-chunks.ts) and big entries' own chunks when it is
 * released — its growing chunks (plain ArrayBuffers, 4 KiB .. 512 KiB) and its full-size
 * SharedArrayBuffers. A program that makes, fills and drops memtables in turn then pays
 * for each chunk size once, not per memtable (a new ArrayBuffer of a few hundred KiB costs
 * its zeroing and page faults: a tenth of filling a 10k-entry memtable).
 *
 * A chunk comes here only once nothing may read it: a released arena (memtable.ts `unref`:
 * the views it handed out end), never one that was exported to another thread. With
 * invariants on it is filled with POISON_BYTE first, so a reader that outlived its
 * reference reads garbage a test notices. The taker zeroes a node chunk (the tree expects
 * zeroed words); entry bytes are always written before they are read.
 */
import { invariants } from "@shale/base";
import { POISON_BYTE } from "./poison.js";

const spare: WeakRef<ArrayBufferLike>[] = [];
/** Entries from which collected ones are pruned when another is added. */
const SPARE_PRUNE = 1024;
/**
 * The list's length at which the next add prunes it: SPARE_PRUNE, or twice what the last
 * prune left, whichever is larger. So when many spare chunks are all alive, a prune (which
 * reads every reference) comes once per doubling, not on every add: adds cost O(1)
 * amortized, and the list is at most twice its live references (or SPARE_PRUNE).
 */
let pruneAt = SPARE_PRUNE;

/** Keeps `buffer` (weakly) for a later arena. REQUIRES: nothing reads it any more. */
export function addSpareChunk(buffer: ArrayBufferLike): void {
  if (spare.length >= pruneAt) {
    let n = 0;
    for (let i = 0; i < spare.length; i++) {
      const r = spare[i]!;
      if (r.deref() !== undefined) spare[n++] = r;
    }
    spare.length = n;
    pruneAt = Math.max(SPARE_PRUNE, 2 * n);
  }
  if (invariants) new Uint8Array(buffer).fill(POISON_BYTE);
  spare.push(new WeakRef(buffer));
}

/**
 * A spare chunk of `size` bytes, a SharedArrayBuffer if `shared` (else a plain
 * ArrayBuffer), that the collector has not collected; or undefined. Its bytes are whatever
 * its last arena left (poison with invariants on).
 */
export function takeSpareChunk(size: number, shared: boolean): ArrayBufferLike | undefined {
  for (let i = spare.length - 1; i >= 0; i--) {
    const b = spare[i]!.deref();
    if (b === undefined) {
      spare[i] = spare[spare.length - 1]!;
      spare.pop();
    } else if (b.byteLength === size && b instanceof SharedArrayBuffer === shared) {
      spare[i] = spare[spare.length - 1]!;
      spare.pop();
      return b;
    }
  }
  return undefined;
}

/** Spare chunks not collected yet (tests). */
export function spareChunkCount(): number {
  let n = 0;
  for (let i = 0; i < spare.length; i++) if (spare[i]!.deref() !== undefined) n++;
  return n;
}
