/**
 * Byte coding shared by every shale format.
 *
 * - fixed32 / fixed64: little-endian. 64-bit values are JS numbers up to 2^53 - 1 (no BigInt);
 *   `putFixed64Words` writes two explicit 32-bit halves when the caller has them.
 * - varint32 / varint64: LEB128, 7 bits per byte, low groups first, high bit = "more".
 *   varint32 takes at most 5 bytes, varint64 at most 10.
 * - length-prefixed slice: varint32 length, then the bytes.
 *
 * Encoders write into a caller-provided buffer at `pos` and return the position after the
 * written bytes; they never allocate. Decoders check bounds and throw
 * `ShaleError(Corruption)` for truncated or overlong input. `Decoder` is a cursor for
 * reading a sequence of fields from one buffer without allocating.
 */
import { ShaleError } from "./errors.js";

const TWO_32 = 4294967296;

/** Largest sequence number / 64-bit quantity representable without loss: 2^53 - 1. */
export const MAX_SAFE_UINT64 = Number.MAX_SAFE_INTEGER;

/** Writes `value` (0..2^32-1) as 4 little-endian bytes. */
export function putFixed32(dst: Uint8Array, pos: number, value: number): number {
  dst[pos] = value;
  dst[pos + 1] = value >>> 8;
  dst[pos + 2] = value >>> 16;
  dst[pos + 3] = value >>> 24;
  return pos + 4;
}

/** Reads 4 little-endian bytes as an unsigned 32-bit number. REQUIRES: pos + 4 <= length. */
export function getFixed32(src: Uint8Array, pos: number): number {
  return (src[pos]! | (src[pos + 1]! << 8) | (src[pos + 2]! << 16)) + src[pos + 3]! * 0x1000000;
}

/** Writes a 64-bit value given as two unsigned 32-bit halves. */
export function putFixed64Words(dst: Uint8Array, pos: number, lo: number, hi: number): number {
  putFixed32(dst, pos, lo);
  return putFixed32(dst, pos + 4, hi);
}

/** Writes `value` (0..2^53-1) as 8 little-endian bytes. */
export function putFixed64(dst: Uint8Array, pos: number, value: number): number {
  if (!(value >= 0 && value <= MAX_SAFE_UINT64 && Number.isInteger(value))) {
    throw new RangeError(`fixed64 value out of range: ${value}`);
  }
  const hi = Math.floor(value / TWO_32);
  return putFixed64Words(dst, pos, value - hi * TWO_32, hi);
}

/**
 * Reads 8 little-endian bytes as a number. Values above 2^53 - 1 cannot be represented and
 * raise Corruption.
 */
export function getFixed64(src: Uint8Array, pos: number): number {
  const hi = getFixed32(src, pos + 4);
  if (hi > 0x1fffff) throw ShaleError.corruption("fixed64 value exceeds 2^53 - 1", undefined, pos);
  return hi * TWO_32 + getFixed32(src, pos);
}

/** Bytes needed for `value` as a varint (0..2^53-1). */
export function varintLength(value: number): number {
  let len = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    len++;
  }
  return len;
}

