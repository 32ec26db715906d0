/**
 * The request sequences of cache-bench.ts, drawn with a xorshift generator from a fixed
 * seed: the same keys for every contender and every run.
 *
 *   zipf     rank r (1..keys) with probability proportional to 1 / r^s, ranks mapped to keys
 *            by a fixed random permutation (hot keys are not neighbours)
 *   uniform  every key alike
 *   scan     zipf requests, and every 10,000th request starts a scan of 5,000 consecutive
 *            keys read once each (a range read through the cache: a scan-resistant cache
 *            keeps its hot keys); smaller runs scale both lengths down
 */

/** xorshift32 from a fixed seed, as a number in [0, 1). */
export function generator(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function permutation(n: number, random: () => number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

export function zipfKeys(
  numKeys: number,
  numRequests: number,
  exponent: number,
  random: () => number,
): Int32Array {
  const cdf = new Float64Array(numKeys);
  let sum = 0;
  for (let r = 0; r < numKeys; r++) {
    sum += 1 / (r + 1) ** exponent;
    cdf[r] = sum;
  }
  const ranks = permutation(numKeys, random);
  const keys = new Int32Array(numRequests);
  for (let i = 0; i < numRequests; i++) {
    const u = random() * sum;
    let lo = 0;
    let hi = numKeys - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    keys[i] = ranks[lo]!;
  }
  return keys;
}

export function uniformKeys(
  numKeys: number,
  numRequests: number,
  random: () => number,
): Int32Array {
  const keys = new Int32Array(numRequests);
  for (let i = 0; i < numRequests; i++) keys[i] = Math.floor(random() * numKeys);
  return keys;
}

export function scanKeys(
  numKeys: number,
  numRequests: number,
  exponent: number,
  random: () => number,
): Int32Array {
  const keys = zipfKeys(numKeys, numRequests, exponent, random);
  const scanLength = Math.min(5000, Math.floor(numKeys / 20));
  const every = 2 * scanLength;
  for (let start = 0; start + scanLength <= numRequests; start += every) {
    const first = Math.floor(random() * (numKeys - scanLength));
    for (let j = 0; j < scanLength; j++) keys[start + j] = first + j;
  }
  return keys;
}
