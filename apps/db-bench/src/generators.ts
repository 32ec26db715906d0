/**
 * Keys and values the way db_bench makes them, so figures read next to RocksDB's.
 *
 * Keys: the key number as 8 big-endian bytes, padded to `key_size` with '0' (db_bench's
 * GenerateKeyFromInt). One reusable buffer (a Buffer, which every engine accepts without
 * conversion): the engine copies what it keeps.
 *
 * Values: db_bench's RandomGenerator — a 1 MiB pool of pieces that compress to
 * `compression_ratio` of their size (random printable bytes, repeated), sliced in turn.
 */

export class KeyGenerator {
  readonly buf: Buffer;
  /** With `keysPerPrefix`: the prefix's bytes (at most 8) and the number of prefixes. */
  private readonly prefixSize: number;
  private readonly numPrefixes: number;

  /**
   * @param prefix db_bench's --prefix_size/--keys_per_prefix: key n starts with its prefix
   *   n mod (num / keysPerPrefix) in prefixSize big-endian bytes (beyond 8: '0'), then n in
   *   the (at most 8) bytes after it. Default: none (n in the first 8 bytes).
   */
  constructor(
    keySize: number,
    prefix?: { prefixSize: number; keysPerPrefix: number; num: number },
  ) {
    this.buf = Buffer.alloc(keySize, 0x30);
    const per = prefix?.keysPerPrefix ?? 0;
    this.prefixSize = per > 0 ? prefix!.prefixSize : 0;
    this.numPrefixes = per > 0 ? Math.max(1, Math.floor(prefix!.num / per)) : 0;
  }

  /** The key for `n`: the shared buffer, overwritten by the next call. */
  key(n: number): Buffer {
    const b = this.buf;
    if (this.prefixSize > 0) return this.prefixedKey(n);
    const hi = Math.floor(n / 4294967296);
    const lo = n >>> 0;
    b[0] = hi >>> 24;
    b[1] = hi >>> 16;
    b[2] = hi >>> 8;
    b[3] = hi;
    b[4] = lo >>> 24;
    b[5] = lo >>> 16;
    b[6] = lo >>> 8;
    b[7] = lo;
    return b;
  }

  /** db_bench's GenerateKeyFromInt with keys_per_prefix > 0. */
  private prefixedKey(n: number): Buffer {
    const b = this.buf;
    const p = n % this.numPrefixes;
    const ps = this.prefixSize;
    const fill = Math.min(ps, 8);
    for (let i = 0; i < fill; i++) b[i] = Math.floor(p / 2 ** (8 * (fill - i - 1))) % 256;
    const rest = Math.min(b.length - ps, 8);
    for (let i = 0; i < rest; i++) b[ps + i] = Math.floor(n / 2 ** (8 * (rest - i - 1))) % 256;
    return b;
  }
}

/** The key generator of these flags (db_bench's key layout, prefixes included). */
export function keyGenerator(
  flags: { keySize: number; prefixSize: number; keysPerPrefix: number; num: number },
  extraBytes = 0,
): KeyGenerator {
  return new KeyGenerator(flags.keySize + extraBytes, flags);
}

/**
 * Each workload's own random stream, an offset from --seed: as db_bench seeds every
 * benchmark's thread afresh, a workload never replays another's draws (overwrite must not
 * rewrite fillrandom's keys: together they leave ~86 % of `num` keys, as in db_bench, not 63 %).
 */
export const Stream = {
  fill: 1,
  read: 2,
  delete: 3,
  merge: 4,
  readWhileWritingWrites: 5,
  readRandomMergeRandom: 6,
  overwrite: 7,
  seek: 8,
  transaction: 9,
} as const;

/** xorshift64* in two 32-bit halves: fast, seeded, no BigInt. */
export class FastRandom {
  private a: number;
  private b: number;

  constructor(seed: number) {
    this.a = (seed ^ 0x9e3779b9) >>> 0 || 1;
    this.b = Math.imul(seed, 0x85ebca6b) >>> 0 || 2;
  }

  next(): number {
    // xorshift128 on 2 words
    let t = this.a;
    const s = this.b;
    this.a = s;
    t ^= t << 11;
    t ^= t >>> 8;
    this.b = (t ^ s ^ (s >>> 19)) >>> 0;
    return this.b;
  }

  /** Uniform in [0, n) for n <= 2^32. */
  uniform(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }
}

/**
 * db_bench's KeyGenerator for the fills: key numbers in order (0, 1, 2, ... — past `num`
 * when more are drawn) or uniform over [0, num). The fills' range deletions draw their start
 * from the same generator, as db_bench's DoWrite does.
 */
export class KeyNumbers {
  private following = 0;

  constructor(
    private readonly seq: boolean,
    private readonly num: number,
    private readonly rnd: FastRandom,
  ) {}

  next(): number {
    return this.seq ? this.following++ : this.rnd.uniform(this.num);
  }
}

export class ValueGenerator {
  private readonly data: Buffer;
  private pos = 0;

  constructor(compressionRatio: number, seed: number) {
    const rnd = new FastRandom(seed);
    const size = 1 << 20;
    this.data = Buffer.alloc(size + 100_000);
    let filled = 0;
    while (filled < this.data.length) {
      // A 100-byte piece made of a random fragment of len*ratio bytes, repeated.
      const piece = 100;
      const raw = Math.max(1, Math.floor(piece * compressionRatio));
      const frag = new Uint8Array(raw);
      for (let i = 0; i < raw; i++) frag[i] = 0x20 + rnd.uniform(95);
      for (let i = 0; i < piece && filled < this.data.length; i++)
        this.data[filled++] = frag[i % raw]!;
    }
  }

  /** The next `len` bytes of the pool (a view of bytes that never change). */
  generate(len: number): Buffer {
    if (len > this.data.length) return this.big(len);
    if (this.pos + len > this.data.length) this.pos = 0;
    const v = this.data.subarray(this.pos, this.pos + len);
    this.pos += len;
    return v;
  }

  /** Values larger than the pool: the pool repeated. */
  private big(len: number): Buffer {
    const out = Buffer.alloc(len);
    for (let i = 0; i < len; i += this.data.length)
      this.data.copy(out, i, 0, Math.min(this.data.length, len - i));
    return out;
  }
}

/** The 8-byte little-endian counter 1: the uint64add operand (sums count the merges). */
export const UINT64_ONE: Buffer = Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]);
