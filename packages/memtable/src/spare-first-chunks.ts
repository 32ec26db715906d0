/**
 * Spare first chunks: the one buffer a small memtable's arena starts with (its first entry
 * chunk and first node chunk, arena.ts), kept when the memtable is released and taken by the
 * next arena that starts, so a program that makes many small memtables pays for the buffer
 * once, not per memtable.
 *
 * Why: a new `ArrayBuffer` of more than 64 bytes lives outside V8's heap and costs about a
 * microsecond to make (and external memory the collector accounts for), whatever its size;
 * that was a quarter of making a memtable, filling it with 16 entries and reading one.
 * Reusing one costs zeroing its node part (4 KiB: tens of nanoseconds).
 *
 * Only buffers of arenas without a ChunkSource come here (a pool's arena takes full-size
 * chunks from its pool), and only while nothing reads them: the arena gives its buffer back
 * in `release()`, after which nothing may read the memtable (memtable.ts `unref`). With
 * invariants on, a kept buffer is filled with POISON_BYTE, so a reader that outlived its
 * reference reads garbage a test notices, as with pooled chunks (chunk-pool.ts).
 * Single-threaded: one list per thread (module state).
 */
import { invariants } from "@shale/base";
import { POISON_BYTE } from "./poison.js";

/** Buffers kept at most: enough for a few memtables made and dropped in turn. */
export const MAX_SPARE_FIRST_CHUNKS = 4;

const spare: ArrayBuffer[] = [];

/**
 * A kept buffer of exactly `bytes` bytes, or undefined. Its bytes are whatever its last
 * memtable left (poison with invariants on): the caller zeroes what must be zero.
 */
export function takeSpareFirstChunk(bytes: number): ArrayBuffer | undefined {
  for (let i = spare.length - 1; i >= 0; i--) {
    const b = spare[i]!;
    if (b.byteLength === bytes) {
      spare[i] = spare[spare.length - 1]!;
      spare.pop();
      return b;
    }
  }
  return undefined;
}

/** Keeps `buffer` for a later arena (dropped if MAX_SPARE_FIRST_CHUNKS are kept already). */
export function keepSpareFirstChunk(buffer: ArrayBuffer): void {
  if (spare.length >= MAX_SPARE_FIRST_CHUNKS) return;
  if (invariants) new Uint8Array(buffer).fill(POISON_BYTE);
  spare.push(buffer);
}

/** Buffers kept now (tests). */
export function spareFirstChunkCount(): number {
  return spare.length;
}
