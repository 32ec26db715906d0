/**
 * The state a read-only or secondary DB starts from (recovery.ts's RecoveredState, with the
 * Follower that fills it): apart from follower.ts so that recovery.ts may name the Follower
 * type without an import cycle.
 */
import {
  type FileSystem,
  type InternalKeyComparator,
  ShaleError,
  type WritableFile,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { LogWriter } from "@shale/wal";
import { newDbSessionId } from "../compaction/build-table.js";
import type { ResolvedOptions } from "../core/options.js";
import { checkOptionsFile, readNewestOptions } from "../core/options-file.js";
import {
  recordedPrefixExtractor,
  resolvePrefixExtractor,
} from "../core/prefix-extractor-option.js";
import { checkTtl, recordedTtl } from "../core/ttl-option.js";
import type { Follower } from "../secondary/follower.js";
import { isMissingFile } from "../secondary/manifest-tail.js";
import { VersionSet } from "../version/version-set.js";
import type { RecoveredState } from "./recovery.js";

/** A WritableFile that keeps nothing: the WAL writer of an instance that never writes. */
const NULL_FILE: WritableFile = {
  append() {},
  flush() {},
  sync() {},
  close() {},
  size: 0,
};

/**
 * The state a read-only or secondary db starts from: empty (the first `catchUp` fills it),
 * writes refused. Checks that `dir` holds a database and that the comparator and merge
 * operator match its OPTIONS file, as the primary's open does.
 */
export function followerState(
  dir: string,
  options: ResolvedOptions,
  icmp: InternalKeyComparator,
  follower: Follower,
): RecoveredState {
  const fs = options.fs;
  if (!fs.exists(dir) || !VersionSet.exists(fs, dir))
    throw ShaleError.invalidArgument(
      `no database in ${dir} (a ${follower.role === "readOnly" ? "read-only" : "secondary"} open needs one)`,
    );
  const previousOptions = readLiveOptions(fs, dir);
  if (previousOptions !== undefined)
    checkOptionsFile(previousOptions, icmp.name, options.mergeOperator?.name);
  const message =
    follower.role === "readOnly"
      ? `${dir} is open read-only: writes, flushes and compactions are not supported`
      : `this is a secondary instance of ${dir}: writes, flushes and compactions are not supported (write through the primary; see tryCatchUpWithPrimary)`;
  const versions = new VersionSet({ fs, dir, icmp });
  const mem = new MemTable({ comparator: icmp.user });
  // The recorded prefix extractor, as the primary's open decides it (prefix-extractor-option.ts).
  const prefixExtractor = resolvePrefixExtractor(
    recordedPrefixExtractor(previousOptions?.sections ?? [], "default"),
    options.prefixExtractor,
    "default",
    previousOptions?.name ?? "OPTIONS",
  );
  checkTtl(
    recordedTtl(previousOptions?.sections ?? [], "default"),
    options.ttl,
    "default",
    previousOptions?.name ?? "OPTIONS",
  );
  const own =
    prefixExtractor === options.prefixExtractor ? options : { ...options, prefixExtractor };
  // The other families are added by the follower's first catch-up (secondary/open-follower.ts).
  const main = { versions: versions.defaultFamily, options: own, mem, imm: [], memLogNumber: 0 };
  return {
    icmp,
    versions,
    mem,
    imm: [],
    families: new Map([[0, main]]),
    wal: new LogWriter(NULL_FILE),
    logNumber: 0,
    memLogNumber: 0,
    writeRefusal: ShaleError.notSupported(message),
    drops: [],
    identity: { dbId: "", dbSessionId: newDbSessionId() },
    follower,
  };
}

/**
 * After a follower's first catch-up: the families `options.columnFamilies` names must exist
 * (RocksDB's OpenForReadOnly and OpenAsSecondary refuse a missing one too; a follower creates
 * none). InvalidArgument naming the missing ones.
 */
export function checkFollowerFamilies(
  dir: string,
  options: ResolvedOptions,
  families: readonly string[],
): void {
  const missing = Object.keys(options.columnFamilies).filter((n) => !families.includes(n));
  if (missing.length > 0)
    throw ShaleError.invalidArgument(
      `column families not found in ${dir}: ${missing.map((n) => JSON.stringify(n)).join(", ")} (a read-only or secondary open creates none)`,
    );
}

/** Tries of reading the newest OPTIONS file while the primary keeps replacing it. */
const OPTIONS_ATTEMPTS = 20;

/**
 * The newest OPTIONS file of a directory a live primary writes: the primary writes a new
 * OPTIONS file and deletes the older ones (RocksDB keeps two), so the newest one listed can
 * be gone when it is read. Then the listing is read again.
 */
function readLiveOptions(fs: FileSystem, dir: string): ReturnType<typeof readNewestOptions> {
  for (let attempt = 1; ; attempt++) {
    try {
      return readNewestOptions(fs, dir);
    } catch (e) {
      if (!isMissingFile(e) || attempt >= OPTIONS_ATTEMPTS) throw e;
    }
  }
}
