/**
 * The memtable's InternalIterator: walks the skiplist's level 0. `prev()` and
 * `seekForPrev()` search from the head again (no back pointers, as in RocksDB), so a
 * backward step costs O(log n).
 */
import { EMPTY_BYTES, type InternalIterator, ShaleError, TRAILER_SIZE } from "@shale/base";
import { readVarint32, varintEnd } from "./entry.js";
import type { SkipList } from "./skiplist.js";

export class MemTableIterator implements InternalIterator {
  private readonly list: SkipList;
  /** Current node; 0 when not valid. */
  private node = 0;
  /** Views of the current entry, built on first access after a move. */
  private keyView: Uint8Array = EMPTY_BYTES;
  private valueView: Uint8Array = EMPTY_BYTES;
  private viewsFor = -1;

  constructor(list: SkipList) {
    this.list = list;
  }

  valid(): boolean {
    return this.node !== 0;
  }

  seekToFirst(): void {
    this.node = this.list.next(this.list.head, 0);
  }

  seekToLast(): void {
    this.node = this.list.findLast();
  }

  seek(target: Uint8Array): void {
    checkTarget(target);
    this.list.setTargetInternal(target);
    this.node = this.list.findGreaterOrEqual();
  }

  seekForPrev(target: Uint8Array): void {
    checkTarget(target);
    this.list.setTargetInternal(target);
    this.node = this.list.findLessThan(true);
  }

  next(): void {
    if (this.node === 0) throw new RangeError("next() on an invalid iterator");
    this.node = this.list.next(this.node, 0);
  }

  prev(): void {
    if (this.node === 0) throw new RangeError("prev() on an invalid iterator");
    this.list.setTargetNode(this.node);
    this.node = this.list.findLessThan(false);
  }

  /** The internal key: a view into the arena, valid while the memtable lives. REQUIRES: valid(). */
  key(): Uint8Array {
    if (this.viewsFor !== this.node) this.loadViews();
    return this.keyView;
  }

  /** The value: a view into the arena, valid while the memtable lives. REQUIRES: valid(). */
  value(): Uint8Array {
    if (this.viewsFor !== this.node) this.loadViews();
    return this.valueView;
  }

  close(): void {
    this.node = 0;
    this.keyView = EMPTY_BYTES;
    this.valueView = EMPTY_BYTES;
    this.viewsFor = -1;
  }

  private loadViews(): void {
    const node = this.node;
    if (node === 0) throw new RangeError("key()/value() on an invalid iterator");
    const arena = this.list.arena;
    const address = this.list.entryOf(node);
    const chunk = arena.entryChunks[address >>> arena.shift]!;
    const ikeyLength = readVarint32(chunk, address & arena.mask);
    const keyStart = varintEnd;
    const valueLength = readVarint32(chunk, keyStart + ikeyLength);
    const valueStart = varintEnd;
    this.keyView = chunk.subarray(keyStart, keyStart + ikeyLength);
    this.valueView = chunk.subarray(valueStart, valueStart + valueLength);
    this.viewsFor = node;
  }
}

function checkTarget(target: Uint8Array): void {
  if (!(target instanceof Uint8Array)) throw new TypeError("seek target must be a Uint8Array");
  if (target.length < TRAILER_SIZE) {
    throw ShaleError.invalidArgument(`seek target is not an internal key (${target.length} bytes)`);
  }
}
