/**
 * `db.checkpoint(dir)` — RocksDB's Checkpoint::CreateCheckpoint: an openable copy of the
 * database as of the moment of the call, made while it keeps running.
 *
 * ```
 *   capture (synchronous: nothing falls between listing and holding)
 *     pin the version + hold file deletions; list tables, MANIFEST size, OPTIONS, live WALs
 *     and their sizes (live-files.ts)
 *   copy into <dir>.tmp (yielding to the event loop between chunks: writes go on)
 *     tables        hard link where the file system can, else copy (they never change)
 *     MANIFEST      copied up to its captured size
 *     OPTIONS       copied
 *     WALs          copied up to their captured sizes (never linked: the copy's recovery may
 *                   truncate its last WAL, which must not touch the source); one that vanished
 *                   meanwhile was retired before the capture and is not needed
 *     CURRENT       written last, naming the MANIFEST; the directory synced
 *   rename <dir>.tmp -> <dir>, sync the parent; release the capture
 * ```
 *
 * The copy holds exactly the writes acknowledged before the call (with `flush: true`: before
 * the flush finished) — the WAL prefixes hold those the tables do not. Opening it replays
 * them like any recovery. An interrupted checkpoint leaves only `<dir>.tmp`, which never looks
 * like a database at `<dir>`, and is cleared by the next checkpoint to the same `dir`.
 *
 * The target must not exist, or be an empty directory (InvalidArgument otherwise).
 * Writes made with `disableWAL` that are still in the memtable are not in the copy unless
 * `flush: true` (RocksDB's log_size_for_flush = 0 flushes for the same reason).
 */
import { baseName, dirName, joinPath, ShaleError, toBytes } from "@shale/base";
import { currentFileName, logFileName, tableFileName } from "../core/filenames.js";
import { copyFile, linkOrCopy, removeTree } from "./copy.js";
import type { OpsHost } from "./host.js";
import { captureLiveFiles } from "./live-files.js";

export interface CheckpointOptions {
  /**
   * Flush the memtable first, so the copy needs no WAL replay for its data and holds
   * `disableWAL` writes. The moment captured is then the end of the flush. Default: false.
   */
  flush?: boolean;
}

/** What `db.checkpoint` made. */
export interface CheckpointInfo {
  /** The checkpoint's directory. */
  readonly dir: string;
  /** The sequence number of the last write it holds. */
  readonly sequence: number;
  /** The file names in it. */
  readonly files: readonly string[];
  /** Tables hard-linked (sharing the source's disk space). */
  readonly linked: number;
  /** Files copied (tables that could not be linked, MANIFEST, OPTIONS, WALs). */
  readonly copied: number;
  /** Bytes copied (not counting links). */
  readonly bytes: number;
}

function checkOptions(options: CheckpointOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null)
    throw new TypeError("checkpoint options must be an object");
  for (const key of Object.keys(options))
    if (key !== "flush") throw ShaleError.invalidArgument(`checkpoint: unknown option ${key}`);
  if (options.flush !== undefined && typeof options.flush !== "boolean")
    throw new TypeError("checkpoint option flush must be a boolean");
}

/**
 * REQUIRES: the database is open. Everything up to the capture runs before the first await
 * (unless `flush`), so the moment captured is the call.
 */
export async function createCheckpoint(
  host: OpsHost,
  dir: string,
  options?: CheckpointOptions,
): Promise<CheckpointInfo> {
  if (typeof dir !== "string" || dir.length === 0)
    throw new TypeError("checkpoint dir must be a non-empty string");
  checkOptions(options);
  host.checkOpen();
  const fs = host.fs;
  const target = dir.replace(/\/+$/, "") || dir;
  if (target === host.dir.replace(/\/+$/, ""))
    throw ShaleError.invalidArgument("checkpoint dir is the database's own directory");
  if (fs.exists(target) && fs.list(target).length > 0)
    throw ShaleError.invalidArgument(`checkpoint dir ${target} already exists and is not empty`);
  if (options?.flush === true) await host.flush();
  const captured = captureLiveFiles(host);
  const staging = `${target}.tmp`;
  const names: string[] = [];
  let linked = 0;
  let copied = 0;
  let bytes = 0;
  try {
    removeTree(fs, staging); // an interrupted checkpoint's leftovers
    fs.mkdir(staging);
    const src = host.dir;
    for (const t of captured.tables) {
      if (await linkOrCopy(fs, tableFileName(src, t.number), joinPath(staging, t.name))) linked++;
      else {
        copied++;
        bytes += t.size;
      }
      names.push(t.name);
    }
    const copy = async (from: string, name: string, length?: number) => {
      const r = await copyFile(fs, from, fs, joinPath(staging, name), length);
      copied++;
      bytes += r.size;
      names.push(name);
    };
    const manifest = captured.manifest;
    await copy(joinPath(src, manifest.name), manifest.name, manifest.size);
    if (captured.options !== undefined)
      await copy(joinPath(src, captured.options), captured.options);
    for (const w of captured.wals) {
      const path = logFileName(src, w.number);
      try {
        await copy(path, w.name, w.size);
      } catch (e) {
        // A WAL retired just before the capture (every family with data in it had flushed:
        // the captured tables hold its writes) can still be listed while its deletion, issued
        // before deletions were held, completes. The copy does not need it.
        if (fs.exists(path)) throw e;
        const staged = joinPath(staging, w.name);
        if (fs.exists(staged)) fs.remove(staged);
      }
    }
    // CURRENT last: until it exists nothing here is a database.
    const current = currentFileName(staging);
    fs.writeFile(current, toBytes(`${manifest.name}\n`), { sync: true });
    names.push(baseName(current));
    fs.syncDir(staging);
    if (fs.exists(target)) fs.removeDir(target); // empty (checked above)
    fs.rename(staging, target);
    const parent = dirName(target);
    fs.syncDir(parent === "" ? "." : parent);
  } catch (e) {
    try {
      removeTree(fs, staging);
    } catch {
      // the copy's own error is the one to report
    }
    throw e;
  } finally {
    captured.release();
  }
  return { dir: target, sequence: captured.sequence, files: names.sort(), linked, copied, bytes };
}
