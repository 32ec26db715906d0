/**
 * BlockIterator: an InternalIterator over one key/value block (format in `block-builder.ts`).
 *
 * Seek: binary search over the restart points (each restart entry stores its key whole) for
 * the last one below the target, then a scan of its run, which stops at the next restart
 * point without comparing (its key is known >= target). Fast paths, for internal keys with
 * bytewise user keys (`KeyOrder.bytewiseInternal`):
 * - index blocks with an `IndexSearch` (one entry per restart): the search aid's lower
 *   bound, then only the entry found is decoded;
 * - data blocks: the restart entries, then the run's lines, are touched first (prefetching,
 *   see `run-scan.ts`), keys are compared in place against the block bytes
 *   (`compareInternalBytewise`), and the run is scanned without rebuilding keys
 *   (`scanRun`); only the entry found gets its key rebuilt.
 *
 * Point lookups (`seekForGet`) in a data block with a hash index (data-block-hash-index.ts)
 * go straight to the restart run the hash names and scan it, without the binary search;
 * `seek` binary-searches every block, as RocksDB's does.
 *
 * Reverse (`prev`): RocksDB's approach. Entries only decode forwards (each key is a delta on
 * the previous one), so `prev` goes back to the restart point before the current entry,
 * decodes that run forwards once and caches every entry of it (offsets plus a copy of each
 * key); the following `prev` calls inside the same run step through the cache without
 * decoding. A reverse scan therefore decodes each entry about once, instead of
 * `restartInterval / 2` times with a plain re-scan.
 *
 * Views: `key()` is a view of the iterator's reusable key buffer, `value()` a view into the
 * block; both stay valid until the next move. `value()` is created at most once per
 * position and its bytes stay valid as long as the block is referenced — for a block of a
 * recycling cache, while the iterator is in the block (`init` acquires a block, moving to
 * another block or `close` releases it; see `isValuePinned`). The key view's
 * bytes change on the next move, so the same view object is handed out again while the key
 * length does not change (no allocation per entry for fixed-length keys).
 *
 * Corruption (a malformed entry) throws `ShaleError` Corruption naming the file and the
 * block's offset.
 */
import {
  EMPTY_BYTES,
  type InternalIterator,
  pooledBytes,
  ShaleError,
  TRAILER_SIZE,
  varint32Before,
  varintEnd,
} from "@shale/base";
import type { IndexSearch } from "../index/index-search.js";
import type { Block } from "./block.js";
import { HASH_COLLISION, HASH_NO_ENTRY, hashBucketOf } from "./data-block-hash-index.js";
import { compareInternalBytewise, type KeyOrder } from "./key-order.js";
import { restartAt } from "./restart-array.js";
import { RunCache } from "./run-cache.js";
import {
  copyFoundKey,
  MAX_TOUCHED_RESTARTS,
  MAX_TOUCHED_RUN,
  SCAN_RUN_END,
  scanRun,
  touchLines,
  touchRestartEntries,
} from "./run-scan.js";
import { smallOffset } from "./small-offset.js";

export class BlockIterator implements InternalIterator {
  private readonly order: KeyOrder;
  /** Internal keys with bytewise user keys: compare with `compareInternalBytewise`. */
  private readonly bytewiseInternal: boolean;
  private data: Uint8Array = EMPTY_BYTES;
  /** `data.buffer` and `data.byteOffset` (from the block: reading `buffer` is costly). */
  private dataBuffer: ArrayBufferLike = EMPTY_BYTES.buffer;
  private dataByteOffset = 0;
  private block: Block | undefined = undefined;
  private search: IndexSearch | undefined = undefined;
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
  /** Offset of restart point `restartIndex + 1` (`restartsOffset` after the last run). */
  private nextRestart = 0;
  /** The current key, whole, in `keyBuf[0, keyLength)`. Package-internal readers use these. */
  keyBuf: Uint8Array = pooledBytes(64); // views are taken of it (see pooledBytes)
  keyLength = 0;
  /** The current value: `data[valueOffset, valueOffset + valueLength)`. */
  valueOffset = 0;
  valueLength = 0;
  private keyView: Uint8Array | undefined = undefined;
  private valueView: Uint8Array | undefined = undefined;
  /**
   * What `parseEntry` learnt of the entry it decoded against the key in `keyBuf` before:
   * the first byte where their user keys differ, or -1 (see `userKeyDiffersAt`).
   */
  private parsedDiff = -1;
  /** `userKeyDiffersAt()`: `parsedDiff` of the last `next()`, -1 after any other move. */
  private diffAt = -1;

