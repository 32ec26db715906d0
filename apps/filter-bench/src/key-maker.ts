/**
 * Keys and random numbers for the bench, shaped like RocksDB's filter_bench.
 *
 * A key is `keySize` bytes written into one reused buffer (no allocation per key):
 * ```
 *   bytes 0..3  valNum             (little-endian u32; outside keys set bit 31)
 *   bytes 4..7  filterId + valNum  (little-endian u32)
 *   bytes 8..   zero
 * ```
 * As RocksDB notes, spreading the variation over 8 bytes keeps a 32-bit hash from
 * "cheating" the FP rate by acting as a perfect hash of a 32-bit counter.
 */

export class KeyMaker {
  /** The key; rewritten by every `make` call (a view that stays valid, contents change). */
  readonly key: Uint8Array;

  constructor(keySize: number) {
    this.key = new Uint8Array(keySize);
  }

  /** Writes key (filterId, valNum) into `this.key` and returns it. */
  make(filterId: number, valNum: number): Uint8Array {
    const k = this.key;
    k[0] = valNum;
    k[1] = valNum >>> 8;
    k[2] = valNum >>> 16;
    k[3] = valNum >>> 24;
    const mixed = (filterId + valNum) | 0;
    k[4] = mixed;
    k[5] = mixed >>> 8;
    k[6] = mixed >>> 16;
    k[7] = mixed >>> 24;
    return k;
  }
}

/** A tiny seeded generator (xorshift32 over a splitmix-scrambled seed). */
export class Random32 {
  private state: number;

  constructor(seed: number) {
    this.state = 1;
    this.seed(seed);
  }

  seed(seed: number): void {
    let z = (seed + 0x9e3779b9) | 0;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    this.state = z === 0 ? 0x2545f491 : z;
  }

  /** Uniform u32. */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x;
    return x >>> 0;
  }

  /** Roughly uniform in [0, n) (FastRange32 of a u32; n < 2^21 for exactness). */
  uniformish(n: number): number {
    return ((this.next() * n) / 4294967296) >>> 0;
  }
}
