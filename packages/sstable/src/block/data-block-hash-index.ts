/**
 * The data block hash index (RocksDB's `kDataBlockBinaryAndHash`, table/block_based/
 * data_block_hash_index.cc): a small hash map appended to a data block that maps a user key
 * to the restart run holding it, so a point lookup scans one run instead of binary-searching
 * the restart array. Written by `BlockBuilder` when the table asks for it
 * (`dataBlockIndexType: "binaryAndHash"`); read by `BlockIterator.seekForGet`.
 *
 * ```
 * dataBlock := entry* restart[numRestarts] hashIndex footer
 * hashIndex := bucket[numBuckets] ‖ fixed16 LE numBuckets
 * bucket    := u8: the index of the restart run holding every key hashed here (0..253),
 *              254 kCollision (keys of two runs hashed here), 255 kNoEntry (none)
 * footer    := fixed32 LE (numRestarts | 0x80000000)   the high bit: a hash index follows
 *                                                       the restart array (block.ts)
 * bucket of a user key u = Hash(u, seed 397) % numBuckets   (Hash: RocksDB's util/hash.cc,
 *                                                           `rocksdbHash32` of @shale/bloom)
 * ```
 * Building (RocksDB's exact rules, so blocks are byte-identical to RocksDB's): every entry's
 * user key (the internal key without its 8-byte trailer) is hashed with the index of the
 * run it is in; `numBuckets = trunc(entries / utilRatio) | 1` (the sum of `1 / utilRatio`
 * per entry, as a double, truncated to 16 bits; odd, and at least 1); a bucket keeps the
 * first run index hashed to it, or turns kCollision when another run's key lands there.
 * No hash index is written (footer bit clear) when a restart index would exceed 253 (and,
 * as RocksDB does, none for the builder's later blocks either: its hash builder stays off
 * once invalid) or when the finished block would exceed 64 KiB. The builder's size estimate
 * (`currentSizeEstimate`) counts the index (`2 + (trunc(sum) | 1)` bytes), as RocksDB's
 * `CurrentSizeEstimate` does, so blocks are cut where RocksDB cuts them.
 *
 * Reading (RocksDB's `DataBlockIter::SeekForGetImpl`): kCollision falls back to binary
 * search; kNoEntry means "not in this block, unless it sorts past the block's last key",
 * so the lookup scans the last run (ending at the end of the block: the next block may hold
 * the key); a run index scans that run for the first key >= the target, and if the run ends
 * below the target with more runs after it, the key is in neither this block nor the next.
 *
 * Worked example (restart interval 1, utilRatio 0.75): entries a#1,SET -> "" and
 * b#1,SET -> "", runs 0 and 1. Sum = 2 × 1.333… = 2.67, numBuckets = 2 | 1 = 3;
 * Hash("a", 397) = 1552184241, % 3 = 0; Hash("b", 397) = 589896611, % 3 = 2:
 * ```
 * 00 09 00 61 01 01 00 00 00 00 00 00   a#1,SET -> ""          <- restart 0 @0
 * 00 09 00 62 01 01 00 00 00 00 00 00   b#1,SET -> ""          <- restart 1 @12
 * 00 00 00 00 0c 00 00 00               restarts [0, 12]
 * 00 ff 01                              buckets: a -> run 0, none, b -> run 1
 * 03 00                                 numBuckets 3
 * 02 00 00 80                           footer: 2 restarts | the hash bit
 * ```
 *
 * Part of the file format; do not change the constants.
 */
import { ShaleError } from "@shale/base";
import { rocksdbHash32 } from "@shale/bloom";

/** Bucket value: no key hashed here. Part of the file format; do not change. */
export const HASH_NO_ENTRY = 255;
/** Bucket value: keys of two different runs hashed here. Part of the file format. */
export const HASH_COLLISION = 254;
/** The largest restart index a bucket can hold. Part of the file format. */
export const MAX_RESTART_WITH_HASH_INDEX = 253;
/** The seed of RocksDB's `GetSliceHash`. Part of the file format; do not change. */
export const DATA_BLOCK_HASH_SEED = 397;
/** RocksDB's `kDefaultUtilRatio`: keys per bucket. */
export const DEFAULT_HASH_UTIL_RATIO = 0.75;

/** The data block index types (RocksDB's `BlockBasedTableOptions::DataBlockIndexType`). */
export type DataBlockIndexTypeName = "binarySearch" | "binaryAndHash";

/** Their names in RocksDB's OPTIONS file. */
export const DATA_BLOCK_INDEX_TYPE_ROCKSDB_NAMES: Readonly<Record<DataBlockIndexTypeName, string>> =
  {
    binarySearch: "kDataBlockBinarySearch",
    binaryAndHash: "kDataBlockBinaryAndHash",
  };

