/**
 * LZ4 block decompression (the raw block format of lz4's `LZ4_compress_*` and
 * `LZ4_compress_HC*`, without the frame format), for reading RocksDB tables whose blocks are
 * compressed with `kLZ4Compression` (4) or `kLZ4HCCompression` (5): both write the same
 * block format, HC only searches harder. Read only: shale writes none or snappy.
 *
 * ```
 * block    := sequence* lastSeq
 * sequence := token ‖ litExt* ‖ literal bytes ‖ fixed16 LE offset ‖ matchExt*
 * lastSeq  := token ‖ litExt* ‖ literal bytes          (the input ends after its literals)
 * token    := u8: high 4 bits literal length, low 4 bits match length - 4
 * litExt / matchExt: when the 4-bit field is 15, bytes follow and are added to it, each
 *            255 meaning "another byte follows"
 * a match copies `matchLength` bytes starting `offset` (1..65535) bytes back in the output;
 * it may overlap itself when offset < length (a run)
 * ```
 * Worked example: `1f 61 01 00 00 20 62 63` -> token 0x1f: 1 literal "a", match length
 * 15 + 0 + 4 = 19 at offset 1 (the extension byte 00 adds nothing) gives 20 × "a", then
 * token 0x20: 2 literals "bc" and the end — "aaaaaaaaaaaaaaaaaaaabc" (22 bytes). Reference:
 * lz4's doc/lz4_Block_format.md.
 *
 * Every read and write is bounds-checked against the input and the declared output length
 * (RocksDB's varint32 prefix, see compression.ts): malformed input — an offset of 0 or before
 * the output's start, a length running past either end, input left over or output short —
 * returns false; the caller reports Corruption. The loop allocates nothing.
 *
 * Why our own decoder: the registry's pure-JavaScript block decoder (lz4js 0.2.0) does no
 * bounds checks (a damaged block writes garbage or throws a RangeError deep inside), and
 * allocates a 5 MiB buffer when imported; the others are WebAssembly builds of the C
 * library or native addons. Measured on RocksDB-written 4 KiB db_bench blocks (Node 20, 2
 * shared cores, load ~2, two runs of `node dist/bench/compression-bench.js`, MB/s of output):
 * this decoder 1,275 / 1,288 (lz4hc blocks 1,054 / 855), lz4js.decompressBlock 859 / 485.
 */

/** Copies shorter than this are done byte by byte (cheaper than a builtin call). */
const SHORT_COPY = 16;

/** The minimum match length LZ4 encodes (the token stores length - 4). */
const MIN_MATCH = 4;

/**
 * Decodes the LZ4 block `src[start, end)` into `dst[dstStart, dstStart + length)`. True when
 * the block is well formed and produces exactly `length` bytes; false otherwise (`dst` may
 * then hold a partial output, never anything outside that range).
 * REQUIRES: `0 <= start <= end <= src.length`, `dstStart + length <= dst.length`.
 */
export function lz4DecompressTo(
  src: Uint8Array,
  start: number,
  end: number,
  dst: Uint8Array,
  dstStart: number,
  length: number,
): boolean {
  let p = start;
  let q = dstStart;
  const qEnd = dstStart + length;
  if (p >= end) return length === 0;
  for (;;) {
    const token = src[p++]!;
    // Literals.
    let literals = token >>> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (p >= end) return false;
        b = src[p++]!;
        literals += b;
      } while (b === 255);
    }
    if (literals > end - p || literals > qEnd - q) return false;
    if (literals < SHORT_COPY) {
      for (let i = 0; i < literals; i++) dst[q + i] = src[p + i]!;
    } else {
      dst.set(src.subarray(p, p + literals), q);
    }
    p += literals;
    q += literals;
    if (p === end) return q === qEnd; // the last sequence has no match
    // Match.
    if (end - p < 2) return false;
    const offset = src[p]! | (src[p + 1]! << 8);
    p += 2;
    if (offset === 0 || offset > q - dstStart) return false;
    let match = token & 15;
    if (match === 15) {
      let b: number;
      do {
        if (p >= end) return false;
        b = src[p++]!;
        match += b;
      } while (b === 255);
    }
    match += MIN_MATCH;
    if (match > qEnd - q) return false;
    let from = q - offset;
    if (offset >= match && match >= SHORT_COPY) {
      dst.copyWithin(q, from, from + match);
      q += match;
    } else {
      // Short, or overlapping itself (a run): byte by byte, front to back.
      const stop = q + match;
      while (q < stop) dst[q++] = dst[from++]!;
    }
  }
}
