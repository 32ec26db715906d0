/**
 * The memtable arena: two bump allocators over `SharedArrayBuffer` chunks, one for entry
 * bytes and one for B+tree nodes (Int32 words). Nothing is ever freed; the arena dies with
 * its memtable. Because every chunk is a `SharedArrayBuffer`, a sealed memtable is handed to
 * a worker thread by posting the chunk list (no entry is copied).
 *
 * Addresses are one non-negative int32 each, `chunk index << shift | offset`:
 *
 * ```
 *   entry address (bytes)            node address (Int32 words)
 *   31 30          shift  shift-1   0   31 30          nodeShift nodeShift-1   0
 *   +--+--------------+------------+   +--+--------------+---------------------+
 *   | 0| entry chunk  | byte offset|   | 0| node chunk   | word offset         |
 *   +--+--------------+------------+   +--+--------------+---------------------+
 *
 *   shift     = ceil(log2(chunkSize))                    (1 MiB chunks: shift 20)
 *   nodeShift = ceil(log2(max(chunkSize, 64 KiB) / 4))   (1 MiB chunks: nodeShift 18)
 *
 *   entry chunks:  [ chunk 0 (1 MiB) ][ chunk 1 (1 MiB) ][ big entry (700 KiB) ][ chunk 3 ...
 *                    ^ bump pointer moves right; a chunk's unusable tail is abandoned
 *
 *   node chunks:   [ chunk 0: lane 0 ][ chunk 1: lane 1 ][ chunk 2: lane 0 ][ chunk 3: lane 0 ...
 *                    one bump pointer per lane; the tree puts leaves in lane 0 and inner
 *                    nodes in lane 1, so the inner nodes (few, visited by every search)
 *                    sit together
 * ```
 *
 * Chunks grow (when the arena is made with a `firstChunkSize` below `chunkSize`, as the
 * memtable does with FIRST_CHUNK_SIZE, and takes no chunks from a ChunkSource): the first
 * entry chunk and the first node chunk are `firstChunkSize` bytes, each next one of its kind
 * twice the previous, up to the full size. A small memtable then costs a few KiB, not
 * megabytes, and a large one a few more chunks (4 KiB .. 512 KiB add 8 of the 2048 chunk
 * numbers of 1 MiB chunks). Addresses do not change: a chunk of any size is addressed with
 * the full size's offset bits.
 *
 * ```
 *   entry chunks:  [4K][8K][ 16K ][  32K  ] ... [ 512K ][ chunk of 1 MiB ][ 1 MiB ] ...
 *                   \___ ArrayBuffers ______________/    \__ SharedArrayBuffers ___
 * ```
 *
 * Growing chunks are plain ArrayBuffers, several times cheaper to make than
 * SharedArrayBuffers, and the first entry chunk and the first node chunk share one (entries
 * at its start, nodes after them: a chunk's view, not its buffer, gives its size), which a
 * released arena gives, with its two views, to the next one (spare-first-chunks.ts); the
 * next one zeroes each node it allocates there as it does, not the whole node part.
 * `exportShared` copies them into SharedArrayBuffers (once: the arena keeps the copies,
 * whose bytes are the same, so views handed out earlier stay right). Full-size chunks and
 * big entries' chunks are SharedArrayBuffers from the start.
 *
 * An allocation larger than a quarter of a chunk (RocksDB's rule) gets a chunk of its own,
 * sized exactly (plus its alignment padding, below), at offset 0 (or the padding) — so an
 * entry larger than a chunk is always stored whole and its bytes past `2^shift` are reached
 * from its start, never through an address. The bump chunk stays current. Node chunks are
 * at least 64 KiB, whatever the chunk size, so the largest node always fits.
 *
 * Entry alignment: `allocateEntry(n, residue)` skips up to 7 bytes so that the address is
 * congruent to `residue` modulo 8. The memtable uses it to put a value at an address as
 * aligned as its source, because V8 copies into shared memory word by word only between
 * equally aligned addresses (byte by byte otherwise: 3-4 times slower for 100 bytes).
 *
 * Example (chunkSize 1 MiB): entry address 0x00300010 is chunk 3, byte 16.
 *
 * Memory accounting (`usedBytes`): bytes handed out (including alignment padding), plus the
 * abandoned tails of retired chunks; the unused rest of the current chunks is not counted.
 *
 * Chunk reuse: with a `ChunkSource` (chunk-pool.ts) new chunks come from it, and `release()`
 * gives them all back when nothing reads the arena any more; without one (ever), `release()`
 * leaves its chunks as spare (spare-chunks.ts, weakly held; the first buffer in
 * spare-first-chunks.ts; not big entries' own chunks) and a new chunk is a spare one of its
 * size when the garbage collector left one — unless the arena was exported (another thread
 * may hold its chunks). A released arena has no chunks (a read through it fails instead of
 * seeing another memtable's bytes).
 */