  /** @internal Sink of the prefetching loads (`run-scan.ts`), so they are not optimized away. */
  touched = 0;

  /** Reverse cache: the entries of one restart run, decoded forwards (for `prev`). */
  private readonly runCache = new RunCache();

  constructor(order: KeyOrder) {
    this.order = order;
    this.bytewiseInternal = order.bytewiseInternal;
  }

  /** Points the iterator at `block` (unpositioned). `blockOffset` is used in errors. */
  init(block: Block, file: string | undefined, blockOffset: number): this {
    this.diffAt = -1;
    // Acquire before releasing: re-initializing on the same block must not free it.
    block.acquire();
    const previous = this.block;
    if (previous !== undefined) previous.release();
    this.block = block;
    this.data = block.data;
    this.dataBuffer = block.buffer;
    this.dataByteOffset = block.byteOffset;
    this.search = this.bytewiseInternal ? block.search : undefined;
    this.restartsOffset = block.restartsOffset;
    this.numRestarts = block.numRestarts;
    this.file = file;
    this.blockOffset = smallOffset(blockOffset);
    this.current = -1;
    this.runCache.clear();
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
    let view = this.keyView;
    if (view === undefined || view.length !== this.keyLength) {
      const kb = this.keyBuf;
      // new Uint8Array(buffer, ...) is cheaper than subarray (no species lookup).
      view = new Uint8Array(kb.buffer, kb.byteOffset, this.keyLength);
      this.keyView = view;
    }
    return view;
  }

  value(): Uint8Array {
    if (this.current < 0) throw new RangeError("value() on an invalid iterator");
    if (this.valueView === undefined) {
      this.valueView = new Uint8Array(
        this.dataBuffer,
        this.dataByteOffset + this.valueOffset,
        this.valueLength,
      );
    }
    return this.valueView;
  }

  /**
   * After `next()`: where the current user key first differs from the previous entry's (its
   * shared-prefix length, when the byte there differs), else -1; -1 after any other move
   * and at the first entry of a block (InternalIterator's step hint).
   */
  userKeyDiffersAt(): number {
    return this.current < 0 ? -1 : this.diffAt;
  }

  /**
   * True unless the block's memory is recyclable (a block of a recycling cache, see
   * `Block.recyclable`): other blocks' bytes are never rewritten once read (a cached block
   * owns its memory; an uncached one is carved from a BlockSlab or a readahead region,
   * neither reused), so a value view keeps its bytes for as long as it is referenced. A
   * recyclable block's values keep their bytes while this iterator is in the block only.
   */
  isValuePinned(): boolean {
    const block = this.block;
    return block === undefined || !block.recyclable;
  }

  close(): void {
    this.current = -1;
    this.diffAt = -1;
    const block = this.block;
    this.block = undefined;
    if (block !== undefined) block.release();
    this.search = undefined;
    this.data = EMPTY_BYTES;
    this.dataBuffer = EMPTY_BYTES.buffer;
    this.runCache.clear();
    this.keyView = undefined;
    this.valueView = undefined;
  }

  private corrupt(what: string): never {
    this.current = -1;
    throw ShaleError.corruption(`bad block entry: ${what}`, this.file, this.blockOffset);
  }

