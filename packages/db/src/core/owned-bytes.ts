/**
 * Copies handed to the caller: what `get`, `getMany` and the for-of iteration return.
 *
 * A copy lives in memory only the caller can reach — never the memtable arena (a
 * SharedArrayBuffer that the next flush writes to disk), never a cached block — so writing
 * into it cannot change the store, and APIs that refuse shared memory (a browser's
 * `TextDecoder`, `crypto.subtle`) take it.
 *
 * Small copies (up to `POOLED_MAX`, 4 KiB) are views of a pool: a plain (non-shared)
 * ArrayBuffer of `POOL_SIZE` (32 KiB) cut into consecutive 8-byte-aligned pieces, as Node's
 * `Buffer.allocUnsafe` pools small Buffers. Creating an ArrayBuffer per value costs
 * 0.45-0.9 µs in Node 20 (measured), a view of the pool ~35 ns, so a 100-byte `get` pays
 * a few percent for its copy instead of half again. What the pool holds is only copies
 * already given to callers; its unused tail is never handed out twice. A copy's `buffer` is
 * therefore the pool (use `byteOffset`/`byteLength`, as with a pooled Buffer), and a kept
 * copy keeps its pool (at most 32 KiB) alive: `slice()` a small value you keep for a long
 * time among many you drop, if that memory matters. Larger copies get an ArrayBuffer each.
 *
 * Not thread-safe (nothing in the engine is); one pool per thread (module instance).
 */

/** Bytes per pool. */
export const POOL_SIZE = 32 * 1024;
/** Copies up to this size are cut from the pool; larger ones get their own ArrayBuffer. */
export const POOLED_MAX = POOL_SIZE >>> 3;

let pool = new ArrayBuffer(POOL_SIZE);
let poolPos = 0;

/** `n` fresh bytes the caller owns (contents unspecified: the caller overwrites them). */
export function ownedBytes(n: number): Uint8Array {
  if (n > POOLED_MAX) return new Uint8Array(n);
  if (poolPos + n > POOL_SIZE) {
    pool = new ArrayBuffer(POOL_SIZE);
    poolPos = 0;
  }
  const out = new Uint8Array(pool, poolPos, n);
  poolPos = (poolPos + n + 7) & ~7;
  return out;
}

/** A copy of `bytes` the caller owns (see the file comment). */
export function ownedCopy(bytes: Uint8Array): Uint8Array {
  const out = ownedBytes(bytes.length);
  out.set(bytes);
  return out;
}

/** Longest copy `ownedCopyOfRange` makes with a byte loop rather than a view and `set`. */
const LOOP_COPY_MAX = 256;

/**
 * A copy the caller owns of `bytes[offset, offset + length)`, made without a view of the
 * source up to `LOOP_COPY_MAX` bytes (a byte loop): the copy is the only object a `get` of a
 * cached value makes.
 */
export function ownedCopyOfRange(bytes: Uint8Array, offset: number, length: number): Uint8Array {
  const out = ownedBytes(length);
  if (length <= LOOP_COPY_MAX) {
    for (let i = 0; i < length; i++) out[i] = bytes[offset + i]!;
  } else {
    out.set(bytes.subarray(offset, offset + length));
  }
  return out;
}

/**
 * `[copy of key, copy of value]` side by side in one pool piece (one bounds check): the
 * for-of iteration's entry. Keys up to 16 bytes are copied with a loop (cheaper than `set`'s
 * call at that size).
 */
export function ownedPair(key: Uint8Array, value: Uint8Array): [Uint8Array, Uint8Array] {
  const k = key.length;
  const n = k + value.length;
  if (n > POOLED_MAX) return [ownedCopy(key), ownedCopy(value)];
  if (poolPos + n > POOL_SIZE) {
    pool = new ArrayBuffer(POOL_SIZE);
    poolPos = 0;
  }
  const keyCopy = new Uint8Array(pool, poolPos, k);
  const valueCopy = new Uint8Array(pool, poolPos + k, n - k);
  poolPos = (poolPos + n + 7) & ~7;
  if (k <= 16) for (let i = 0; i < k; i++) keyCopy[i] = key[i]!;
  else keyCopy.set(key);
  valueCopy.set(value);
  return [keyCopy, valueCopy];
}
