/**
 * Snappy decompression (the raw block format, as `snappyjs` writes it), for reading blocks.
 *
 * ```
 * stream  := varint32 uncompressedLength ‖ element*
 * element := tag byte, its low 2 bits the kind:
 *   00 literal  length-1 in the tag's high 6 bits (0..59), or 60..63: the length-1 follows
 *               in 1..4 little-endian bytes; then the literal bytes
 *   01 copy     length-4 in tag bits 2..4, offset = (tag bits 5..7) << 8 | next byte
 *   10 copy     length-1 in the tag's high 6 bits, offset: 2 bytes little-endian
 *   11 copy     length-1 in the tag's high 6 bits, offset: 4 bytes little-endian
 * a copy repeats `length` bytes starting `offset` bytes back in the output (it may overlap
 * itself when offset < length: a run)
 * ```
 * Worked example: `0a 10 61 62 63 64 65 05 05` decodes to "abcdeabcde": length 10, tag 0x10
 * (literal, 4 + 1 = 5 bytes) "abcde", tag 0x05 (copy kind 01, length 1 + 4 = 5) with offset
 * 0x05: the 5 bytes from 5 back. Reference: google/snappy format_description.txt.
 *
 * Why not `snappyjs.uncompress`: it copies every literal and match byte by byte. Here long
 * literals are copied with `TypedArray.set` and long non-overlapping matches with
 * `copyWithin` (both memmove), and the output is allocated once at its exact size (or is a
 * range of a caller's buffer: `snappyDecompressTo`, for `BlockSlab`s). Malformed
 * input (bad lengths, offsets before the output's start, truncation, output size mismatch)
 * returns undefined; the caller reports Corruption.
 */
import { fixed32At, varint32Before, varintEnd } from "@shale/base";
import { allocUninitialized } from "../block/alloc.js";
import { wasmDecoder } from "./snappy-wasm.js";

/**
 * Outputs of this size range are decoded by the WebAssembly decoder (snappy-wasm.ts): its
 * memory grows to the largest block it decoded and never shrinks, so huge blocks (a single
 * big value) stay in JavaScript.
 */
const MIN_WASM_LENGTH = 256;
const MAX_WASM_LENGTH = 1 << 20;

/** Copies shorter than this are done byte by byte (cheaper than a builtin call). */
const SHORT_COPY = 16;

/** `snappyLength`'s second result: where the stream's elements start (single-threaded). */
let headerEnd = 0;

/**
 * The uncompressed length the Snappy stream `src` declares (its varint32 header), or -1 if
 * the header is malformed.
 */
export function snappyLength(src: Uint8Array): number {
  const length = varint32Before(src, 0, src.length);
  if (length >= 0) headerEnd = varintEnd;
  return length;
}

/** @internal Where the elements of the stream `snappyLength` last read start. */
export function snappyHeaderEnd(): number {
  return headerEnd;
}

/**
 * Decompresses the Snappy stream `src` into a fresh array of its uncompressed length, or
 * returns undefined if the stream is malformed or its length exceeds `maxLength`.
 */
export function snappyDecompress(src: Uint8Array, maxLength: number): Uint8Array | undefined {
  const length = snappyLength(src);
  if (length < 0 || length > maxLength) return undefined;
  // Not zeroed: the stream writes every byte in order, or the array is dropped.
  const out = allocUninitialized(length);
  return snappyDecompressTo(src, out, 0, length) ? out : undefined;
}

/**
 * Decompresses the elements of `src` (after the header `snappyLength` just read) into
 * `out[start, start + length)`. Returns false, leaving that range partly written, if the
 * stream is malformed: a copy may only reach back into its own output, never before `start`.
 * REQUIRES: `snappyLength(src)` was the last call of it and returned `length`;
 * `start + length <= out.length`.
 */
export function snappyDecompressTo(
  src: Uint8Array,
  out: Uint8Array,
  start: number,
  length: number,
): boolean {
  if (length >= MIN_WASM_LENGTH && length <= MAX_WASM_LENGTH) {
    const wasm = wasmDecoder();
    if (wasm !== undefined) return wasm.decodeTo(src, headerEnd, out, start, length);
  }
  return decodeInJs(src, out, start, length);
}

/** `snappyDecompressTo` in JavaScript (exported for tests: both decoders must agree). */
export function decodeInJs(
  src: Uint8Array,
  out: Uint8Array,
  start: number,
  length: number,
): boolean {
  const n = src.length;
  let p = headerEnd;
  const end = start + length;
  // Literals are copied from views made on the buffer: cheaper than subarray.
  const srcBuffer = src.buffer;
  const srcOffset = src.byteOffset;
  let o = start;
  while (p < n) {
    const tag = src[p++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const extra = len - 59;
        if (p + extra > n) return false;
        len = 0;
        for (let i = extra - 1; i >= 0; i--) len = len * 256 + src[p + i]!;
        p += extra;
      }
      len += 1;
      if (p + len > n || o + len > end) return false;
      if (len < SHORT_COPY) {
        for (let i = 0; i < len; i++) out[o + i] = src[p + i]!;
      } else {
        out.set(new Uint8Array(srcBuffer, srcOffset + p, len), o);
      }
      p += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (p >= n) return false;
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[p++]!;
    } else if (kind === 2) {
      if (p + 2 > n) return false;
      len = (tag >>> 2) + 1;
      offset = src[p]! | (src[p + 1]! << 8);
      p += 2;
    } else {
      if (p + 4 > n) return false;
      len = (tag >>> 2) + 1;
      offset = fixed32At(src, p);
      p += 4;
    }
    if (offset === 0 || offset > o - start || o + len > end) return false;
    const from = o - offset;
    if (len < SHORT_COPY || offset < len) {
      // Short, or overlapping itself (a run): byte by byte, in order.
      for (let i = 0; i < len; i++) out[o + i] = out[from + i]!;
    } else {
      out.copyWithin(o, from, from + len);
    }
    o += len;
  }
  return o === end;
}
