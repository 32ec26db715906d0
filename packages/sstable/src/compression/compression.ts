/**
 * Block compression. Each block's trailer carries a compression type byte in RocksDB's
 * numbering (`CompressionType` in format.ts, from include/rocksdb/compression_type.h):
 *
 * | byte | type          | shale    | stored block (format_version >= 2)                     |
 * |------|---------------|----------|--------------------------------------------------------|
 * | 0    | none          | write+read | the block itself                                     |
 * | 1    | snappy        | write+read | a raw Snappy stream (it starts with its own varint32 length) |
 * | 2    | zlib          | read     | varint32 uncompressedLength ‖ raw deflate (window -14)   |
 * | 3    | bzip2         | -        | NotSupported                                           |
 * | 4    | lz4           | write+read | varint32 uncompressedLength ‖ LZ4 block              |
 * | 5    | lz4hc         | read     | varint32 uncompressedLength ‖ LZ4 block                |
 * | 6    | xpress        | -        | NotSupported                                           |
 * | 7    | zstd          | write+read | varint32 uncompressedLength ‖ one zstd frame         |
 * | 0x40 | zstdNotFinal  | read     | as zstd                                                |
 *
 * The varint32 prefix is RocksDB's "compress_format_version 2" (util/compression.h,
 * `PutDecompressedSizeInfo`), used by every table of format_version >= 2; version 1 (tables
 * of format_version 0/1, which shale does not read) had no prefix for zlib and a raw 8-byte
 * length for LZ4. A decoded block must have exactly the prefixed length. Any other type byte
 * is NotSupported, naming the type, the file and the block offset; a malformed stream is
 * Corruption at the block offset. A table's `rocksdb.compression_dict` (compression-dict.ts)
 * is the dictionary of its zstd data blocks, written and read.
 *
 * Codecs (all JavaScript, no compiler, no native addon). Decode speed on RocksDB-written 4 KiB
 * db_bench blocks, MB/s of output, two runs (Node 20, 2 shared cores, load ~2;
 * `node dist/bench/compression-bench.js`, see the package README):
 * - snappy: `snappy-compress.ts` (WebAssembly; `snappyjs` where WebAssembly is unavailable)
 *   compresses; `snappy-decode.ts` (JS + WebAssembly) decodes: 1,960 / 2,286.
 * - lz4/lz4hc: `compression-lz4.ts`, our own bounds-checked block decoder: 1,275 / 1,288.
 * - zstd: zstd's C library in WebAssembly (zstd.ts), both ways, 352 / 366 decoding (its
 *   zstd-bench against zstd-codec and fzstd: the README's zstd section); `fzstd` 0.1.1 (pure
 *   JS) decodes dictionary-less blocks where WebAssembly is unavailable: 139 / 110.
 * - zlib: `node:zlib` `inflateRawSync`, looked up when the first zlib block is read
 *   (`process.getBuiltinModule`), never at module load, so non-Node bundles load this file;
 *   where it is absent a zlib block is NotSupported: 490 / 398.
 *
 * LZ4 (`"lz4"`): shale's own block compressor, `lz4-compress.wat` (WebAssembly, wrapped by
 * `lz4-wasm.ts`) or, where WebAssembly is unavailable, `lz4-compress.ts` (TypeScript); both
 * write the same bytes (lz4's fast search over a generation-stamped 8,192-entry hash table,
 * nothing allocated per block but the output). On db_bench-like 4 KiB blocks
 * (`node dist/bench/lz4-bench.js`, one process, alternating, medians; two runs) the module
 * compresses at 455 / 452 MB/s and the TypeScript one at 209 / 208, to 58.2 %; lz4js 0.2.0
 * at 176 / 179; lz4-wasm-nodejs 0.9.2 at 653 / 534 (57.8 %), but that one is Node-only (it
 * reads its .wasm file at import) and needs a second copy per block to put RocksDB's varint32
 * in place of its 4-byte size. Figures and reasoning: the package README, "LZ4 writes". LZ4HC
 * is read only (no high-compression search here).
 *
 * Why shale writes Snappy (shale-built db_bench-like 4 KiB blocks, Node 20, one core): snappyjs compresses at 163 MB/s
 * and decompresses at 406 MB/s to 57.1 % of the input; lz4js (raw blocks) at 120 MB/s and
 * 467 MB/s to 57.9 % — it must clear a 256 KiB hash table per block, has no bounds checks when
 * decoding and allocates a 5 MiB buffer when imported. Snappy wins on writes and safety and
 * is within ~15 % on reads.
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
import { ErrorCode, NodeBuffer, putVarint32, ShaleError } from "@shale/base";
import { decompress as zstdDecompress } from "fzstd";
import * as snappy from "snappyjs";
import type { BlockSlab } from "../block/alloc.js";
import { allocUninitialized } from "../block/alloc.js";
import { CompressionType } from "../format/format.js";
import { lz4DecompressTo } from "./compression-lz4.js";
import { lz4CompressBound, lz4CompressTo } from "./lz4-compress.js";
import { wasmLz4Compressor } from "./lz4-wasm.js";
import { wasmCompressor } from "./snappy-compress.js";
import {
  snappyDecompress,
  snappyDecompressTo,
  snappyHeaderEnd,
  snappyLength,
} from "./snappy-decode.js";
import { ZstdError, zstdCodec } from "./zstd.js";

/** The compression option: a codec shale writes. */
export type CompressionName = "none" | "snappy" | "lz4" | "zstd";

