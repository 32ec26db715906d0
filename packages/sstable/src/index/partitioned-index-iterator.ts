/**
 * An iterator over the entries of a partitioned index (partitioned-index.ts) as if it were
 * one index block: a position is (partition, entry), and moving off either end of a
 * partition steps to the neighbouring one (skipping empty partitions), RocksDB's
 * `PartitionedIndexIterator`. Its value is the current entry's data-block handle.
 *
 *   seek(t):  partition = first whose last key >= t; then seek(t) inside it
 *   seekToFirst / seekToLast: the first / last entry of the first / last non-empty partition
 *
 * Not thread-safe.
 */

import { BlockIterator } from "../block/block-iterator.js";
import type { KeyOrder } from "../block/key-order.js";
import type { BlockHandle } from "../format/format.js";
import { decodeIndexHandle, type PartitionedIndex } from "./partitioned-index.js";

export class PartitionedIndexIterator {
  private readonly index: PartitionedIndex;
  private readonly fileName: string | undefined;
  /** The iterator inside the current partition. */
  readonly entries: BlockIterator;
  /** The current partition, or -1 (invalid). */
  partition = -1;
  private readonly cursor = new Int32Array(1);

  constructor(index: PartitionedIndex, order: KeyOrder, fileName: string | undefined) {
    this.index = index;
    this.fileName = fileName;
    this.entries = new BlockIterator(order);
  }

  valid(): boolean {
    return this.partition >= 0 && this.entries.valid();
  }

  /** Loads partition `i` into `entries` (unpositioned). */
  private enter(i: number): void {
    const index = this.index;
    this.partition = i;
    this.entries.init(index.partition(i), this.fileName, index.offsetOf(i));
  }

  private invalidate(): void {
    this.partition = -1;
    if (this.entries.currentBlock !== undefined) this.entries.close();
  }

  /** The first entry >= `target` (an internal key), or invalid past the last. */
  seek(target: Uint8Array): void {
    const i = this.index.lowerBound(target);
    if (i >= this.index.count) {
      this.invalidate();
      return;
    }
    this.enter(i);
    this.entries.seek(target);
    this.skipForward();
  }

  seekToFirst(): void {
    if (this.index.count === 0) {
      this.invalidate();
      return;
    }
    this.enter(0);
    this.entries.seekToFirst();
    this.skipForward();
  }

  seekToLast(): void {
    const n = this.index.count;
    if (n === 0) {
      this.invalidate();
      return;
    }
    this.enter(n - 1);
    this.entries.seekToLast();
    this.skipBackward();
  }

  /** REQUIRES: valid(). */
  next(): void {
    this.entries.next();
    this.skipForward();
  }

  /** REQUIRES: valid(). */
  prev(): void {
    this.entries.prev();
    this.skipBackward();
  }

  private skipForward(): void {
    while (!this.entries.valid()) {
      const i = this.partition + 1;
      if (i >= this.index.count) {
        this.invalidate();
        return;
      }
      this.enter(i);
      this.entries.seekToFirst();
    }
  }

  private skipBackward(): void {
    while (!this.entries.valid()) {
      const i = this.partition - 1;
      if (i < 0) {
        this.invalidate();
        return;
      }
      this.enter(i);
      this.entries.seekToLast();
    }
  }

  /** Decodes the current entry's data-block handle into `out`. REQUIRES: valid(). */
  handle(out: BlockHandle): void {
    const at = this.index.offsetOf(this.partition);
    decodeIndexHandle(this.entries, out, this.cursor, this.fileName, at, false);
  }

  /** Leaves the partition (an unpinned one may leave the cache). */
  close(): void {
    this.invalidate();
  }
}
