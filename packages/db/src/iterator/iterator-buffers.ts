/**
 * The reused buffers of the DB iterator: the current user key (copied from the merged
 * iterator's internal key, whose bytes change when it moves), a value found by a backward
 * scan (copied for the same reason), and the internal keys it seeks to.
 *
 * Views of the key and value buffers are cached and handed out again while the length stays
 * the same, so a scan over same-length keys allocates no view per entry; their bytes change
 * on the next move, which is the documented lifetime ("valid until the iterator moves").
 *
 * The DB iterator's core holds one (composition, not a base class): the core decides what
 * to keep, this object only keeps it.
 *
 * Pool: db-bench's seekrandom opens one DB iterator per seek, and the two pooled byte arrays
 * and the object were a tenth of what opening one cost. A closed DB iterator gives its
 * buffers back (`giveBuffers`, cleared: no saved key, no pinned value — the view of a block or
 * memtable entry would keep it alive; in invariants mode the key bytes are overwritten, so a
 * key() view kept past close shows garbage) and the next iterator takes them
 * (`takeBuffers`). Views handed out before the close are invalid by the iterator's contract.
 * Not thread-safe (one pool per module instance).
 */
import { EMPTY_BYTES, invariants, pooledBytes, putTrailer, TRAILER_SIZE } from "@shale/base";
import { MergeOperands } from "./merge-operands.js";

/** Buffers given back by closed DB iterators (at most POOL_MAX). */
const pool: IteratorBuffers[] = [];
const POOL_MAX = 16;

/** Buffers for a new DB iterator: a pooled set, or new ones. */
export function takeBuffers(): IteratorBuffers {
  return pool.pop() ?? new IteratorBuffers();
}

/** Gives a closed iterator's buffers back. REQUIRES: the iterator never touches them again. */
export function giveBuffers(buffers: IteratorBuffers): void {
  buffers.reset();
  if (pool.length < POOL_MAX) pool.push(buffers);
}

/** @internal Test-only: how many sets the pool holds. */
export function pooledIteratorBuffers(): number {
  return pool.length;
}

export class IteratorBuffers {
  // Pooled (see pooledBytes): both get views taken, and an iterator is often made per seek.
  /** Read by the core to compare with the saved key; written only here. */
  keyBuf = pooledBytes(64);
  keyLength = 0;
  /** Cached view keyBuf[0, keyLength). */
  private keyView: Uint8Array = EMPTY_BYTES;
  /** Grown on first use (reverse steps): a typed array over 64 bytes costs ~0.5 µs to create. */
  private valueBuf: Uint8Array = EMPTY_BYTES;
  private valueLength = 0;
  /** Cached view valueBuf[0, valueLength). */
  private valueView: Uint8Array = EMPTY_BYTES;
  /** The saved value when it was pinned (kept as the child's view, not copied). */
  private pinnedValue: Uint8Array | undefined = undefined;
  private seekBuf = pooledBytes(64);
  /** The merge operands of the key being resolved (pooled with the rest). */
  readonly operands = new MergeOperands();
  /** Cached view seekBuf[0, seekView.length): seeks to keys of one length reuse it. */
  private seekView: Uint8Array = EMPTY_BYTES;

  /** Forgets the saved key and value (see the pool in the file comment). */
  reset(): void {
    if (invariants) {
      this.keyBuf.fill(0xcc);
      this.valueBuf.fill(0xcc);
    }
    this.keyLength = 0;
    this.valueLength = 0;
    this.pinnedValue = undefined;
    this.operands.clear();
  }

  /**
   * Copies the user key of `ikey` (its first `n` bytes) into keyBuf; bytes [0, from) only if
   * they differ from the saved key's. REQUIRES: the saved key is at least `from` bytes long
   * and its first `from` bytes are those of `ikey`.
   */
  saveKey(ikey: Uint8Array, n: number, from = 0): void {
    let buf = this.keyBuf;
    let i = from;
    if (n > buf.length) {
      const grown = new Uint8Array(Math.max(n, buf.length * 2));
      grown.set(buf.subarray(0, from));
      buf = this.keyBuf = grown;
      this.keyView = EMPTY_BYTES; // a view of the old buffer
    }
    if (n - i <= 32) for (; i < n; i++) buf[i] = ikey[i]!;
    else buf.set(ikey.subarray(i, n), i);
    this.keyLength = n;
  }

  /**
   * The saved user key as a view, reused while its length stays the same (its bytes follow
   * the buffer; a grown buffer resets the cached view to the empty array).
   */
  savedKey(): Uint8Array {
    let view = this.keyView;
    if (view.length !== this.keyLength)
      view = this.keyView = this.keyBuf.subarray(0, this.keyLength);
    return view;
  }

  /**
   * Keeps a value across moves of the merged iterator: the view itself when `pinned` (its
   * bytes stay; see InternalIterator.isValuePinned), else a copy in valueBuf.
   */
  saveValue(value: Uint8Array, pinned: boolean): void {
    if (pinned) {
      this.pinnedValue = value;
      return;
    }
    this.pinnedValue = undefined;
    const n = value.length;
    if (n > this.valueBuf.length) {
      this.valueBuf = new Uint8Array(Math.max(n, 256, this.valueBuf.length * 2));
      this.valueView = EMPTY_BYTES; // a view of the old buffer
    }
    this.valueBuf.set(value);
    this.valueLength = n;
  }

  /** The saved value: the pinned view, or the copy's view (reused like the key's). */
  savedValue(): Uint8Array {
    if (this.pinnedValue !== undefined) return this.pinnedValue;
    let view = this.valueView;
    if (view.length !== this.valueLength) {
      view = this.valueView = this.valueBuf.subarray(0, this.valueLength);
    }
    return view;
  }

  /** An internal seek key (userKey[0, n), seq, kind) in the reused seek buffer. */
  seekKey(userKey: Uint8Array, n: number, seq: number, kind: number): Uint8Array {
    const size = n + TRAILER_SIZE;
    if (this.seekBuf.length < size) {
      this.seekBuf = new Uint8Array(Math.max(size, this.seekBuf.length * 2));
      this.seekView = EMPTY_BYTES; // a view of the old buffer
    }
    const buf = this.seekBuf;
    if (n <= 32) for (let i = 0; i < n; i++) buf[i] = userKey[i]!;
    else if (n === userKey.length) buf.set(userKey, 0);
    else buf.set(userKey.subarray(0, n), 0);
    putTrailer(buf, n, seq, kind);
    let view = this.seekView;
    if (view.length !== size) view = this.seekView = buf.subarray(0, size);
    return view;
  }

  /** Seek key for the saved user key. */
  savedSeekKey(seq: number, kind: number): Uint8Array {
    return this.seekKey(this.keyBuf, this.keyLength, seq, kind);
  }
}
