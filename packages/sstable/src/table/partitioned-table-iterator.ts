/**
 * The table iterator of a table with a partitioned index: TableIterator's two levels
 * (index -> data blocks) with a `PartitionedIndexIterator` (top level -> partition) as the
 * index, so three levels in all. A separate class, chosen when the reader opens
 * (`TableReader.newIterator`): the one-block index's iterator keeps its single shape.
 *
 *   seek(t):        index.seek(t) -> data.seek(t), else the first entry of the following blocks
 *   seekForPrev(t): index.seek(t) (or the last block) -> data.seekForPrev(t), else the last
 *                   entry of the preceding blocks
 *
 * Data blocks come through `BlockSource.scanDataBlock` (block cache, readahead), as
 * TableIterator's. In invariants mode it checks order and reads private block copies
 * (iterator-checks.ts). Not thread-safe.
 */
import { type InternalIterator, invariants, ShaleError, trackClosed, trackOpen } from "@shale/base";
import { BlockIterator } from "../block/block-iterator.js";
import { Readahead } from "../block/readahead.js";
import { scanBuffers } from "../block/scan-buffers.js";
import { smallOffset } from "../block/small-offset.js";
import type { BlockHandle } from "../format/format.js";
import type { PartitionedIndex } from "../index/partitioned-index.js";
import { PartitionedIndexIterator } from "../index/partitioned-index-iterator.js";
import { TableIteratorChecks } from "./iterator-checks.js";
import type { TableIteratorSource } from "./table-iterator.js";

export class PartitionedTableIterator implements InternalIterator {
  private readonly reader: TableIteratorSource;
  private readonly fillCache: boolean;
  private readonly verify: boolean;
  private readonly index: PartitionedIndexIterator;
  private readonly data: BlockIterator;
  private readonly handle: BlockHandle = { offset: 0, size: 0 };
  private readonly readahead = new Readahead();
  /** Regions and slab memory are reused (`reuseScanBuffers`): values last until a move. */
  private readonly reuse: boolean;
  /** Offset of the data block loaded into `data`, or -1. */
  private loadedOffset = -1;
  private closed = false;
  private readonly checks: TableIteratorChecks | undefined;

  constructor(
    reader: TableIteratorSource,
    partitioned: PartitionedIndex,
    fillCache: boolean,
    verify: boolean,
    reuse = false,
  ) {
    this.reader = reader;
    this.fillCache = fillCache;
    this.verify = verify;
    this.reuse = reuse;
    if (reuse) this.readahead.pool = scanBuffers;
    this.index = new PartitionedIndexIterator(partitioned, reader.order, reader.fileName);
    this.data = new BlockIterator(reader.order);
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
    this.index.handle(h);
    if (h.offset !== this.loadedOffset) {
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

  private skipEmptyForward(): void {
    while (this.loadedOffset >= 0 && !this.data.valid()) {
      this.index.next();
      if (!this.loadBlock()) return;
      this.data.seekToFirst();
    }
  }

  private skipEmptyBackward(): void {
    while (this.loadedOffset >= 0 && !this.data.valid()) {
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
    this.index.seekToFirst();
    if (this.loadBlock()) this.data.seekToFirst();
    this.skipEmptyForward();
  }

  seekToLast(): void {
    this.checkOpen();
    this.index.seekToLast();
    if (this.loadBlock()) this.data.seekToLast();
    this.skipEmptyBackward();
  }

  seek(target: Uint8Array): void {
    this.checkOpen();
    this.index.seek(target);
    if (this.loadBlock()) this.data.seek(target);
    this.skipEmptyForward();
  }

  seekForPrev(target: Uint8Array): void {
    this.checkOpen();
    this.index.seek(target);
    if (!this.index.valid()) this.index.seekToLast();
    if (this.loadBlock()) this.data.seekForPrev(target);
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

  /** The data block iterator's step hint (see TableIterator.userKeyDiffersAt). */
  userKeyDiffersAt(): number {
    return this.valid() ? this.data.userKeyDiffersAt() : -1;
  }

  /** As TableIterator's: false when the iterator reuses its memory (`reuseScanBuffers`). */
  isValuePinned(): boolean {
    if (this.reuse) return false;
    return this.data.isValuePinned();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.loadedOffset = -1;
    this.checks?.mangle();
    this.data.close();
    this.index.close();
    this.readahead.releaseMemory();
    if (invariants) trackClosed(this);
    this.reader.iteratorClosed();
  }
}