/** Writes `value` (0..2^32-1) as a varint32. Returns the position after it. */
export function putVarint32(dst: Uint8Array, pos: number, value: number): number {
  value >>>= 0;
  while (value >= 0x80) {
    dst[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  dst[pos++] = value;
  return pos;
}

/** Writes `value` (0..2^53-1) as a varint64. Returns the position after it. */
export function putVarint64(dst: Uint8Array, pos: number, value: number): number {
  if (value < TWO_32) return putVarint32(dst, pos, value);
  if (!(value <= MAX_SAFE_UINT64 && Number.isInteger(value))) {
    throw new RangeError(`varint64 value out of range: ${value}`);
  }
  while (value >= 0x80) {
    const low = value % 128;
    dst[pos++] = low | 0x80;
    value = (value - low) / 128;
  }
  dst[pos++] = value;
  return pos;
}

/** Writes a varint32 length and the bytes of `slice`. */
export function putLengthPrefixed(dst: Uint8Array, pos: number, slice: Uint8Array): number {
  pos = putVarint32(dst, pos, slice.length);
  dst.set(slice, pos);
  return pos + slice.length;
}

/**
 * A read cursor over one buffer. Every read checks bounds against `limit` and throws
 * `ShaleError(Corruption)` with the offset (plus `fileOffset`, the buffer's position in its
 * file, when known) on truncated or malformed input.
 *
 * Slices returned by `readBytes` / `readLengthPrefixed` are views into the buffer: valid as
 * long as the buffer is.
 */
export class Decoder {
  buf: Uint8Array;
  pos: number;
  limit: number;
  /** Where `buf[0]` sits in its file, for error offsets. Default 0. */
  fileOffset: number;
  /** The file name reported in errors, if any. */
  file: string | undefined;

  constructor(buf: Uint8Array, pos = 0, limit = buf.length, fileOffset = 0, file?: string) {
    this.buf = buf;
    this.pos = pos;
    this.limit = limit;
    this.fileOffset = fileOffset;
    this.file = file;
  }

  /** Points the cursor at a new region without allocating a new Decoder. */
  reset(buf: Uint8Array, pos = 0, limit = buf.length, fileOffset = 0): this {
    this.buf = buf;
    this.pos = pos;
    this.limit = limit;
    this.fileOffset = fileOffset;
    return this;
  }

  get remaining(): number {
    return this.limit - this.pos;
  }

  get done(): boolean {
    return this.pos >= this.limit;
  }

  private fail(what: string, at: number): never {
    throw ShaleError.corruption(what, this.file, this.fileOffset + at);
  }

  readByte(): number {
    if (this.pos >= this.limit) this.fail("truncated byte", this.pos);
    return this.buf[this.pos++]!;
  }

  readFixed32(): number {
    const p = this.pos;
    if (p + 4 > this.limit) this.fail("truncated fixed32", p);
    this.pos = p + 4;
    return getFixed32(this.buf, p);
  }

  readFixed64(): number {
    const p = this.pos;
    if (p + 8 > this.limit) this.fail("truncated fixed64", p);
    const hi = getFixed32(this.buf, p + 4);
    if (hi > 0x1fffff) this.fail("fixed64 value exceeds 2^53 - 1", p);
    this.pos = p + 8;
    return hi * TWO_32 + getFixed32(this.buf, p);
  }

  readVarint32(): number {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    // Fast path: one byte.
    if (p < this.limit) {
      const b = buf[p]!;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    let result = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (p >= this.limit) this.fail("truncated varint32", start);
      const b = buf[p++]!;
      if (shift === 28 && b > 0x0f) this.fail("varint32 overflows 32 bits", start);
      result |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = p;
        return result >>> 0;
      }
    }
    return this.fail("varint32 longer than 5 bytes", start);
  }

  readVarint64(): number {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (p >= this.limit) this.fail("truncated varint64", start);
      const b = buf[p++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (result > MAX_SAFE_UINT64) this.fail("varint64 exceeds 2^53 - 1", start);
        this.pos = p;
        return result;
      }
      scale *= 128;
    }
    return this.fail("varint64 longer than 10 bytes", start);
  }

  /** A view of the next `n` bytes. */
  readBytes(n: number): Uint8Array {
    const p = this.pos;
    if (n < 0 || p + n > this.limit) this.fail(`truncated slice of ${n} bytes`, p);
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }

  /** A view of a varint32-length-prefixed slice. */
  readLengthPrefixed(): Uint8Array {
    const n = this.readVarint32();
    return this.readBytes(n);
  }

  skip(n: number): void {
    if (n < 0 || this.pos + n > this.limit) this.fail(`cannot skip ${n} bytes`, this.pos);
    this.pos += n;
  }
}

/** Decodes one varint32 at `pos` (no cursor). Throws Corruption on bad input. */
export function getVarint32(src: Uint8Array, pos: number, limit = src.length): number {
  return scratch.reset(src, pos, limit).readVarint32();
}

/** Decodes one varint64 at `pos` (no cursor). Throws Corruption on bad input. */
export function getVarint64(src: Uint8Array, pos: number, limit = src.length): number {
  return scratch.reset(src, pos, limit).readVarint64();
}

const scratch = new Decoder(new Uint8Array(0));

/**
 * A growable byte buffer for building encodings of unknown size (blocks, batches, edits).
 * `finish()` returns a view of the written bytes (no copy); `clear()` reuses the memory.
 */
export class ByteWriter {
  buf: Uint8Array;
  pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  byte(b: number): this {
    this.ensure(1);
    this.buf[this.pos++] = b;
    return this;
  }

  fixed32(v: number): this {
    this.ensure(4);
    this.pos = putFixed32(this.buf, this.pos, v);
    return this;
  }

  fixed64(v: number): this {
    this.ensure(8);
    this.pos = putFixed64(this.buf, this.pos, v);
    return this;
  }

  varint32(v: number): this {
    this.ensure(5);
    this.pos = putVarint32(this.buf, this.pos, v);
    return this;
  }

  varint64(v: number): this {
    this.ensure(10);
    this.pos = putVarint64(this.buf, this.pos, v);
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  lengthPrefixed(b: Uint8Array): this {
    this.ensure(5 + b.length);
    this.pos = putLengthPrefixed(this.buf, this.pos, b);
    return this;
  }

  get length(): number {
    return this.pos;
  }

  /** A view of the bytes written so far (valid until the next write or clear). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  clear(): void {
    this.pos = 0;
  }
}
