/**
 * TableIterator: the two-level iterator over a table. The index block iterator picks the data
 * block (its keys are separators: >= every key of their block, < every key of the next), the
 * data block iterator walks the entries; moving off either end of a data block steps the
 * index and loads the neighbouring block (skipping empty ones).
 *
 *   seek(t):        index.seek(t) -> data.seek(t), else the first entry of the following blocks
 *   seekForPrev(t): index.seek(t) (or the last block) -> data.seekForPrev(t), else the last
 *                   entry of the preceding blocks
 *
 * With the index block's `IndexSearch` (bytewise tables), a seek takes the data block's
 * offset from the search aid and leaves the index iterator unpositioned (`pendingEntry`):
 * the index entry is decoded only on a block-cache miss or when the scan moves on to a
 * neighbouring block.
 *
 * Parts pool: what an iterator needs besides its position — the index and data
 * BlockIterators (each with a key buffer and a reverse cache), the readahead state and the
 * block handle — depends only on the key order, and creating them was most of what opening
 * an iterator cost (db-bench seekrandom opens one DB iterator per seek, so one table
 * iterator per source per seek). `close()` gives them back to a small module-level pool
 * (cleared: no block, no key, no readahead region; in invariants mode the key buffers are
 * overwritten, so a key view kept past close shows garbage), and the next iterator over a
 * table of the same order takes them. The closed iterator keeps no way to reach them: every
 * method of a closed iterator throws. Not thread-safe (one pool per module instance).
 */
import { type InternalIterator, invariants, ShaleError, trackClosed, trackOpen } from "@shale/base";
import type { Block } from "../block/block.js";
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockSource } from "../block/block-source.js";
import type { KeyOrder } from "../block/key-order.js";
import { Readahead } from "../block/readahead.js";
import { scanBuffers } from "../block/scan-buffers.js";
import { smallOffset } from "../block/small-offset.js";
import type { Footer } from "../format/footer.js";
import type { BlockHandle } from "../format/format.js";
import type { IndexSearch } from "../index/index-search.js";
import { TableIteratorChecks } from "./iterator-checks.js";

/**
 * What the iterator reads of its table (table-reader.ts's TableReader): an interface, so this
 * file does not import table-reader.ts (which imports this one).
 */
export interface TableIteratorSource {
  readonly order: KeyOrder;
  readonly fileName: string | undefined;
  readonly footer: Footer;
  readonly source: BlockSource;
  indexBlock(): Block;
  decodeIndexValue(index: BlockIterator, handle: BlockHandle): void;
  iteratorClosed(): void;
}

/** What a table iterator needs besides its position, pooled across iterators (see above). */
class TableIteratorParts {
  readonly order: KeyOrder;
  readonly index: BlockIterator;
  readonly data: BlockIterator;
  readonly handle: BlockHandle = { offset: 0, size: 0 };
  readonly readahead = new Readahead();

  constructor(order: KeyOrder) {
    this.order = order;
    this.index = new BlockIterator(order);
    this.data = new BlockIterator(order);
  }
}

/** Parts given back by closed iterators; at most POOL_MAX (a DB iterator holds one per source). */
const pool: TableIteratorParts[] = [];
const POOL_MAX = 16;

function takeParts(order: KeyOrder): TableIteratorParts {
  const n = pool.length;
  if (n > 0) {
    const parts = pool[n - 1]!;
    // A KeyOrder is a function of (user comparator, internal): each reader has its own
    // object, and parts built for an equal one compare the same.
    const o = parts.order;
    if (o === order || (o.user === order.user && o.internal === order.internal)) {
      pool.pop();
      return parts;
    }
  }
  return new TableIteratorParts(order);
}

function giveParts(parts: TableIteratorParts): void {
  parts.data.close();
  parts.index.close();
  // A slab's memory is the values' of the closed iterator; pooled memory goes back.
  parts.readahead.releaseMemory();
  if (invariants) {
    parts.data.keyBuf.fill(0xcc);
    parts.index.keyBuf.fill(0xcc);
  }
  if (pool.length < POOL_MAX) pool.push(parts);
}

