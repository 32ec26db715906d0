/**
 * Opening a read-only or secondary instance: the checks, the secondary directory's lock,
 * the Follower (follower.ts) and its first catch-up, and the FollowerHost through which the
 * follower changes what the database's reads see. db.ts builds the database itself (its
 * constructor is private) through `construct`.
 *
 * Threading: the caller's thread; the open is synchronous but for closing a half-built
 * database after a failure.
 */
import { type FileLock, InternalKeyComparator, ShaleError } from "@shale/base";
import type { TableCache } from "@shale/sstable";
import type { ColumnFamilyData } from "../column-family/column-family-data.js";
import type { WriteLoop } from "../column-family/write-loop.js";
import { lockFileName } from "../core/filenames.js";
import type { ResolvedOptions } from "../core/options.js";
import { followerState } from "../open/follower-state.js";
import type { RecoveredState } from "../open/recovery.js";
import type { VersionSet } from "../version/version-set.js";
import { Follower, type FollowerHost } from "./follower.js";

/** What a follower reads and sets of a database. */
export interface FollowerParts {
  readonly versions: VersionSet;
  readonly tableCache: TableCache;
  /** The family whose memtables the follower replaces. */
  readonly family: ColumnFamilyData;
  readonly writes: WriteLoop;
}

/**
 * Opens the database in `dir` as a follower in `role`. `construct` builds the database from
 * the follower's state and returns it with its FollowerParts.
 */
export async function openFollower<T extends { close(): Promise<void> }>(
  dir: string,
  resolved: ResolvedOptions,
  role: "readOnly" | "secondary",
  secondaryDir: string | undefined,
  leaseMs: number,
  construct: (state: RecoveredState, lock: FileLock) => { db: T; parts: FollowerParts },
): Promise<T> {
  if (typeof dir !== "string" || dir.length === 0)
    throw new TypeError("dir must be a non-empty string");
  if (resolved.bestEffortsRecovery)
    throw ShaleError.notSupported(`bestEffortsRecovery does not go with a ${role} open`);
  const icmp = new InternalKeyComparator(resolved.comparator);
  const fs = resolved.fs;
  let lock: FileLock = { path: dir, release() {} };
  if (secondaryDir !== undefined) {
    fs.mkdir(secondaryDir);
    lock = fs.lock(lockFileName(secondaryDir));
  }
  let db: T | undefined;
  try {
    const follower = new Follower(fs, dir, icmp, {
      role,
      walRecoveryMode: resolved.walRecoveryMode,
      leaseMs,
      maxOpenFiles: resolved.maxOpenFiles,
    });
    const built = construct(followerState(dir, resolved, icmp, follower), lock);
    db = built.db;
    follower.attach(followerHost(built.parts));
    follower.catchUp();
    return db;
  } catch (e) {
    if (db !== undefined) await db.close().catch(() => {});
    else lock.release();
    throw e;
  }
}

/** What the follower changes in the database. */
function followerHost(parts: FollowerParts): FollowerHost {
  const { versions, family, writes } = parts;
  return {
    versions,
    tableCache: parts.tableCache,
    setMemTables: (mem, imm) => {
      family.mem = mem;
      family.flushes.imm.splice(0, family.flushes.imm.length, ...imm);
    },
    get lastSequence() {
      return writes.lastSeq;
    },
    setLastSequence: (seq) => {
      writes.lastSeq = seq;
      versions.lastSequence = seq;
    },
  };
}