/** Checks a `dataBlockIndexType` option: TypeError for a non-string, InvalidArgument for an unknown name. */
export function checkDataBlockIndexType(
  value: unknown,
  name = "dataBlockIndexType",
): DataBlockIndexTypeName {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
  if (value !== "binarySearch" && value !== "binaryAndHash") {
    throw ShaleError.invalidArgument(`unknown ${name} "${value}" (binarySearch or binaryAndHash)`);
  }
  return value;
}

/**
 * Checks a `dataBlockHashTableUtilRatio` option: TypeError for a non-number, InvalidArgument
 * unless a finite number > 0. (RocksDB reads a ratio <= 0 as 0.75; shale's options say so.)
 */
export function checkHashUtilRatio(value: unknown, name = "dataBlockHashTableUtilRatio"): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!(value > 0 && Number.isFinite(value))) {
    throw ShaleError.invalidArgument(`${name} must be a finite number > 0; got ${value}`);
  }
  return value;
}

/** The bucket of `userKey` in a hash index of `numBuckets` buckets. REQUIRES: numBuckets >= 1. */
export function hashBucketOf(userKey: Uint8Array, numBuckets: number): number {
  return rocksdbHash32(userKey, DATA_BLOCK_HASH_SEED) % numBuckets;
}

/**
 * Collects (user key hash, restart index) pairs of one data block and writes its hash index
 * (RocksDB's `DataBlockHashIndexBuilder`). Hashes are kept in typed arrays reused from block
 * to block: nothing is allocated per entry.
 */
export class DataBlockHashIndexBuilder {
  private readonly bucketsPerKey: number;
  private estimatedBuckets = 0;
  private valid = true;
  private hashes = new Uint32Array(256);
  private runs = new Uint8Array(256);
  private count = 0;
  private buckets = new Uint8Array(0);

  /** @param utilRatio keys per bucket, > 0 (checked by the options: `checkHashUtilRatio`). */
  constructor(utilRatio: number) {
    this.bucketsPerKey = 1 / utilRatio;
  }

  /** False once a restart index past 253 was added; then nothing more is collected. */
  get isValid(): boolean {
    return this.valid;
  }

  /** Adds the user key `key[0, length)` of an entry in restart run `restartIndex`. */
  add(key: Uint8Array, length: number, restartIndex: number): void {
    if (restartIndex > MAX_RESTART_WITH_HASH_INDEX) {
      this.valid = false;
      return;
    }
    const n = this.count;
    if (n === this.hashes.length) {
      const hashes = new Uint32Array(n * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
      const runs = new Uint8Array(n * 2);
      runs.set(this.runs);
      this.runs = runs;
    }
    this.hashes[n] = rocksdbHash32(key, DATA_BLOCK_HASH_SEED, length);
    this.runs[n] = restartIndex;
    this.count = n + 1;
    this.estimatedBuckets += this.bucketsPerKey;
  }

  /** The number of buckets `finish` writes now (C++'s double -> uint16_t, then odd). */
  private numBuckets(): number {
    return (Math.trunc(this.estimatedBuckets) & 0xffff) | 1;
  }

  /** Bytes `finish` would append now (RocksDB's `EstimateSize`). */
  get estimatedSize(): number {
    return 2 + this.numBuckets();
  }

  /**
   * Writes the buckets and numBuckets to `out` at `pos`; returns the end. REQUIRES: valid,
   * `out` has `estimatedSize` bytes from `pos`.
   */
  finish(out: Uint8Array, pos: number): number {
    const numBuckets = this.numBuckets();
    if (this.buckets.length < numBuckets) this.buckets = new Uint8Array(numBuckets * 2);
    const buckets = this.buckets;
    buckets.fill(HASH_NO_ENTRY, 0, numBuckets);
    const hashes = this.hashes;
    const runs = this.runs;
    for (let i = 0; i < this.count; i++) {
      const b = hashes[i]! % numBuckets;
      const run = runs[i]!;
      const held = buckets[b]!;
      if (held === HASH_NO_ENTRY) buckets[b] = run;
      else if (held !== run) buckets[b] = HASH_COLLISION;
    }
    out.set(buckets.subarray(0, numBuckets), pos);
    pos += numBuckets;
    out[pos] = numBuckets & 0xff;
    out[pos + 1] = numBuckets >>> 8;
    return pos + 2;
  }

  /**
   * Starts the next block — only while valid, as RocksDB's `BlockBuilder::Reset` does: once a
   * block had more than 254 restart runs, the table's later blocks get no hash index either.
   */
  reset(): void {
    if (!this.valid) return;
    this.estimatedBuckets = 0;
    this.count = 0;
  }
}
