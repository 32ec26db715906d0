/**
 * RunCache: the entries of one restart run of a block, decoded forwards once, so that
 * `BlockIterator.prev` can step back through the run without decoding it again (RocksDB's
 * approach: entries only decode forwards, each key being a delta on the previous one).
 *
 * Per entry: seven int32 numbers in `entries` — entry offset, offset after it, where its key
 * suffix starts in `keys`, key length, value offset, value length, and `from`, the first key
 * byte the suffix holds — and in `keys` the suffix: the entry's key bytes `[from, length)`.
 *
 * `from` is the shared-prefix length of the entry after it (as stored in the block): `prev`
 * steps from entry i + 1 to entry i with the iterator's key buffer holding key i + 1, which
 * agrees with key i on `[0, from)`, so copying the suffix back gives key i whole. The last
 * entry of the run is the one decoded last, in the key buffer already: nothing is kept of
 * its key (`from` = its length). For db_bench's keys (16-byte user keys, 8-byte trailers) a
 * suffix is about 10 of a key's 24 bytes, copied in and out once each.
 *
 *   run:      k0 = "abc1"   k1 = "abc2" (shared 3)   k2 = "abd7" (shared 2, decoded last)
 *   kept:     k0: from 3, "1"    k1: from 2, "c2"    k2: from 4, ""
 *   buffer:   "abd7" -> prev: k1's suffix at 2 -> "abc2" -> prev: k0's suffix at 3 -> "abc1"
 */

const STRIDE = 7;
const EMPTY_ENTRIES = new Int32Array(0);
const EMPTY_KEYS = new Uint8Array(0);
const EMPTY_VIEW = new DataView(EMPTY_KEYS.buffer);

/** A DataView of exactly `b`'s bytes. */
function viewOf(b: Uint8Array): DataView<ArrayBufferLike> {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * Copies `n` bytes from `src` at `from` to `dst` at `to`, four at a time: a byte loop costs
 * ~2.5 ns a byte here (two bounds-checked element accesses each), which was half of a
 * reverse step; DataView word accesses are inlined by the optimizing compiler.
 */
function copyBytes(
  dst: DataView<ArrayBufferLike>,
  to: number,
  src: DataView<ArrayBufferLike>,
  from: number,
  n: number,
): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) dst.setUint32(to + i, src.getUint32(from + i));
  for (; i < n; i++) dst.setUint8(to + i, src.getUint8(from + i));
}

export class RunCache {
  /** Number of entries cached (0: empty). */
  count = 0;
  /** The cached entry the iterator is on. */
  pos = 0;
  // Allocated on the first `add` (a reverse step): most iterators only go forwards, and
  // typed arrays over 64 bytes cost ~0.5 µs each to create, which iterator creation felt.
  private entries = EMPTY_ENTRIES;
  private keys = EMPTY_KEYS;
  /** A DataView of `keys`. */
  private keysView: DataView<ArrayBufferLike> = EMPTY_VIEW;
  /** The key buffer last passed in (`add`, `copyKeptBytes`) and a DataView of it. */
  private keyBuf: Uint8Array = EMPTY_KEYS;
  private keyBufView: DataView<ArrayBufferLike> = EMPTY_VIEW;
  private used = 0;

  clear(): void {
    this.count = 0;
    this.used = 0;
  }

  /**
   * Appends an entry whose key is `keyBuf[0, keyLength)`, keeping its bytes from `from` on
   * (copied). REQUIRES: 0 <= from <= keyLength.
   */
  add(
    entryOffset: number,
    nextOffset: number,
    keyBuf: Uint8Array,
    keyLength: number,
    valueOffset: number,
    valueLength: number,
    from: number,
  ): void {
    const n = this.count;
    if ((n + 1) * STRIDE > this.entries.length) {
      const grown = new Int32Array(Math.max(STRIDE * 16, this.entries.length * 2));
      grown.set(this.entries);
      this.entries = grown;
    }
    const used = this.used;
    const kept = keyLength - from;
    if (used + kept > this.keys.length) {
      const grown = new Uint8Array(Math.max(used + kept, 256, this.keys.length * 2));
      grown.set(this.keys.subarray(0, used));
      this.keys = grown;
      this.keysView = viewOf(grown);
    }
    copyBytes(this.keysView, used, this.viewOfKeyBuf(keyBuf), from, kept);
    const e = this.entries;
    const base = n * STRIDE;
    e[base] = entryOffset;
    e[base + 1] = nextOffset;
    e[base + 2] = used;
    e[base + 3] = keyLength;
    e[base + 4] = valueOffset;
    e[base + 5] = valueLength;
    e[base + 6] = from;
    this.used = used + kept;
    this.count = n + 1;
  }

  /** The offset of cached entry `i`. */
  entryOffset(i: number): number {
    return this.entries[i * STRIDE]!;
  }

  /** The offset after cached entry `i`. */
  nextOffset(i: number): number {
    return this.entries[i * STRIDE + 1]!;
  }

  keyLength(i: number): number {
    return this.entries[i * STRIDE + 3]!;
  }

  valueOffset(i: number): number {
    return this.entries[i * STRIDE + 4]!;
  }

  valueLength(i: number): number {
    return this.entries[i * STRIDE + 5]!;
  }

  /** The first key byte cached entry `i` keeps (see above). */
  keptFrom(i: number): number {
    return this.entries[i * STRIDE + 6]!;
  }

  /**
   * Copies the bytes cached entry `i` keeps to `out[keptFrom(i), keyLength(i))`: with
   * `out[0, keptFrom(i))` holding the next entry's key (or, for the run's last entry, its
   * own), `out` then holds entry `i`'s key. REQUIRES: it fits.
   */
  copyKeptBytes(i: number, out: Uint8Array): void {
    const e = this.entries;
    const start = e[i * STRIDE + 2]!;
    const from = e[i * STRIDE + 6]!;
    const n = e[i * STRIDE + 3]! - from;
    copyBytes(this.viewOfKeyBuf(out), from, this.keysView, start, n);
  }

  /** A DataView of `keyBuf` (made again only when the iterator's key buffer changes). */
  private viewOfKeyBuf(keyBuf: Uint8Array): DataView {
    if (keyBuf !== this.keyBuf) {
      this.keyBuf = keyBuf;
      this.keyBufView = viewOf(keyBuf);
    }
    return this.keyBufView;
  }
}
