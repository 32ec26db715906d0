/**
 * The filter formats: RocksDB's full-filter formats (`table/block_based/filter_policy.cc`,
 * `util/bloom_impl.h`, RocksDB 7.8.3), bit for bit. The writer (`builder.ts`) writes
 * FastLocalBloom, the format_version=5 Bloom filter; the reader also reads RocksDB's legacy
 * Bloom filter (format_version < 5, `legacy.ts`).
 *
 * FastLocalBloom:
 * ```
 * +---------------------------+---------------------------+-----+--------------------------+
 * | cache line 0 (64 bytes)   | cache line 1 (64 bytes)   | ... | metadata (5 bytes)       |
 * +---------------------------+---------------------------+-----+--------------------------+
 *   len = 64 * numLines bytes of Bloom bits                      [len]   = 0xFF  marker (-1 = new Bloom)
 *                                                                [len+1] = 0x00  sub-implementation FastLocalBloom
 *                                                                [len+2] = numProbes (bits 0..4);
 *                                                                          bits 5..7 = log2(line bytes) - 6 = 0
 *                                                                [len+3] = 0x00  reserved (RocksDB: maybe a seed)
 *                                                                [len+4] = 0x00  reserved
 * ```
 *
 * Bit `b` (0..511) of a line is bit `b & 7` of byte `b >> 3` of that line (LSB first).
 *
 * Adding / querying a key: its 64-bit hash is RocksDB's `GetSliceHash64(key)` (the XXH3
 * preview `XXPH3_64bits`, seed 0; `hash.ts`), split into lo = low 32 bits, hi = high 32 bits:
 * ```
 *   line = FastRange32(lo, numLines) = floor(lo * numLines / 2^32)
 *   h = hi
 *   repeat numProbes times:
 *     bit = h >>> 23                  // top 9 bits: 0..511
 *     set / test line[bit >> 3] bit (bit & 7)
 *     h = h * 0x9e3779b9 mod 2^32     // golden-ratio remix
 * ```
 *
 * Sizing (RocksDB's `FastLocalBloomBitsBuilder::CalculateSpace`, optimize_filters_for_memory
 * off): `millibits = floor(bitsPerKey * 1000 + 0.500001)`,
 * `len = roundUp64(ceil(numKeys * millibits / 8000))` bytes, i.e.
 * `numLines = ceil(numKeys * millibits / 512000)` (0 when there are no keys; len at most
 * 0xffffffc0), `numProbes = chooseNumProbes(millibits)`.
 *
 * No checksum: a filter is embedded in a checksummed container (an SSTable block).
 *
 * Worked example: 3 keys at 10 bits/key -> millibits 10000, numLines = ceil(30000/512000)
 * = 1, numProbes 6; the filter is 69 bytes: 64 bytes of bits (at most 18 set), then
 * `ff 00 06 00 00`. With 0 keys the filter is the 5 metadata bytes alone, `ff 00 06 00 00`
 * (RocksDB then writes no filter block at all in a table).
 *
 * The reader dispatches as RocksDB's `GetBuiltinFilterBitsReader` does, on the length and
 * on byte [len] read as an int8 (DO NOT CHANGE: part of the format):
 * - total length <= 5: no key was added ("always no").
 * - -1 (0xFF): new Bloom. Sub-implementation 0, line-size code 0 (64 bytes), probes 1..30
 *   and reserved bytes 0 -> FastLocalBloom; any other value -> "always may match"
 *   (RocksDB: "reserved / future safe").
 * - -2 (0xFE): Ribbon -> not implemented here: "always may match" (never a wrong "no").
 * - 0: zero probes -> "always may match". Other negatives: reserved -> "always may match".
 * - 1..127: legacy Bloom, that byte is numProbes; bytes [len+1..len+4] = numLines (fixed32
 *   little-endian), see `legacy.ts`.
 */
import { ShaleError } from "@shale/base";

/** Part of the file format; do not change. */
export const FilterFormat = {
  /** Bytes of metadata after the bit array. */
  METADATA_BYTES: 5,
  /** Bytes per cache line (one Bloom "block"). */
  LINE_BYTES: 64,
  /** Bits per cache line. */
  LINE_BITS: 512,
  /** Marker byte of the new (format_version >= 5) Bloom filters: -1 as int8. */
  MARKER_NEW_BLOOM: 0xff,
  /** Marker byte meaning "zero probes": RocksDB answers "may match" for every key. */
  MARKER_ALWAYS_TRUE: 0x00,
  /** Marker byte of RocksDB's Ribbon filter (-2), not implemented here. */
  MARKER_RIBBON: 0xfe,
  /** Largest legacy-Bloom marker: bytes 1..127 are the legacy filter's numProbes. */
  MAX_LEGACY_MARKER: 0x7f,
  /** Largest bit-array length RocksDB's FastLocalBloom supports (bytes). */
  MAX_BIT_BYTES: 0xffffffc0,
  /** Sub-implementation byte of FastLocalBloom. */
  SUB_IMPL_FAST_LOCAL_BLOOM: 0x00,
  /** Largest numProbes the metadata can carry and the reader accepts. */
  MAX_PROBES: 30,
} as const;

