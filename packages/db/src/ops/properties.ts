/**
 * `db.getProperty(name)`: RocksDB-style introspection, as strings.
 *
 * Levels: `shale.num-files-at-level<N>`, `shale.bytes-at-level<N>`, `shale.levelstats`
 * (files and MB per level), `shale.total-sst-files-size`.
 * Compaction: `shale.compaction-pending` ("1" when a level's score is >= 1),
 * `shale.num-running-compactions`, `shale.num-running-flushes`,
 * `shale.estimate-pending-compaction-bytes` (RocksDB's estimate, see compaction-stats.ts),
 * `shale.num-compactions` (trivial moves excluded), `shale.num-trivial-moves`,
 * `shale.compact-read-bytes`, `shale.compact-write-bytes`, `shale.flush-write-bytes`,
 * `shale.write-amplification` ((flush + compaction bytes written) / flush bytes, 2 decimals),
 * `shale.compaction-stats` (the per-level table).
 * Write stalls: `shale.stall-micros` (all kinds), `shale.l0-slowdown-micros`,
 * `shale.l0-stop-micros`, `shale.memtable-stop-micros`, `shale.is-write-stopped`,
 * `shale.actual-delayed-write-rate` (bytes/s while slowed down, else 0).
 * Memtable chunks (write/chunk-pool.ts): `shale.memtable-chunks-allocated` (arena chunks made
 * new), `shale.memtable-chunks-reused` (taken from flushed memtables, or spare ones of a
 * closed database),
 * `shale.memtable-chunk-pool-bytes` (released chunks kept for reuse).
 * Rate limiter (`rateLimiter` option; absent without one): `shale.rate-limiter-bytes-per-second`,
 * and of this database's background writes `shale.rate-limiter-bytes` (bytes charged),
 * `shale.rate-limiter-requests`, `shale.rate-limiter-delay-millis` (time compactions waited
 * for tokens, RocksDB's `rocksdb.rate.limit.delay.millis`), `shale.rate-limiter-drains`
 * (requests that waited, `rocksdb.number.rate_limiter.drains`).
 * Write-buffer budget (`dbWriteBufferSize` / `writeBufferManager` options; absent without
 * one): `shale.db-write-buffer-size` (the budget's bytes), `shale.db-write-buffer-usage`
 * (bytes of memtables charged to it, by every database sharing it),
 * `shale.db-write-buffer-mutable-usage` (of mutable memtables), and of this database
 * `shale.db-write-buffer-flushes` (flushes the budget started, flush reason
 * "WriteBufferManager") and `shale.db-write-buffer-stall-micros` (writes' waits, `allowStall`).
 * Recovery: `shale.recovery-dropped` — what this open's WAL replay dropped instead of
 * failing, as JSON: `[{ "file", "offset", "bytes", "reason", "mode" }, ...]` in file order
 * (`[]` when nothing was); see recovery.ts.
 */
import type { Statistics } from "@shale/base";
import type { LRUCache } from "@shale/block-cache";
import type { ChunkPool, MemTable } from "@shale/memtable";
import type { CompactionScheduler } from "../background/compaction-scheduler.js";
import type { BackgroundRateLimit } from "../background/executor.js";
import {
  DELAYED_WRITE_RATE,
  StallCondition,
  type WriteController,
} from "../background/write-controller.js";
import type { SnapshotList } from "../core/snapshot.js";
import type { WriteBufferManager } from "../core/write-buffer-manager.js";
import type { RecoveryDrop } from "../open/recovery.js";
import { NUM_LEVELS } from "../version/version-edit.js";
import type { Version } from "../version/version-set.js";

export interface PropertySource {
  mem: MemTable;
  imm: readonly { mem: MemTable }[];
  version: Version;
  snapshots: SnapshotList;
  lastSeq: number;
  stats: Statistics | undefined;
  blockCache: LRUCache<unknown>;
  backgroundError: Error | undefined;
  compactions: CompactionScheduler;
  stalls: WriteController;
  runningFlushes: number;
  recoveryDrops: readonly RecoveryDrop[];
  chunkPool: ChunkPool;
  rateLimit: BackgroundRateLimit | undefined;
  writeBudget: WriteBudgetSource | undefined;
}

