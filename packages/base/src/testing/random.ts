/**
 * A small seeded PRNG (mulberry32) so test suites and benchmarks are deterministic without
 * dependencies. No vitest: benchmarks import it as `@shale/base/testing/random`.
 */

/** mulberry32 as a function returning uniform doubles in [0, 1): the benchmarks' generator. */
export function randomSource(seed: number): () => number {
  const r = new Random(seed);
  return () => r.nextUint32() / 4294967296;
}

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 2^32). */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform integer in [0, n). */
  uniform(n: number): number {
    return Math.floor((this.nextUint32() / 4294967296) * n);
  }

  /** True with probability 1/n. */
  oneIn(n: number): boolean {
    return this.uniform(n) === 0;
  }

  /** `n` random bytes drawn from `alphabet` (default: all 256 values). */
  bytes(n: number, alphabet = 256): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.uniform(alphabet);
    return out;
  }
}
