/**
 * A point lookup through a partitioned index (partitioned-index.ts): the top level picks the
 * partition, the partition's search aid (or a seek in it) the data block, whose offset comes
 * from the aid so that a cached block is found without decoding the index entry (through
 * the partition's data-block slots, as a one-block index's). Then the data block is read
 * as `TableReader.get` reads it. A lookup that goes on past the block's end (merge operands
 * of a user key spanning blocks) walks on with a `PartitionedIndexIterator`.
 *
 * Not thread-safe; calls are not re-entrant (scratch iterators).
 */
import type { LookupResult } from "@shale/base";
import type { Block } from "../block/block.js";
import { BlockIterator } from "../block/block-iterator.js";
import type { BlockSource } from "../block/block-source.js";
import type { KeyOrder } from "../block/key-order.js";
import type { BlockHandle } from "../format/format.js";
import { decodeIndexHandle, type PartitionedIndex } from "./partitioned-index.js";
import { PartitionedIndexIterator } from "./partitioned-index-iterator.js";

/** What the lookup needs of its table reader (an interface: table-reader.ts imports this file). */
export interface PartitionedGetHost {
  readonly order: KeyOrder;
  readonly fileName: string | undefined;
  readonly source: BlockSource;
  /** TableReader's fold: true if the block ended with the lookup still going on. */
  fold(it: BlockIterator, userKey: Uint8Array, result: LookupResult, blockOffset: number): boolean;
}

export class PartitionedGet {
  private readonly index: PartitionedIndex;
  private readonly host: PartitionedGetHost;
  /** No user key spans two data blocks: a lookup never goes on into the next block. */
  private readonly indexKeyIsUserKey: boolean;
  private readonly entries: BlockIterator;
  private readonly data: BlockIterator;
  private readonly handle: BlockHandle = { offset: 0, size: 0 };
  private readonly cursor = new Int32Array(1);
  private walker: PartitionedIndexIterator | undefined;

  constructor(index: PartitionedIndex, host: PartitionedGetHost, indexKeyIsUserKey: boolean) {
    this.index = index;
    this.host = host;
    this.indexKeyIsUserKey = indexKeyIsUserKey;
    this.entries = new BlockIterator(host.order);
    this.data = new BlockIterator(host.order);
  }

  /** Folds `userKey`'s entries at `target` (`userKey#snapshot`) into `result`. */
  run(
    target: Uint8Array,
    userKey: Uint8Array,
    result: LookupResult,
    fill: boolean,
    verify: boolean,
  ): void {
    const index = this.index;
    const p = index.lowerBound(target);
    if (p >= index.count) return;
    const host = this.host;
    const source = host.source;
    const file = host.fileName;
    const handle = this.handle;
    const entries = this.entries;
    const it = this.data;
    try {
      const partition = index.partition(p);
      const at = index.offsetOf(p);
      const search = partition.search;
      let block: Block | undefined;
      if (search !== undefined) {
        const entry = search.lowerBound(target);
        if (entry >= search.count) return;
        handle.offset = search.blockOffset(entry);
        block = source.cachedDataBlockAt(partition, entry, handle.offset);
        if (block === undefined) {
          entries.init(partition, file, at).seekToRestart(entry);
          decodeIndexHandle(entries, handle, this.cursor, file, at, false);
          block = source.readDataBlock(handle, fill, verify, partition, entry);
        }
      } else {
        entries.init(partition, file, at).seek(target);
        if (!entries.valid()) return;
        decodeIndexHandle(entries, handle, this.cursor, file, at, false);
        block = source.dataBlock(handle, fill, verify);
      }
      it.init(block, file, handle.offset);
      if (!it.seekForGet(target, userKey)) return;
      if (!host.fold(it, userKey, result, handle.offset)) return;
      if (!this.indexKeyIsUserKey) this.goOn(target, userKey, result, fill, verify);
    } finally {
      it.close();
      if (entries.currentBlock !== undefined) entries.close();
    }
  }

  /**
   * The block ended inside the lookup: while the current separator has the user key (so the
   * next block may hold more of its entries), fold the next blocks.
   */
  private goOn(
    target: Uint8Array,
    userKey: Uint8Array,
    result: LookupResult,
    fill: boolean,
    verify: boolean,
  ): void {
    const host = this.host;
    const order = host.order;
    const handle = this.handle;
    const it = this.data;
    let walker = this.walker;
    if (walker === undefined) {
      walker = new PartitionedIndexIterator(this.index, order, host.fileName);
      this.walker = walker;
    }
    try {
      // The same entry the lookup started from (the first >= target).
      walker.seek(target);
      for (;;) {
        if (!walker.valid()) return;
        const sep = walker.entries;
        if (order.compareUserKeyAt(sep.keyBuf, 0, sep.keyLength, userKey) !== 0) return;
        walker.next();
        if (!walker.valid()) return;
        walker.handle(handle);
        it.init(host.source.dataBlock(handle, fill, verify), host.fileName, handle.offset);
        it.seekToFirst();
        if (!host.fold(it, userKey, result, handle.offset)) return;
      }
    } finally {
      walker.close();
    }
  }
}