  private invalidate(): void {
    this.current = -1;
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
    // The two keys agree on [0, shared); if both user keys go past it and byte `shared`
    // differs, that is where they part (an encoder need not make `shared` the longest
    // common prefix, so the byte is checked; a restart entry has shared = 0).
    this.parsedDiff =
      shared < this.keyLength - TRAILER_SIZE &&
      shared < keyLength - TRAILER_SIZE &&
      this.keyBuf[shared] !== data[q]
        ? shared
        : -1;
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
    this.valueView = undefined;
  }

  private varintEnd = 0;

  /** The varint32 at `p` (before `limit`), by @shale/base's decoder; Corruption if malformed. */
  private varint(p: number, limit: number): number {
    const v = varint32Before(this.data, p, limit);
    if (v < 0) this.corrupt(`malformed varint32 at ${p}`);
    this.varintEnd = varintEnd;
    return v;
  }

  private growKey(need: number, keep: number): void {
    const grown = new Uint8Array(Math.max(need, this.keyBuf.length * 2));
    grown.set(this.keyBuf.subarray(0, keep));
    this.keyBuf = grown;
    this.keyView = undefined;
  }

  /**
   * @internal Positions at restart point `i` (its entry's key is stored whole).
   * REQUIRES: 0 <= i < number of restart points; the block is not empty.
   */
  seekToRestart(i: number): void {
    this.diffAt = -1;
    const data = this.data;
    const limit = this.restartsOffset;
    this.restartIndex = i;
    this.nextRestart = i + 1 < this.numRestarts ? restartAt(data, limit, i + 1) : limit;
    this.keyLength = 0;
    this.parseEntry(restartAt(data, limit, i));
  }

  /** Moves to the entry after the current one, or invalidates at the end of the block. */
  private advance(): void {
    const p = this.nextOffset;
    if (p >= this.restartsOffset) {
      this.invalidate();
      return;
    }
    if (p >= this.nextRestart) {
      const r = ++this.restartIndex;
      const limit = this.restartsOffset;
      this.nextRestart = r + 1 < this.numRestarts ? restartAt(this.data, limit, r + 1) : limit;
    }
    this.parseEntry(p);
  }

  seekToFirst(): void {
    this.diffAt = -1;
    if (this.restartsOffset <= 0) {
      this.invalidate();
      return;
    }
    this.seekToRestart(0);
  }

  seekToLast(): void {
    this.diffAt = -1;
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
    let p = restartAt(data, limit, i);
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
    return this.bytewiseInternal
      ? compareInternalBytewise(data, p, unshared, target, target.length)
      : this.order.compareAt(data, p, unshared, target);
  }

  /** Compares the current key with `target`. */
  private compareCurrent(target: Uint8Array): number {
    return this.bytewiseInternal
      ? compareInternalBytewise(this.keyBuf, 0, this.keyLength, target, target.length)
      : this.order.compareAt(this.keyBuf, 0, this.keyLength, target);
  }