/** Every `CompressionName`, in the order error messages list them. */
export const WRITTEN_COMPRESSIONS: readonly CompressionName[] = Object.freeze([
  "none",
  "snappy",
  "lz4",
  "zstd",
]);

/** The zstd level when none is given: 3, zstd's default (RocksDB's for its default level). */
export const DEFAULT_ZSTD_LEVEL = 3;

/** Compression used when none is given: "snappy" (see above; RocksDB's default too). */
export const DEFAULT_COMPRESSION: CompressionName = "snappy";

/** Types shale reads but does not write, by option name (for the error message). */
const READ_ONLY = new Set(["zlib", "lz4hc"]);

/** The trailer byte for a compression option. Throws InvalidArgument for an unknown name. */
export function compressionTypeOf(name: CompressionName): CompressionType {
  if (name === "none") return CompressionType.None;
  if (name === "snappy") return CompressionType.Snappy;
  if (name === "lz4") return CompressionType.LZ4;
  if (name === "zstd") return CompressionType.ZSTD;
  const written = WRITTEN_COMPRESSIONS.map((n) => `"${n}"`).join(", ");
  if (READ_ONLY.has(String(name))) {
    throw ShaleError.invalidArgument(
      `compression "${String(name)}" is read only in shale (write one of ${written})`,
    );
  }
  throw ShaleError.invalidArgument(`unknown compression "${String(name)}" (use one of ${written})`);
}

/** Option-style names by type byte. */
const NAMES: Record<number, string> = {
  [CompressionType.None]: "none",
  [CompressionType.Snappy]: "snappy",
  [CompressionType.Zlib]: "zlib",
  [CompressionType.BZip2]: "bzip2",
  [CompressionType.LZ4]: "lz4",
  [CompressionType.LZ4HC]: "lz4hc",
  [CompressionType.Xpress]: "xpress",
  [CompressionType.ZSTD]: "zstd",
  [CompressionType.ZSTDNotFinal]: "zstdNotFinal",
};

/** RocksDB's names (`CompressionTypeToString`), as its `rocksdb.compression` property holds them. */
const ROCKSDB_NAMES: Record<number, string> = {
  [CompressionType.None]: "NoCompression",
  [CompressionType.Snappy]: "Snappy",
  [CompressionType.Zlib]: "Zlib",
  [CompressionType.BZip2]: "BZip2",
  [CompressionType.LZ4]: "LZ4",
  [CompressionType.LZ4HC]: "LZ4HC",
  [CompressionType.Xpress]: "Xpress",
  [CompressionType.ZSTD]: "ZSTD",
  [CompressionType.ZSTDNotFinal]: "ZSTDNotFinal",
};

/** The option-style name of a compression type byte ("lz4"), or `unknown(N)`. */
export function compressionName(type: number): string {
  return NAMES[type] ?? `unknown(${type})`;
}

/** RocksDB's name of a compression type byte ("LZ4"), or `unknown(N)`. */
export function rocksdbCompressionName(type: number): string {
  return ROCKSDB_NAMES[type] ?? `unknown(${type})`;
}

