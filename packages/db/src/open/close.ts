/**
 * Closing a database: the steps of `db.close()` in order, each attempted whatever failed
 * before it, so every file handle and the LOCK are released and a reopen in this process
 * works.
 *
 * 1. Running compactions are told to stop (the shared shutdown cell); running flushes
 *    finish and are installed before the MANIFEST closes; the memtables' chunks go back.
 * 2. The WAL is synced (unless a write to it failed) and closed; then the MANIFEST, the
 *    table caches, the blob files, a follower's files, the secondaries' pins, the LOCK.
 * 3. Whoever still waits (a flush, a key lock) is rejected with Closed.
 *
 * The result: the error that made the database read-only (the background error, or the
 * failed WAL write), else the first error a step hit, else nothing.
 *
 * Threading: the database's thread; it awaits only the background executor.
 */

import { type FileLock, invariants, ShaleError } from "@shale/base";
import type { TableCache } from "@shale/sstable";
import type { BackgroundExecutor } from "../background/executor.js";
import type { BlobFileCache } from "../blob/blob-source.js";
import type { ColumnFamilySet } from "../column-family/column-family-set.js";
import type { DbStatus } from "../column-family/db-status.js";
import { publishClosed } from "../core/reader-control.js";
import { viewGuard } from "../core/view-guard.js";
import type { ObsoleteFiles } from "../ops/obsolete-files.js";
import { reportUnclosedIterators } from "../read/iterator-sources.js";
import type { Follower } from "../secondary/follower.js";
import type { LockManager } from "../txn/lock-manager.js";
import type { VersionSet } from "../version/version-set.js";
import { retireMemtables } from "../write/chunk-pool.js";
import type { ActiveWal } from "../write/write-path.js";

/** What closing releases. */
export interface ClosingParts {
  readonly dir: string;
  readonly status: DbStatus;
  /** The database's table cache (unclosed iterators are reported from it). */
  readonly tableCache: TableCache;
  /** Int32Array(1) shared with compaction jobs. */
  readonly shutdown: SharedArrayBuffer;
  readonly executor: BackgroundExecutor;
  readonly families: ColumnFamilySet;
  readonly wal: ActiveWal;
  readonly versions: VersionSet;
  readonly blobs: BlobFileCache;
  readonly follower: Follower | undefined;
  readonly obsolete: ObsoleteFiles;
  /** A TransactionDB's key locks. */
  readonly keyLocks: LockManager | undefined;
  /** The LOCK file (a secondary's, or none for a read-only open). */
  readonly lock: FileLock;
}

/** Runs the steps above once (`status.closed` is set first; a second call does nothing). */
export async function closeDatabase(parts: ClosingParts): Promise<void> {
  const { status, families, wal } = parts;
  if (status.closed) return;
  status.closed = true;
  if (parts.versions.readerControl !== undefined) publishClosed(parts.versions.readerControl);
  reportUnclosedIterators(parts.tableCache, parts.dir); // invariants mode only
  Atomics.store(new Int32Array(parts.shutdown), 0, 1); // running compactions stop early
  let closeError: unknown;
  const attempt = (step: () => void) => {
    try {
      step();
    } catch (e) {
      closeError ??= e;
    }
  };
  if (invariants && viewGuard.pending) attempt(() => viewGuard.verify()); // still closes
  try {
    // Running flushes finish (and are installed) before the MANIFEST closes.
    await parts.executor.close();
    for (const f of families.values())
      retireMemtables(f.chunkPool, f.mem, f.flushes.imm, f.flushes.history);
  } catch (e) {
    closeError ??= e;
  }
  // What the memtables charged to a write-buffer manager goes, whatever failed above.
  for (const f of families.values()) f.charge?.releaseAll();
  attempt(() => wal.syncUnlessFailed());
  attempt(() => wal.close());
  attempt(() => parts.versions.close());
  for (const cache of families.tableCaches()) attempt(() => cache.close());
  attempt(() => parts.blobs.close());
  attempt(() => parts.follower?.close());
  parts.obsolete.close();
  attempt(() => parts.lock.release());
  const closed = () => ShaleError.closed("the database was closed");
  for (const f of families.values()) f.flushes.rejectWaiters(closed);
  parts.keyLocks?.rejectAll(closed());
  const failure = status.backgroundError ?? wal.error ?? closeError;
  if (failure !== undefined) throw failure;
}