  /**
   * Binary search over the restart points for the last one whose key is < target, then a
   * scan of its run. Entries from the next restart point on are known to be >= target, so
   * the scan stops there without comparing.
   */
  seek(target: Uint8Array): void {
    this.diffAt = -1;
    const limit = this.restartsOffset;
    if (limit <= 0) {
      this.invalidate();
      return;
    }
    const n = this.numRestarts;
    const search = this.search;
    if (search !== undefined) {
      // An index block: one entry per restart point.
      const i = search.lowerBound(target);
      if (i >= n) this.invalidate();
      else this.seekToRestart(i);
      return;
    }
    if (n <= MAX_TOUCHED_RESTARTS) this.touched = touchRestartEntries(this.data, limit, n);
    let left = 0;
    // Restart `left`'s key was compared and is < target.
    let leftBelow = false;
    let right = n - 1;
    while (left < right) {
      const mid = (left + right + 1) >>> 1;
      if (this.compareRestartKey(mid, target) < 0) {
        left = mid;
        leftBelow = true;
      } else {
        right = mid - 1;
      }
    }
    if (this.bytewiseInternal) {
      const runStart = restartAt(this.data, limit, left);
      const runEnd = left + 1 < n ? restartAt(this.data, limit, left + 1) : limit;
      if (runEnd - runStart <= MAX_TOUCHED_RUN) {
        this.touched += touchLines(this.data, runStart + 64, runEnd);
      }
      const found = scanRun(this.data, runStart, runEnd, limit, target);
      if (found >= 0) {
        this.loadScanned(left, runEnd, found, target);
        return;
      }
      if (found === SCAN_RUN_END) {
        if (runEnd >= limit) this.invalidate();
        else this.seekToRestart(left + 1);
        return;
      }
      // SCAN_FALLBACK: the plain scan below.
    }
    this.seekToRestart(left);
    if (!leftBelow && this.compareCurrent(target) >= 0) return;
    for (;;) {
      const p = this.nextOffset;
      if (p >= this.nextRestart) {
        // The next restart point's key is >= target (or the block ends).
        this.advance();
        return;
      }
      this.parseEntry(p);
      if (this.compareCurrent(target) >= 0) return;
    }
  }

  /**
   * Positions for a point lookup of `target` (an internal key whose user key is `userKey`;
   * RocksDB's `DataBlockIter::SeekForGet`): at the first entry >= target, as `seek`, except
   * that in a block with a hash index the run the hash names is scanned instead of searched
   * for. Returns false when the block's hash index tells that neither this block nor the
   * table's next one holds `userKey` (the iterator is then unpositioned); true otherwise —
   * an invalid iterator then means the key may be in the next block.
   *
   * With a hash index (RocksDB's semantics): a collision falls back to `seek`; no entry means
   * the user key is not in the block, but one sorting past the block's last key may be in
   * the next, so the last run is scanned (the end of the block: true; a key >= target: its
   * user key differs, which the caller sees); a run index scans that run, and a run that
   * ends below the target before the block's end proves the key absent (false).
   */
  seekForGet(target: Uint8Array, userKey: Uint8Array): boolean {
    const block = this.block!;
    const numBuckets = block.hashBuckets;
    if (numBuckets === 0 || this.search !== undefined) {
      this.seek(target);
      return true;
    }
    this.diffAt = -1;
    const data = this.data;
    const limit = this.restartsOffset;
    if (limit <= 0) {
      this.invalidate();
      return true;
    }
    const n = this.numRestarts;
    let r = data[block.hashOffset + hashBucketOf(userKey, numBuckets)]!;
    if (r === HASH_COLLISION) {
      this.seek(target);
      return true;
    }
    if (r === HASH_NO_ENTRY) r = n - 1;
    else if (r >= n) this.corrupt(`hash index names restart ${r} of ${n}`);
    const runEnd = r + 1 < n ? restartAt(data, limit, r + 1) : limit;
    if (this.bytewiseInternal) {
      const found = scanRun(data, restartAt(data, limit, r), runEnd, limit, target);
      if (found >= 0) {
        this.loadScanned(r, runEnd, found, target);
        return true;
      }
      if (found === SCAN_RUN_END) return this.pastRun(runEnd);
      // SCAN_FALLBACK: the plain scan below.
    }
    this.seekToRestart(r);
    for (;;) {
      if (this.compareCurrent(target) >= 0) return true;
      const p = this.nextOffset;
      if (p >= runEnd) return this.pastRun(runEnd);
      this.parseEntry(p);
    }
  }

  /** `seekForGet`'s run ended below the target: the end of the block, or proof of absence. */
  private pastRun(runEnd: number): boolean {
    this.invalidate();
    return runEnd >= this.restartsOffset;
  }

