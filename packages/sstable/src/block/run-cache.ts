/**
 * RunCache: the entries of one restart run of a block, decoded forwards once, so that
 * `BlockIterator.prev` can step back through the run without decoding it again (RocksDB's
 * approach: entries only decode forwards, each key being a delta on the previous one).
 *
 * Per entry: six int32 numbers in `entries` — entry offset, offset after it, key start in
 * `keys`, key length, value offset, value length — and a copy of its key in `keys`.
 */

const STRIDE = 6;
const EMPTY_ENTRIES = new Int32Array(0);
const EMPTY_KEYS = new Uint8Array(0);

export class RunCache {
  /** Number of entries cached (0: empty). */
  count = 0;
  /** The cached entry the iterator is on. */
  pos = 0;
  // Allocated on the first `add` (a reverse step): most iterators only go forwards, and
  // typed arrays over 64 bytes cost ~0.5 µs each to create, which iterator creation felt.
  private entries = EMPTY_ENTRIES;
  private keys = EMPTY_KEYS;
  private used = 0;

  clear(): void {
    this.count = 0;
    this.used = 0;
  }

  /** Appends an entry whose key is `keyBuf[0, keyLength)` (copied). */
  add(
    entryOffset: number,
    nextOffset: number,
    keyBuf: Uint8Array,
    keyLength: number,
    valueOffset: number,
    valueLength: number,
  ): void {
    const n = this.count;
    if ((n + 1) * STRIDE > this.entries.length) {
      const grown = new Int32Array(Math.max(STRIDE * 16, this.entries.length * 2));
      grown.set(this.entries);
      this.entries = grown;
    }
    const used = this.used;
    if (used + keyLength > this.keys.length) {
      const grown = new Uint8Array(Math.max(used + keyLength, 256, this.keys.length * 2));
      grown.set(this.keys.subarray(0, used));
      this.keys = grown;
    }
    const keys = this.keys;
    for (let i = 0; i < keyLength; i++) keys[used + i] = keyBuf[i]!;
    const e = this.entries;
    const base = n * STRIDE;
    e[base] = entryOffset;
    e[base + 1] = nextOffset;
    e[base + 2] = used;
    e[base + 3] = keyLength;
    e[base + 4] = valueOffset;
    e[base + 5] = valueLength;
    this.used = used + keyLength;
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

  /** Copies cached entry `i`'s key to `out[0, keyLength(i))`. REQUIRES: it fits. */
  copyKey(i: number, out: Uint8Array): void {
    const start = this.entries[i * STRIDE + 2]!;
    const n = this.entries[i * STRIDE + 3]!;
    const keys = this.keys;
    for (let j = 0; j < n; j++) out[j] = keys[start + j]!;
  }
}