/** The write-buffer budget of a database, for the `shale.db-write-buffer-*` properties. */
export interface WriteBudgetSource {
  readonly manager: WriteBufferManager;
  /** Flushes the budget started in this database. */
  readonly budgetFlushes: number;
  /** Micros this database's writes waited for the budget. */
  readonly budgetStallMicros: number;
}

const LEVEL_FILES = /^shale\.num-files-at-level(\d+)$/;
const LEVEL_BYTES = /^shale\.bytes-at-level(\d+)$/;

export function formatProperty(name: string, s: PropertySource): string | undefined {
  let m = LEVEL_FILES.exec(name);
  if (m) {
    const level = Number(m[1]);
    return level < NUM_LEVELS ? String(s.version.numFiles(level)) : undefined;
  }
  m = LEVEL_BYTES.exec(name);
  if (m) {
    const level = Number(m[1]);
    return level < NUM_LEVELS ? String(s.version.levelBytes(level)) : undefined;
  }
  if (name.startsWith("shale.rate-limiter-")) return rateLimiterProperty(name, s.rateLimit);
  if (name.startsWith("shale.db-write-buffer-")) return writeBudgetProperty(name, s.writeBudget);
  const c = s.compactions;
  switch (name) {
    case "shale.recovery-dropped":
      return JSON.stringify(s.recoveryDrops);
    case "shale.levelstats":
      return levelStats(s);
    case "shale.compaction-pending":
      return c.pending ? "1" : "0";
    case "shale.num-running-compactions":
      return String(c.numRunning);
    case "shale.num-running-flushes":
      return String(s.runningFlushes);
    case "shale.estimate-pending-compaction-bytes":
      return String(pendingBytes(s));
    case "shale.num-compactions":
      return String(c.stats.compactions);
    case "shale.num-trivial-moves":
      return String(c.stats.trivialMoves);
    case "shale.compact-read-bytes":
      return String(c.stats.bytesReadByCompactions);
    case "shale.compact-write-bytes":
      return String(c.stats.bytesCompacted);
    case "shale.flush-write-bytes":
      return String(c.stats.bytesFlushed);
    case "shale.write-amplification":
      return c.stats.writeAmplification.toFixed(2);
    case "shale.compaction-stats":
      return c.stats.format(s.version, c.scores(), c.busy);
    case "shale.l0-slowdown-micros":
      return String(s.stalls.counters.l0SlowdownMicros);
    case "shale.l0-stop-micros":
      return String(s.stalls.counters.l0StopMicros);
    case "shale.memtable-stop-micros":
      return String(s.stalls.counters.memtableStopMicros);
    case "shale.is-write-stopped":
      return s.stalls.condition === StallCondition.Stopped ? "1" : "0";
    case "shale.actual-delayed-write-rate":
      return s.stalls.condition === StallCondition.Delayed ? String(DELAYED_WRITE_RATE) : "0";
    case "shale.num-immutable-mem-table":
      return String(s.imm.length);
    case "shale.cur-size-active-mem-table":
      return String(s.mem.approximateMemoryUsage());
    case "shale.size-all-mem-tables":
      return String(
        s.imm.reduce((n, i) => n + i.mem.approximateMemoryUsage(), s.mem.approximateMemoryUsage()),
      );
    case "shale.num-entries-active-mem-table":
      return String(s.mem.numEntries);
    case "shale.num-snapshots":
      return String(s.snapshots.size);
    case "shale.oldest-snapshot-seq":
      return String(s.snapshots.oldest() ?? 0);
    case "shale.latest-sequence":
      return String(s.lastSeq);
    case "shale.block-cache-capacity":
      return String(s.blockCache.capacity);
    case "shale.block-cache-usage":
      return String(s.blockCache.usage);
    case "shale.block-cache-pinned-usage":
      return String(s.blockCache.pinnedUsage);
    case "shale.block-cache-hits":
      return String(s.blockCache.stats().hits);
    case "shale.memtable-chunks-allocated":
      return String(s.chunkPool.stats.allocated);
    case "shale.memtable-chunks-reused":
      return String(s.chunkPool.stats.reused + s.chunkPool.stats.spared);
    case "shale.memtable-chunk-pool-bytes": {
      const p = s.chunkPool.stats;
      return String(p.freeBytes + p.pendingBytes);
    }
    case "shale.block-cache-misses":
      return String(s.blockCache.stats().misses);
    case "shale.total-sst-files-size": {
      let n = 0;
      for (let l = 0; l < NUM_LEVELS; l++) n += s.version.levelBytes(l);
      return String(n);
    }
    case "shale.stall-micros":
      return String(s.stalls.totalMicros);
    case "shale.background-errors":
      return s.backgroundError === undefined ? "0" : "1";
    case "shale.stats":
      return stats(s);
    default:
      return undefined;
  }
}

