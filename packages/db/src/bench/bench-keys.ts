/**
 * Keys and a random source for the benches here: `xorshift(seed)` draws n < bound from a
 * 32-bit xorshift, and `decimalKeys()` writes `i` as 16 ASCII digits, zero padded, into one
 * array it reuses (a copy is the caller's to make).
 */

/** A xorshift32 generator: `next(bound)` is a number in [0, bound). */
export function xorshift(seed: number): (bound: number) => number {
  let s = seed | 0;
  return (bound: number): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % bound;
  };
}

/** `keyOf(i)`: i as 16 decimal digits in one reused 16-byte array. */
export function decimalKeys(): (i: number) => Uint8Array {
  const key = new Uint8Array(16);
  return (i: number): Uint8Array => {
    const s = String(i).padStart(16, "0");
    for (let j = 0; j < 16; j++) key[j] = s.charCodeAt(j);
    return key;
  };
}
