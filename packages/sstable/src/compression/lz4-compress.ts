/**
 * LZ4 block compression: shale's own encoder of the LZ4 block format (lz4's block format
 * document; the format compression-lz4.ts decodes, drawn there), for tables
 * written with `compression: "lz4"` (RocksDB's kLZ4Compression, type byte 4).
 *
 * The search is lz4's fast greedy one (`LZ4_compress_fast`, acceleration 1, the setting
 * RocksDB uses by default), one position at a time: hash the next 4 bytes (13 bits of
 * `x * 2654435761`), take the one position the table remembers for that hash, and accept it
 * when its 4 bytes are equal and it is at most 65,535 bytes back; otherwise step forward,
 * taking longer steps after every 64 misses (`step = misses >> 6`) so incompressible input
 * is skipped quickly. A found match is first extended backwards over equal literals, then
 * forwards; the position 2 bytes before its end is hashed too, and the search goes on from
 * its end. The end-of-block rules hold:
 *
 * ```
 *            ... last match ends here (<= n - 5)
 *                       v
 *   |....matches....|lit|L L L L L|   n = input length
 *                   ^     \_______/
 *   last match starts     the last 5 bytes are always literals (LASTLITERALS)
 *   at or before n - 12 (MFLIMIT); inputs under 13 bytes are one literal run
 * ```
 *
 * Worked example: "a" × 20 then "bc" (22 bytes) -> `1c 61 01 00 50 61 61 61 62 63`
 * (10 bytes): token 0x1c = 1 literal "a" and a match of 12 + 4 = 16 bytes at offset 01 00
 * (= 1, a run), which must end by 22 - 5 = 17; then token 0x50, the last 5 bytes "aaabc" as
 * literals. (compression-lz4.ts's example, `1f 61 01 00 00 20 62 63`, is the same text with
 * the run taken to 20 bytes: decoders accept it, but it breaks the last-5-literals rule.)
 *
 * The hash table holds `generation + position` per slot in an Int32Array of 8,192 entries
 * (32 KiB, lz4's own size for inputs under 64 KiB); each call raises `generation` past the
 * previous input instead of clearing the table, so an entry from an earlier block reads as
 * "before this block" and is ignored. The table is cleared only when the generation nears
 * 2^30 (once per ~1 GiB compressed). Nothing is allocated per call beyond the output the
 * caller asks for; every read is within the input and every write within the output, whose
 * size `lz4CompressBound` gives.
 *
 * Not thread-safe: one module-level table, used synchronously (each worker has its own).
 *
 * The WebAssembly module `lz4-compress.wat` runs this algorithm step for step (the same
 * bytes; a test compares them) and is what compression.ts uses; this file is its fallback
 * where WebAssembly is unavailable, and its reference. On db_bench-like 4 KiB blocks
 * (`node dist/bench/lz4-bench.js`, two runs): this one 209 / 208 MB/s, the module 455 / 452.
 */

/** The minimum match length the format encodes. */
const MIN_MATCH = 4;
/** The last 5 bytes of a block are literals. */
const LAST_LITERALS = 5;
/** The last match starts at least 12 bytes before the end. */
const MF_LIMIT = 12;
/** Shorter inputs are stored as one literal run. */
const MIN_LENGTH = MF_LIMIT + 1;
/** Matches are at most this far back (a 16-bit offset). */
const MAX_DISTANCE = 65535;
/** Misses before the search step grows (lz4's LZ4_skipTrigger). */
const SKIP_TRIGGER = 6;
/** Bits of the hash: 8,192 slots. */
const HASH_LOG = 13;
const HASH_SHIFT = 32 - HASH_LOG;
/** The generation is restarted (and the table cleared) beyond this. */
const GENERATION_LIMIT = 1 << 30;

const table = new Int32Array(1 << HASH_LOG);
/** Added to positions in `table`: entries below it belong to earlier inputs. */
let generation = 1;

/** The most bytes `lz4CompressTo` writes for `length` input bytes (lz4's LZ4_compressBound). */
export function lz4CompressBound(length: number): number {
  return length + ((length / 255) | 0) + 16;
}

/** The 4 bytes at `i`, little-endian, as an int32. REQUIRES: i + 4 <= src.length. */
function read32(src: Uint8Array, i: number): number {
  return src[i]! | (src[i + 1]! << 8) | (src[i + 2]! << 16) | (src[i + 3]! << 24);
}