/** @internal Test-only: how many parts the pool holds. */
export function pooledTableIteratorParts(): number {
  return pool.length;
}

export class TableIterator implements InternalIterator {
  private readonly reader: TableIteratorSource;
  private readonly fillCache: boolean;
  private readonly verify: boolean;
  private readonly parts: TableIteratorParts;
  private readonly index: BlockIterator;
  private readonly data: BlockIterator;
  private readonly handle: BlockHandle;
  private readonly readahead: Readahead;
  private readonly search: IndexSearch | undefined;
  /** Regions and slab memory are reused (`reuseScanBuffers`): values last until a move. */
  private readonly reuse: boolean;
  /** Offset of the data block loaded into `data`, or -1. */
  private loadedOffset = -1;
  /** Index entry of the loaded block while `index` is not positioned on it, else -1. */
  private pendingEntry = -1;
  private closed = false;
  /** Invariants mode only (iterator-checks.ts): order checks and mangled block copies. */
  private readonly checks: TableIteratorChecks | undefined;

  /** `reuse`: read ahead and decompress into `scanBuffers` (see scan-buffers.ts). */
  constructor(reader: TableIteratorSource, fillCache: boolean, verify: boolean, reuse = false) {
    this.reader = reader;
    this.fillCache = fillCache;
    this.verify = verify;
    this.reuse = reuse;
    const indexBlock = reader.indexBlock();
    const parts = takeParts(reader.order);
    this.parts = parts;
    this.index = parts.index.init(indexBlock, reader.fileName, reader.footer.indexHandle.offset);
    this.search = reader.order.bytewiseInternal ? indexBlock.search : undefined;
    this.data = parts.data;
    this.handle = parts.handle;
    this.readahead = parts.readahead;
    if (reuse) parts.readahead.pool = scanBuffers;
    this.checks = invariants
      ? new TableIteratorChecks(reader.order, reader.fileName, reuse)
      : undefined;
    if (invariants) trackOpen(this, `table iterator of ${reader.fileName ?? "(unnamed)"}`);
  }

  valid(): boolean {
    return this.loadedOffset >= 0 && this.data.valid();
  }

  /** Loads the data block the index points at (or marks the iterator invalid). */
  private loadBlock(): boolean {
    if (!this.index.valid()) {
      this.loadedOffset = -1;
      return false;
    }
    const h = this.handle;
    this.reader.decodeIndexValue(this.index, h);
    if (h.offset !== this.loadedOffset) {
      // Mark unloaded first so a failed read leaves the iterator invalid.
      this.loadedOffset = -1;
      const block = this.reader.source.scanDataBlock(
        h,
        this.fillCache,
        this.verify,
        this.readahead,
      );
      const checks = this.checks;
      this.data.init(
        checks === undefined ? block : checks.keep(block),
        this.reader.fileName,
        h.offset,
      );
      this.loadedOffset = smallOffset(h.offset);
    }
    return true;
  }

  /** Positions `index` on the loaded block's entry if a seek left it pending. */
  private positionIndex(): void {
    if (this.pendingEntry >= 0) {
      this.index.seekToRestart(this.pendingEntry);
      this.pendingEntry = -1;
    }
  }

  /**
   * Loads the data block of index entry `entry` (found by the search aid) unless it is
   * loaded; leaves `index` unpositioned (`pendingEntry`) unless the block had to be read.
   */
  private loadEntry(search: IndexSearch, entry: number): void {
    const offset = search.blockOffset(entry);
    this.pendingEntry = entry;
    if (offset === this.loadedOffset) return;
    this.loadedOffset = -1;
    const source = this.reader.source;
    let block: Block | undefined = source.cachedDataBlock(offset);
    if (block === undefined) {
      this.positionIndex();
      const h = this.handle;
      this.reader.decodeIndexValue(this.index, h);
      block = source.readScanBlock(h, this.fillCache, this.verify, this.readahead);
    }
    const checks = this.checks;
    this.data.init(checks === undefined ? block : checks.keep(block), this.reader.fileName, offset);
    this.loadedOffset = smallOffset(offset);
  }