/** The type byte for one of RocksDB's names (`rocksdbCompressionName`'s inverse), or -1. */
export function compressionTypeFromRocksDBName(name: string): number {
  for (const key of Object.keys(ROCKSDB_NAMES)) {
    if (ROCKSDB_NAMES[Number(key)] === name) return Number(key);
  }
  return -1;
}

/** True when this build can decompress blocks of `type` (zlib: where node:zlib exists). */
export function canDecompress(type: number): boolean {
  switch (type) {
    case CompressionType.None:
    case CompressionType.Snappy:
    case CompressionType.LZ4:
    case CompressionType.LZ4HC:
    case CompressionType.ZSTD:
    case CompressionType.ZSTDNotFinal:
      return true;
    case CompressionType.Zlib:
      return zlib() !== undefined;
    default:
      return false;
  }
}

/**
 * Compresses `raw` with `type`. Returns the compressed bytes in a fresh array, followed by
 * `tail` bytes of room (0..16, contents unspecified: where writeBlock puts the trailer), or
 * undefined when the type is none or compression would save less than 12.5 % (store `raw`
 * as is). zstd blocks use `zstdLevel` and the table's dictionary `dict` if given (data blocks
 * only, as RocksDB). Throws NotSupported for a type shale does not write (see
 * WRITTEN_COMPRESSIONS) or zstd where WebAssembly is unavailable.
 */
export function compressBlock(
  raw: Uint8Array,
  type: CompressionType,
  tail = 0,
  dict?: Uint8Array,
  zstdLevel = DEFAULT_ZSTD_LEVEL,
): Uint8Array | undefined {
  if (type === CompressionType.None || raw.length === 0) return undefined;
  let out: Uint8Array;
  if (type === CompressionType.Snappy) {
    out = wasmCompressor()?.compress(raw, tail) ?? snappyjsCompress(raw, tail);
  } else if (type === CompressionType.LZ4) {
    out = wasmLz4Compressor()?.compress(raw, tail) ?? lz4Compress(raw, tail);
  } else if (type === CompressionType.ZSTD) {
    out = zstdCompressPrefixed(raw, tail, dict, zstdLevel);
  } else {
    throw ShaleError.notSupported(
      `shale does not write ${compressionName(type)} blocks (only ${WRITTEN_COMPRESSIONS.join(", ")})`,
    );
  }
  if (out.length - tail > raw.length - (raw.length >>> 3)) return undefined;
  return out;
}

/** Where `lz4Compress` builds a block before copying it out (grown, never shrunk). */
let lz4Scratch = new Uint8Array(0);

/**
 * RocksDB's LZ4 block: varint32 raw length ‖ LZ4 block (lz4-compress.ts), then `tail` bytes;
 * where WebAssembly is unavailable (the same bytes as lz4-wasm.ts's).
 */
function lz4Compress(raw: Uint8Array, tail: number): Uint8Array {
  const bound = 5 + lz4CompressBound(raw.length);
  if (lz4Scratch.length < bound) lz4Scratch = new Uint8Array(Math.max(bound, 8192));
  const start = putVarint32(lz4Scratch, 0, raw.length);
  const end = lz4CompressTo(raw, 0, raw.length, lz4Scratch, start);
  const out = new Uint8Array(end + tail);
  out.set(lz4Scratch.subarray(0, end));
  return out;
}

