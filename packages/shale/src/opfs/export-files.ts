/**
 * The export of a database out of OPFS (`WorkerDatabase.exportDatabase()`): every file of
 * the database's directory, read in the database's worker after a flush, as
 * `{ name, bytes }` with `name` relative to that directory ("000012.sst", "CURRENT",
 * "archive/000003.log"). The format is the one shale writes in Node (RocksDB's), so the
 * files written out to a directory open with `open()` in Node and with RocksDB's tools.
 *
 * Consistency: the worker answers one request at a time and an inline background job runs
 * only between requests, so no write, flush or compaction changes the directory while it
 * is read: the files are the database as of the export, with the memtable flushed to a
 * table (nothing only in memory is left out).
 */
import type { FileSystem } from "@shale/base";

/** One file of an exported database. */
export interface ExportedFile {
  /** The path relative to the database's directory, "/"-separated. */
  name: string;
  /** The file's contents (a copy the caller owns). */
  bytes: Uint8Array;
}

/** Every file under `dir` of `fs`, subdirectories included, in name order. */
export function exportFiles(fs: FileSystem, dir: string): ExportedFile[] {
  const out: ExportedFile[] = [];
  walk(fs, dir, "", out);
  return out;
}

function walk(fs: FileSystem, dir: string, prefix: string, out: ExportedFile[]): void {
  for (const name of [...fs.list(dir)].sort()) {
    const path = `${dir}/${name}`;
    let bytes: Uint8Array;
    try {
      bytes = fs.readFile(path);
    } catch (err) {
      // A directory cannot be read as a file: descend into it; a file that fails is an error.
      let isDir = false;
      try {
        fs.list(path);
        isDir = true;
      } catch {
        throw err;
      }
      if (isDir) walk(fs, path, `${prefix}${name}/`, out);
      continue;
    }
    out.push({ name: `${prefix}${name}`, bytes });
  }
}
