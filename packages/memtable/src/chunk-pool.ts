/**
 * ChunkPool: the arena chunks of released memtables, kept for the next memtables of the same
 * database instead of being left to the garbage collector.
 *
 * Why: a memtable's chunks are SharedArrayBuffers, and a flushed memtable's were posted to
 * the flush worker, so their memory is freed only once BOTH isolates have collected their
 * handles. The worker allocates little and rarely collects: at the end of a 1M-key db-bench
 * run 446 MB of flushed memtables' chunks were still alive (peak RSS 709 MB). Reusing them
 * bounds the memtable memory to what is live plus one memtable's worth in the pool.
 *
 * Life of a chunk:
 *
 * ```
 *   allocate(size) ──> in an arena ──(memtable's last reference dropped: MemTable.unref)──┐
 *      ^   (fresh if the free list is empty)                                              │
 *      │                                                                                  v
 *    free  <────────── promote() (end of the database's next write) ─────────────── pending
 *      (over maxBytes: left to the GC)                  invariants mode: poisoned here
 * ```
 *
 * Who may still read a released memtable's bytes decides when they can change (the engine's
 * ownership rules, docs/architecture.md "Performance principles"): a memtable iterator holds a reference (its key()/value() views stay valid
 * until it moves or closes); the flush worker reads a memtable only while it is queued, and
 * the database drops its reference only when the flush is installed; a `db.getView()` view is
 * valid until the next call into the database — and that call may take the view as an
 * argument (`db.put(k2, db.getView(k1))`) and install the flush at its start. So a released
 * arena's chunks first wait in `pending`, and the database moves them to the free list with
 * `promote()` only at the END of a write: no view handed out before that write, nor the
 * write's own arguments, can point into a chunk the next allocation takes.
 *
 * Reused node chunks are zeroed when taken (the tree expects zeroed words); entry chunks
 * are not (every entry byte read was written). With SHALE_INVARIANTS=1 `promote` fills the
 * chunks with POISON_BYTE first, so a reader that outlived its reference reads garbage a test
 * sees, not the old bytes by luck.
 *
 * Only chunks of the two regular sizes are kept (entry chunks of `chunkSize` bytes, node
 * chunks of max(chunkSize, 64 KiB)); an entry's own big chunk is left to the GC.
 *
 * Spare chunks (process-wide, weak; spare-chunks.ts): chunks promoted beyond maxBytes, and
 * every free chunk of a pool `retire()`d by its closing database, are kept only through
 * WeakRefs, shared by all pools and by arenas without one: `allocate` takes one the GC has not collected yet before making a new one, and the
 * GC frees the others as usual (nothing is held once no pool needs it). A database opened
 * after another closed (db-bench's fresh database per fill, tests) so reuses its chunks
 * instead of adding a memtable's worth of garbage that the next full collection would free.
 * A retired pool's chunks are safe to reuse anywhere: the closing database's flushes
 * finished, its views ended with `close()`, and a memtable still read by an open iterator
 * was not released.
 *
 * Thread-safety: the main thread of one database; the buffers may be shared with workers,
 * which must not read a chunk once the memtable's reference they were covered by is gone.
 */
import { invariants, ShaleError } from "@shale/base";
import {
  type ChunkSource,
  DEFAULT_CHUNK_SIZE,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  MIN_NODE_CHUNK_SIZE,
} from "./arena.js";
import { POISON_BYTE } from "./poison.js";
import { addSpareChunk, takeSpareChunk } from "./spare-chunks.js";

export interface ChunkPoolOptions {
  /** The arena chunk size of the memtables using this pool. Default: 1 MiB (1048576). */
  chunkSize?: number;
  /**
   * Most bytes kept on the free list; chunks promoted beyond it are dropped (left to the
   * GC). Integer >= 0. Default: 64 MiB (a memtable of the default write buffer size).
   */
  maxBytes?: number;
}

/** Counters of a ChunkPool (monotonic, except the byte gauges). */
export interface ChunkPoolStats {
  /** Chunks made new by `allocate` (nothing of that size was free). */
  readonly allocated: number;
  /** Chunks `allocate` took from the free list. */
  readonly reused: number;
  /** Chunks `allocate` took from the spare chunks (see the header). */
  readonly spared: number;
  /** Chunks `promote` left as spare because the free list was at maxBytes. */
  readonly dropped: number;
  /** Bytes on the free list now. */
  readonly freeBytes: number;
  /** Bytes released and waiting for `promote`. */
  readonly pendingBytes: number;
}