/** lz4's multiplier 2654435761, as an int32. */
const HASH_MULTIPLIER = -1640531535;

function hashAt(src: Uint8Array, i: number): number {
  return Math.imul(read32(src, i), HASH_MULTIPLIER) >>> HASH_SHIFT;
}

/**
 * Writes a length field's extension bytes for `rest` = length - 15 (the token holds 15):
 * 255s, then the remainder. Returns the new output position.
 */
function writeExtension(dst: Uint8Array, q: number, rest: number): number {
  while (rest >= 255) {
    dst[q++] = 255;
    rest -= 255;
  }
  dst[q++] = rest;
  return q;
}

/** Copies `n` literals `src[p..)` to `dst[q..)` (byte by byte: no subarray allocated). */
function copyLiterals(src: Uint8Array, p: number, dst: Uint8Array, q: number, n: number): void {
  for (let i = 0; i < n; i++) dst[q + i] = src[p + i]!;
}

/**
 * Writes one sequence's token (literal length; the match length is or-ed in later), the
 * literal length's extension bytes and the literals; returns the output position after them,
 * where the match offset goes.
 */
function writeLiterals(
  src: Uint8Array,
  anchor: number,
  literals: number,
  dst: Uint8Array,
  q: number,
): number {
  const token = q++;
  if (literals >= 15) {
    dst[token] = 15 << 4;
    q = writeExtension(dst, q, literals - 15);
  } else {
    dst[token] = literals << 4;
  }
  copyLiterals(src, anchor, dst, q, literals);
  return q + literals;
}

/**
 * Compresses `src[start, end)` as one LZ4 block into `dst` from `dstStart`; returns the
 * position after the block. REQUIRES: `dst.length - dstStart >= lz4CompressBound(end - start)`
 * (the bound is never exceeded), `end - start < 2^30`.
 */
export function lz4CompressTo(
  src: Uint8Array,
  start: number,
  end: number,
  dst: Uint8Array,
  dstStart: number,
): number {
  const n = end - start;
  let q = dstStart;
  let anchor = start;
  if (n >= MIN_LENGTH) {
    if (generation + n > GENERATION_LIMIT) {
      table.fill(0);
      generation = 1;
    }
    // Table entries are `base + position`, in [floor, floor + n) for this call; anything
    // below `floor` was stored by an earlier call (or is the cleared 0).
    const floor = generation;
    const base = floor - start;
    generation += n;
    const matchLimit = end - LAST_LITERALS; // matches end at or before this
    const lastStart = end - MF_LIMIT; // matches start at or before this
    let ip = start + 1;
    table[hashAt(src, start)] = base + start;
    let misses = 1 << SKIP_TRIGGER;
    while (ip <= lastStart) {
      // One position: hash its 4 bytes, remember it, and test the position remembered before.
      const seq = read32(src, ip);
      const h = Math.imul(seq, HASH_MULTIPLIER) >>> HASH_SHIFT;
      const stored = table[h]!;
      table[h] = base + ip;
      let match = stored - base;
      if (stored < floor || ip - match > MAX_DISTANCE || read32(src, match) !== seq) {
        ip += misses++ >>> SKIP_TRIGGER; // longer steps after every 64 misses
        continue;
      }
      misses = 1 << SKIP_TRIGGER;
      // Extend backwards over equal literals, then forwards up to matchLimit.
      while (ip > anchor && match > start && src[ip - 1] === src[match - 1]) {
        ip--;
        match--;
      }
      const token = q;
      q = writeLiterals(src, anchor, ip - anchor, dst, q);
      const offset = ip - match;
      dst[q++] = offset & 0xff;
      dst[q++] = offset >>> 8;
      let a = ip + MIN_MATCH;
      let b = match + MIN_MATCH;
      while (a < matchLimit && src[a] === src[b]) {
        a++;
        b++;
      }
      const extra = a - ip - MIN_MATCH;
      if (extra >= 15) {
        dst[token] = dst[token]! | 15;
        q = writeExtension(dst, q, extra - 15);
      } else {
        dst[token] = dst[token]! | extra;
      }
      ip = a;
      anchor = ip;
      // Remember a position inside the match (lz4 does the same), then go on from its end.
      if (ip <= lastStart) table[hashAt(src, ip - 2)] = base + ip - 2;
    }
  }
  // The last sequence: every byte from the anchor on, as literals.
  return writeLiterals(src, anchor, end - anchor, dst, q);
}
