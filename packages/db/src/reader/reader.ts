/**
 * Reads on every core: a database written in one thread, read from worker threads.
 *
 * ```
 *   writer thread                               worker thread (one Reader each)
 *   DB (primary) ── db.readerHandle() ──postMessage──> openReader(handle)
 *     put/write: WAL record -> OS, memtable,          secondary DB of the same directory:
 *       lastSeq, then control.changes += 1            its own table cache, block cache and
 *     flush/compaction/ingest: MANIFEST edit          memtables rebuilt from the WALs
 *       synced, installed, then changes += 1
 *     close(): control.closed = 1            read: closed? -> Closed
 *     obsolete files: kept while a reader's         changes != seen? -> catch up (MANIFEST
 *       registration names them                       and WAL tails), seen = changes
 *                                                    then the read, at the reader's lastSeq
 * ```
 *
 * Why the reader does not read the writer's memtable in place: the memtable's arena is
 * SharedArrayBuffers only once sealed (`exportShared` copies its first small chunks), and
 * its B+tree is changed in place by inserts (a leaf shifts its slots, a split rewrites two
 * nodes and a parent, the hash index doubles incrementally): a reader in another thread
 * could follow a slot mid-shift to an entry of another key. Making every insert publish
 * through a seqlock would tax the single-threaded write path for every user. The WAL
 * record of each acknowledged write is already in the OS page cache, so the reader
 * rebuilds the unflushed tail from it (RocksDB's secondary instance, secondary/follower.ts)
 * — once per reader, for the records written since its last read.
 *
 * Consistency (the guarantee, exactly): a read BEGINS when the reader loads the control
 * block's change counter (the first thing `get`, `getMany`, `iterator` and `snapshot`
 * do). Every write whose `put`/`write`/`delete`/`merge`/`deleteRange` returned before that
 * load — ordered by anything that synchronizes the two threads: a `postMessage` received,
 * an `Atomics` operation — is seen, and so is every flush, compaction and ingestion
 * installed before it (core/reader-control.ts has the memory-ordering argument). The read
 * runs at one sequence number, the last whole write batch of the WAL and MANIFEST state
 * read: never part of a batch, never a write the reader cannot also see the earlier ones
 * of. It may see writes newer than those acknowledged when it began (written since, the
 * WAL record already in the OS): these are newer, never torn. An iterator or snapshot
 * keeps the state it began with until it is closed or released.
 * Exception: writes with `disableWAL: true` have no WAL record; a reader sees them once
 * their memtable is flushed.
 *
 * Files: a reader registers the tables and WALs its versions use with the writer
 * (secondary/registration.ts: the same files a secondary process writes, in the database's
 * `secondaries/` directory); the writer deletes an obsolete file only once no registration
 * names it. A reader renews its registration at every catch-up and, while it keeps reading
 * without one, every `leaseMs / 3` (checked every 1024 reads; also from a timer when the
 * worker's event loop runs).
 *
 * Threading: one Reader per worker (or per thread); not shared between threads.
 */
import { type Comparator, ShaleError, toBytes } from "@shale/base";
import { type IteratorOptions, READ_OPTIONS, type ReadOptions } from "../core/call-options.js";
import { ControlWord } from "../core/reader-control.js";
import type { DB } from "../db.js";
import type { DBIterator } from "../iterator/index.js";
import { ReaderSnapshot } from "./reader-snapshot.js";

/** Read options of a Reader: a database's, with a snapshot from `reader.snapshot()`. */
export interface ReaderReadOptions extends Omit<ReadOptions, "snapshot"> {
  /** Read as of this snapshot of this reader, not released. Default: the latest state. */
  snapshot?: ReaderSnapshot;
}

/** Iterator options of a Reader: a database's, with a snapshot from `reader.snapshot()`. */
export interface ReaderIteratorOptions extends Omit<IteratorOptions, "snapshot"> {
  snapshot?: ReaderSnapshot;
}

/** Reads between two looks at the clock for a due registration renewal. */
const CLOCK_EVERY = 1024;

export class Reader {
  private readonly db: DB;
  private readonly control: Int32Array;
  private readonly comparator: Comparator;
  private readonly leaseMs: number;
  /** The change counter as of the last catch-up's start. */
  private seen: number;
  private lastCatchUp = Date.now();
  private reads = 0;
  private closed = false;
  private readonly snapshots = new Set<ReaderSnapshot>();

  /** @internal made by `openReader`; `seen`: the change counter loaded before `db` opened. */
  constructor(db: DB, control: Int32Array, comparator: Comparator, leaseMs: number, seen: number) {
    this.db = db;
    this.control = control;
    this.comparator = comparator;
    this.leaseMs = leaseMs;
    this.seen = seen;
    Atomics.add(control, ControlWord.Readers, 1);
  }

