/**
 * The option space of the metamorphic test: an `OptionSet` is plain data (JSON, printed on a
 * mismatch and stored in reproductions) that `dbOptions` turns into `DbOptions`.
 *
 * Drawn per set: the file system (memory, node in a temp dir, fault-injecting over memory
 * with power cuts at `reopen crash`), block size 256 B-64 KiB, restart interval 1-32,
 * compression (every codec shale writes), format version 2-7, checksum type, the filter
 * (none, Bloom 1-20 bits, Ribbon), the index type, block cache 0 B to 64 MiB, write buffer
 * 64 KiB (shale's and RocksDB's minimum) to 64 MiB, L0 triggers, level sizes and target
 * file size (tiny ones cascade everything to the last level), cacheIndexAndFilterBlocks,
 * paranoidChecks, background jobs, the prefix extractor (none, fixed or capped at
 * PREFIX_LENGTH; with or without whole-key filtering), the options of the other column
 * families (their own write buffer, block size and codec, or the database's), and 0-3
 * extra column families the database is opened with and the operations never touch (with
 * more than one family, flushes and WAL retention take other paths), the compaction style
 * (leveled or universal; FIFO deletes data by design, so its results are not comparable),
 * atomicFlush, maxTotalWalSize (a small one flushes idle families often), and the shared
 * block cache (point lookups' data blocks searched in place in its slabs, of the block
 * cache's size; none with a block cache under 4 KiB). Fields added
 * later are optional: a reproduction stored before them reads as the default.
 */
import type { Random } from "@shale/base/testing/random";
import { cappedPrefix, type DbOptions, fixedPrefix } from "@shale/db";
import { type CompressionName, WRITTEN_COMPRESSIONS } from "@shale/sstable";
import { PREFIX_LENGTH } from "./ops.js";

export type FsKind = "memory" | "node" | "fault";

export interface FamilyOptionSet {
  writeBufferSize?: number;
  blockSize?: number;
  compression?: CompressionName;
}

export interface OptionSet {
  fs: FsKind;
  blockSize: number;
  blockRestartInterval: number;
  compression: CompressionName;
  formatVersion: number;
  checksum: "crc32c" | "xxhash" | "xxhash64" | "xxh3";
  filter: { type: "none" } | { type: "bloom" | "ribbon"; bitsPerKey: number };
  indexType: "binarySearch" | "twoLevelIndex" | "binarySearchWithFirstKey";
  blockCacheSize: number;
  cacheIndexAndFilterBlocks: boolean;
  writeBufferSize: number;
  level0FileNumCompactionTrigger: number;
  level0SlowdownWritesTrigger: number;
  level0StopWritesTrigger: number;
  maxBytesForLevelBase: number;
  targetFileSizeBase: number;
  disableAutoCompactions: boolean;
  paranoidChecks: boolean;
  maxBackgroundJobs: number;
  prefix: "none" | "fixed" | "capped";
  wholeKeyFiltering: boolean;
  /** Options of every family but `default`. */
  families: FamilyOptionSet;
  /** Families `extra0`.. the database is opened with, never written or read. */
  extraFamilies: number;
  compactionStyle?: "leveled" | "universal";
  atomicFlush?: boolean;
  /** 0: the default limit. */
  maxTotalWalSize?: number;
  sharedBlockCache?: boolean;
}

/** shale's defaults on the memory file system: the reference set, drawn first. */
export const DEFAULT_OPTION_SET: OptionSet = {
  fs: "memory",
  blockSize: 4096,
  blockRestartInterval: 16,
  compression: "snappy",
  formatVersion: 5,
  checksum: "xxhash",
  filter: { type: "bloom", bitsPerKey: 10 },
  indexType: "binarySearch",
  blockCacheSize: 8 * 1024 * 1024,
  cacheIndexAndFilterBlocks: true,
  writeBufferSize: 64 * 1024 * 1024,
  level0FileNumCompactionTrigger: 4,
  level0SlowdownWritesTrigger: 20,
  level0StopWritesTrigger: 36,
  maxBytesForLevelBase: 256 * 1024 * 1024,
  targetFileSizeBase: 64 * 1024 * 1024,
  disableAutoCompactions: false,
  paranoidChecks: true,
  maxBackgroundJobs: 2,
  prefix: "none",
  wholeKeyFiltering: true,
  families: {},
  extraFamilies: 0,
  compactionStyle: "leveled",
  atomicFlush: false,
  maxTotalWalSize: 0,
  sharedBlockCache: false,
};

function oneOf<T>(rnd: Random, xs: readonly T[]): T {
  return xs[rnd.uniform(xs.length)]!;
}

/** 2^k for k in [lo, hi]. */
function powerOfTwo(rnd: Random, lo: number, hi: number): number {
  return 2 ** (lo + rnd.uniform(hi - lo + 1));
}

const KiB = 1024;
const MiB = 1024 * 1024;

