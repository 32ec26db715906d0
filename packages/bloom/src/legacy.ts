/**
 * RocksDB's legacy Bloom full filter (`LegacyLocalityBloomImpl<false>` in `util/bloom_impl.h`),
 * which RocksDB writes for format_version < 5. @shale/bloom reads it (tables written by older
 * RocksDB versions, or with format_version <= 4) and never writes it.
 *
 * ```
 * +---------------------------+-----+---------------------------+-----------+---------------+
 * | line 0 (2^b bytes)        | ... | line numLines-1           | numProbes | numLines      |
 * +---------------------------+-----+---------------------------+-----------+---------------+
 *   len = numLines * 2^b bytes (b = 6 when written on x86: 64-byte      [len]  [len+1..len+4]
 *   lines; numLines odd)                                      1..127   fixed32 little-endian
 * ```
 *
 * Key hash: `h = BloomHash(key)` = RocksDB's 32-bit `Hash(key, 0xbc9f1d34)` (`legacy-hash.ts`).
 * ```
 *   line  = h % numLines                      (plain modulo; numLines is made odd when writing)
 *   delta = rotr32(h, 17)
 *   repeat numProbes times:
 *     bit = h & (8 * 2^b - 1)                 (low bits of h: 0..511 for 64-byte lines)
 *     set / test byte line * 2^b + (bit >> 3), bit (bit & 7)
 *     h = h + delta mod 2^32
 * ```
 * Writing (for reference): `totalBits = min(numKeys * wholeBitsPerKey, 0xffff0000)`, numLines =
 * ceil(totalBits / 512) made odd, numProbes = clamp(floor(wholeBitsPerKey * 0.69), 1, 30).
 *
 * The line size comes from the metadata: `len = numLines * 2^b`. RocksDB accepts any power of
 * two b (a filter from a machine with other cache lines); a length that no power of two
 * explains, or numLines = 0, makes an "always may match" filter.
 *
 * Worked example (RocksDB 7.8.3, fixture `fv4-seq1000-bpk10.sst`): 1000 keys at 10 bits/key
 * -> totalBits 10000 -> 20 lines -> 21 (odd) -> 1344 bytes, then `06 15 00 00 00`
 * (6 probes, 21 lines): 1349 bytes.
 */

/** The legacy filter's line size and count, from its metadata; undefined if none fits. */
export interface LegacyGeometry {
  numLines: number;
  /** log2 of the line size in bytes (6 for 64-byte lines). */
  log2LineBytes: number;
}

/**
 * RocksDB's decoding of the legacy metadata: `len` bytes of bits in `numLines` lines.
 * Undefined when no power-of-two line size gives `len` (RocksDB: "always may match").
 * Exact arithmetic (RocksDB's uint32 products could wrap on corrupt metadata; here such a
 * filter is "always may match" instead of a read past the bits).
 */
export function legacyGeometry(len: number, numLines: number): LegacyGeometry | undefined {
  if (numLines === 0 || len === 0) return undefined;
  if (numLines * 64 === len) return { numLines, log2LineBytes: 6 };
  if (len % numLines !== 0) return undefined;
  const lineBytes = len / numLines;
  let log2 = 0;
  while (2 ** log2 < lineBytes) log2++;
  return 2 ** log2 === lineBytes ? { numLines, log2LineBytes: log2 } : undefined;
}

/**
 * 1 if every probe of legacy hash `h` is set in `data`'s line for it, else 0.
 * REQUIRES: geometry from `legacyGeometry` for `data`'s bit array; numProbes >= 1.
 */
export function legacyProbesMatch(
  data: Uint8Array,
  h: number,
  numLines: number,
  log2LineBytes: number,
  numProbes: number,
): number {
  h >>>= 0;
  const base = (h % numLines) * 2 ** log2LineBytes;
  const lineBits = 2 ** (log2LineBytes + 3);
  const delta = ((h >>> 17) | (h << 15)) >>> 0;
  if (lineBits <= 0x40000000) {
    const mask = lineBits - 1;
    for (let p = 0; p < numProbes; p++) {
      const bit = h & mask;
      if ((data[base + (bit >>> 3)]! & (1 << (bit & 7))) === 0) return 0;
      h = (h + delta) >>> 0;
    }
    return 1;
  }
  for (let p = 0; p < numProbes; p++) {
    const bit = h % lineBits;
    if ((data[base + Math.floor(bit / 8)]! & (1 << (bit & 7))) === 0) return 0;
    h = (h + delta) >>> 0;
  }
  return 1;
}