  /** The sequence number reads see now (after catching up with the writer). */
  get sequence(): number {
    this.refresh();
    return this.db.latestSequence;
  }

  /** The value of `key`, a copy the caller owns; undefined if none. */
  get(key: Uint8Array | string, options?: ReaderReadOptions): Uint8Array | undefined {
    const snapshot = this.snapshotOf(options);
    if (snapshot === undefined) {
      this.refresh();
      return this.db.get(key, options as ReadOptions | undefined);
    }
    this.checkOpen();
    const { snapshot: _, ...rest } = options!;
    READ_OPTIONS.check(rest);
    return snapshot.get(toBytes(key, "key"));
  }

  /**
   * The zero-copy read (`db.getView`): a view into this reader's memtable or cached block,
   * valid until the next call into this reader or one of its iterators; read-only. With
   * `options.snapshot` it is a copy (as `get`).
   */
  getView(key: Uint8Array | string, options?: ReaderReadOptions): Uint8Array | undefined {
    if (options?.snapshot !== undefined) return this.get(key, options);
    this.refresh();
    return this.db.getView(key, options as ReadOptions | undefined);
  }

  /** `get` for each key, all at one sequence number; copies the caller owns. */
  getMany(
    keys: readonly (Uint8Array | string)[],
    options?: ReaderReadOptions,
  ): (Uint8Array | undefined)[] {
    const snapshot = this.snapshotOf(options);
    if (snapshot === undefined) {
      this.refresh();
      return this.db.getMany(keys, options as ReadOptions | undefined);
    }
    if (!Array.isArray(keys)) throw new TypeError("getMany takes an array of keys");
    return keys.map((k) => this.get(k, options));
  }

  /**
   * An iterator over the database as of now (or `options.snapshot`), within the options'
   * bounds; as `db.iterator` (both directions, seeks, for-of). It keeps the state it began
   * with until `close()`.
   */
  iterator(options?: ReaderIteratorOptions): DBIterator {
    const snapshot = this.snapshotOf(options);
    if (snapshot === undefined) {
      this.refresh();
      return this.db.iterator(options as IteratorOptions | undefined);
    }
    this.checkOpen();
    const { snapshot: _, ...rest } = options!;
    return snapshot.iterator(rest);
  }

  /** A snapshot of the state as of now: pass it as `options.snapshot`; `release()` it. */
  snapshot(): ReaderSnapshot {
    this.refresh();
    const s = new ReaderSnapshot(this.db, this.comparator);
    this.snapshots.add(s);
    return s;
  }

  /** Releases the reader's snapshots, files and caches. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.snapshots) s.release();
    this.snapshots.clear();
    Atomics.sub(this.control, ControlWord.Readers, 1);
    await this.db.close();
  }

  /** The snapshot in `options`, checked; undefined without one. */
  private snapshotOf(options: { snapshot?: unknown } | undefined): ReaderSnapshot | undefined {
    if (options === undefined || options === null || typeof options !== "object") return undefined;
    const s = options.snapshot;
    if (s === undefined) return undefined;
    if (!(s instanceof ReaderSnapshot))
      throw new TypeError("options.snapshot must come from reader.snapshot()");
    if (!this.snapshots.has(s) || s.released)
      throw ShaleError.invalidArgument(
        "options.snapshot was released or belongs to another reader",
      );
    return s;
  }

  private checkOpen(): void {
    if (this.closed) throw ShaleError.closed("the reader was closed");
    if (Atomics.load(this.control, ControlWord.Closed) !== 0)
      throw ShaleError.closed("the database was closed by its writer");
  }

  /**
   * Begins a read: Closed checks, then a catch-up if the writer changed anything. One
   * `Atomics.load` when nothing changed: the writer's close sets `closed` and then bumps
   * `changes` (core/reader-control.ts `publishClosed`), so a close that happened before
   * this load shows as a moved counter, and the closed word is read only then.
   */
  private refresh(): void {
    if (this.closed) throw ShaleError.closed("the reader was closed");
    const changes = Atomics.load(this.control, ControlWord.Changes);
    if (changes !== this.seen) {
      if (Atomics.load(this.control, ControlWord.Closed) !== 0)
        throw ShaleError.closed("the database was closed by its writer");
      this.catchUp(changes);
    } else if (++this.reads >= CLOCK_EVERY) {
      this.reads = 0;
      if (Date.now() - this.lastCatchUp >= this.leaseMs / 3) this.catchUp(changes);
    }
  }

  private catchUp(changes: number): void {
    this.db.tryCatchUpWithPrimary();
    this.seen = changes;
    this.lastCatchUp = Date.now();
  }
}
