/**
 * MemTable: the sorted in-memory table of the write path. Point entries go into one
 * B+tree, range tombstones into another (RocksDB's `table_` and `range_del_table_`); both
 * share one arena of SharedArrayBuffer chunks (arena.ts), so a memtable of millions of
 * entries is a few hundred buffers, not millions of objects, and a sealed memtable can be
 * read in a worker thread without copying (`exportShared` / `fromShared`). A hash index
 * of user keys (hash-index.ts) answers most gets without searching the tree.
 *
 * Why a B+tree and not RocksDB's skiplist: a search's cost is its dependent cache (and
 * TLB) misses. A skiplist of a million entries visits ~20 nodes one after another; the
 * tree's inner nodes stay in cache and a search misses on about one leaf.
 *
 * References (chunk reuse, chunk-pool.ts): a memtable starts with one reference, its
 * creator's; each iterator holds one more until it is closed. `unref()` drops one, and with
 * the last the arena's chunks go back to the memtable's ChunkPool (or are forgotten, without
 * one): after that nothing may read the memtable, and the views it handed out may change.
 *
 * Thread-safety: one writer. Reading (get, iterators) while adding on the same thread is
 * fine; other threads may read only a sealed memtable's exported data.
 */

import {
  assertInvariant,
  bytewiseComparator,
  type Comparator,
  invariants,
  isValueKind,
  LookupResult,
  MAX_SEQ,
  type RangeTombstone,
  ShaleError,
  ValueKind,
} from "@shale/base";
import type { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import { Arena, DEFAULT_CHUNK_SIZE, FIRST_CHUNK_SIZE } from "./arena.js";
import { BTree } from "./btree.js";
import { checkIndex, checkInserted, checkTree } from "./btree-check.js";
import { ChunkPool } from "./chunk-pool.js";
import { storeEntry } from "./entry.js";
import { firstWord, WORD_LIMIT } from "./first-word.js";
import { HashIndex, hashKey, INITIAL_SLOTS, MAX_LOAD } from "./hash-index.js";
import { IndexBuild } from "./index-build.js";
import { iteratorShapeKept, keepIteratorShape } from "./iterator-shape.js";
import { lookupPoints } from "./lookup.js";
import { MemTableBloom } from "./memtable-bloom.js";
import { duplicateError, releasedError } from "./memtable-errors.js";
import { MemTableIterator } from "./memtable-iterator.js";
import {
  INDEX_BUILD_ENTRIES,
  INDEX_BUILD_STEP,
  INDEX_MIN_ENTRIES,
  type MemTableOptions,
} from "./memtable-options.js";
import { MemTableTombstones } from "./memtable-tombstones.js";
import { checkSharedData, SHARED_FORMAT_VERSION, type SharedMemTableData } from "./shared.js";

/** State handed from `fromShared` to the constructor. */
interface Reopened {
  arena: Arena;
  data: SharedMemTableData;
}
let reopening: Reopened | undefined;

/** `minSeq` before the first add: above every seq, so the first add's seq replaces it. */
const NO_SEQ = MAX_SEQ + 1;

/** The value of a deletion added without one. */
const NO_VALUE = new Uint8Array(0);

export class MemTable {
  private readonly comparator: Comparator;
  private readonly arena: Arena;
  private readonly points: BTree;
  /**
   * The range tombstones (memtable-tombstones.ts), made by the first tombstone or the first
   * call that lists them (most memtables have none, and a small one made often notices each
   * object).
   */
  private rangeDels: MemTableTombstones | undefined = undefined;
  /**
   * User key -> newest entry, for gets (bytewise comparator; hash-index.ts). Made, sized for
   * the entries so far, by the first get once the memtable holds INDEX_MIN_ENTRIES point
   * entries (a smaller one is a leaf or two, searched as fast), or by the add that makes
   * `indexFrom` entries (MemTableOptions.hashIndexFrom; `indexLater` until then: adds pay
   * nothing for it). It is then filled from the tree INDEX_BUILD_STEP entries per
   * get or add (`build`; gets search the tree meanwhile), while adds insert their own
   * entries: it keeps for each user key the entry that sorts first, whichever came first.
   */
  private index: HashIndex | undefined = undefined;
  /** The index's build from the tree while it runs (index-build.ts). */
  private build: IndexBuild | undefined = undefined;
  private indexLater = false;
  /** MemTableOptions.hashIndexFrom. */
  private indexFrom = INDEX_BUILD_ENTRIES;
  /** The slots of the table a get would make now (approximateMemoryUsage, while due). */
  private dueSlots = INITIAL_SLOTS;
  /** MemTableOptions.bloom. */
  readonly bloom: MemTableBloom | undefined = undefined;
  private entries = 0;
  /**
   * The smallest and largest first words (`firstWord`: the first 30 bits, zero padded) of
   * the point entries' user keys. A user key whose first word is outside
   * [lowWord, highWord] is no point entry's key, so a get of it
   * is settled by two integer comparisons, before any hash or search. With the bytewise
   * comparator that is every key sorting before or after all the memtable's first words (a
   * read of keys newer or older than the memtable's); with another comparator the range
   * still only ever rules out absent keys. Kept by each add (a word and two comparisons);
   * every first word for a memtable reopened from shared data.
   */
  private lowWord = WORD_LIMIT;
  private highWord = -1;
  /** Smallest and largest seq added; minSeq is NO_SEQ while none was (see firstSeq). */
  private minSeq = NO_SEQ;
  private maxSeq = 0;
  private sealed = false;
  /** References: the creator's and one per open iterator (see the header). */
  private refs = 1;

  /** An empty memtable. Throws TypeError / InvalidArgument for bad options. */
  constructor(options: MemTableOptions = {}) {
    const comparator = options.comparator ?? bytewiseComparator;
    if (
      typeof comparator !== "object" ||
      comparator === null ||
      typeof comparator.compare !== "function"
    ) {
      throw new TypeError("comparator must be a Comparator");
    }
    this.comparator = comparator;
    const r = reopening;
    reopening = undefined;
    if (r === undefined) {
      const pool = options.chunkPool;
      if (pool !== undefined && !(pool instanceof ChunkPool))
        throw new TypeError("chunkPool must be a ChunkPool");
      this.arena = new Arena(
        options.arenaChunkSize ?? pool?.chunkSize ?? DEFAULT_CHUNK_SIZE,
        FIRST_CHUNK_SIZE,
      );
      if (pool !== undefined) this.arena.useSource(pool);
      this.points = new BTree(this.arena, comparator);
      const hashIndex = options.hashIndex ?? true;
      if (typeof hashIndex !== "boolean") throw new TypeError("hashIndex must be a boolean");
      this.indexLater = hashIndex && this.points.bytewise;
      const from = options.hashIndexFrom ?? INDEX_BUILD_ENTRIES;
      if (!Number.isInteger(from) || from < INDEX_MIN_ENTRIES || from > 0x7fffffff)
        throw new TypeError(`hashIndexFrom must be an integer in [${INDEX_MIN_ENTRIES}, 2^31 - 1]`);
      this.indexFrom = from;
      const bloom = options.bloom;
      if (bloom !== undefined && !(bloom instanceof MemTableBloom))
        throw new TypeError("bloom must be a MemTableBloom");
      this.bloom = bloom;
      return;
    }
    const d = r.data;
    this.arena = r.arena;
    this.points = new BTree(r.arena, comparator, d.points);
    this.rangeDels = new MemTableTombstones(
      r.arena,
      comparator,
      d.tombstoneTree,
      new Int32Array(d.rangeTombstones),
    );
    this.index =
      d.index !== null && this.points.bytewise ? new HashIndex(this.points, d.index) : undefined;
    this.entries = d.numEntries;
    this.lowWord = 0;
    this.highWord = WORD_LIMIT - 1;
    this.minSeq = d.firstSeq;
    this.maxSeq = d.largestSeq;
    this.sealed = true;
  }

  /**
   * Reopens a memtable exported by `exportShared` (in this or another thread), read-only:
   * it is sealed. `options.comparator` must have the name the memtable was built with
   * (Default: bytewiseComparator); `arenaChunkSize` is ignored. The chunks are shared, not
   * copied.
   */
  static fromShared(data: SharedMemTableData, options: MemTableOptions = {}): MemTable {
    checkSharedData(data);
    const comparator = options.comparator ?? bytewiseComparator;
    if (comparator.name !== data.comparatorName) {
      throw ShaleError.invalidArgument(
        `memtable was built with comparator ${data.comparatorName}, not ${comparator.name}`,
      );
    }
    reopening = {
      arena: Arena.fromShared({
        chunkSize: data.chunkSize,
        entryChunks: data.entryChunks,
        nodeChunks: data.nodeChunks,
        usedBytes: data.usedBytes,
      }),
      data,
    };
    try {
      return new MemTable({ comparator });
    } finally {
      reopening = undefined;
    }
  }

  /**
   * Inserts a point entry, or (kind === RangeDeletion, userKey = start, value = end) a range
   * tombstone deleting [start, end) below `seq`. The bytes are copied into the arena.
   * `value` may be left out for a Deletion or SingleDeletion (their value is empty).
   * Throws ShaleError Closed if sealed; InvalidArgument for a seq outside [0, 2^53-1], an
   * unknown kind, a tombstone with start > end, or a duplicate (userKey, seq, kind);
   * TypeError for non-byte keys or values.
   */
  add(seq: number, kind: ValueKind, userKey: Uint8Array, value?: Uint8Array): void {
    if (this.sealed) throw ShaleError.closed("memtable is sealed: no more adds");
    if (this.refs === 0) throw releasedError();
    if (!(userKey instanceof Uint8Array)) throw new TypeError("userKey must be a Uint8Array");
    if (value === undefined) {
      if (kind !== ValueKind.Deletion && kind !== ValueKind.SingleDeletion) {
        throw new TypeError(`value is required for kind ${kind} (only deletions may omit it)`);
      }
      value = NO_VALUE;
    } else if (!(value instanceof Uint8Array)) throw new TypeError("value must be a Uint8Array");
    if (typeof seq !== "number") throw new TypeError("seq must be a number");
    if (!(seq >= 0 && seq <= MAX_SEQ && Number.isInteger(seq))) {
      throw ShaleError.invalidArgument(`sequence number out of range: ${seq}`);
    }
    if (!isValueKind(kind)) throw ShaleError.invalidArgument(`unknown value kind ${kind}`);
    if (kind === ValueKind.RangeDeletion) {
      this.addTombstone(seq, userKey, value);
      return;
    }
    const points = this.points;
    points.setTargetUser(userKey, seq, kind);
    if (!points.prepareInsert()) throw duplicateError(seq, kind);
    const address = storeEntry(
      this.arena,
      userKey,
      points.targetSeqHigh,
      points.targetSeqLow,
      kind,
      value,
    );
    points.insert(address);
    if (invariants) checkInserted(points, address);
    const word = firstWord(userKey);
    if (word < this.lowWord) this.lowWord = word;
    if (word > this.highWord) this.highWord = word;
    const bloom = this.bloom;
    if (bloom !== undefined) bloom.add(userKey);
    const index = this.index;
    if (index !== undefined) {
      index.insert(hashKey(userKey, 0, userKey.length), address);
      if (this.build !== undefined) this.buildIndexStep(INDEX_BUILD_STEP);
    } else if (this.indexLater && this.entries + 1 >= this.indexFrom) this.startIndex();
    this.entries++;
    if (seq < this.minSeq) this.minSeq = seq;
    if (seq > this.maxSeq) this.maxSeq = seq;
  }

  /** The range-tombstone half of `add` (arguments checked; `end` is the value). */
  private addTombstone(seq: number, start: Uint8Array, end: Uint8Array): void {
    this.tombstones().add(seq, start, end);
    if (seq < this.minSeq) this.minSeq = seq;
    if (seq > this.maxSeq) this.maxSeq = seq;
  }

  /** Starts the hash index (see MemTable.index): a table sized for the entries so far. */
  private startIndex(): void {
    const index = new HashIndex(this.points, undefined, this.entries);
    this.index = index;
    this.indexLater = false;
    this.build = new IndexBuild(this.points, index);
  }

  /** Takes up to `n` more entries into the index (IndexBuild.step). Changes the tree's target. */
  private buildIndexStep(n: number): void {
    if (this.build!.step(n)) this.build = undefined;
  }

  /** Makes the index complete now, if due (exports, checks). */
  private finishIndex(): void {
    if (this.index === undefined && this.indexDue) this.startIndex();
    if (this.build !== undefined) this.buildIndexStep(Number.POSITIVE_INFINITY);
  }

  /** True when the hash index is due but not built yet (see MemTable.index). */
  private get indexDue(): boolean {
    return this.indexLater && this.entries >= INDEX_MIN_ENTRIES;
  }

  /**
   * Folds the newest entries of `userKey` visible at `snapshotSeq` into `result` (see
   * LookupResult in @shale/base): first raises `result.maxCoveringSeq` to this memtable's
   * newest covering range tombstone, then reads point entries newest first — a Value ends
   * with Found, a Deletion / SingleDeletion or any entry with seq < maxCoveringSeq with
   * Deleted, a Merge operand is appended to `result.operands` (state Merging) and the
   * lookup goes on. Nothing found leaves `state` unchanged.
   *
   * `snapshotSeq` Default: the latest (`MAX_SEQ`). `result` Default: a new LookupResult; the
   * result is returned. A result passed in continues the lookup of newer layers when it is
   * for the same key array and snapshot (then, if a newer layer settled it — `done` — this
   * does nothing); for any other key, snapshot, or a second get on this memtable, it is
   * reset first (`LookupResult.enter`), so it never reports a previous lookup's answer.
   * `result.value` and operands are views into the arena, valid while the memtable lives.
   */
  get(
    userKey: Uint8Array,
    snapshotSeq: number = MAX_SEQ,
    result: LookupResult = new LookupResult(),
  ): LookupResult {
    if (invariants) assertInvariant(this.refs > 0, "get on a released memtable");
    result.enter(this, userKey, snapshotSeq);
    if (result.done) return result;
    if (this.rangeDels !== undefined && this.rangeDels.count > 0) {
      const covering = this.maxCoveringTombstoneSeq(userKey, snapshotSeq);
      if (covering > result.maxCoveringSeq) result.maxCoveringSeq = covering;
    }
    // No point entry (a memtable after a reopen or a flush): nothing to hash or search.
    if (this.entries === 0) return result;
    // The filter first: it counts every lookup it is asked (RocksDB's memtable Bloom
    // statistics).
    const bloom = this.bloom;
    if (bloom !== undefined && !bloom.mayContainKey(userKey)) return result;
    // Outside the point keys' first-word range (see lowWord): none of them.
    const word = firstWord(userKey);
    if (word < this.lowWord || word > this.highWord) return result;
    if (this.index === undefined) {
      if (this.indexDue) this.startIndex();
    }
    if (this.build !== undefined) this.buildIndexStep(INDEX_BUILD_STEP);
    const index = this.build === undefined ? this.index : undefined;
    lookupPoints(this.points, index, userKey, snapshotSeq, result);
    return result;
  }

  /**
   * An iterator over the point entries in internal-key order. `key()` is the internal key
   * (a copy in an array the iterator reuses), `value()` the value (a view into the arena),
   * valid until the iterator moves (the value: until it is closed, `isValuePinned`);
   * `entryBytes()` with `keyOffset()`, `keyLength()`, `valueOffset()` and `valueLength()`
   * give both in place, with no object per entry. The iterator holds a reference to the memtable
   * until it is closed (see the header). Entries added after the iterator was created may
   * or may not be seen by it. Closed (ShaleError) once the memtable was released.
   */
  newIterator(): MemTableIterator {
    if (this.refs === 0) throw releasedError();
    if (!iteratorShapeKept()) MemTable.keepIteratorShape();
    this.refs++;
    return new MemTableIterator(this.points, this);
  }

  /** Makes the iterator that keeps the iterators' hidden class alive (iterator-shape.ts). */
  private static keepIteratorShape(): void {
    const mem = new MemTable();
    mem.refs++;
    keepIteratorShape(new MemTableIterator(mem.points, mem));
  }

  /**
   * Takes one more reference: the memtable's bytes stay until a matching `unref`.
   * Closed (ShaleError) once it was released.
   */
  ref(): void {
    if (this.refs === 0) throw releasedError();
    this.refs++;
  }

  /**
   * Drops one reference; with the last, the memtable is released: its arena's chunks go back
   * to its ChunkPool (see chunk-pool.ts for when they are reused) and nothing may read it
   * any more. Counters (`numEntries`, `approximateMemoryUsage`, seqs) stay readable. An
   * invariant error (SHALE_INVARIANTS) if no reference is left.
   */
  unref(): void {
    if (this.refs === 0) {
      if (invariants) assertInvariant(false, "memtable unref without a reference");
      return;
    }
    if (--this.refs === 0) this.arena.release();
  }

  /** References held (0: released). */
  get references(): number {
    return this.refs;
  }

  /**
   * Takes new arena chunks from `pool` from now on and gives them all back to it when
   * released: for a memtable made before its database's pool (recovery). InvalidArgument
   * if the pool's chunk size is not the arena's; Closed once released.
   */
  useChunkPool(pool: ChunkPool): void {
    if (!(pool instanceof ChunkPool)) throw new TypeError("pool must be a ChunkPool");
    if (this.refs === 0) throw releasedError();
    this.arena.useSource(pool);
  }

  /** The range tombstones added so far, in insertion order; views into the arena. Do not modify. */
  rangeTombstones(): readonly RangeTombstone[] {
    return this.tombstones().list;
  }

  /** The range tombstones, made on first use. */
  private tombstones(): MemTableTombstones {
    let rangeDels = this.rangeDels;
    if (rangeDels === undefined) {
      rangeDels = new MemTableTombstones(this.arena, this.comparator);
      this.rangeDels = rangeDels;
    }
    return rangeDels;
  }

  /**
   * The range tombstones fragmented (@shale/range-tombstones), for range-deletion iterators:
   * cached, and rebuilt here only if tombstones were added since it was last built. The
   * list is immutable: tombstones added later are not in it. Keys it returns are views into
   * its own buffer (valid as long as the list).
   */
  fragmentedRangeTombstones(): FragmentedRangeTombstoneList {
    return this.tombstones().fragmented();
  }

  /**
   * Highest seq of a range tombstone covering `userKey` with seq <= snapshotSeq; 0 if none.
   * Up to 4 tombstones it scans them; beyond, it looks them up in a fragmented list built on
   * the first read and kept across adds, the tombstones added since being scanned until
   * that scanning has cost about a rebuild (range-tombstone-cache.ts). O(log n) per read
   * once built; the build is O(n log n), after a read, not in `add`.
   */
  maxCoveringTombstoneSeq(userKey: Uint8Array, snapshotSeq: number): number {
    if (this.rangeDels === undefined) return 0;
    return this.rangeDels.maxCoveringSeq(userKey, snapshotSeq);
  }

  /**
   * Bytes in use: the arena's (entries and tree nodes of point entries and range
   * tombstones, alignment padding, abandoned chunk tails; not the unused rest of the
   * current chunks), the hash index's table (once due, as if built: the table a get would
   * make for the entries so far) and the tombstone address list.
   */
  approximateMemoryUsage(): number {
    let indexBytes = 0;
    if (this.index !== undefined) indexBytes = this.index.bytes;
    else if (this.indexDue) {
      // Called per write: the table a get would make, grown from the last answer.
      let slots = this.dueSlots;
      while (this.entries > Math.floor(slots * MAX_LOAD)) slots *= 2;
      this.dueSlots = slots;
      indexBytes = 8 * slots;
    }
    const bloomBytes = this.bloom === undefined ? 0 : this.bloom.byteSize;
    const tombstoneBytes = this.rangeDels === undefined ? 0 : this.rangeDels.addressBytes;
    return this.arena.usedBytes + tombstoneBytes + indexBytes + bloomBytes;
  }

  /** Number of point entries. */
  get numEntries(): number {
    return this.entries;
  }

  get numRangeTombstones(): number {
    return this.rangeDels === undefined ? 0 : this.rangeDels.count;
  }

  /** Smallest seq added (point or tombstone); 0 when empty. */
  get firstSeq(): number {
    return this.minSeq === NO_SEQ ? 0 : this.minSeq;
  }

  /** Largest seq added (point or tombstone); 0 when empty. */
  get largestSeq(): number {
    return this.maxSeq;
  }

  /** Forbids further adds (an immutable memtable waiting for flush). Idempotent. */
  seal(): void {
    this.sealed = true;
    this.index?.flush();
  }

  get isSealed(): boolean {
    return this.sealed;
  }

  /**
   * This memtable's chunks as structured-clone friendly data, for `fromShared` in a worker
   * thread. The buffers are shared, not copied. REQUIRES (InvalidArgument otherwise):
   * `isSealed`, so nothing changes under the reader; Closed once released. The reader must
   * be done with the chunks before the memtable's last reference is dropped (they may be
   * reused then). `options.index` false leaves the hash index out (`index: null`: the
   * reopened memtable searches its tree), for a reader that only iterates, e.g. a flush: the
   * index table is then not shared, and freed with this thread's garbage alone.
   * Default: true.
   */
  exportShared(options?: { index?: boolean }): SharedMemTableData {
    if (!this.sealed) throw ShaleError.invalidArgument("exportShared requires a sealed memtable");
    if (this.refs === 0) throw releasedError();
    const withIndex = options?.index ?? true;
    if (typeof withIndex !== "boolean")
      throw new TypeError("exportShared option index must be a boolean");
    if (withIndex) this.finishIndex();
    // Before the arena's chunks are listed: a memtable without tombstones makes its empty
    // tombstone tree here (the format has one).
    const rangeDels = this.tombstones();
    const tombstoneRoots = rangeDels.exportRoots();
    const arena = this.arena.exportShared();
    return {
      version: SHARED_FORMAT_VERSION,
      comparatorName: this.comparator.name,
      chunkSize: arena.chunkSize,
      entryChunks: arena.entryChunks,
      nodeChunks: arena.nodeChunks,
      usedBytes: arena.usedBytes,
      points: this.points.roots,
      tombstoneTree: tombstoneRoots,
      index: withIndex ? (this.index?.exportShared() ?? null) : null,
      rangeTombstones: rangeDels.exportAddresses(),
      numEntries: this.entries,
      numRangeTombstones: rangeDels.count,
      firstSeq: this.firstSeq,
      largestSeq: this.maxSeq,
    };
  }

  /**
   * Checks the trees (order, slices, links, counts) and that the hash index maps every
   * user key to its newest entry (slow; for tests and invariant builds; applies the
   * index's queued inserts). Throws Corruption on a violation.
   */
  checkInvariants(): void {
    assertInvariant(
      checkTree(this.points) === this.entries,
      "memtable tree holds the wrong number of entries",
    );
    const rangeDels = this.tombstones();
    assertInvariant(
      rangeDels.checkedCount() === rangeDels.count,
      "memtable tombstone tree holds the wrong number of entries",
    );
    this.finishIndex();
    if (this.index !== undefined) checkIndex(this.points, this.index);
  }
}
