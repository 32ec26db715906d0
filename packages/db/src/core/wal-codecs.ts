/**
 * The codecs of compressed WALs (RocksDB's `wal_compression`; format in @shale/wal's
 * writer.ts): zstd, through @shale/sstable's WebAssembly zstd codec. `loadCodecs` is awaited
 * by the async opens so that the codec is instantiated asynchronously (as browsers need)
 * before anything reads or writes synchronously.
 */
import { ShaleError } from "@shale/base";
import { loadZstd, zstdCodec } from "@shale/sstable";
import type { WalCompressor, WalDecompressor } from "@shale/wal";

/** RocksDB's CompressionType byte for zstd. Part of the file format; do not change. */
const ZSTD = 7;
/** The level RocksDB's WAL compression uses (its default compression options: zstd's 3). */
const WAL_ZSTD_LEVEL = 3;

/** Instantiates the zstd codec (WebAssembly) ahead of synchronous use. Never rejects. */
export async function loadCodecs(): Promise<void> {
  await loadZstd();
}

/** Reads the records of a zstd-compressed WAL. */
export const WAL_DECOMPRESSOR: WalDecompressor = {
  canDecompress: (type) => type === ZSTD && zstdCodec() !== undefined,
  decompress: (_type, compressed) => zstdCodec()!.decompress(compressed, -1),
};

const ZSTD_COMPRESSOR: WalCompressor = {
  type: ZSTD,
  compress(record) {
    const codec = zstdCodec();
    if (codec === undefined) {
      throw ShaleError.notSupported('walCompression "zstd" needs WebAssembly, unavailable here');
    }
    return codec.compress(record, WAL_ZSTD_LEVEL);
  },
};

/** The compressor for `walCompression`, or undefined for "none". */
export function walCompressor(walCompression: "zstd" | "none"): WalCompressor | undefined {
  return walCompression === "zstd" ? ZSTD_COMPRESSOR : undefined;
}