import { ShaleError } from "@shale/base";
import { addSpareChunk, takeSpareChunk } from "./spare-chunks.js";
import { FirstChunk, keepSpareFirstChunk, takeSpareFirstChunk } from "./spare-first-chunks.js";

/** Smallest accepted chunk size. */
export const MIN_CHUNK_SIZE = 128;
/** Node chunks are at least this large (they must hold the largest node). */
export const MIN_NODE_CHUNK_SIZE = 1 << 16;
/** Largest accepted chunk size. */
export const MAX_CHUNK_SIZE = 1 << 30;
/**
 * Node chunks come in lanes, one bump pointer each, so that the nodes every search visits
 * (the inner ones) sit together, not spread among the many leaves.
 */
export const NODE_LANES = 2;
/** Default chunk size: 1 MiB. */
export const DEFAULT_CHUNK_SIZE = 1 << 20;
/** Size of a memtable arena's first chunks, entry and node (they grow from it). */
export const FIRST_CHUNK_SIZE = 1 << 12;

/** ceil(log2(n)) for n in [1, 2^31]. */
function ceilLog2(n: number): number {
  return n <= 1 ? 0 : 32 - Math.clz32(n - 1);
}

/** Where an arena takes its chunks from and gives them back to (ChunkPool, chunk-pool.ts). */
export interface ChunkSource {
  /** The arena chunk size this source serves. */
  readonly chunkSize: number;
  /** A SharedArrayBuffer chunk of `size` bytes (zeroed if `node`). */
  allocate(size: number, node: boolean): SharedArrayBuffer;
  /** Takes back chunks nothing reads any more. */
  release(buffers: readonly SharedArrayBuffer[]): void;
}

/** The arena's state as plain, structured-clone friendly data. */
export interface SharedArenaData {
  readonly chunkSize: number;
  readonly entryChunks: readonly SharedArrayBuffer[];
  readonly nodeChunks: readonly SharedArrayBuffer[];
  readonly usedBytes: number;
}

export class Arena {
  readonly chunkSize: number;
  /** Bits of byte offset in an entry address. */
  readonly shift: number;
  readonly mask: number;
  /** Bits of word offset in a node address. */
  readonly nodeShift: number;
  readonly nodeMask: number;
  /** Byte views of the entry chunks, indexed by chunk number. */
  readonly entryChunks: Uint8Array[] = [];
  /** Int32 views of the node chunks, indexed by chunk number. */
  readonly nodeChunks: Int32Array[] = [];
  /**
   * @internal The entry chunks' buffers, indexed by chunk number (views are made on them):
   * SharedArrayBuffers, or ArrayBuffers for growing chunks until `exportShared` (see top).
   */
  readonly entryBuffers: ArrayBufferLike[] = [];
  private readonly nodeBuffers: ArrayBufferLike[] = [];
  private readonly maxEntryChunks: number;
  private readonly maxNodeChunks: number;
  private readonly nodeChunkWords: number;
  private readonly bigThreshold: number;
  private entryChunk = -1;
  private entryPos = 0;
  /** Bytes of the current entry chunk, and of the next one. */
  private entryLimit = 0;
  private nextEntrySize: number;
  /** Words of each lane's current node chunk, and bytes of the next node chunk. */
  // Per-lane state in plain arrays of NODE_LANES small integers: cheaper to make than typed
  // arrays (a memtable made and dropped often notices).
  private readonly laneLimit: number[] = [0, 0];
  private nextNodeSize: number;
  /**
   * The first chunks' buffer while its entry part waits to be the first entry chunk: the
   * first growing node chunk is made with it, one allocation for both (see top).
   */
  private firstEntryChunk: FirstChunk | undefined = undefined;
  /** That buffer (first node chunk + first entry chunk), given back on release (see top). */
  private first: FirstChunk | undefined = undefined;
  /** Per node lane: current chunk (-1: none yet) and word position in it. */
  private readonly laneChunk: number[] = [-1, -1];
  private readonly lanePos: number[] = [0, 0];
  private used = 0;
  private source: ChunkSource | undefined = undefined;
  private releasedFlag = false;
  /** Set by `exportShared`: the chunks may be read elsewhere, and are never spare. */
  private exported = false;