/** One option set drawn from the space. */
export function drawOptionSet(rnd: Random): OptionSet {
  const l0 = 1 + rnd.uniform(6);
  const slowdown = l0 + rnd.uniform(20);
  const filterKind = rnd.uniform(4);
  const prefix = oneOf(rnd, ["none", "none", "fixed", "capped"] as const);
  const tiny = rnd.oneIn(4);
  const set: OptionSet = {
    fs: oneOf(rnd, ["memory", "memory", "node", "fault", "fault"] as const),
    blockSize: powerOfTwo(rnd, 8, 16),
    blockRestartInterval: oneOf(rnd, [1, 2, 4, 8, 16, 32]),
    compression: oneOf(rnd, WRITTEN_COMPRESSIONS),
    formatVersion: 2 + rnd.uniform(6),
    checksum: oneOf(rnd, ["crc32c", "xxhash", "xxhash64", "xxh3"] as const),
    filter:
      filterKind === 0
        ? { type: "none" }
        : { type: filterKind === 3 ? "ribbon" : "bloom", bitsPerKey: 1 + rnd.uniform(20) },
    indexType: oneOf(rnd, ["binarySearch", "twoLevelIndex", "binarySearchWithFirstKey"] as const),
    blockCacheSize: oneOf(rnd, [0, 4 * KiB, 64 * KiB, MiB, 64 * MiB]),
    cacheIndexAndFilterBlocks: rnd.oneIn(2),
    writeBufferSize: powerOfTwo(rnd, 16, 26),
    level0FileNumCompactionTrigger: l0,
    level0SlowdownWritesTrigger: slowdown,
    level0StopWritesTrigger: slowdown + rnd.uniform(20),
    maxBytesForLevelBase: tiny ? 1 : powerOfTwo(rnd, 10, 28),
    targetFileSizeBase: tiny ? 1 : powerOfTwo(rnd, 10, 26),
    disableAutoCompactions: rnd.oneIn(8),
    paranoidChecks: !rnd.oneIn(4),
    maxBackgroundJobs: 1 + rnd.uniform(3),
    prefix,
    wholeKeyFiltering: prefix === "none" || !rnd.oneIn(3),
    families: rnd.oneIn(2)
      ? {}
      : {
          writeBufferSize: powerOfTwo(rnd, 16, 22),
          blockSize: powerOfTwo(rnd, 8, 14),
          compression: oneOf(rnd, WRITTEN_COMPRESSIONS),
        },
    extraFamilies: rnd.uniform(4),
    compactionStyle: rnd.oneIn(4) ? "universal" : "leveled",
    atomicFlush: rnd.oneIn(4),
    maxTotalWalSize: oneOf(rnd, [0, 0, 16 * KiB, 256 * KiB]),
  };
  set.sharedBlockCache = set.blockCacheSize >= 4 * KiB && rnd.oneIn(3);
  return set;
}

/** The name of extra family i (no generated family is named so). */
export const extraFamilyName = (i: number): string => `extra${i}`;

/** `count` option sets for a seed: the reference set first, then drawn ones. */
export function optionSets(rnd: Random, count: number): OptionSet[] {
  const sets = [DEFAULT_OPTION_SET];
  while (sets.length < count) sets.push(drawOptionSet(rnd));
  return sets;
}

/** The database options of `set` (the file system is the caller's). */
export function dbOptions(set: OptionSet): DbOptions {
  const options: DbOptions = {
    mergeOperator: "stringappend",
    blockSize: set.blockSize,
    blockRestartInterval: set.blockRestartInterval,
    compression: set.compression,
    formatVersion: set.formatVersion,
    checksum: set.checksum,
    indexType: set.indexType,
    blockCacheSize: set.blockCacheSize,
    cacheIndexAndFilterBlocks: set.cacheIndexAndFilterBlocks,
    writeBufferSize: set.writeBufferSize,
    level0FileNumCompactionTrigger: set.level0FileNumCompactionTrigger,
    level0SlowdownWritesTrigger: set.level0SlowdownWritesTrigger,
    level0StopWritesTrigger: set.level0StopWritesTrigger,
    maxBytesForLevelBase: set.maxBytesForLevelBase,
    targetFileSizeBase: set.targetFileSizeBase,
    disableAutoCompactions: set.disableAutoCompactions,
    paranoidChecks: set.paranoidChecks,
    maxBackgroundJobs: set.maxBackgroundJobs,
    wholeKeyFiltering: set.wholeKeyFiltering,
    compactionStyle: set.compactionStyle ?? "leveled",
    atomicFlush: set.atomicFlush ?? false,
    maxTotalWalSize: set.maxTotalWalSize ?? 0,
    sharedBlockCache: set.sharedBlockCache ?? false,
  };
  if (set.filter.type === "none") options.bloomBitsPerKey = 0;
  else if (set.filter.type === "bloom") options.bloomBitsPerKey = set.filter.bitsPerKey;
  else options.filterPolicy = { type: "ribbon", bitsPerKey: set.filter.bitsPerKey };
  if (set.prefix === "fixed") options.prefixExtractor = fixedPrefix(PREFIX_LENGTH);
  else if (set.prefix === "capped") options.prefixExtractor = cappedPrefix(PREFIX_LENGTH);
  return options;
}

/** The options a non-default family is created and opened with. */
export function familyOptions(set: OptionSet): FamilyOptionSet {
  return { ...set.families };
}
