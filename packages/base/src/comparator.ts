/**
 * Comparators define the order of user keys.
 *
 * A comparator's `name` is recorded in every table and in the MANIFEST; opening data with a
 * comparator of another name is an error, because the order on disk would not match.
 *
 * `findShortestSeparator(a, b)` returns a key `s` with `a <= s < b` (when `a < b`), as short
 * as it can; index blocks store these instead of full keys. `findShortSuccessor(a)` returns a
 * short key `>= a`. Both may simply return `a`. Results are fresh arrays or `a` itself.
 */
import { compareBytes } from "./bytes.js";

export interface Comparator {
  /** Stable name, persisted; a different order needs a different name. */
  readonly name: string;
  /** Negative if a < b, zero if equal, positive if a > b. */
  compare(a: Uint8Array, b: Uint8Array): number;
  /** A short s with a <= s < b, given a < b. May return a. */
  findShortestSeparator(a: Uint8Array, b: Uint8Array): Uint8Array;
  /** A short s with s >= a. May return a. */
  findShortSuccessor(a: Uint8Array): Uint8Array;
}

/** Lexicographic byte order (memcmp, shorter first on a tie): RocksDB's default. */
export const bytewiseComparator: Comparator = Object.freeze({
  name: "leveldb.BytewiseComparator",
  compare: compareBytes,
  findShortestSeparator(a: Uint8Array, b: Uint8Array): Uint8Array {
    const min = Math.min(a.length, b.length);
    let i = 0;
    while (i < min && a[i] === b[i]) i++;
    if (i >= min) return a; // one is a prefix of the other
    const diff = a[i]!;
    if (diff >= b[i]!) return a; // REQUIRES a < b; be safe if not
    if (diff < 0xff && diff + 1 < b[i]!) {
      const s = a.slice(0, i + 1);
      s[i] = diff + 1;
      return s;
    }
    // a[i] + 1 == b[i]: keep a[0..i], then look for a byte after i in a we can bump.
    for (let j = i + 1; j < a.length; j++) {
      if (a[j]! < 0xff) {
        const s = a.slice(0, j + 1);
        s[j] = a[j]! + 1;
        return s;
      }
    }
    return a;
  },
  findShortSuccessor(a: Uint8Array): Uint8Array {
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== 0xff) {
        const s = a.slice(0, i + 1);
        s[i] = a[i]! + 1;
        return s;
      }
    }
    return a; // all 0xff
  },
});

/** Reverse lexicographic byte order. */
export const reverseBytewiseComparator: Comparator = Object.freeze({
  name: "rocksdb.ReverseBytewiseComparator",
  compare(a: Uint8Array, b: Uint8Array): number {
    return compareBytes(b, a);
  },
  findShortestSeparator(a: Uint8Array, _b: Uint8Array): Uint8Array {
    return a;
  },
  findShortSuccessor(a: Uint8Array): Uint8Array {
    return a;
  },
});
