/**
 * `BackupEngine` — RocksDB's BackupEngine: incremental backups of a live database into a
 * backup directory, verified and restored file by file.
 *
 * Layout of a backup directory:
 * ```
 *   <backupDir>/
 *     meta/<id>                      one per backup: its files, sizes, CRC32Cs (meta.ts,
 *                                    docs/formats/backup.md); written last, via a temp name
 *     private/<id>/                  MANIFEST, OPTIONS, WALs and CURRENT of backup <id>
 *     shared_checksum/NNNNNN_<crc32c>_<size>.sst
 *                                    tables, stored once for every backup holding the same
 *                                    bytes (name, size and checksum), like RocksDB's
 *                                    share_files_with_checksum
 *     LOCK                           held while an operation of this engine runs
 * ```
 *
 * createBackup(db): the files of the moment of the call (ops/live-files.ts: the version
 * pinned and deletions held, so the database keeps taking writes and compacting while the
 * copy runs), each checksummed while copied: a table whose name, size and CRC32C are already
 * in shared_checksum/ is not copied again. The backup exists once `meta/<id>` is renamed into
 * place; an interrupted one leaves only files no meta names, removed by the next purge or
 * delete (garbage collection).
 *
 * restoreBackup(id, dir): writes `RESTORE-IN-PROGRESS` first (restore-marker.ts), copies
 * every file verifying size and CRC32C against the meta, CURRENT last, then removes the
 * marker. An interrupted restore leaves the marker, and `DB.open` refuses the directory with
 * Incomplete until a restore into it completes.
 *
 * Concurrency: the operations of one engine run one at a time (queued); each holds
 * `<backupDir>/LOCK`, so a second engine on the same directory, in this process or another,
 * gets Busy instead of interleaving. `listBackups` only reads.
 */
import { type FileSystem, joinPath, NodeFileSystem, ShaleError, toBytes } from "@shale/base";
import { logFileName, tableFileName } from "../../core/filenames.js";
import type { DB } from "../../db.js";
import { checksumFile, copyFile, removeTree } from "../copy.js";
import { captureLiveFiles } from "../live-files.js";
import { collectGarbage, type MetaRead } from "./garbage.js";
import { META, PRIVATE, SHARED } from "./layout.js";
import { type BackupFile, type BackupMeta, decodeMeta, encodeMeta } from "./meta.js";
import { damagedFile, restoreInto } from "./restore.js";

export interface BackupEngineOptions {
  /** Where the backup directory lives. Default: a NodeFileSystem. */
  fs?: FileSystem;
}

export interface CreateBackupOptions {
  /** Flush the memtable first (the moment is then the end of the flush). Default: false. */
  flush?: boolean;
  /** A string kept with the backup (BackupInfo.metadata). Default: none. */
  metadata?: string;
}

/** A backup, as `listBackups` describes it. */
export interface BackupInfo {
  readonly id: number;
  /** When it was taken, ms since the epoch. */
  readonly timestamp: number;
  /** The sequence number of the last write it holds. */
  readonly sequence: number;
  /** Bytes of its files (shared tables counted in full). */
  readonly size: number;
  readonly numFiles: number;
  readonly metadata: string | undefined;
}

const pad = (n: number) => String(n).padStart(6, "0");

function checkKnown(what: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options))
    if (!known.includes(key)) throw ShaleError.invalidArgument(`${what}: unknown option ${key}`);
}

function checkId(id: unknown): asserts id is number {
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
    throw new TypeError("backup id must be a positive integer");
}

const isNotFound = (e: unknown) =>
  ShaleError.isInstance(e) && (e.cause as { code?: unknown } | undefined)?.code === "ENOENT";