  /**
   * `chunkSize`: the full chunk size (see MemTableOptions.arenaChunkSize). `firstChunkSize`:
   * the size of the first entry and node chunks, which then double up to the full size
   * (see top). Default: `chunkSize` (no growth).
   */
  constructor(chunkSize: number = DEFAULT_CHUNK_SIZE, firstChunkSize: number = chunkSize) {
    if (typeof chunkSize !== "number") throw new TypeError("arenaChunkSize must be a number");
    if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
      throw ShaleError.invalidArgument(
        `arenaChunkSize must be an integer in [${MIN_CHUNK_SIZE}, ${MAX_CHUNK_SIZE}]; got ${chunkSize}`,
      );
    }
    this.chunkSize = chunkSize;
    this.shift = ceilLog2(chunkSize);
    this.mask = (1 << this.shift) - 1;
    this.nodeChunkWords = Math.max(chunkSize, MIN_NODE_CHUNK_SIZE) >>> 2;
    this.nodeShift = ceilLog2(this.nodeChunkWords);
    this.nodeMask = (1 << this.nodeShift) - 1;
    // Shifts, not `2 **` (a call to pow, a tenth of making a small memtable); both
    // exponents are in [1, 24] (shift >= 7, nodeShift >= 14).
    this.maxEntryChunks = 1 << (31 - this.shift);
    this.maxNodeChunks = 1 << (31 - this.nodeShift);
    this.bigThreshold = chunkSize >>> 2;
    this.nextEntrySize = Math.min(firstChunkSize, chunkSize);
    // Node chunks grow from at least 1 KiB (a node takes up to 776 bytes).
    this.nextNodeSize =
      firstChunkSize >= chunkSize
        ? this.nodeChunkWords * 4
        : Math.min(Math.max(firstChunkSize, 1024), this.nodeChunkWords * 4);
  }

  /** Reopens exported chunks (read-only use: allocating from them is not supported). */
  static fromShared(data: SharedArenaData): Arena {
    const arena = new Arena(data.chunkSize);
    for (const b of data.entryChunks) {
      if (!(b instanceof SharedArrayBuffer))
        throw new TypeError("entry chunks must be SharedArrayBuffers");
      arena.entryBuffers.push(b);
      arena.entryChunks.push(new Uint8Array(b));
    }
    for (const b of data.nodeChunks) {
      if (!(b instanceof SharedArrayBuffer))
        throw new TypeError("node chunks must be SharedArrayBuffers");
      arena.nodeBuffers.push(b);
      arena.nodeChunks.push(new Int32Array(b));
    }
    arena.used = data.usedBytes;
    // Further allocations would start fresh chunks; MemTable never allocates once sealed.
    return arena;
  }

  /**
   * Takes new chunks from `source` from now on, and gives every chunk back to it on
   * `release()`. InvalidArgument if its chunk size is not this arena's.
   */
  useSource(source: ChunkSource): void {
    if (source.chunkSize !== this.chunkSize) {
      throw ShaleError.invalidArgument(
        `chunk pool serves ${source.chunkSize}-byte chunks, the arena uses ${this.chunkSize}`,
      );
    }
    this.source = source;
    // Pooled chunks are full-size: no more growing ones (and no first entry chunk kept in
    // the first node chunk's buffer).
    this.firstEntryChunk = undefined;
    this.nextEntrySize = this.chunkSize;
    this.nextNodeSize = this.nodeChunkWords * 4;
  }

  /** True once `release()` ran. */
  get released(): boolean {
    return this.releasedFlag;
  }

  /**
   * Nothing reads this arena any more: its chunks go back to its source (if any), and it
   * forgets them. `usedBytes` is kept. Idempotent.
   */
  release(): void {
    if (this.releasedFlag) return;
    this.releasedFlag = true;
    const source = this.source;
    if (source !== undefined) {
      source.release(sharedOnly(this.entryBuffers));
      source.release(sharedOnly(this.nodeBuffers));
    }
    // The first buffer goes to the next arena, unless exportShared replaced it (a copy was
    // shared then, and views into this one may be read until the reader is done with them).
    const first = this.first;
    this.first = undefined;
    if (first !== undefined && this.nodeBuffers[0] === first.buffer) keepSpareFirstChunk(first);
    // Without a source the other chunks become spare (see top). With one, they are left
    // to the GC: the source's owner decides when views into its arenas end (chunk-pool.ts),
    // and a growing chunk made before it came has no such wait.
    if (!this.exported && source === undefined) {
      const firstBuffer = first?.buffer;
      this.spareAllBut(this.entryBuffers, firstBuffer);
      this.spareAllBut(this.nodeBuffers, firstBuffer);
    }
    // Emptied in place (the trees hold these arrays); popping a few is cheaper than
    // setting `length`.
    while (this.entryBuffers.length > 0) this.entryBuffers.pop();
    while (this.entryChunks.length > 0) this.entryChunks.pop();
    while (this.nodeBuffers.length > 0) this.nodeBuffers.pop();
    while (this.nodeChunks.length > 0) this.nodeChunks.pop();
  }

  /**
   * Makes spare (spare-chunks.ts) every chunk of `buffers` of a size arenas ask for again
   * (a power of two: the growing sizes; the full entry and node sizes), but `first`
   * (spare-first-chunks.ts). A big entry's chunk, sized exactly, is left to the GC.
   */
  private spareAllBut(buffers: readonly ArrayBufferLike[], first: ArrayBuffer | undefined): void {
    const full = this.chunkSize;
    const fullNode = this.nodeChunkWords * 4;
    for (let i = 0; i < buffers.length; i++) {
      const b = buffers[i]!;
      const n = b.byteLength;
      if (b !== first && ((n & (n - 1)) === 0 || n === full || n === fullNode)) addSpareChunk(b);
    }
  }

  /** A chunk: full-size ones shared (from the source, if any), growing ones plain (see top). */
  private newBuffer(size: number, node: boolean, full: boolean): ArrayBufferLike {
    if (this.releasedFlag) throw ShaleError.closed("memtable arena was released");
    const source = this.source;
    if (source === undefined) {
      const spare = takeSpareChunk(size, full);
      if (spare !== undefined) {
        if (node) new Int32Array(spare).fill(0);
        return spare;
      }
    }
    if (!full) return new ArrayBuffer(size);
    return source !== undefined ? source.allocate(size, node) : new SharedArrayBuffer(size);
  }

  /** Bytes handed out so far, including abandoned chunk tails. */
  get usedBytes(): number {
    return this.used;
  }

  /** Bytes of all chunks allocated so far. */
  get allocatedBytes(): number {
    let n = 0;
    for (const c of this.entryChunks) n += c.byteLength;
    for (const c of this.nodeChunks) n += c.byteLength;
    return n;
  }

  /**
   * The chunks, for `exportShared`. The arrays are copies; the buffers are shared. Growing
   * chunks are copied into SharedArrayBuffers first, which replace them here (see top).
   * REQUIRES: nothing allocated from here on (the memtable is sealed).
   */
  exportShared(): SharedArenaData {
    this.exported = true;
    const entryChunks: SharedArrayBuffer[] = [];
    for (let i = 0; i < this.entryBuffers.length; i++) {
      const b = this.entryBuffers[i]!;
      if (b instanceof SharedArrayBuffer) {
        entryChunks.push(b);
        continue;
      }
      const old = this.entryChunks[i]!;
      const shared = new SharedArrayBuffer(old.byteLength);
      const view = new Uint8Array(shared);
      view.set(old);
      this.entryBuffers[i] = shared;
      this.entryChunks[i] = view;
      entryChunks.push(shared);
    }
    const nodeChunks: SharedArrayBuffer[] = [];
    for (let i = 0; i < this.nodeBuffers.length; i++) {
      const b = this.nodeBuffers[i]!;
      if (b instanceof SharedArrayBuffer) {
        nodeChunks.push(b);
        continue;
      }
      const old = this.nodeChunks[i]!;
      const shared = new SharedArrayBuffer(old.byteLength);
      const view = new Int32Array(shared);
      view.set(old);
      this.nodeBuffers[i] = shared;
      this.nodeChunks[i] = view;
      nodeChunks.push(shared);
    }
    return { chunkSize: this.chunkSize, entryChunks, nodeChunks, usedBytes: this.used };
  }

  private newEntryChunk(size: number, full: boolean): number {
    const index = this.entryBuffers.length;
    if (index >= this.maxEntryChunks) {
      throw ShaleError.invalidArgument(
        `memtable arena is full: ${index} chunks of ${this.chunkSize} bytes address all it can`,
      );
    }
    const buffer = this.newBuffer(size, false, full);
    this.entryBuffers.push(buffer);
    this.entryChunks.push(new Uint8Array(buffer));
    return index;
  }

  /**
   * Allocates `n` bytes (n >= 1) for an entry; returns their address. With `residue` in
   * [0, 8) the address's byte offset is congruent to it modulo 8 (up to 7 bytes of padding
   * are skipped, and counted as used): the memtable aligns a value's bytes with its source
   * that way, since copies into shared memory are word by word only between equally
   * aligned addresses. `residue` -1: no alignment. Default: -1.
   */
  allocateEntry(n: number, residue = -1): number {
    if (n > this.bigThreshold) {
      const pad = residue < 0 ? 0 : residue;
      const chunk = this.newEntryChunk(n + pad, true);
      this.used += n + pad;
      return (chunk << this.shift) | pad;
    }
    let pos = this.entryPos;
    let pad = residue < 0 ? 0 : (residue - pos) & 7;
    if (this.entryChunk < 0 || pos + pad + n > this.entryLimit) {
      if (this.entryChunk >= 0) this.used += this.entryLimit - pos;
      pad = residue < 0 ? 0 : residue;
      // A growing chunk at least twice the previous one and large enough for this entry
      // (n <= a quarter of the full size, so the full size always is).
      let size = this.nextEntrySize;
      while (size < pad + n) size *= 2;
      if (size > this.chunkSize) size = this.chunkSize;
      const kept = this.firstEntryChunk;
      this.firstEntryChunk = undefined;
      if (kept !== undefined && size === kept.entries.length) {
        this.entryChunk = this.entryBuffers.length;
        this.entryBuffers.push(kept.buffer);
        this.entryChunks.push(kept.entries);
      } else {
        this.entryChunk = this.newEntryChunk(size, size === this.chunkSize);
      }
      this.nextEntrySize = Math.min(size * 2, this.chunkSize);
      this.entryLimit = size;
      pos = 0;
    }
    const address = (this.entryChunk << this.shift) | (pos + pad);
    this.entryPos = pos + pad + n;
    this.used += pad + n;
    return address;
  }

  /**
   * Allocates `words` zeroed Int32 words (<= MIN_NODE_CHUNK_SIZE / 4) for a node in `lane`
   * (0 .. NODE_LANES-1);
   * returns its address.
   */
  allocateNode(words: number, lane: number): number {
    let chunk = this.laneChunk[lane]!;
    let pos = this.lanePos[lane]!;
    if (chunk < 0 || pos + words > this.laneLimit[lane]!) {
      if (chunk >= 0) this.used += (this.laneLimit[lane]! - pos) * 4;
      chunk = this.nodeBuffers.length;
      if (chunk >= this.maxNodeChunks) {
        throw ShaleError.invalidArgument(`memtable arena is full: ${chunk} node chunks`);
      }
      // Growing as entry chunks do; a node (<= 1 KiB) fits in the smallest chunk.
      const full = this.nodeChunkWords * 4;
      const size = this.nextNodeSize;
      this.nextNodeSize = Math.min(size * 2, full);
      const entrySize = this.nextEntrySize;
      if (
        chunk === 0 &&
        this.entryBuffers.length === 0 &&
        size < full &&
        entrySize < this.chunkSize
      ) {
        // The first chunks: entries [0, entrySize), nodes after, in one buffer.
        if (this.releasedFlag) throw ShaleError.closed("memtable arena was released");
        const first = takeSpareFirstChunk(entrySize, size) ?? new FirstChunk(entrySize, size);
        this.firstEntryChunk = first;
        this.first = first;
        this.nodeBuffers.push(first.buffer);
        this.nodeChunks.push(first.nodes);
      } else {
        const buffer = this.newBuffer(size, true, size === full);
        this.nodeBuffers.push(buffer);
        this.nodeChunks.push(new Int32Array(buffer));
      }
      this.laneChunk[lane] = chunk;
      this.laneLimit[lane] = size >>> 2;
      pos = 0;
    }
    this.lanePos[lane] = pos + words;
    this.used += words * 4;
    // A kept first chunk's node words are zeroed as they are handed out (see top), in the
    // chunk's current view: after exportShared that is the shared copy, not the kept buffer.
    if (chunk === 0 && this.first !== undefined && this.first.dirty) {
      this.nodeChunks[0]!.fill(0, pos, pos + words);
    }
    return (chunk << this.nodeShift) | pos;
  }
}

/** The SharedArrayBuffers among `buffers` (the ones a ChunkSource may take back). */
function sharedOnly(buffers: readonly ArrayBufferLike[]): SharedArrayBuffer[] {
  const out: SharedArrayBuffer[] = [];
  for (const b of buffers) if (b instanceof SharedArrayBuffer) out.push(b);
  return out;
}
