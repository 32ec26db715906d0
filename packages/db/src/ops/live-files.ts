/**
 * The files that make up a database at one moment (RocksDB's GetLiveFiles +
 * GetSortedWalFiles): the tables of the current version (name, level, size, key range), the
 * MANIFEST and its size at that moment (only that prefix describes this state; the file
 * grows with later edits), CURRENT, the newest OPTIONS file, and the live WALs — every log
 * numbered at or above the MANIFEST's MinLogNumberToKeep — with their sizes at that moment.
 *
 * `captureLiveFiles` is the same list held still: it pins the version (its tables stay on
 * disk) and holds file deletions (the WALs stay on disk even if a flush retires them), until
 * `release()`. A checkpoint or a backup copies what it names — each MANIFEST and WAL only up
 * to the captured size: a prefix ending at a record boundary, since a write hands whole
 * records to the OS before it returns and a MANIFEST edit is synced before it applies.
 * So the copy holds exactly the writes acknowledged before the capture, whatever the
 * database does while the copy runs.
 */
import { baseName, ShaleError, TRAILER_SIZE } from "@shale/base";
import {
  FileType,
  logFileName,
  manifestFileName,
  optionsFileName,
  parseFileName,
  tableFileName,
} from "../core/filenames.js";
import { optionsFileNumbers } from "../core/options-file.js";
import type { FileMetaData } from "../version/version-edit.js";
import type { OpsHost } from "./host.js";

/** A table of the current version. */
export interface LiveTable {
  /** File name in the database directory (`NNNNNN.sst`). */
  readonly name: string;
  readonly number: number;
  readonly level: number;
  /** Bytes (as the MANIFEST records it). */
  readonly size: number;
  /** Smallest and largest user keys (copies). */
  readonly smallestKey: Uint8Array;
  readonly largestKey: Uint8Array;
  readonly smallestSeq: number;
  readonly largestSeq: number;
  /** The id of the table's column family (0: `default`). */
  readonly columnFamily: number;
}

/** A live WAL and its size when the list was taken. */
export interface LiveWal {
  readonly name: string;
  readonly number: number;
  readonly size: number;
}

/** `db.getLiveFiles()`. */
export interface LiveFiles {
  /** The MANIFEST's name and size when the list was taken (RocksDB's manifest_file_size). */
  readonly manifest: { readonly name: string; readonly size: number };
  /** Always "CURRENT". */
  readonly current: string;
  /** The newest OPTIONS file, if the directory has one. */
  readonly options: string | undefined;
  /**
   * The tables of the current version, by level then key order (L0 newest first), then those
   * of other column families (`columnFamily` != 0).
   */
  readonly tables: readonly LiveTable[];
  /** The WALs recovery would replay, oldest first. */
  readonly wals: readonly LiveWal[];
  /** The sequence number of the last write included. */
  readonly sequence: number;
}

/** A `LiveFiles` list whose files stay on disk until `release()`. */
export interface CapturedFiles extends LiveFiles {
  /** Drops the pin and the deletion hold. Idempotent. */
  release(): void;
}

/** Lists the live files now (no hold). REQUIRES: the database is open. */
export function liveFiles(host: OpsHost): LiveFiles {
  host.checkOpen();
  host.takeFinished();
  return listNow(host, host.versions.current.levels);
}

/**
 * Lists the live files and keeps them on disk until `release()`: synchronous, so nothing
 * the database does can fall between the listing and the hold.
 */
export function captureLiveFiles(host: OpsHost): CapturedFiles {
  host.checkOpen();
  host.takeFinished();
  // Checkpoints and backups copy what is captured; they do not copy blob files yet, and a
  // copy without them would lose those values.
  for (const family of host.versions.families.values())
    if (family.current.blobFiles.size > 0)
      throw ShaleError.notSupported(
        `checkpoints and backups of a database with blob files (RocksDB's BlobDB; column family "${family.name}") are not supported`,
      );
  const pin = host.pinVersion();
  const releaseHold = host.holdFileDeletions();
  try {
    const files = listNow(host, pin.version.levels);
    let held = true;
    return {
      ...files,
      release: () => {
        if (!held) return;
        held = false;
        pin.release();
        releaseHold();
      },
    };
  } catch (e) {
    pin.release();
    releaseHold();
    throw e;
  }
}

function listNow(host: OpsHost, levels: readonly (readonly FileMetaData[])[]): LiveFiles {
  const { fs, dir, versions } = host;
  const tables: LiveTable[] = [];
  const add = (f: FileMetaData, level: number, columnFamily: number) =>
    tables.push({
      name: baseName(tableFileName(dir, f.number)),
      number: f.number,
      level,
      size: f.size,
      smallestKey: f.smallest.slice(0, f.smallest.length - TRAILER_SIZE),
      largestKey: f.largest.slice(0, f.largest.length - TRAILER_SIZE),
      smallestSeq: f.smallestSeq,
      largestSeq: f.largestSeq,
      columnFamily,
    });
  levels.forEach((files, level) => {
    for (const f of files) add(f, level, 0);
  });
  // The other column families' tables.
  for (const family of versions.families.values()) {
    if (family.id === 0) continue;
    family.current.levels.forEach((files, level) => {
      for (const f of files) add(f, level, family.id);
    });
  }
  const manifestPath = manifestFileName(dir, versions.manifestNumber);
  const minLog = versions.minLogNumberToKeep;
  const wals: LiveWal[] = [];
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed?.type !== FileType.Log || parsed.number < minLog) continue;
    const path = logFileName(dir, parsed.number);
    let size: number;
    try {
      size = fs.fileSize(path);
    } catch (e) {
      // Listed while its deletion, issued before the hold, completed (the deletions run off
      // this thread): a WAL every family had flushed, which nothing captured needs.
      if (fs.exists(path)) throw e;
      continue;
    }
    wals.push({ name, number: parsed.number, size });
  }
  wals.sort((a, b) => a.number - b.number);
  const options = optionsFileNumbers(fs, dir)[0];
  return {
    manifest: { name: baseName(manifestPath), size: fs.fileSize(manifestPath) },
    current: "CURRENT",
    options: options === undefined ? undefined : baseName(optionsFileName(dir, options)),
    tables,
    wals,
    sequence: host.lastSequence(),
  };
}
