/**
 * The 64-bit key hash of RocksDB's filters: `GetSliceHash64(key)` = `Hash64(key)` =
 * `XXPH3_64bits(key)` (RocksDB 7.8.3 `util/hash.cc`, `util/xxph3.h`): a frozen *preview* of
 * XXH3 (xxHash 0.7.2), seed 0, with one RocksDB change (the empty key hashes to a constant
 * instead of 0). It is not the final XXH3. This is part of the filter format: a filter
 * answers correctly only when queried with the hash it was built with.
 *
 *   lo = low 32 bits  -> picks the cache line (FastRange32)
 *   hi = high 32 bits -> drives the probes inside the line
 *
 * The hash itself is `@shale/base`'s `sliceHash64Into` (checksum-xxh3.ts, which draws it by
 * key length and is checked there against librocksdb); this is the filter's name for it.
 * Worked example: the empty key hashes to 0x5342c3010fe1dd04 (lo 0x0fe1dd04, hi
 * 0x5342c301); `hash.test.ts` checks 308 lengths against values librocksdb computed
 * (testdata/hash-vectors.json).
 */
import { sliceHash64Into } from "@shale/base";

/**
 * Hashes `key` with RocksDB's filter hash (`GetSliceHash64`) and writes the 64 bits as two
 * unsigned 32-bit halves: `out[outIndex] = lo` (low word), `out[outIndex + 1] = hi`.
 *
 * Hash a key once with this and probe many filters with `BloomFilterReader.mayMatchHash`.
 *
 * REQUIRES: `outIndex + 1 < out.length`. Allocates nothing; `key` is only read.
 */
export function hashKey64(key: Uint8Array, out: Uint32Array, outIndex = 0): void {
  sliceHash64Into(key, 0, key.length, out, outIndex);
}