/** The golden-ratio multiplier that remixes the probe hash. */
export const PROBE_MULTIPLIER = 0x9e3779b9;

/**
 * Number of probes for a bits-per-key setting given in millibits (RocksDB's
 * `FastLocalBloomImpl::ChooseNumProbes`, chosen by measurement for a 512-bit line).
 */
export function chooseNumProbes(millibitsPerKey: number): number {
  const m = millibitsPerKey;
  if (m <= 2080) return 1;
  if (m <= 3580) return 2;
  if (m <= 5100) return 3;
  if (m <= 6640) return 4;
  if (m <= 8300) return 5;
  if (m <= 10070) return 6;
  if (m <= 11720) return 7;
  if (m <= 14001) return 8;
  if (m <= 16050) return 9;
  if (m <= 18300) return 10;
  if (m <= 22001) return 11;
  if (m <= 25501) return 12;
  if (m > 50000) return 24;
  // Roughly optimal for the remaining range: 28000 -> 12, 28001 -> 13, 50000 -> 23.
  return Math.floor((m - 1) / 2000) - 1;
}

/** Smallest and largest bits-per-key setting accepted (RocksDB clamps to the same range). */
export const MIN_BITS_PER_KEY = 1;
export const MAX_BITS_PER_KEY = 100;

/**
 * Checks a bits-per-key setting and returns it: any finite number in [1, 100], fractional
 * ones included (9.9 is 9900 millibits; see `millibitsPerKey`). RocksDB silently clamps
 * (below 0.5 means no filter, below 1 means 1, NaN and above 100 mean 100); here a value it
 * would change is an error, so a setting never means something other than it says.
 * @param name how the message names the setting ("bitsPerKey", "filterPolicy.bitsPerKey").
 * @throws TypeError for a non-number; ShaleError InvalidArgument for NaN, an infinity or a
 *   value outside [1, 100].
 */
export function checkBitsPerKey(value: unknown, name = "bitsPerKey"): number {
  if (typeof value !== "number") {
    throw new TypeError(`${name} must be a number; got ${value === null ? "null" : typeof value}`);
  }
  if (!(value >= MIN_BITS_PER_KEY && value <= MAX_BITS_PER_KEY)) {
    throw ShaleError.invalidArgument(
      `${name} must be a number in [${MIN_BITS_PER_KEY}, ${MAX_BITS_PER_KEY}] (fractions allowed, read to 1/1000); got ${value}`,
    );
  }
  return value;
}

/**
 * The integer setting every size computation uses: RocksDB's
 * `int(bitsPerKey * 1000.0 + 0.500001)` (a nudge up, so that settings with three decimals
 * such as 7.005 are read exactly on every platform).
 */
export function millibitsPerKey(bitsPerKey: number): number {
  return Math.floor(bitsPerKey * 1000 + 0.500001);
}

/** Number of 64-byte lines for `numKeys` keys: `ceil(numKeys * millibits / 512000)`. */
export function numLinesFor(numKeys: number, millibits: number): number {
  if (numKeys <= 0) return 0;
  // numKeys * millibits < 2^53 for any filter that fits in memory, so this is exact; it is
  // RocksDB's roundUp64(ceil(numKeys * millibits / 8000)) / 64 (nested ceilings of integer
  // divisions are one ceiling), capped at RocksDB's largest bit array.
  const lines = Math.max(1, Math.ceil((numKeys * millibits) / 512000));
  return Math.min(lines, FilterFormat.MAX_BIT_BYTES / FilterFormat.LINE_BYTES);
}

/** Total filter bytes (bits + metadata) for `numKeys` keys. */
export function filterBytesFor(numKeys: number, millibits: number): number {
  return numLinesFor(numKeys, millibits) * FilterFormat.LINE_BYTES + FilterFormat.METADATA_BYTES;
}

/**
 * `floor(h * n / 2^32)` for unsigned 32-bit `h` and `n`, exactly, without BigInt.
 *
 * For n <= 2^21 (2097152) the product is below 2^53 and one multiplication is exact. Above that the
 * product is formed from the 16-bit halves of h: h*n = (hHigh*n)*2^16 + hLow*n, and
 * floor((hHigh*n + floor(hLow*n / 2^16)) / 2^16) is the same integer (every partial term
 * stays below 2^49).
 */
export function fastRange32(h: number, n: number): number {
  if (n <= 2097152) return (((h >>> 0) * n) / 4294967296) >>> 0;
  const low = (((h & 0xffff) * n) / 65536) >>> 0;
  return Math.floor(((h >>> 16) * n + low) / 65536);
}

/** Writes the 5 metadata bytes at `filter[len...]` (`len = 64 * numLines`). */
export function writeMetadata(filter: Uint8Array, len: number, numProbes: number): void {
  filter[len] = FilterFormat.MARKER_NEW_BLOOM;
  filter[len + 1] = FilterFormat.SUB_IMPL_FAST_LOCAL_BLOOM;
  filter[len + 2] = numProbes & 31; // top 3 bits: log2(64) - 6 = 0
  filter[len + 3] = 0;
  filter[len + 4] = 0;
}