export class ChunkPool implements ChunkSource {
  readonly chunkSize: number;
  /** Bytes of a node chunk: max(chunkSize, 64 KiB). */
  readonly nodeChunkSize: number;
  readonly maxBytes: number;
  /** Free entry chunks; the same array as freeNodes when both sizes are equal. */
  private readonly freeEntries: SharedArrayBuffer[] = [];
  private readonly freeNodes: SharedArrayBuffer[];
  private pending: SharedArrayBuffer[] = [];
  private freeBytesNow = 0;
  private pendingBytesNow = 0;
  private allocatedCount = 0;
  private reusedCount = 0;
  private sparedCount = 0;
  private droppedCount = 0;
  private retired = false;

  /** Throws TypeError / InvalidArgument for bad options. */
  constructor(options: ChunkPoolOptions = {}) {
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (typeof chunkSize !== "number") throw new TypeError("chunkSize must be a number");
    if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
      throw ShaleError.invalidArgument(
        `chunkSize must be an integer in [${MIN_CHUNK_SIZE}, ${MAX_CHUNK_SIZE}]; got ${chunkSize}`,
      );
    }
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    if (typeof maxBytes !== "number") throw new TypeError("maxBytes must be a number");
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw ShaleError.invalidArgument(`maxBytes must be a non-negative integer; got ${maxBytes}`);
    }
    this.chunkSize = chunkSize;
    this.nodeChunkSize = Math.max(chunkSize, MIN_NODE_CHUNK_SIZE);
    this.maxBytes = maxBytes;
    this.freeNodes = this.nodeChunkSize === chunkSize ? this.freeEntries : [];
  }

  /**
   * A chunk of `size` bytes for an arena: a free one if there is one of that size, else a
   * spare one (see the header), else a new one. `node`: for tree nodes (a reused chunk is
   * zeroed: the tree expects zeroed words).
   */
  allocate(size: number, node: boolean): SharedArrayBuffer {
    if (size === (node ? this.nodeChunkSize : this.chunkSize)) {
      const list = node ? this.freeNodes : this.freeEntries;
      let buffer: SharedArrayBuffer | undefined;
      if (list.length > 0) {
        buffer = list.pop()!;
        this.freeBytesNow -= size;
        this.reusedCount++;
      } else {
        buffer = takeSpareChunk(size, true) as SharedArrayBuffer | undefined;
        if (buffer !== undefined) this.sparedCount++;
      }
      if (buffer !== undefined) {
        if (node) new Int32Array(buffer).fill(0);
        return buffer;
      }
    }
    this.allocatedCount++;
    return new SharedArrayBuffer(size);
  }

  /**
   * Takes back the chunks of an arena nothing reads any more; they wait for `promote`.
   * Chunks of other sizes are ignored (left to the GC).
   */
  release(buffers: readonly SharedArrayBuffer[]): void {
    for (let i = 0; i < buffers.length; i++) {
      const b = buffers[i]!;
      const n = b.byteLength;
      if (n !== this.chunkSize && n !== this.nodeChunkSize) continue;
      if (this.retired) {
        // The database closed: every view it handed out has ended.
        addSpareChunk(b);
        continue;
      }
      this.pending.push(b);
      this.pendingBytesNow += n;
    }
  }

  /** True if released chunks wait for `promote`. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Moves the released chunks to the free list (up to maxBytes; the rest are dropped).
   * REQUIRES: no view into them is still valid (the database calls it at the end of a
   * write; see the header).
   */
  promote(): void {
    const pending = this.pending;
    this.pending = [];
    this.pendingBytesNow = 0;
    for (let i = 0; i < pending.length; i++) {
      const b = pending[i]!;
      const n = b.byteLength;
      if (invariants) new Uint8Array(b).fill(POISON_BYTE);
      if (this.retired || this.freeBytesNow + n > this.maxBytes) {
        this.droppedCount++;
        addSpareChunk(b);
        continue;
      }
      (n === this.chunkSize ? this.freeEntries : this.freeNodes).push(b);
      this.freeBytesNow += n;
    }
  }

  /**
   * The database using this pool closed: what is released and free becomes spare (weakly
   * held, for any pool; see the header), and chunks released later too. REQUIRES: as for
   * `promote`, and no flush still reading a released memtable.
   */
  retire(): void {
    this.retired = true;
    this.promote();
    for (const list of [this.freeEntries, this.freeNodes]) {
      for (let i = 0; i < list.length; i++) addSpareChunk(list[i]!);
      list.length = 0;
    }
    this.freeBytesNow = 0;
  }

  get stats(): ChunkPoolStats {
    return {
      allocated: this.allocatedCount,
      reused: this.reusedCount,
      spared: this.sparedCount,
      dropped: this.droppedCount,
      freeBytes: this.freeBytesNow,
      pendingBytes: this.pendingBytesNow,
    };
  }
}
