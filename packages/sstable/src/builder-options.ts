/**
 * TableBuilder options: their defaults and validation.
 */
import { bytewiseComparator, type Comparator, ShaleError } from "@shale/base";
import { type CompressionName, compressionTypeOf, DEFAULT_COMPRESSION } from "./compression.js";
import { FormatVersion } from "./format.js";

/** Collects user properties while a table is built (RocksDB's TablePropertiesCollector). */
export interface TablePropertiesCollector {
  /** Called for every point entry, in order. `internalKey` and `value` are views: copy to keep. */
  add(internalKey: Uint8Array, value: Uint8Array): void;
  /** Called once by `finish`; the returned names and values go into `properties.user`. */
  finish(): Record<string, string>;
}

export interface TableBuilderOptions {
  /** Order of user keys. Default: `bytewiseComparator`. */
  comparator?: Comparator;
  /** Target uncompressed size of a data block in bytes. Default: 4096. */
  blockSize?: number;
  /** Entries between restart points in data blocks. Default: 16. */
  blockRestartInterval?: number;
  /** Bloom filter bits per key; 0 writes no filter. Default: 10. */
  bitsPerKey?: number;
  /** Data block compression ("none" or "snappy"). Default: "snappy" (see compression.ts). */
  compression?: CompressionName;
  /** Format version to write. Default: 1 (the only one). */
  formatVersion?: number;
  /** User property collectors. Default: none. */
  collectors?: readonly TablePropertiesCollector[];
}

function positiveInteger(
  value: number | undefined,
  fallback: number,
  name: string,
  min: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isInteger(value) || value < min) {
    throw ShaleError.invalidArgument(`${name} must be an integer >= ${min}; got ${value}`);
  }
  return value;
}

/** Options with every default applied. */
export interface ResolvedBuilderOptions {
  comparator: Comparator;
  blockSize: number;
  blockRestartInterval: number;
  bitsPerKey: number;
  compression: CompressionName;
  formatVersion: number;
  collectors: readonly TablePropertiesCollector[];
}

/**
 * Applies the defaults and checks the values: TypeError for a wrong type, InvalidArgument for
 * a bad value (blockSize and blockRestartInterval integers >= 1, bitsPerKey in [0, 100], a
 * known compression, formatVersion 1).
 */
export function resolveBuilderOptions(options: TableBuilderOptions): ResolvedBuilderOptions {
  if (typeof options !== "object" || options === null)
    throw new TypeError("options must be an object");
  const bitsPerKey = options.bitsPerKey ?? 10;
  if (typeof bitsPerKey !== "number") throw new TypeError("bitsPerKey must be a number");
  if (!(bitsPerKey >= 0 && bitsPerKey <= 100)) {
    throw ShaleError.invalidArgument(`bitsPerKey must be in [0, 100]; got ${bitsPerKey}`);
  }
  const compression = options.compression ?? DEFAULT_COMPRESSION;
  compressionTypeOf(compression);
  const formatVersion = options.formatVersion ?? FormatVersion.LATEST;
  if (formatVersion !== FormatVersion.V1) {
    throw ShaleError.invalidArgument(`unsupported formatVersion ${formatVersion} (supported: 1)`);
  }
  return {
    comparator: options.comparator ?? bytewiseComparator,
    blockSize: positiveInteger(options.blockSize, 4096, "blockSize", 1),
    blockRestartInterval: positiveInteger(
      options.blockRestartInterval,
      16,
      "blockRestartInterval",
      1,
    ),
    bitsPerKey,
    compression,
    formatVersion,
    collectors: options.collectors ?? [],
  };
}
