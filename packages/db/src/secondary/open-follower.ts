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
import { emptyMemTables } from "../column-family/column-family-data.js";
import type { ColumnFamilySet } from "../column-family/column-family-set.js";
import type { WriteLoop } from "../column-family/write-loop.js";
import { lockFileName } from "../core/filenames.js";
import { type ResolvedOptions, resolveColumnFamilyOptions } from "../core/options.js";
import { checkFollowerFamilies, followerState } from "../open/follower-state.js";
import { familyComparator, type RecoveredState } from "../open/recovery.js";
import type { VersionSet } from "../version/version-set.js";
import { Follower, type FollowerHost } from "./follower.js";

/** What a follower reads and sets of a database. */
export interface FollowerParts {
  readonly versions: VersionSet;
  /** The database's table cache (families ordered like `default` share it). */
  readonly tableCache: TableCache;
  /** The database's key order. */
  readonly icmp: InternalKeyComparator;
  /** The families whose trees and memtables the follower changes. */
  readonly families: ColumnFamilySet;
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
      familyComparator: familyComparator(resolved, icmp),
      role,
      walRecoveryMode: resolved.walRecoveryMode,
      leaseMs,
      maxOpenFiles: resolved.maxOpenFiles,
    });
    const built = construct(followerState(dir, resolved, icmp, follower), lock);
    db = built.db;
    follower.attach(followerHost(built.parts, resolved));
    follower.catchUp();
    checkFollowerFamilies(dir, resolved, built.parts.families.names());
    return db;
  } catch (e) {
    if (db !== undefined) await db.close().catch(() => {});
    else lock.release();
    throw e;
  }
}

/** What the follower changes in the database. */
function followerHost(parts: FollowerParts, options: ResolvedOptions): FollowerHost {
  const { versions, families, writes, tableCache, icmp } = parts;
  return {
    versions,
    tableCache,
    familiesChanged: ({ added, dropped }) => {
      for (const v of dropped) families.retire(v.id);
      for (const v of added) {
        const own = { ...resolveColumnFamilyOptions(options, v.name), comparator: v.icmp.user };
        families.add(v, own, emptyMemTables(v.icmp)).start();
      }
    },
    openTable: (id, familyIcmp, n, size) => {
      const cache = families.get(id)?.tableCache;
      (cache ?? (familyIcmp.name === icmp.name ? tableCache : undefined))?.get(n, size);
    },
    setMemTables: (id, mem, imm) => families.get(id)?.followMemTables(mem, imm),
    get lastSequence() {
      return writes.lastSeq;
    },
    setLastSequence: (seq) => {
      writes.lastSeq = seq;
      versions.lastSequence = seq;
    },
  };
}
