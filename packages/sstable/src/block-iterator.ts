/**
 * BlockIterator: an InternalIterator over one key/value block (format in `block-builder.ts`).
 *
 * Seek: binary search over the restart points (each restart entry stores its key whole),
 * then a linear scan of at most `restartInterval` entries.
 *
 * Reverse (`prev`): RocksDB's approach. Entries only decode forwards (each key is a delta on
 * the previous one), so `prev` goes back to the restart point before the current entry,
 * decodes that run forwards once and caches every entry of it (offsets plus a copy of each
 * key); the following `prev` calls inside the same run step through the cache without
 * decoding. A reverse scan therefore decodes each entry about once, instead of
 * `restartInterval / 2` times with a plain re-scan.
 *
 * Views: `key()` is a view of the iterator's reusable key buffer, `value()` a view into the
 * block; both are created at most once per position and stay valid until the next move.
 * (`value()` bytes stay valid as long as the block is referenced; the key view's bytes change
 * on the next move.)
 *
 * Corruption (a malformed entry) throws `ShaleError` Corruption naming the file and the
 * block's offset.
 */
import { EMPTY_BYTES, type InternalIterator, ShaleError } from "@shale/base";
import type { Block } from "./block.js";
import type { KeyOrder } from "./key-order.js";

// Stride of the reverse cache records: entry offset, next offset, key start, key length,
// value offset, value length.
const STRIDE = 6;

export class BlockIterator implements InternalIterator {
  private readonly order: KeyOrder;
  private data: Uint8Array = EMPTY_BYTES;
  private block: Block | undefined = undefined;
  private restartsOffset = 0;
  private numRestarts = 0;
  private file: string | undefined = undefined;
  private blockOffset = 0;

  /** Offset of the current entry; -1 when not valid. */
  private current = -1;
  /** Offset just after the current entry. */
  private nextOffset = 0;
  /** Index of the restart run that holds the current entry. */
  private restartIndex = 0;
  /** The current key, whole, in `keyBuf[0, keyLength)`. Package-internal readers use these. */
  keyBuf: Uint8Array = new Uint8Array(64);
  keyLength = 0;
  /** The current value: `data[valueOffset, valueOffset + valueLength)`. */
  valueOffset = 0;
  valueLength = 0;
  private keyView: Uint8Array | undefined = undefined;
  private valueView: Uint8Array | undefined = undefined;

  // Reverse cache: entries of one restart run, decoded forwards.
  private cache = new Int32Array(STRIDE * 16);
  private cacheKeys = new Uint8Array(256);
  private cacheCount = 0;
  private cachePos = 0;

  constructor(order: KeyOrder) {
    this.order = order;
  }

  /** Points the iterator at `block` (unpositioned). `blockOffset` is used in errors. */
  init(block: Block, file: string | undefined, blockOffset: number): this {
    this.block = block;
    this.data = block.data;
    this.restartsOffset = block.restartsOffset;
    this.numRestarts = block.numRestarts;
    this.file = file;
    this.blockOffset = blockOffset;
    this.current = -1;
    this.cacheCount = 0;
    this.keyView = undefined;
    this.valueView = undefined;
    return this;
  }

  /** The block iterated (undefined before `init`). */
  get currentBlock(): Block | undefined {
    return this.block;
  }

  /** The block's bytes (values are views into it). */
  get blockData(): Uint8Array {
    return this.data;
  }

  valid(): boolean {
    return this.current >= 0;
  }

  key(): Uint8Array {
    if (this.current < 0) throw new RangeError("key() on an invalid iterator");
    if (this.keyView === undefined) this.keyView = this.keyBuf.subarray(0, this.keyLength);
    return this.keyView;
  }

  value(): Uint8Array {
    if (this.current < 0) throw new RangeError("value() on an invalid iterator");
    if (this.valueView === undefined) {
      this.valueView = this.data.subarray(this.valueOffset, this.valueOffset + this.valueLength);
    }
    return this.valueView;
  }

  close(): void {
    this.current = -1;
    this.block = undefined;
    this.data = EMPTY_BYTES;
    this.cacheCount = 0;
    this.keyView = undefined;
    this.valueView = undefined;
  }