function writeBudgetProperty(
  name: string,
  budget: WriteBudgetSource | undefined,
): string | undefined {
  if (budget === undefined) return undefined;
  switch (name) {
    case "shale.db-write-buffer-size":
      return String(budget.manager.bufferSize);
    case "shale.db-write-buffer-usage":
      return String(budget.manager.memoryUsage());
    case "shale.db-write-buffer-mutable-usage":
      return String(budget.manager.mutableMemtableMemoryUsage());
    case "shale.db-write-buffer-flushes":
      return String(budget.budgetFlushes);
    case "shale.db-write-buffer-stall-micros":
      return String(Math.round(budget.budgetStallMicros));
    default:
      return undefined;
  }
}

function rateLimiterProperty(
  name: string,
  rate: BackgroundRateLimit | undefined,
): string | undefined {
  if (rate === undefined) return undefined;
  const c = rate.account.counters();
  switch (name) {
    case "shale.rate-limiter-bytes-per-second":
      return String(rate.limiter.bytesPerSecond);
    case "shale.rate-limiter-bytes":
      return String(c.bytes);
    case "shale.rate-limiter-requests":
      return String(c.requests);
    case "shale.rate-limiter-delay-millis":
      return String(Math.floor(c.delayMillis));
    case "shale.rate-limiter-drains":
      return String(c.drains);
    default:
      return undefined;
  }
}

function pendingBytes(s: PropertySource): number {
  return s.compactions.pendingCompactionBytes(s.version);
}

/** RocksDB's `levelstats`. */
function levelStats(s: PropertySource): string {
  const lines = ["Level Files Size(MB)", "--------------------"];
  for (let l = 0; l < NUM_LEVELS; l++) {
    const mb = Math.round(s.version.levelBytes(l) / 1048576);
    lines.push(
      `${String(l).padStart(5)} ${String(s.version.numFiles(l)).padStart(8)} ${String(mb).padStart(8)}`,
    );
  }
  return lines.join("\n");
}

function stats(s: PropertySource): string {
  const c = s.compactions.stats;
  const st = s.stalls.counters;
  const lines = [
    "** DB Stats **",
    `Latest sequence: ${s.lastSeq}`,
    `Cumulative compaction: ${(c.bytesCompacted / 1073741824).toFixed(3)} GB write, ${(c.bytesReadByCompactions / 1073741824).toFixed(3)} GB read, ${c.compactions} compactions, ${c.trivialMoves} trivial moves`,
    `Flush: ${(c.bytesFlushed / 1073741824).toFixed(3)} GB write; write amplification ${c.writeAmplification.toFixed(2)}`,
    `Estimated pending compaction bytes: ${pendingBytes(s)}`,
    `Stalls(micros): l0-slowdown ${st.l0SlowdownMicros} (${st.l0SlowdownCount}x), l0-stop ${st.l0StopMicros} (${st.l0StopCount}x), memtable-stop ${st.memtableStopMicros} (${st.memtableStopCount}x), memtable-throttle ${st.memtableThrottleMicros} (${st.memtableThrottleCount}x)`,
    "",
    s.compactions.stats.format(s.version, s.compactions.scores(), s.compactions.busy),
  ];
  lines.push(
    "",
    "** Memtables **",
    `Active: ${s.mem.numEntries} entries, ${s.mem.approximateMemoryUsage()} bytes`,
    `Immutable: ${s.imm.length}`,
    `Snapshots: ${s.snapshots.size}`,
    "",
    "** Block cache **",
    (() => {
      const c = s.blockCache.stats();
      return `Capacity: ${c.capacity} Usage: ${c.usage} Pinned: ${c.pinnedUsage} Entries: ${c.entries} Hits: ${c.hits} Misses: ${c.misses}`;
    })(),
    `Write stall micros: ${s.stalls.totalMicros}`,
  );
  if (s.stats !== undefined) lines.push("", "** Statistics **", s.stats.toString());
  return lines.join("\n");
}