  private skipEmptyForward(): void {
    while (this.loadedOffset >= 0 && !this.data.valid()) {
      this.positionIndex();
      this.index.next();
      if (!this.loadBlock()) return;
      this.data.seekToFirst();
    }
  }

  private skipEmptyBackward(): void {
    while (this.loadedOffset >= 0 && !this.data.valid()) {
      this.positionIndex();
      this.index.prev();
      if (!this.loadBlock()) return;
      this.data.seekToLast();
    }
  }

  private checkOpen(): void {
    if (this.closed) throw ShaleError.closed("table iterator is closed");
  }

  seekToFirst(): void {
    this.checkOpen();
    this.pendingEntry = -1;
    this.index.seekToFirst();
    if (this.loadBlock()) this.data.seekToFirst();
    this.skipEmptyForward();
  }

  seekToLast(): void {
    this.checkOpen();
    this.pendingEntry = -1;
    this.index.seekToLast();
    if (this.loadBlock()) this.data.seekToLast();
    this.skipEmptyBackward();
  }

  seek(target: Uint8Array): void {
    this.checkOpen();
    const search = this.search;
    if (search !== undefined) {
      const entry = search.lowerBound(target);
      if (entry >= search.count) {
        // Past the last block: invalid (`index` is repositioned by the next seek).
        this.pendingEntry = -1;
        this.loadedOffset = -1;
        return;
      }
      this.loadEntry(search, entry);
      this.data.seek(target);
    } else {
      this.pendingEntry = -1;
      this.index.seek(target);
      if (this.loadBlock()) this.data.seek(target);
    }
    this.skipEmptyForward();
  }

  seekForPrev(target: Uint8Array): void {
    this.checkOpen();
    const search = this.search;
    if (search !== undefined) {
      const entry = Math.min(search.lowerBound(target), search.count - 1);
      this.loadEntry(search, entry);
      this.data.seekForPrev(target);
    } else {
      this.pendingEntry = -1;
      this.index.seek(target);
      if (!this.index.valid()) this.index.seekToLast();
      if (this.loadBlock()) this.data.seekForPrev(target);
    }
    this.skipEmptyBackward();
  }

  next(): void {
    if (!this.valid()) throw new RangeError("next() on an invalid iterator");
    const checks = this.checks;
    if (checks !== undefined) checks.remember(this.data.key());
    this.data.next();
    this.skipEmptyForward();
    if (checks !== undefined && this.valid()) checks.check(this.data.key(), 1, this.loadedOffset);
  }

  prev(): void {
    if (!this.valid()) throw new RangeError("prev() on an invalid iterator");
    const checks = this.checks;
    if (checks !== undefined) checks.remember(this.data.key());
    this.data.prev();
    this.skipEmptyBackward();
    if (checks !== undefined && this.valid()) checks.check(this.data.key(), -1, this.loadedOffset);
  }

  key(): Uint8Array {
    if (!this.valid()) throw new RangeError("key() on an invalid iterator");
    return this.data.key();
  }

  value(): Uint8Array {
    if (!this.valid()) throw new RangeError("value() on an invalid iterator");
    return this.data.value();
  }

  /**
   * The data block iterator's step hint: every move of this iterator ends in a move of it,
   * and a step onto another block starts it afresh there (-1).
   */
  userKeyDiffersAt(): number {
    return this.valid() ? this.data.userKeyDiffersAt() : -1;
  }

  /**
   * True unless the iterator reuses its memory (`reuseScanBuffers`) or the block is a
   * recycling cache's: a data block's bytes are never rewritten (BlockIterator.isValuePinned).
   */
  isValuePinned(): boolean {
    if (this.reuse) return false;
    return this.data.isValuePinned();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.loadedOffset = -1;
    this.pendingEntry = -1;
    this.checks?.mangle();
    giveParts(this.parts);
    if (invariants) trackClosed(this);
    this.reader.iteratorClosed();
  }
}