  private corrupt(what: string): never {
    this.current = -1;
    throw ShaleError.corruption(`bad block entry: ${what}`, this.file, this.blockOffset);
  }

  private invalidate(): void {
    this.current = -1;
    this.keyView = undefined;
    this.valueView = undefined;
  }

  /**
   * Decodes the entry at `p` on top of the current key (its `shared` prefix must already be
   * in `keyBuf`) and makes it current.
   */
  private parseEntry(p: number): void {
    const data = this.data;
    const limit = this.restartsOffset;
    let shared: number;
    let unshared: number;
    let vlen: number;
    let q = p;
    // Fast path: all three lengths fit one byte each.
    if (p + 3 <= limit && (data[p]! | data[p + 1]! | data[p + 2]!) < 0x80) {
      shared = data[p]!;
      unshared = data[p + 1]!;
      vlen = data[p + 2]!;
      q = p + 3;
    } else {
      shared = this.varint(q, limit);
      q = this.varintEnd;
      unshared = this.varint(q, limit);
      q = this.varintEnd;
      vlen = this.varint(q, limit);
      q = this.varintEnd;
    }
    if (shared > this.keyLength)
      this.corrupt(`shared prefix ${shared} longer than the previous key`);
    const end = q + unshared + vlen;
    if (end > limit) this.corrupt("entry overruns the block");
    const keyLength = shared + unshared;
    if (keyLength > this.keyBuf.length) this.growKey(keyLength, shared);
    const kb = this.keyBuf;
    if (unshared <= 32) {
      for (let i = 0; i < unshared; i++) kb[shared + i] = data[q + i]!;
    } else {
      kb.set(data.subarray(q, q + unshared), shared);
    }
    this.keyLength = keyLength;
    this.valueOffset = q + unshared;
    this.valueLength = vlen;
    this.current = p;
    this.nextOffset = end;
    this.keyView = undefined;
    this.valueView = undefined;
  }

  private varintEnd = 0;

