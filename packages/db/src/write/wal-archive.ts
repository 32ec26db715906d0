/**
 * The WAL archive (RocksDB's WAL_ttl_seconds / WAL_size_limit_MB, db/wal_manager.cc): with
 * either limit above 0, a WAL no longer needed for recovery is moved into `archive/` under
 * the database directory instead of being deleted, so the change feed
 * (`db.getUpdatesSince`, ops/updates-since.ts) can read it later; archived WALs are pruned
 * by age and by the archive's total size.
 *
 * ```
 * <dir>/000012.log            live WALs (recovery replays them)
 * <dir>/archive/000007.log    archived WALs (never replayed; read by the change feed only)
 * <dir>/archive/000009.log
 * ```
 *
 * - The move is a rename (same file system: no copy, the mtime kept); the directory entries
 *   are synced before anything is pruned, so after a crash a WAL is in one of the two
 *   places, never lost while the limits still keep it.
 * - Pruning (after each archival and at open): first every archived WAL older than
 *   `ttlSeconds` (by `fs.modifiedTime`, else from when this process first saw it in the
 *   archive), then, while the archive is larger than `sizeLimitMb` MiB, the oldest one
 *   (lowest number). RocksDB applies the same two rules.
 * - Recovery never looks into `archive/`: an archived WAL holds nothing the tables lack.
 * - Checkpoints, backups, secondaries and repair list the database directory by file name
 *   (core/filenames.ts): `archive` parses as no database file, so they skip it.
 *
 * Threading: the database's thread.
 */
import { type FileSystem, joinPath } from "@shale/base";
import { FileType, logFileName, parseFileName } from "../core/filenames.js";

/** The archive's directory name under the database directory (RocksDB's ARCHIVE_DIR). */
export const ARCHIVE_DIR = "archive";

/** The archive directory of database `dir`. */
export const archiveDirOf = (dir: string): string => joinPath(dir, ARCHIVE_DIR);

/** One WAL file, live or archived. */
export interface WalFile {
  readonly number: number;
  readonly path: string;
  readonly archived: boolean;
}

/** The limits (resolved options `walTtlSeconds`, `walSizeLimitMb`; 0: no limit of that kind). */
export interface WalArchiveLimits {
  readonly ttlSeconds: number;
  readonly sizeLimitMb: number;
}

const MIB = 1024 * 1024;

export class WalArchive {
  /** Archived WALs the file system gives no mtime for: when this process first saw them. */
  private readonly firstSeen = new Map<string, number>();

  constructor(
    private readonly fs: FileSystem,
    private readonly dir: string,
    private readonly limits: WalArchiveLimits,
    /** The clock (ms since the epoch). Default: Date.now. */
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** True when obsolete WALs are archived rather than deleted. */
  get enabled(): boolean {
    return this.limits.ttlSeconds > 0 || this.limits.sizeLimitMb > 0;
  }

  /**
   * Moves the WALs among `paths` into the archive (when `enabled`) and prunes it; returns the
   * paths left to delete (every path when not enabled, else the ones that are not WALs).
   */
  take(paths: string[]): string[] {
    if (!this.enabled) return paths;
    const rest: string[] = [];
    const wals: string[] = [];
    for (const p of paths) {
      const name = p.slice(p.lastIndexOf("/") + 1);
      if (parseFileName(name)?.type === FileType.Log) wals.push(p);
      else rest.push(p);
    }
    if (wals.length > 0) {
      this.archive(wals);
      this.prune();
    }
    return rest;
  }

  /** Moves `paths` (WALs of this database) into the archive, syncing both directories. */
  archive(paths: readonly string[]): void {
    const fs = this.fs;
    const archive = archiveDirOf(this.dir);
    fs.mkdir(archive);
    for (const p of paths) {
      if (!fs.exists(p)) continue;
      const name = p.slice(p.lastIndexOf("/") + 1);
      fs.rename(p, joinPath(archive, name));
    }
    fs.syncDir(archive);
    fs.syncDir(this.dir);
  }

  /** Deletes the archived WALs past the limits (see the file comment). */
  prune(): void {
    if (!this.enabled) return;
    const fs = this.fs;
    const files = WalArchive.archived(fs, this.dir);
    if (files.length === 0) return;
    const now = this.now();
    const left: { path: string; size: number }[] = [];
    const ttlMs = this.limits.ttlSeconds * 1000;
    for (const f of files) {
      if (ttlMs > 0 && now - this.ageFrom(f.path, now) > ttlMs) {
        this.drop(f.path);
        continue;
      }
      left.push({ path: f.path, size: fs.fileSize(f.path) });
    }
    if (this.limits.sizeLimitMb > 0) {
      const limit = this.limits.sizeLimitMb * MIB;
      let total = 0;
      for (const f of left) total += f.size;
      for (let i = 0; i < left.length && total > limit; i++) {
        this.drop(left[i]!.path);
        total -= left[i]!.size;
      }
    }
  }

  /** The time `path` is aged from: its mtime, else when this process first saw it. */
  private ageFrom(path: string, now: number): number {
    const mtime = this.fs.modifiedTime?.(path);
    if (mtime !== undefined) return mtime;
    let seen = this.firstSeen.get(path);
    if (seen === undefined) {
      seen = now;
      this.firstSeen.set(path, seen);
    }
    return seen;
  }

  private drop(path: string): void {
    this.fs.remove(path);
    this.firstSeen.delete(path);
  }

  /** The archived WALs of database `dir`, oldest (lowest number) first. */
  static archived(fs: FileSystem, dir: string): WalFile[] {
    const archive = archiveDirOf(dir);
    if (!fs.exists(archive)) return [];
    const out: WalFile[] = [];
    for (const name of fs.list(archive)) {
      const parsed = parseFileName(name);
      if (parsed?.type === FileType.Log)
        out.push({ number: parsed.number, path: joinPath(archive, name), archived: true });
    }
    return out.sort((a, b) => a.number - b.number);
  }

  /**
   * Every WAL of database `dir`, live and archived, by number (a number in both places —
   * a crash between the rename's two directory syncs cannot leave one, but a copy could —
   * is taken from the live directory).
   */
  static all(fs: FileSystem, dir: string): WalFile[] {
    const byNumber = new Map<number, WalFile>();
    for (const f of WalArchive.archived(fs, dir)) byNumber.set(f.number, f);
    for (const name of fs.list(dir)) {
      const parsed = parseFileName(name);
      if (parsed?.type === FileType.Log)
        byNumber.set(parsed.number, {
          number: parsed.number,
          path: logFileName(dir, parsed.number),
          archived: false,
        });
    }
    return [...byNumber.values()].sort((a, b) => a.number - b.number);
  }
}
