/**
 * Assembling an open database from what recovery (or a follower) found: the parts every
 * column family shares (the WAL, the status, the table and blob file caches, the
 * background executor, snapshots, the shutdown cell), one tree per family, the write loop,
 * and what decides the fate of obsolete files. db.ts composes these; it builds nothing
 * itself.
 *
 * ```
 *   recovered state ──> ColumnFamilyHost (shared) ──> ColumnFamilySet: one ColumnFamilyData each
 *                                                  └─> WriteLoop: seq -> WAL record -> memtables
 * ```
 *
 * Threading: the caller's thread, during `DB.open` (nothing starts until the families do).
 */

import { type FileSystem, NodeFileSystem } from "@shale/base";
import {
  type BackgroundExecutor,
  type BackgroundRateLimit,
  InlineExecutor,
} from "../background/executor.js";
import {
  isBackgroundWorkerFileSystem,
  NestedWorkerExecutor,
} from "../background/nested-worker-executor.js";
import { builtinComparator } from "../background/protocol.js";
import { WorkerExecutor } from "../background/worker-executor.js";
import { BlobFileCache } from "../blob/blob-source.js";
import { AtomicFlush } from "../column-family/atomic-flush.js";
import type { ColumnFamilyData, ColumnFamilyHost } from "../column-family/column-family-data.js";
import { ColumnFamilySet, newTableCache } from "../column-family/column-family-set.js";
import { DbStatus } from "../column-family/db-status.js";
import type { FamilyMethodsCore } from "../column-family/family-methods.js";
import { WriteLoop } from "../column-family/write-loop.js";
import { EventListeners, tablesDeleted } from "../core/event-listeners.js";
import { FileType, logFileName, parseFileName } from "../core/filenames.js";
import type { ResolvedOptions } from "../core/options.js";
import { RateLimiterAccount } from "../core/rate-limiter.js";
import { SnapshotList } from "../core/snapshot.js";
import { ObsoleteFiles } from "../ops/obsolete-files.js";
import { PreparedLogs, unflushedMemtables } from "../txn/two-phase.js";
import { WalArchive } from "../write/wal-archive.js";
import { ActiveWal } from "../write/write-path.js";
import type { RecoveredState } from "./recovery.js";

/** An open database's parts (see the header). */
export interface DbParts {
  /** What the families share. */
  readonly shared: ColumnFamilyHost;
  readonly families: ColumnFamilySet;
  /** The `default` family. */
  readonly defaultFamily: ColumnFamilyData;
  readonly obsolete: ObsoleteFiles;
  /** What the data methods of every family use. */
  readonly core: FamilyMethodsCore;
  /** The WALs two-phase commit keeps (txn/two-phase.ts). */
  readonly preparedLogs: PreparedLogs;
}

/**
 * Builds the parts. `takeFinished` installs finished background jobs (the database's,
 * called only once the database exists).
 */
