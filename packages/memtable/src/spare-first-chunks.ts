/**
 * Spare first chunks: the one buffer a small memtable's arena starts with (its first entry
 * chunk and first node chunk, arena.ts), kept when the memtable is released and taken by the
 * next arena that starts, so a program that makes many small memtables pays for the buffer
 * once, not per memtable.
 *
 * Why: a new `ArrayBuffer` of more than 64 bytes lives outside V8's heap and costs about a
 * microsecond to make (and external memory the collector accounts for), whatever its size;
 * that was a quarter of making a memtable, filling it with 16 entries and reading one.
 * Reusing one costs zeroing the nodes its taker allocates in it (a 16-entry memtable's one
 * leaf: 528 bytes), as each is allocated. The buffer's two views (entry bytes, node words)
 * are kept with it (FirstChunk): making them cost a fifth of making a small memtable.
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

/**
 * A first buffer with its two views, made together and kept together: a view costs about
 * as much to make as a small buffer, and both are the same for every arena that takes it.
 */
export class FirstChunk {
  readonly buffer: ArrayBuffer;
  /** Bytes [0, entryBytes): the first entry chunk. */
  readonly entries: Uint8Array;
  /** Bytes [entryBytes, entryBytes + nodeBytes): the first node chunk. */
  readonly nodes: Int32Array;
  /**
   * True while `nodes` may hold a previous arena's words (a kept chunk): its taker zeroes
   * each node as it allocates it, not the whole chunk up front (arena.ts).
   */
  dirty = false;

  /** A new, zeroed buffer of `entryBytes + nodeBytes` bytes (nodeBytes a multiple of 4). */
  constructor(entryBytes: number, nodeBytes: number) {
    this.buffer = new ArrayBuffer(entryBytes + nodeBytes);
    this.entries = new Uint8Array(this.buffer, 0, entryBytes);
    this.nodes = new Int32Array(this.buffer, entryBytes, nodeBytes >>> 2);
  }
}

const spare: FirstChunk[] = [];

/**
 * A kept first chunk of `entryBytes` entry bytes and `nodeBytes` node bytes, or undefined.
 * Its bytes are whatever its last memtable left (poison with invariants on), and it is
 * `dirty`: the caller zeroes what must be zero.
 */
export function takeSpareFirstChunk(entryBytes: number, nodeBytes: number): FirstChunk | undefined {
  for (let i = spare.length - 1; i >= 0; i--) {
    const c = spare[i]!;
    if (c.entries.length === entryBytes && c.nodes.byteLength === nodeBytes) {
      spare[i] = spare[spare.length - 1]!;
      spare.pop();
      c.dirty = true;
      return c;
    }
  }
  return undefined;
}

/** Keeps `chunk` for a later arena (dropped if MAX_SPARE_FIRST_CHUNKS are kept already). */
export function keepSpareFirstChunk(chunk: FirstChunk): void {
  if (spare.length >= MAX_SPARE_FIRST_CHUNKS) return;
  if (invariants) new Uint8Array(chunk.buffer).fill(POISON_BYTE);
  spare.push(chunk);
}

/** Buffers kept now (tests). */
export function spareFirstChunkCount(): number {
  return spare.length;
}
