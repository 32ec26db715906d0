/**
 * Byte helpers. Keys and values are `Uint8Array` (a `Buffer` is one); the public API also
 * accepts strings, encoded as UTF-8 by `toBytes`.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The empty byte string, shared. Treat as read-only. */
export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

/** `String.prototype.isWellFormed` (ES2024; Node 20+), which this package's lib lacks. */
interface WellFormedString {
  isWellFormed(): boolean;
}

/**
 * Bytes of a key or value given as `Uint8Array` or string. Returns the same array (no copy)
 * for byte input. Throws `TypeError` for anything else, naming `what`.
 *
 * Strings are encoded as UTF-8 and must be well-formed UTF-16: a lone surrogate (a
 * `\ud800`-`\udfff` code unit not in a pair) has no UTF-8 encoding — `TextEncoder` would
 * write U+FFFD for it, so `"\ud800"` and `"\udbff"` would be the same key — and is a
 * `TypeError`. Pass such data as bytes.
 */
export function toBytes(value: unknown, what = "key"): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === "string") {
    if (!(value as unknown as WellFormedString).isWellFormed()) {
      throw new TypeError(
        `${what} is not well-formed UTF-16 (it has a lone surrogate, which UTF-8 cannot encode); pass bytes instead`,
      );
    }
    return encoder.encode(value);
  }
  throw new TypeError(`${what} must be a Uint8Array, Buffer or string; got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? (value.constructor?.name ?? "an object") : typeof value;
}

/** UTF-8 decode (for messages and tests). */
export function bytesToString(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Node's Buffer where the runtime has one (Node.js, Deno and Bun give npm packages one), else
 * undefined (a browser): long comparisons then take the loop.
 */
export const NodeBuffer: NodeBufferLike | undefined = (globalThis as { Buffer?: NodeBufferLike })
  .Buffer;

/** What shale uses of Node's Buffer (typed here: users need no @types/node). */
export interface NodeBufferLike {
  compare(a: Uint8Array, b: Uint8Array): number;
  allocUnsafeSlow(size: number): Uint8Array;
  isBuffer(value: unknown): boolean;
}

/**
 * Lexicographic comparison of two byte strings: negative, zero or positive.
 * A tight loop for short keys (cheaper than crossing into C++), `Buffer.compare` for long ones.
 */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const al = a.length;
  const bl = b.length;
  const n = al < bl ? al : bl;
  if (n > 64 && NodeBuffer !== undefined) return NodeBuffer.compare(a, b);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return al - bl;
}

/** Byte equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  if (n > 64 && NodeBuffer !== undefined) return NodeBuffer.compare(a, b) === 0;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytes of one pool buffer of `pooledBytes`; requests above a quarter of it get their own. */
const POOL_SIZE = 8192;
let pool = new ArrayBuffer(0);
let poolPos = 0;

/**
 * A zeroed array of `n` bytes for a buffer an object keeps and takes views of (a key or seek
 * buffer of an iterator): a view of a shared 8 KiB pool buffer, so it is off the V8 heap from
 * the start. `new Uint8Array(n)` with n <= 64 lives on the V8 heap, and the first `subarray`
 * or `.buffer` of it moves it off: an ArrayBuffer allocation, ~1 µs, where this costs ~50 ns
 * (Node 20, measured). Pieces start 8-byte aligned and are never handed out twice; a pool
 * buffer is freed when no view of it is left (so a long-lived array keeps at most 8 KiB
 * alive). Do not pass its `.buffer` on: that is the whole pool. Above 2 KiB: an array of its
 * own.
 */
export function pooledBytes(n: number): Uint8Array {
  if (n > POOL_SIZE >>> 2) return new Uint8Array(n);
  if (poolPos + n > pool.byteLength) {
    pool = new ArrayBuffer(POOL_SIZE);
    poolPos = 0;
  }
  const view = new Uint8Array(pool, poolPos, n);
  poolPos = (poolPos + n + 7) & ~7;
  return view;
}

/** A copy of `bytes` that owns its memory (for data that must outlive a view). */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  return bytes.slice();
}

/** Concatenates byte strings into a new array. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** Hex dump, for messages and tests. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += bytes[i]!.toString(16).padStart(2, "0");
  return out;
}

/**
 * A printable rendering of a key: printable ASCII as is, other bytes as `\xNN`.
 * Deterministic, used by `toString` of internal keys and by data-driven tests.
 */
export function formatKey(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    s +=
      b >= 0x20 && b < 0x7f && b !== 0x5c
        ? String.fromCharCode(b)
        : `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return s;
}

/**
 * Compares `a[0, aLen)` with `b[0, bLen)` lexicographically without creating views.
 * REQUIRES: aLen <= a.length, bLen <= b.length.
 */
export function comparePrefixes(a: Uint8Array, aLen: number, b: Uint8Array, bLen: number): number {
  const n = aLen < bLen ? aLen : bLen;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return aLen - bLen;
}
