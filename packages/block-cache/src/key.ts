/**
 * Cache keys: a pair `(id, offset)` of non-negative safe integers (0 .. 2^53-1), e.g. a
 * table's cache id and a block's file offset.
 *
 * Keys are never combined into one number or a string: `id * 2^k + offset` loses bits above
 * 2^53. The hash table compares `id` and `offset` separately (both exact doubles), and the
 * hash below reads each number as two exact 32-bit halves:
 *
 *   x (0 .. 2^53-1)  ->  lo = x >>> 0                        (x mod 2^32, exact)
 *                        hi = (x * 2^-32) >>> 0              (floor(x / 2^32), exact)
 *
 *   h = fmix(imul(idLo ^ imul(idHi, K1), K2) ^ offLo ^ imul(offHi, K3))
 *
 * `fmix` is the "lowbias32" finalizer (two multiply-xorshift rounds), so consecutive ids and
 * block-aligned offsets spread over every bit of `h`. The cache picks the shard from the top
 * bits of `h` and the slot inside the shard's table from the low bits.
 *
 * Worked example: (id 1, offset 4096): idLo 1, idHi 0, offLo 4096, offHi 0.
 */
import { ShaleError } from "@shale/base";

/** 2^-32, exact as a double: `x * TWO_POW_MINUS_32` is `x / 2^32` without a division. */
const TWO_POW_MINUS_32 = 2.3283064365386963e-10;

/**
 * A 32-bit hash of the key (a signed int32). REQUIRES: `id` and `offset` are non-negative safe
 * integers.
 */
export function hashKey(id: number, offset: number): number {
  const idHi = (id * TWO_POW_MINUS_32) >>> 0;
  const offHi = (offset * TWO_POW_MINUS_32) >>> 0;
  let h =
    Math.imul((id >>> 0) ^ Math.imul(idHi, 0x27d4eb2f), 0x9e3779b1) ^
    (offset >>> 0) ^
    Math.imul(offHi, 0x165667b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return h ^ (h >>> 16);
}

/** True if `x` is a valid key half: a non-negative safe integer. */
export function isKeyPart(x: number): boolean {
  return Number.isSafeInteger(x) && x >= 0;
}

/** The error for an invalid key: `TypeError` for a non-number, InvalidArgument otherwise. */
export function keyError(id: unknown, offset: unknown): Error {
  if (typeof id !== "number" || typeof offset !== "number") {
    return new TypeError(`cache key must be two numbers, got (${typeof id}, ${typeof offset})`);
  }
  return ShaleError.invalidArgument(
    `cache key (${id}, ${offset}) must be two non-negative safe integers`,
  );
}

/** Validates a byte count (a charge or a capacity): a non-negative safe integer. */
export function checkBytes(name: string, value: unknown): number {
  if (typeof value !== "number") {
    throw new TypeError(`${name} must be a number, got ${typeof value}`);
  }
  if (!Number.isSafeInteger(value) || value < 0) {
    throw ShaleError.invalidArgument(`${name} must be a non-negative safe integer, got ${value}`);
  }
  return value;
}
