/**
 * Names of the files in a database directory (LevelDB/RocksDB conventions, file/filename.cc):
 *
 * | file                  | what                                                       |
 * |-----------------------|------------------------------------------------------------|
 * | `CURRENT`             | the name of the live MANIFEST, one line                    |
 * | `MANIFEST-NNNNNN`     | log of version edits (RocksDB's VersionEdit, the WAL format) |
 * | `NNNNNN.log`          | write-ahead log                                            |
 * | `NNNNNN.sst`          | table                                                      |
 * | `NNNNNN.blob`         | blob file (RocksDB's integrated BlobDB, blob/blob-format.ts) |
 * | `NNNNNN.dbtmp`        | temporary file (CURRENT is written here, then renamed)     |
 * | `OPTIONS-NNNNNN`      | the options, RocksDB's INI form (options-file.ts)          |
 * | `OPTIONS-NNNNNN.dbtmp`| an OPTIONS file being written                              |
 * | `IDENTITY`            | the database's id (a UUID)                                 |
 * | `LOCK`                | held while the database is open                            |
 * | `LOG`, `LOG.old.N`    | RocksDB's info log (shale writes none; never deleted)      |
 *
 * File numbers come from one counter (`nextFileNumber`, persisted in the MANIFEST).
 */
import { joinPath } from "@shale/base";

export const FileType = Object.freeze({
  Log: "log",
  Table: "table",
  Blob: "blob",
  Manifest: "manifest",
  Current: "current",
  Temp: "temp",
  Lock: "lock",
  Options: "options",
  OptionsTemp: "options-temp",
  Identity: "identity",
  InfoLog: "info-log",
} as const);
export type FileType = (typeof FileType)[keyof typeof FileType];

const pad = (n: number): string => String(n).padStart(6, "0");

export const logFileName = (dir: string, n: number): string => joinPath(dir, `${pad(n)}.log`);
export const tableFileName = (dir: string, n: number): string => joinPath(dir, `${pad(n)}.sst`);
export const blobFileName = (dir: string, n: number): string => joinPath(dir, `${pad(n)}.blob`);
export const manifestFileName = (dir: string, n: number): string =>
  joinPath(dir, `MANIFEST-${pad(n)}`);
export const tempFileName = (dir: string, n: number): string => joinPath(dir, `${pad(n)}.dbtmp`);
export const optionsFileName = (dir: string, n: number): string =>
  joinPath(dir, `OPTIONS-${pad(n)}`);
export const currentFileName = (dir: string): string => joinPath(dir, "CURRENT");
export const lockFileName = (dir: string): string => joinPath(dir, "LOCK");
export const identityFileName = (dir: string): string => joinPath(dir, "IDENTITY");

/** Parses a file name in a database directory; undefined for foreign files. */
export function parseFileName(name: string): { type: FileType; number: number } | undefined {
  if (name === "CURRENT") return { type: FileType.Current, number: 0 };
  if (name === "LOCK") return { type: FileType.Lock, number: 0 };
  if (name === "IDENTITY") return { type: FileType.Identity, number: 0 };
  if (name === "LOG" || name.startsWith("LOG.old.")) return { type: FileType.InfoLog, number: 0 };
  let m = /^MANIFEST-(\d+)$/.exec(name);
  if (m) return { type: FileType.Manifest, number: Number(m[1]) };
  m = /^OPTIONS-(\d+)(\.dbtmp)?$/.exec(name);
  if (m) return { type: m[2] ? FileType.OptionsTemp : FileType.Options, number: Number(m[1]) };
  m = /^(\d+)\.(log|sst|blob|dbtmp)$/.exec(name);
  if (!m) return undefined;
  const type =
    m[2] === "log"
      ? FileType.Log
      : m[2] === "sst"
        ? FileType.Table
        : m[2] === "blob"
          ? FileType.Blob
          : FileType.Temp;
  return { type, number: Number(m[1]) };
}