export class BackupEngine {
  readonly dir: string;
  private readonly fs: FileSystem;
  /** The tail of this engine's queue of operations. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(dir: string, fs: FileSystem) {
    this.dir = dir;
    this.fs = fs;
  }

  /** Opens (creating if missing) the backup directory `dir`. */
  static open(dir: string, options?: BackupEngineOptions): BackupEngine {
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("backup dir must be a non-empty string");
    if (options !== undefined) {
      if (typeof options !== "object" || options === null)
        throw new TypeError("BackupEngine options must be an object");
      checkKnown("BackupEngine.open", options, ["fs"]);
    }
    const fs = options?.fs ?? new NodeFileSystem();
    for (const sub of [META, PRIVATE, SHARED]) fs.mkdir(joinPath(dir, sub));
    return new BackupEngine(dir, fs);
  }

  private path(...parts: string[]): string {
    return joinPath(this.dir, ...parts);
  }

  /** Runs `op` after the operations queued before it, holding the backup directory's LOCK. */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      const lock = this.fs.lock(this.path("LOCK"));
      try {
        return await op();
      } finally {
        lock.release();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Backs up `db` as of this call (with `flush`, as of the end of the flush) while it keeps
   * running. Tables already in the backup directory with the same name, size and CRC32C are
   * shared, not copied. Resolves with the new backup's description.
   */
  createBackup(db: DB, options?: CreateBackupOptions): Promise<BackupInfo> {
    return settle(() => this.createBackupNow(db, options));
  }

  private createBackupNow(db: DB, options?: CreateBackupOptions): Promise<BackupInfo> {
    if (options !== undefined) {
      if (typeof options !== "object" || options === null)
        throw new TypeError("createBackup options must be an object");
      checkKnown("createBackup", options, ["flush", "metadata"]);
      if (options.flush !== undefined && typeof options.flush !== "boolean")
        throw new TypeError("createBackup option flush must be a boolean");
      if (options.metadata !== undefined && typeof options.metadata !== "string")
        throw new TypeError("createBackup option metadata must be a string");
    }
    const host = db.opsHost();
    host.checkOpen();
    const flush = options?.flush === true ? host.flush() : undefined;
    flush?.catch(() => undefined); // awaited below; not unhandled if the LOCK refuses us first
    // Without flush the capture happens now, inside the call: the moment of the backup.
    const early = flush === undefined ? captureLiveFiles(host) : undefined;
    const timestamp = Date.now();
    const run = this.exclusive(async () => {
      if (flush !== undefined) await flush;
      const captured = early ?? captureLiveFiles(host);
      const id = this.nextId();
      const privateDir = this.path(PRIVATE, String(id));
      const fromFs = host.fs;
      const fs = this.fs;
      const files: BackupFile[] = [];
      try {
        removeTree(fs, privateDir);
        fs.mkdir(privateDir);
        for (const t of captured.tables) {
          const src = tableFileName(host.dir, t.number);
          const sum = await checksumFile(fromFs, src);
          if (sum.size !== t.size)
            throw ShaleError.corruption(
              `table is ${sum.size} bytes, the MANIFEST says ${t.size}`,
              src,
            );
          const name = `${pad(t.number)}_${sum.crc32c >>> 0}_${sum.size}.sst`;
          const path = joinPath(SHARED, name);
          const dst = this.path(path);
          if (!fs.exists(dst) || fs.fileSize(dst) !== sum.size) {
            const tmp = this.path(SHARED, `${name}.tmp`);
            const copied = await copyFile(fromFs, src, fs, tmp);
            if (copied.crc32c !== sum.crc32c)
              throw ShaleError.corruption("table changed while it was copied", src);
            fs.rename(tmp, dst);
          }
          files.push({ dbName: t.name, path, size: sum.size, crc32c: sum.crc32c });
        }
        const copyPrivate = async (from: string, name: string, length?: number) => {
          const path = joinPath(PRIVATE, String(id), name);
          const r = await copyFile(fromFs, from, fs, this.path(path), length);
          files.push({ dbName: name, path, size: r.size, crc32c: r.crc32c });
        };
        const m = captured.manifest;
        await copyPrivate(joinPath(host.dir, m.name), m.name, m.size);
        if (captured.options !== undefined)
          await copyPrivate(joinPath(host.dir, captured.options), captured.options);
        for (const w of captured.wals) {
          const from = logFileName(host.dir, w.number);
          try {
            await copyPrivate(from, w.name, w.size);
          } catch (e) {
            // A WAL retired just before the capture can vanish meanwhile (its deletion was
            // issued before deletions were held); the captured tables hold its writes.
            if (fromFs.exists(from)) throw e;
            const partial = this.path(joinPath(PRIVATE, String(id), w.name));
            if (fs.exists(partial)) fs.remove(partial);
          }
        }
        const current = joinPath(PRIVATE, String(id), "CURRENT");
        const currentBytes = toBytes(`${m.name}\n`);
        fs.writeFile(this.path(current), currentBytes, { sync: true });
        const sum = await checksumFile(fs, this.path(current));
        files.push({ dbName: "CURRENT", path: current, size: sum.size, crc32c: sum.crc32c });
        fs.syncDir(privateDir);
        fs.syncDir(this.path(SHARED));
        const meta: BackupMeta = {
          id,
          timestamp,
          sequence: captured.sequence,
          metadata: options?.metadata,
          files,
        };
        const tmp = this.path(META, `${id}.tmp`);
        fs.writeFile(tmp, encodeMeta(meta), { sync: true });
        fs.rename(tmp, this.path(META, String(id)));
        fs.syncDir(this.path(META));
        return infoOf(meta);
      } catch (e) {
        try {
          removeTree(fs, privateDir);
        } catch {
          // the backup's own error is the one to report
        }
        throw e;
      } finally {
        captured.release();
      }
    });
    // If the operation never ran (the LOCK is held elsewhere), the capture goes too.
    return run.finally(() => early?.release());
  }

  /** The readable backups, oldest first. Damaged meta files: `getCorruptedBackups`. */
  listBackups(): BackupInfo[] {
    return this.readAll()
      .filter((r): r is { id: number; meta: BackupMeta } => "meta" in r)
      .map((r) => infoOf(r.meta));
  }

  /** Backups whose meta file cannot be read, with the reason. */
  getCorruptedBackups(): { id: number; error: ShaleError }[] {
    return this.readAll().filter((r): r is { id: number; error: ShaleError } => "error" in r);
  }

  /**
   * Checks that every file of backup `id` is there with its size and CRC32C (each file read
   * in full). Throws Corruption naming the damaged file (a path in the backup directory).
   */
  verifyBackup(id: number): Promise<void> {
    return settle(() => this.verifyBackupNow(id));
  }

  private verifyBackupNow(id: number): Promise<void> {
    checkId(id);
    return this.exclusive(async () => {
      const meta = this.readMeta(id);
      for (const f of meta.files) await this.checkFile(f);
    });
  }

  /**
   * Restores backup `id` into `dir`, which must not exist, be empty, or hold an interrupted
   * restore (whose files are replaced). Every file's size and CRC32C are checked while it is
   * copied. Until it resolves, `dir` holds RESTORE-IN-PROGRESS and does not open.
   */
  restoreBackup(id: number, dir: string): Promise<void> {
    return settle(() => this.restoreBackupNow(id, dir));
  }

  private restoreBackupNow(id: number, dir: string): Promise<void> {
    checkId(id);
    if (typeof dir !== "string" || dir.length === 0)
      throw new TypeError("restore dir must be a non-empty string");
    return this.exclusive(async () => {
      const meta = this.readMeta(id);
      await restoreInto(this.fs, this.dir, meta, dir);
    });
  }

  /**
   * Deletes every readable backup but the newest `keep`, then the files no remaining backup
   * uses. Resolves with the ids deleted. Backups with damaged meta files are left alone.
   */
  purgeOldBackups(keep: number): Promise<number[]> {
    return settle(() => this.purgeOldBackupsNow(keep));
  }

  private purgeOldBackupsNow(keep: number): Promise<number[]> {
    if (typeof keep !== "number" || !Number.isSafeInteger(keep) || keep < 0)
      throw new TypeError("purgeOldBackups keep must be a non-negative integer");
    return this.exclusive(async () => {
      const ids = this.listBackups().map((b) => b.id);
      const doomed = ids.slice(0, Math.max(0, ids.length - keep));
      for (const id of doomed) this.removeBackup(id);
      this.collectGarbage();
      return doomed;
    });
  }

  /** Deletes backup `id` (damaged or not), then the files no remaining backup uses. */
  deleteBackup(id: number): Promise<void> {
    return settle(() => this.deleteBackupNow(id));
  }

  private deleteBackupNow(id: number): Promise<void> {
    checkId(id);
    return this.exclusive(async () => {
      if (!this.fs.exists(this.path(META, String(id))))
        throw ShaleError.invalidArgument(`no backup ${id} in ${this.dir}`);
      this.removeBackup(id);
      this.collectGarbage();
    });
  }

  // ------------------------------------------------------------------ internals

  private metaIds(): number[] {
    return this.fs
      .list(this.path(META))
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .sort((a, b) => a - b);
  }

  private nextId(): number {
    let max = 0;
    for (const id of this.metaIds()) max = Math.max(max, id);
    for (const n of this.fs.list(this.path(PRIVATE)))
      if (/^\d+$/.test(n)) max = Math.max(max, Number(n));
    return max + 1;
  }

  private readAll(): MetaRead[] {
    return this.metaIds().map((id) => {
      try {
        return { id, meta: this.readMeta(id) };
      } catch (e) {
        if (!ShaleError.isInstance(e)) throw e;
        return { id, error: e };
      }
    });
  }

  private readMeta(id: number): BackupMeta {
    const path = this.path(META, String(id));
    let bytes: Uint8Array;
    try {
      bytes = this.fs.readFile(path);
    } catch (e) {
      if (isNotFound(e)) throw ShaleError.invalidArgument(`no backup ${id} in ${this.dir}`);
      throw e;
    }
    const meta = decodeMeta(bytes, path);
    if (meta.id !== id) throw ShaleError.corruption(`meta file says id ${meta.id}`, path, 0);
    return meta;
  }

  private damaged(f: BackupFile, size: number, crc: number): ShaleError {
    return damagedFile(this.dir, f, size, crc);
  }

  private async checkFile(f: BackupFile): Promise<void> {
    const path = this.path(f.path);
    if (!this.fs.exists(path)) throw ShaleError.corruption("backup file is missing", path);
    const size = this.fs.fileSize(path);
    if (size !== f.size) throw this.damaged(f, size, 0);
    const sum = await checksumFile(this.fs, path);
    if (sum.crc32c !== f.crc32c) throw this.damaged(f, sum.size, sum.crc32c);
  }

  /** Removes the meta file first (the backup is gone at once), then its private files. */
  private removeBackup(id: number): void {
    this.fs.remove(this.path(META, String(id)));
    this.fs.syncDir(this.path(META));
    removeTree(this.fs, this.path(PRIVATE, String(id)));
  }

  /** See garbage.ts. */
  private collectGarbage(): number {
    return collectGarbage(this.fs, this.dir, this.readAll());
  }
}

/** `run()`, with what it throws as a rejection (the engine's methods never throw). */
function settle<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (e) {
    return Promise.reject(e);
  }
}

function infoOf(meta: BackupMeta): BackupInfo {
  let size = 0;
  for (const f of meta.files) size += f.size;
  return {
    id: meta.id,
    timestamp: meta.timestamp,
    sequence: meta.sequence,
    size,
    numFiles: meta.files.length,
    metadata: meta.metadata,
  };
}
