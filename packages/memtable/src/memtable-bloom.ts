/**
 * MemTableBloom: RocksDB's memtable "prefix bloom" (DynamicBloom), a Bloom filter a memtable
 * fills as keys are added and a `get` asks before it searches the memtable's points. It
 * holds the whole user keys (`wholeKey`), the prefixes of a prefix extractor's in-domain
 * keys (`prefix`), or both; nothing else is kept, so the filter is as old as its memtable and
 * dies with it (it is never written to disk).
 *
 * Layout: `bits` rounded up to whole 512-bit (64-byte, one cache line) blocks in a
 * Uint32Array. A key's 32-bit hash (MurmurHash3, hash-index.ts's `hashKey`) picks the block
 * (`(h >>> 0) * blocks / 2^32`), then 6 probes set or test one bit each inside that block,
 * stepping by a second value derived from the hash (RocksDB's num_probes 6, cache-local):
 *
 * ```
 *   h = murmur3(key)          block = fastrange(h, blocks)
 *   delta = rotl(h, 15)       bit_i = (h + i * delta) & 511,   i = 0..5
 *   words[block * 16 + (bit_i >>> 5)] has bit (bit_i & 31)
 * ```
 *
 * A miss answers "not here" with certainty; a hit may be false (about 1-2% at 10 bits a
 * key). What a probe decides is counted in the Statistics given (BloomMemtableHit /
 * BloomMemtableMiss, RocksDB's bloom_memtable_hit_count / bloom_memtable_miss_count).
 *
 * Thread-safety: one writer; reads on the same thread. Allocation: none per add or probe,
 * except what a prefix extractor's `transform` allocates.
 */
import { type Statistics, Ticker } from "@shale/base";
import { hashKey } from "./hash-index.js";

/** The part of a prefix extractor the filter uses (`PrefixExtractor` of @shale/sstable). */
export interface MemTableBloomPrefix {
  /** The prefix of `key`. REQUIRES: inDomain(key). */
  transform(key: Uint8Array): Uint8Array;
  /** Whether `key` has a prefix. */
  inDomain(key: Uint8Array): boolean;
}

export interface MemTableBloomOptions {
  /** Bits of the filter (rounded up to 512); at least 1. */
  bits: number;
  /** Keep prefixes of in-domain keys. Default: none. */
  prefix?: MemTableBloomPrefix | undefined;
  /** Keep whole keys (RocksDB's memtable_whole_key_filtering). Default: false. */
  wholeKey?: boolean;
  /** Counts probes (BloomMemtableHit / BloomMemtableMiss). Default: none. */
  statistics?: Statistics | undefined;
}

const BLOCK_BITS = 512;
const BLOCK_WORDS = BLOCK_BITS / 32;
/** RocksDB's memtable bloom probes. */
const PROBES = 6;

export class MemTableBloom {
  private readonly words: Uint32Array;
  private readonly blocks: number;
  private readonly prefix: MemTableBloomPrefix | undefined;
  private readonly wholeKey: boolean;
  private readonly stats: Statistics | undefined;

  /** Throws TypeError for bad options. */
  constructor(options: MemTableBloomOptions) {
    const { bits, prefix, wholeKey = false, statistics } = options;
    if (typeof bits !== "number" || !Number.isInteger(bits) || bits < 1 || bits > 2 ** 34) {
      throw new TypeError("bits must be an integer in [1, 2^34]");
    }
    if (typeof wholeKey !== "boolean") throw new TypeError("wholeKey must be a boolean");
    if (prefix === undefined && !wholeKey) {
      throw new TypeError("a memtable bloom needs a prefix extractor or wholeKey");
    }
    this.blocks = Math.ceil(bits / BLOCK_BITS);
    this.words = new Uint32Array(this.blocks * BLOCK_WORDS);
    this.prefix = prefix;
    this.wholeKey = wholeKey;
    this.stats = statistics;
  }

  /** Bytes of the filter (counted by the memtable's approximateMemoryUsage). */
  get byteSize(): number {
    return this.words.byteLength;
  }

  /** Adds `userKey` (its whole key and/or its prefix, as configured). */
  add(userKey: Uint8Array): void {
    if (this.wholeKey) this.addHash(hashKey(userKey, 0, userKey.length));
    const prefix = this.prefix;
    if (prefix?.inDomain(userKey)) {
      const p = prefix.transform(userKey);
      this.addHash(hashKey(p, 0, p.length));
    }
  }

  /**
   * False when the memtable certainly has no point entry of `userKey`: with `wholeKey` the
   * whole key is asked, else the key's prefix (a key outside the extractor's domain may be
   * anywhere: true). Counted in the statistics.
   */
  mayContainKey(userKey: Uint8Array): boolean {
    let found: boolean;
    if (this.wholeKey) found = this.mayContainHash(hashKey(userKey, 0, userKey.length));
    else {
      const prefix = this.prefix!;
      if (!prefix.inDomain(userKey)) return true;
      const p = prefix.transform(userKey);
      found = this.mayContainHash(hashKey(p, 0, p.length));
    }
    const stats = this.stats;
    if (stats !== undefined) stats.tick(found ? Ticker.BloomMemtableHit : Ticker.BloomMemtableMiss);
    return found;
  }

  /**
   * False when no key added has prefix `prefix` (the extractor's transform of a prefix
   * seek's key: RocksDB's MemTableIterator::Seek asks the filter so). True without a prefix
   * extractor. Counted in the statistics.
   */
  prefixMayMatch(prefix: Uint8Array): boolean {
    if (this.prefix === undefined) return true;
    const found = this.mayContainHash(hashKey(prefix, 0, prefix.length));
    const stats = this.stats;
    if (stats !== undefined) stats.tick(found ? Ticker.BloomMemtableHit : Ticker.BloomMemtableMiss);
    return found;
  }

  /** Whether this filter answers prefix probes (it has a prefix extractor). */
  get hasPrefixes(): boolean {
    return this.prefix !== undefined;
  }

  private addHash(h: number): void {
    const words = this.words;
    const base = Math.floor(((h >>> 0) * this.blocks) / 4294967296) * BLOCK_WORDS;
    const delta = (h << 15) | (h >>> 17);
    let bit = h;
    for (let i = 0; i < PROBES; i++) {
      const b = bit & (BLOCK_BITS - 1);
      words[base + (b >>> 5)]! |= 1 << (b & 31);
      bit = (bit + delta) | 0;
    }
  }

  private mayContainHash(h: number): boolean {
    const words = this.words;
    const base = Math.floor(((h >>> 0) * this.blocks) / 4294967296) * BLOCK_WORDS;
    const delta = (h << 15) | (h >>> 17);
    let bit = h;
    for (let i = 0; i < PROBES; i++) {
      const b = bit & (BLOCK_BITS - 1);
      if ((words[base + (b >>> 5)]! & (1 << (b & 31))) === 0) return false;
      bit = (bit + delta) | 0;
    }
    return true;
  }
}
