/**
 * Compression dictionaries as the table builder writes them (RocksDB's
 * `compression_opts.max_dict_bytes` with `zstd_max_train_bytes = 0`: a raw-content
 * dictionary, no training).
 *
 * While a table is built with a dictionary, its first data blocks are kept uncompressed in
 * memory (RocksDB's "buffered" state) until their raw bytes exceed the buffer limit
 * (`zstdMaxDictBufferBytes`; 0 = the whole table) or the table finishes. Then the dictionary
 * is sampled from them, every buffered block is compressed with it and written, and so is each
 * later data block. The dictionary is the concatenation of whole blocks (the last one cut to
 * fit) taken in RocksDB's order: with n buffered blocks, start at block floor(n / 2) and step
 * by 545055921143 mod n (a prime, so the walk visits every block once), until
 * `maxDictBytes` bytes are taken or every block is.
 *
 * It is stored as the meta block `rocksdb.compression_dict` (uncompressed, with the usual
 * trailer, between the index and the range-deletion block; the metaindex names it), and
 * zstd compresses the table's data blocks with `ZSTD_compress_usingDict` over these bytes:
 * any buffer that does not start with zstd's dictionary magic 0xEC30A437 is raw content,
 * i.e. history the first match can reach back into. The reader (and RocksDB's) decompresses
 * with the same bytes. Index and meta blocks never use it.
 *
 * Worked example: 5 buffered blocks of 4000 bytes and maxDictBytes 10000: 545055921143 mod 5
 * = 3, so blocks 2, 0 (2 + 3 - 5) and 3 are taken, the third cut to 2000 bytes: a
 * 10000-byte dictionary = block2 ‖ block0 ‖ block3[0, 2000).
 */

/** RocksDB's sampling generator (a prime, coprime with any block count). */
const PRIME_GENERATOR = 545055921143;

/** A data block held back until the dictionary is made. */
export interface BufferedBlock {
  /** Its uncompressed contents (a copy). */
  raw: Uint8Array;
  /** Its last internal key (a copy). */
  last: Uint8Array;
  /** Its first internal key, for a first-key index (undefined for other indexes). */
  first: Uint8Array | undefined;
  /** The first internal key after it, once added (for its index separator). */
  next: Uint8Array | undefined;
}

/**
 * The raw-content dictionary RocksDB samples from `blocks` (in table order), at most
 * `maxBytes` long; empty when there are no blocks.
 */
export function sampleDictionary(
  blocks: readonly { raw: Uint8Array }[],
  maxBytes: number,
): Uint8Array {
  const n = blocks.length;
  if (n === 0 || maxBytes <= 0) return new Uint8Array(0);
  const step = PRIME_GENERATOR % n; // exact: the generator is below 2^53
  let total = 0;
  for (let i = 0; i < n && total < maxBytes; i++) total += blocks[i]!.raw.length;
  const dict = new Uint8Array(Math.min(total, maxBytes));
  let size = 0;
  let idx = Math.floor(n / 2);
  for (let i = 0; i < n && size < dict.length; i++) {
    const raw = blocks[idx]!.raw;
    const take = Math.min(dict.length - size, raw.length);
    dict.set(raw.subarray(0, take), size);
    size += take;
    idx += step;
    if (idx >= n) idx -= n;
  }
  return size === dict.length ? dict : dict.subarray(0, size);
}
