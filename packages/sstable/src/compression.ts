/**
 * Block compression. The format has a per-block compression type byte (RocksDB's numbering,
 * see `CompressionType`); this build writes and reads `none` (0) and `snappy` (1, through
 * the pure-JS `snappyjs` to compress and `snappy-decode.ts` to decompress; the Snappy stream
 * carries its own uncompressed length).
 *
 * Why Snappy (measured on db_bench-like 4 KiB data blocks, 16-byte keys, 100-byte values
 * that compress to half, Node 20, one core; see the package README):
 * snappyjs compresses at 163 MB/s and decompresses at 406 MB/s to 57.1 % of the input;
 * lz4js (raw blocks) at 120 MB/s and 467 MB/s to 57.9 % — it must clear a 256 KiB hash
 * table per block, needs an external length prefix, has no bounds checks when decoding and
 * allocates a 5 MiB buffer when imported. Snappy wins on writes and safety and is within
 * ~15 % on reads.
 *
 * Like RocksDB, a block whose compressed form saves less than 12.5 % is stored uncompressed.
 *
 * Default "snappy", as RocksDB's: tables are ~56 % the size (66 vs 118 MiB for 1M db_bench
 * entries) and, with the WebAssembly decoder (`snappy-wasm.ts`), a block-cache miss costs
 * ~3 % more CPU than on an uncompressed table (table-bench, cache a tenth of the table:
 * 10.7 vs 10.3 µs per get; scans and seeks the same; building ~25 % more CPU, in the flush
 * and compaction workers). It was "none" while the decoder was JavaScript only (14.0 vs
 * 9.6 µs per such get).
 */
import { ShaleError } from "@shale/base";
import * as snappy from "snappyjs";
import type { BlockSlab } from "./alloc.js";
import { CompressionType } from "./format.js";
import { snappyDecompress, snappyDecompressTo, snappyLength } from "./snappy-decode.js";

/** The compression option: a codec name. */
export type CompressionName = "none" | "snappy";

/** Compression used when none is given: "snappy" (see above; RocksDB's default too). */
export const DEFAULT_COMPRESSION: CompressionName = "snappy";

/** The trailer byte for a compression option. Throws InvalidArgument for an unknown name. */
export function compressionTypeOf(name: CompressionName): CompressionType {
  if (name === "none") return CompressionType.None;
  if (name === "snappy") return CompressionType.Snappy;
  throw ShaleError.invalidArgument(
    `unknown compression "${String(name)}" (use "none" or "snappy")`,
  );
}

/** The name of a compression type byte (for properties and messages). */
export function compressionName(type: number): string {
  return type === CompressionType.None
    ? "none"
    : type === CompressionType.Snappy
      ? "snappy"
      : `unknown(${type})`;
}

/**
 * Compresses `raw` with `type`. Returns the compressed bytes (a fresh array), or undefined
 * when the type is none or compression would save less than 12.5 % (store `raw` as is).
 */
export function compressBlock(raw: Uint8Array, type: CompressionType): Uint8Array | undefined {
  if (type === CompressionType.None || raw.length === 0) return undefined;
  // snappyjs returns a Buffer for Buffer input; a plain Uint8Array view keeps its fast path.
  const input = Buffer.isBuffer(raw) ? new Uint8Array(raw.buffer, raw.byteOffset, raw.length) : raw;
  const out = snappy.compress(input);
  if (out.length > raw.length - (raw.length >>> 3)) return undefined;
  return out;
}

/** Upper bound for a decompressed block (guards allocations from corrupt lengths). */
const MAX_UNCOMPRESSED = 1 << 30;

/**
 * Decompresses a block into a fresh array. Throws Corruption naming the file and block
 * offset for an unknown type or a malformed stream.
 */
export function decompressBlock(
  compressed: Uint8Array,
  type: number,
  file: string | undefined,
  blockOffset: number,
): Uint8Array {
  if (type === CompressionType.Snappy) {
    const out = snappyDecompress(compressed, MAX_UNCOMPRESSED);
    if (out === undefined) {
      throw ShaleError.corruption(
        "cannot decompress snappy block: malformed stream",
        file,
        blockOffset,
      );
    }
    return out;
  }
  throw ShaleError.corruption(`unknown compression type ${type}`, file, blockOffset);
}

/**
 * As `decompressBlock`, into memory carved from `slab` (see `BlockSlab`: for blocks that are
 * not cached). Throws the same Corruption.
 */
export function decompressBlockInto(
  compressed: Uint8Array,
  type: number,
  file: string | undefined,
  blockOffset: number,
  slab: BlockSlab,
): Uint8Array {
  if (type === CompressionType.Snappy) {
    const length = snappyLength(compressed);
    if (length >= 0 && length <= MAX_UNCOMPRESSED) {
      slab.reserve(length);
      if (snappyDecompressTo(compressed, slab.buf, slab.pos, length)) return slab.take(length);
    }
    throw ShaleError.corruption(
      "cannot decompress snappy block: malformed stream",
      file,
      blockOffset,
    );
  }
  throw ShaleError.corruption(`unknown compression type ${type}`, file, blockOffset);
}