  /** Makes the entry at `p`, found by `scanRun` for `target` in restart run `r`, current. */
  private loadScanned(r: number, runEnd: number, p: number, target: Uint8Array): void {
    const data = this.data;
    // One-byte lengths, checked by scanRun.
    const keyLength = data[p]! + data[p + 1]!;
    const valueOffset = p + 3 + data[p + 1]!;
    const valueLength = data[p + 2]!;
    if (keyLength > this.keyBuf.length) this.growKey(keyLength, 0);
    copyFoundKey(data, p, target, this.keyBuf);
    this.keyLength = keyLength;
    this.valueOffset = valueOffset;
    this.valueLength = valueLength;
    this.current = p;
    this.nextOffset = valueOffset + valueLength;
    this.restartIndex = r;
    this.nextRestart = runEnd;
    this.valueView = undefined;
  }

  seekForPrev(target: Uint8Array): void {
    this.diffAt = -1;
    this.seek(target);
    if (this.current < 0) {
      this.seekToLast();
    } else if (this.compareCurrent(target) > 0) {
      this.prev();
    }
  }

  next(): void {
    if (this.current < 0) throw new RangeError("next() on an invalid iterator");
    this.advance();
    this.diffAt = this.parsedDiff;
  }

  prev(): void {
    this.diffAt = -1;
    const cur = this.current;
    if (cur < 0) throw new RangeError("prev() on an invalid iterator");
    const rc = this.runCache;
    const pos = rc.pos;
    if (rc.count > 0 && pos > 0 && rc.entryOffset(pos) === cur) {
      // `keyBuf` holds entry pos's key: entry pos - 1's kept bytes complete it (run-cache.ts).
      rc.pos = pos - 1;
      this.loadCached(pos - 1);
      return;
    }
    if (cur === 0) {
      this.invalidate();
      return;
    }
    // The restart run holding the entry before `cur`.
    let r = this.restartIndex;
    if (restartAt(this.data, this.restartsOffset, r) >= cur) r--;
    this.fillCache(r, cur);
    rc.pos = rc.count - 1;
    this.loadCached(rc.pos);
  }

  /**
   * Decodes restart run `r` forwards up to (not including) the entry at `stop`, caching each
   * entry with the bytes of its key that the next entry does not share (run-cache.ts); the
   * last one's key stays in `keyBuf`.
   */
  private fillCache(r: number, stop: number): void {
    const rc = this.runCache;
    rc.clear();
    this.seekToRestart(r);
    for (;;) {
      const next = this.nextOffset;
      const keyLength = this.keyLength;
      // The next entry's shared length, read before it overwrites `keyBuf` past it (a
      // malformed one keeps the whole key: parseEntry then reports it).
      let from = keyLength;
      if (next < stop) {
        const b = this.data[next]!;
        const shared = b < 0x80 ? b : varint32Before(this.data, next, this.restartsOffset);
        if (shared < keyLength) from = shared < 0 ? 0 : shared;
      }
      rc.add(this.current, next, this.keyBuf, keyLength, this.valueOffset, this.valueLength, from);
      if (next >= stop) break;
      this.parseEntry(next);
    }
    this.restartIndex = r;
  }

  /**
   * Makes cached entry `i` current. REQUIRES: `keyBuf` holds the key of entry `i + 1` (or,
   * for the run's last entry, its own): the kept bytes complete it.
   */
  private loadCached(i: number): void {
    const rc = this.runCache;
    const keyLength = rc.keyLength(i);
    if (keyLength > this.keyBuf.length) this.growKey(keyLength, rc.keptFrom(i));
    rc.copyKeptBytes(i, this.keyBuf);
    this.keyLength = keyLength;
    this.current = rc.entryOffset(i);
    this.nextOffset = rc.nextOffset(i);
    this.valueOffset = rc.valueOffset(i);
    this.valueLength = rc.valueLength(i);
    this.valueView = undefined;
  }
}
