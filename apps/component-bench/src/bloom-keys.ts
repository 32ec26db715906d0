/**
 * Keys of bloom-bench.ts: `n` distinct keys of `length` characters (at least 16): "key" or
 * "abs" + a 13-digit number drawn from a 64-bit-ish mix of the counter (neighbours share no
 * long prefix), then the digits again to the length. Added keys use salt 1 and start "key",
 * absent keys salt 2 and "abs": the two sets never meet. The peers take the JS strings, shale
 * the same strings' bytes (views into one buffer), both made before any timing.
 */

/** A 64-bit-ish mix of i into a 13-digit number (two 32-bit mixes: no BigInt). */
function keyNumber(i: number, salt: number): number {
  let a = Math.imul(i ^ salt, 0x9e3779b1);
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  let b = Math.imul(a ^ 0x27d4eb2f, 0xc2b2ae35);
  b ^= b >>> 16;
  return ((a >>> 0) * 2048 + (b >>> 21)) % 1e13;
}

export interface KeySet {
  strings: string[];
  bytes: Uint8Array[];
}

export function makeKeys(n: number, salt: 1 | 2, length: number): KeySet {
  if (!(Number.isInteger(length) && length >= 16)) {
    throw new Error(`key length must be an integer of at least 16, got ${length}`);
  }
  const strings = new Array<string>(n);
  const buffer = new Uint8Array(length * n);
  const bytes = new Array<Uint8Array>(n);
  const enc = new TextEncoder();
  for (let i = 0; i < n; i++) {
    const digits = String(keyNumber(i, salt)).padStart(13, "0");
    let s = `${salt === 1 ? "key" : "abs"}${digits}`;
    while (s.length < length) s += digits;
    s = s.slice(0, length);
    strings[i] = s;
    const view = buffer.subarray(length * i, length * i + length);
    enc.encodeInto(s, view);
    bytes[i] = view;
  }
  return { strings, bytes };
}
