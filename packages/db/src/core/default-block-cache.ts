/**
 * The block cache a database gets when neither `blockCache` nor `blockCacheSize` is given:
 * 1/16 of the memory the process can use (machine-memory.ts), in whole MiB, at least 32 MiB
 * (RocksDB's default, and what a machine of unknown size gets) and at most 1 GiB.
 *
 *   machine / container   24 GiB -> 1 GiB   8 GiB -> 512 MiB   2 GiB -> 128 MiB
 *                         512 MiB -> 32 MiB   unknown (a browser; Deno without
 *                         --allow-sys) -> 32 MiB
 *
 * Why it scales: a block-cache miss costs a pread plus a decompression (~5-9 µs on a 2-core
 * VM), a hit well under 1 µs, so a point read's cost follows the share of the data the cache
 * holds. db-bench readrandom on 1M keys x 100 B (60 MB of Snappy tables, ~112 MB of blocks),
 * one run each: 32 MiB misses 70 % of reads (12.5 µs/op), 128 MiB 4.9 µs, 256 MiB 4.85 µs.
 * The cache takes memory only as blocks are read, up to its capacity: a small database
 * never holds more than its blocks. Several databases each get their own cache; pass one
 * `blockCache` to share a budget.
 */
const MiB = 1024 * 1024;
export const MIN_DEFAULT_BLOCK_CACHE = 32 * MiB;
export const MAX_DEFAULT_BLOCK_CACHE = 1024 * MiB;

/**
 * The default `blockCacheSize` for a process that can use `memory` bytes (undefined: unknown;
 * `machineMemory()` of machine-memory.ts tells).
 */
export function defaultBlockCacheSize(memory: number | undefined): number {
  if (memory === undefined || !(memory > 0)) return MIN_DEFAULT_BLOCK_CACHE;
  const share = Math.floor(memory / 16 / MiB) * MiB;
  return Math.min(MAX_DEFAULT_BLOCK_CACHE, Math.max(MIN_DEFAULT_BLOCK_CACHE, share));
}