/** RocksDB's zstd block: varint32 raw length ‖ one zstd frame, then `tail` bytes of room. */
function zstdCompressPrefixed(
  raw: Uint8Array,
  tail: number,
  dict: Uint8Array | undefined,
  level: number,
): Uint8Array {
  const codec = zstdCodec();
  if (codec === undefined) {
    throw ShaleError.notSupported("zstd compression needs WebAssembly, unavailable here");
  }
  let prefix = 1;
  for (let n = raw.length >>> 7; n !== 0; n >>>= 7) prefix++;
  const frame = codec.compress(raw, level, dict, tail + prefix);
  // Shift the frame right by the prefix length (copyWithin handles the overlap).
  const frameLength = frame.length - tail - prefix;
  frame.copyWithin(prefix, 0, frameLength);
  let n = raw.length;
  let at = 0;
  while (n >= 0x80) {
    frame[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  frame[at] = n;
  return frame;
}

/** snappyjs, where WebAssembly is unavailable (see snappy-compress.ts). */
function snappyjsCompress(raw: Uint8Array, tail: number): Uint8Array {
  // snappyjs returns a Buffer for Buffer input; a plain Uint8Array view keeps its fast path.
  const input =
    NodeBuffer?.isBuffer(raw) === true
      ? new Uint8Array(raw.buffer, raw.byteOffset, raw.length)
      : raw;
  const stream = snappy.compress(input);
  if (tail === 0) return stream;
  const out = new Uint8Array(stream.length + tail);
  out.set(stream);
  return out;
}

/** Upper bound for a decompressed block (guards allocations from corrupt lengths). */
const MAX_UNCOMPRESSED = 1 << 30;

/**
 * LZ4 expands at most ~255:1 (a match of 255·k bytes costs k + 3 input bytes); a larger
 * prefixed length is damage, refused before allocating.
 */
const LZ4_MAX_RATIO = 256;

/** `readSizePrefix`'s second result: where the compressed stream starts (single-threaded). */
let prefixEnd = 0;

/**
 * RocksDB's varint32 uncompressed-size prefix at the start of `src` (sets `prefixEnd`), or -1
 * when it is malformed or over `MAX_UNCOMPRESSED`.
 */
function readSizePrefix(src: Uint8Array): number {
  // The same varint32 as the length that starts a Snappy stream.
  const length = snappyLength(src);
  prefixEnd = snappyHeaderEnd();
  return length <= MAX_UNCOMPRESSED ? length : -1;
}

function corrupt(
  type: number,
  why: string,
  file: string | undefined,
  blockOffset: number,
): ShaleError {
  return ShaleError.corruption(
    `cannot decompress ${compressionName(type)} block: ${why}`,
    file,
    blockOffset,
  );
}

function unsupportedDict(file: string | undefined, blockOffset: number): ShaleError {
  const options: { file?: string; offset: number } = { offset: blockOffset };
  if (file !== undefined) options.file = file;
  return new ShaleError(
    ErrorCode.NotSupported,
    "zstd blocks with a compression dictionary need WebAssembly, unavailable here",
    options,
  );
}

function unsupported(type: number, file: string | undefined, blockOffset: number): ShaleError {
  const options: { file?: string; offset: number } = { offset: blockOffset };
  if (file !== undefined) options.file = file;
  const what =
    NAMES[type] !== undefined
      ? `${NAMES[type]} (${type}, RocksDB's ${ROCKSDB_NAMES[type]})`
      : `unknown compression type ${type}`;
  const hint = type === CompressionType.Zlib ? " (zlib needs node:zlib, absent here)" : "";
  return new ShaleError(
    ErrorCode.NotSupported,
    `block compression ${what} is not supported${hint}; shale reads none, snappy, zlib, lz4, lz4hc and zstd`,
    options,
  );
}

/**
 * Decompresses a block into a fresh array. Throws Corruption naming the file and block
 * offset for a malformed stream, NotSupported (same file and offset) for a type this build
 * does not decode.
 */
export function decompressBlock(
  compressed: Uint8Array,
  type: number,
  file: string | undefined,
  blockOffset: number,
  dict?: Uint8Array,
): Uint8Array {
  if (type === CompressionType.Snappy) {
    const out = snappyDecompress(compressed, MAX_UNCOMPRESSED);
    if (out === undefined) throw corrupt(type, "malformed stream", file, blockOffset);
    return out;
  }
  return decompressPrefixed(compressed, type, file, blockOffset, undefined, dict);
}

/**
 * As `decompressBlock`, into memory carved from `slab` (see `BlockSlab`: for blocks that are
 * not cached) where the codec can write there (snappy, lz4); others return fresh memory.
 * Throws the same errors.
 */
export function decompressBlockInto(
  compressed: Uint8Array,
  type: number,
  file: string | undefined,
  blockOffset: number,
  slab: BlockSlab,
  dict?: Uint8Array,
): Uint8Array {
  if (type === CompressionType.Snappy) {
    const length = snappyLength(compressed);
    if (length >= 0 && length <= MAX_UNCOMPRESSED) {
      slab.reserve(length);
      if (snappyDecompressTo(compressed, slab.buf, slab.pos, length)) return slab.take(length);
    }
    throw corrupt(type, "malformed stream", file, blockOffset);
  }
  return decompressPrefixed(compressed, type, file, blockOffset, slab, dict);
}

/** The codecs with RocksDB's varint32 size prefix (and the NotSupported rest). */
function decompressPrefixed(
  compressed: Uint8Array,
  type: number,
  file: string | undefined,
  blockOffset: number,
  slab: BlockSlab | undefined,
  dict: Uint8Array | undefined,
): Uint8Array {
  switch (type) {
    case CompressionType.LZ4:
    case CompressionType.LZ4HC: {
      const length = readSizePrefix(compressed);
      if (length < 0) throw corrupt(type, "bad size prefix", file, blockOffset);
      const start = prefixEnd;
      if (length > (compressed.length - start) * LZ4_MAX_RATIO) {
        throw corrupt(type, `size prefix ${length} too large for the block`, file, blockOffset);
      }
      let out: Uint8Array;
      let at: number;
      if (slab !== undefined) {
        slab.reserve(length);
        out = slab.buf;
        at = slab.pos;
      } else {
        out = allocUninitialized(length);
        at = 0;
      }
      if (!lz4DecompressTo(compressed, start, compressed.length, out, at, length)) {
        throw corrupt(type, "malformed stream", file, blockOffset);
      }
      return slab !== undefined ? slab.take(length) : out;
    }
    case CompressionType.ZSTD:
    case CompressionType.ZSTDNotFinal: {
      const length = readSizePrefix(compressed);
      if (length < 0) throw corrupt(type, "bad size prefix", file, blockOffset);
      const frame = compressed.subarray(prefixEnd);
      const codec = zstdCodec();
      let out: Uint8Array;
      try {
        if (codec !== undefined) out = codec.decompress(frame, length, dict);
        else if (dict === undefined || dict.length === 0) out = zstdDecompress(frame);
        else throw unsupportedDict(file, blockOffset);
      } catch (e) {
        if (e instanceof ShaleError) throw e;
        const why = e instanceof ZstdError ? `zstd error ${e.code}` : (e as Error).message;
        throw corrupt(type, `malformed stream (${why})`, file, blockOffset);
      }
      if (out.length !== length) {
        throw corrupt(
          type,
          `decoded ${out.length} bytes, the size prefix says ${length}`,
          file,
          blockOffset,
        );
      }
      return out;
    }
    case CompressionType.Zlib: {
      const z = zlib();
      if (z === undefined) throw unsupported(type, file, blockOffset);
      const length = readSizePrefix(compressed);
      if (length < 0) throw corrupt(type, "bad size prefix", file, blockOffset);
      let out: Uint8Array;
      try {
        // RocksDB deflates raw (window_bits -14); maxOutputLength stops a damaged stream early.
        out = z.inflateRawSync(compressed.subarray(prefixEnd), {
          maxOutputLength: Math.max(length, 1),
        });
      } catch (e) {
        throw corrupt(type, `malformed stream (${(e as Error).message})`, file, blockOffset);
      }
      if (out.length !== length) {
        throw corrupt(
          type,
          `decoded ${out.length} bytes, the size prefix says ${length}`,
          file,
          blockOffset,
        );
      }
      return new Uint8Array(out.buffer, out.byteOffset, out.length);
    }
    default:
      throw unsupported(type, file, blockOffset);
  }
}

/** The part of node:zlib used here. */
interface Inflater {
  inflateRawSync(input: Uint8Array, options: { maxOutputLength: number }): Uint8Array;
}

/** node:zlib once looked up: undefined = not yet, null = absent. */
let zlibModule: Inflater | null | undefined;

/** node:zlib, looked up on first use (never at module load; see the header), or undefined. */
function zlib(): Inflater | undefined {
  if (zlibModule === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
      .process;
    const found = proc?.getBuiltinModule?.("node:zlib") as Inflater | undefined;
    zlibModule = found ?? null;
  }
  return zlibModule ?? undefined;
}

/**
 * Replaces the zlib inflater (tests, or a runtime without `process.getBuiltinModule` that
 * still has a zlib); `null` makes zlib blocks NotSupported; undefined restores the lookup.
 */
export function setZlibInflater(inflater: Inflater | null | undefined): void {
  zlibModule = inflater;
}