export function assembleParts(
  dir: string,
  options: ResolvedOptions,
  state: RecoveredState,
  takeFinished: () => void,
): DbParts {
  const { fs, statistics } = options;
  const versions = state.versions;
  const wal = new ActiveWal(state.wal, state.logNumber, statistics, state.memLogNumber);
  countRecoveredLogs(wal, fs, dir, state.logNumber);
  const status = new DbStatus(wal);
  status.writeRefusal = state.writeRefusal;
  const tableCache = newTableCache(dir, options, state.icmp);
  const blobs = new BlobFileCache({ fs, dir });
  const rateLimit: BackgroundRateLimit | undefined =
    options.rateLimiter === undefined
      ? undefined
      : { limiter: options.rateLimiter, account: new RateLimiterAccount(), statistics };
  const executor = newExecutor(options, state, rateLimit);
  const archive = new WalArchive(fs, dir, {
    ttlSeconds: options.walTtlSeconds,
    sizeLimitMb: options.walSizeLimitMb,
  });
  const listeners =
    options.listeners.length > 0 ? new EventListeners(options.listeners, statistics) : undefined;
  const obsolete = new ObsoleteFiles({
    dir,
    fs,
    executor,
    status,
    wal,
    follower: state.follower,
    archive,
    removed: listeners === undefined ? undefined : (paths) => tablesDeleted(listeners, dir, paths),
  });
  if (listeners !== undefined)
    status.onBackgroundError = (reason, failure) =>
      listeners.backgroundError({ reason, status: failure });
  let families: ColumnFamilySet | undefined;
  const preparedLogs = new PreparedLogs();
  const shared: ColumnFamilyHost = {
    dir,
    fs,
    executor,
    statistics,
    snapshots: new SnapshotList(),
    versions,
    tableCache,
    blobs,
    shutdown: new SharedArrayBuffer(4),
    wal,
    status,
    follower: state.follower !== undefined,
    removeFiles: (paths) => obsolete.remove(paths),
    listeners,
    // A WAL is deleted only once every family with data in it has flushed, and no prepared
    // transaction (two-phase commit) needs it.
    minLogToKeep: () => {
      const min = families!.minLogToKeep(wal.number);
      if (!preparedLogs.used) return min;
      return Math.min(min, preparedLogs.minLog(unflushedMemtables(families!.values())));
    },
    twoPhaseMinLog: () => (preparedLogs.used ? shared.minLogToKeep() : undefined),
    familyCount: () => families!.size,
    atomicFlush:
      options.atomicFlush === true && state.follower === undefined
        ? new AtomicFlush({ fs, dir, versions, wal, status, families: () => families!.values() })
        : undefined,
  };
  families = new ColumnFamilySet(shared, state.icmp, options, state.identity);
  const own = state.families.get(0)?.options ?? options;
  const defaultFamily = families.add(versions.defaultFamily, own, state);
  for (const [id, f] of state.families) if (id !== 0) families.add(f.versions, f.options, f);
  const finished = executor.finished;
  const familyOf = families.familyOf.bind(families);
  const walFull = () => families.switchForWal();
  const writeBuffer = state.follower === undefined ? options.writeBufferManager : undefined;
  const writeHost = {
    wal,
    versions,
    statistics,
    status,
    finished,
    takeFinished,
    familyOf,
    walFull,
    writeBuffer,
    budgetFull: () => families.flushForBudget(),
    budgetStall: () => families.stallForBudget(writeBuffer!),
  };
  const writes = new WriteLoop(writeHost, defaultFamily, versions.lastSequence);
  status.onFailure = (failure) => {
    for (const family of families.values()) family.flushes.rejectWaiters(() => failure);
  };
  versions.onObsoleteFiles = (numbers, blobNumbers) => {
    obsolete.removeTables(numbers, families.tableCaches());
    obsolete.removeBlobFiles(blobNumbers, blobs);
  };
  const core: FamilyMethodsCore = {
    status,
    writes,
    snapshots: shared.snapshots,
    versions,
    tableCache,
    statistics,
    finished,
    backgroundPoll: { finished, take: takeFinished },
    takeFinished,
    blockCache: options.blockCache,
    recoveryDrops: state.drops,
    rateLimit,
    writeBudget:
      writeBuffer === undefined
        ? undefined
        : {
            manager: writeBuffer,
            get budgetFlushes() {
              return families.budgetFlushes;
            },
            get budgetStallMicros() {
              return families.budgetStallMicros;
            },
          },
    fs: options.fs,
    dir,
  };
  families.core = core;
  return { shared, families, defaultFamily, obsolete, core, preparedLogs };
}

/**
 * The WALs older than the one the open started (`current`) that recovery kept, counted
 * toward `maxTotalWalSize` with their sizes.
 */
function countRecoveredLogs(wal: ActiveWal, fs: FileSystem, dir: string, current: number): void {
  const kept: number[] = [];
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed?.type === FileType.Log && parsed.number < current) kept.push(parsed.number);
  }
  kept.sort((a, b) => a - b);
  for (const n of kept) wal.addRecoveredLog(n, fs.fileSize(logFileName(dir, n)));
}

/**
 * Worker threads for flushes and compactions on Node's file system with a built-in
 * comparator (a worker cannot call a JS comparator); nested workers on a file system other
 * workers can reach (OPFS in a browser); inline otherwise, and for followers (they run no
 * background work).
 */
function newExecutor(
  options: ResolvedOptions,
  state: RecoveredState,
  rate: BackgroundRateLimit | undefined,
): BackgroundExecutor {
  const fs = options.fs;
  const workers =
    fs instanceof NodeFileSystem &&
    builtinComparator(state.icmp.name) !== undefined &&
    state.follower === undefined;
  if (
    !workers &&
    isBackgroundWorkerFileSystem(fs) &&
    builtinComparator(state.icmp.name) !== undefined &&
    state.follower === undefined
  )
    return new NestedWorkerExecutor(options.maxBackgroundJobs, fs, rate);
  return workers
    ? new WorkerExecutor(options.maxBackgroundJobs, fs, options.compactionCpuPriority, rate)
    : new InlineExecutor(fs, rate);
}