  private varint(p: number, limit: number): number {
    const data = this.data;
    let result = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (p >= limit) this.corrupt("truncated varint");
      const b = data[p++]!;
      if (shift === 28 && b > 0x0f) this.corrupt("varint32 overflow");
      result |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.varintEnd = p;
        return result >>> 0;
      }
    }
    return this.corrupt("varint32 too long");
  }

  private growKey(need: number, keep: number): void {
    const grown = new Uint8Array(Math.max(need, this.keyBuf.length * 2));
    grown.set(this.keyBuf.subarray(0, keep));
    this.keyBuf = grown;
  }

  /** Positions at the restart point `i` (its key is stored whole). */
  private seekToRestart(i: number): void {
    this.restartIndex = i;
    this.keyLength = 0;
    this.parseEntry(this.block!.restartPoint(i));
  }

  /** Moves to the entry after the current one, or invalidates at the end of the block. */
  private advance(): void {
    const p = this.nextOffset;
    if (p >= this.restartsOffset) {
      this.invalidate();
      return;
    }
    const block = this.block!;
    if (
      this.restartIndex + 1 < this.numRestarts &&
      block.restartPoint(this.restartIndex + 1) <= p
    ) {
      this.restartIndex++;
    }
    this.parseEntry(p);
  }

  seekToFirst(): void {
    if (this.restartsOffset <= 0) {
      this.invalidate();
      return;
    }
    this.seekToRestart(0);
  }

  seekToLast(): void {
    if (this.restartsOffset <= 0) {
      this.invalidate();
      return;
    }
    this.seekToRestart(this.numRestarts - 1);
    while (this.nextOffset < this.restartsOffset) this.parseEntry(this.nextOffset);
  }

  /** Compares the key stored whole at restart point `i` with `target`. */
  private compareRestartKey(i: number, target: Uint8Array): number {
    const data = this.data;
    const limit = this.restartsOffset;
    let p = this.block!.restartPoint(i);
    let shared: number;
    let unshared: number;
    if (p + 3 <= limit && (data[p]! | data[p + 1]! | data[p + 2]!) < 0x80) {
      shared = data[p]!;
      unshared = data[p + 1]!;
      p += 3;
    } else {
      shared = this.varint(p, limit);
      unshared = this.varint(this.varintEnd, limit);
      this.varint(this.varintEnd, limit);
      p = this.varintEnd;
    }
    if (shared !== 0) this.corrupt(`restart entry ${i} has a shared prefix`);
    if (p + unshared > limit) this.corrupt("restart key overruns the block");
    return this.order.compareAt(data, p, unshared, target);
  }

  seek(target: Uint8Array): void {
    if (this.restartsOffset <= 0) {
      this.invalidate();
      return;
    }
    // The last restart point whose key is < target (or 0).
    let left = 0;
    let right = this.numRestarts - 1;
    while (left < right) {
      const mid = (left + right + 1) >>> 1;
      if (this.compareRestartKey(mid, target) < 0) left = mid;
      else right = mid - 1;
    }
    this.seekToRestart(left);
    const order = this.order;
    while (order.compareAt(this.keyBuf, 0, this.keyLength, target) < 0) {
      if (this.nextOffset >= this.restartsOffset) {
        this.invalidate();
        return;
      }
      this.advance();
    }
  }

  seekForPrev(target: Uint8Array): void {
    this.seek(target);
    if (this.current < 0) {
      this.seekToLast();
    } else if (this.order.compareAt(this.keyBuf, 0, this.keyLength, target) > 0) {
      this.prev();
    }
  }

  next(): void {
    if (this.current < 0) throw new RangeError("next() on an invalid iterator");
    this.advance();
  }

  prev(): void {
    const cur = this.current;
    if (cur < 0) throw new RangeError("prev() on an invalid iterator");
    const cache = this.cache;
    if (this.cacheCount > 0 && this.cachePos > 0 && cache[this.cachePos * STRIDE] === cur) {
      this.cachePos--;
      this.loadCached();
      return;
    }
    if (cur === 0) {
      this.invalidate();
      return;
    }
    // The restart run holding the entry before `cur`.
    const block = this.block!;
    let r = this.restartIndex;
    if (block.restartPoint(r) >= cur) r--;
    this.fillCache(r, cur);
    this.cachePos = this.cacheCount - 1;
    this.loadCached();
  }

  /** Decodes restart run `r` forwards up to (not including) the entry at `stop`, caching each entry. */
  private fillCache(r: number, stop: number): void {
    this.cacheCount = 0;
    let used = 0;
    this.seekToRestart(r);
    for (;;) {
      const n = this.cacheCount;
      if ((n + 1) * STRIDE > this.cache.length) {
        const grown = new Int32Array(this.cache.length * 2);
        grown.set(this.cache);
        this.cache = grown;
      }
      if (used + this.keyLength > this.cacheKeys.length) {
        const grown = new Uint8Array(Math.max(used + this.keyLength, this.cacheKeys.length * 2));
        grown.set(this.cacheKeys.subarray(0, used));
        this.cacheKeys = grown;
      }
      this.cacheKeys.set(this.keyBuf.subarray(0, this.keyLength), used);
      const c = this.cache;
      const base = n * STRIDE;
      c[base] = this.current;
      c[base + 1] = this.nextOffset;
      c[base + 2] = used;
      c[base + 3] = this.keyLength;
      c[base + 4] = this.valueOffset;
      c[base + 5] = this.valueLength;
      used += this.keyLength;
      this.cacheCount = n + 1;
      if (this.nextOffset >= stop) break;
      this.parseEntry(this.nextOffset);
    }
    this.restartIndex = r;
  }

  private loadCached(): void {
    const c = this.cache;
    const base = this.cachePos * STRIDE;
    const keyStart = c[base + 2]!;
    const keyLength = c[base + 3]!;
    if (keyLength > this.keyBuf.length) this.growKey(keyLength, 0);
    this.keyBuf.set(this.cacheKeys.subarray(keyStart, keyStart + keyLength));
    this.keyLength = keyLength;
    this.current = c[base]!;
    this.nextOffset = c[base + 1]!;
    this.valueOffset = c[base + 4]!;
    this.valueLength = c[base + 5]!;
    this.keyView = undefined;
    this.valueView = undefined;
  }
}
