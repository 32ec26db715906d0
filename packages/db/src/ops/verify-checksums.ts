/**
 * `db.verifyChecksums()` — RocksDB's DB::VerifyChecksum, extended to the logs: every block of
 * every table of the current versions of every column family (each read with its family's
 * comparator) is read again from its file (not from the block cache) and its checksum checked (TableReader.verifyChecksums: data, index, metaindex and meta
 * blocks; the footer when the table opens), each table's size is checked against the
 * MANIFEST, and every record of the live WALs and of the MANIFEST is read with its checksum
 * checked (strictly: AbsoluteConsistency, since a live log ends at a whole record).
 *
 * By default the first damage throws (Corruption naming the file and offset, as every
 * reader reports it); with `collect: true` nothing is thrown for damage and the report lists
 * every problem found, one per file at most (`ok` false). Synchronous: one pass over the
 * database's files, on the caller's thread.
 */
import { joinPath, ShaleError } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { logFileName, tableFileName } from "../core/filenames.js";
import { WAL_DECOMPRESSOR } from "../core/wal-codecs.js";
import type { OpsHost } from "./host.js";
import { liveFiles } from "./live-files.js";

export interface VerifyChecksumsOptions {
  /** Report every problem instead of throwing at the first. Default: false. */
  collect?: boolean;
}

/** One file `verifyChecksums` read. */
export interface VerifiedFile {
  readonly name: string;
  readonly kind: "table" | "wal" | "manifest";
  /** Bytes read. */
  readonly bytes: number;
  /** Tables: blocks verified. Logs: records read. */
  readonly units: number;
}

/** One damaged file. */
export interface VerifyProblem {
  readonly file: string;
  /** Where the damage was found, when known. */
  readonly offset: number | undefined;
  readonly message: string;
  readonly error: ShaleError;
}

export interface VerifyReport {
  /** No problem was found. */
  readonly ok: boolean;
  /** Tables verified (damaged ones included). */
  readonly tables: number;
  /** Blocks verified. */
  readonly blocks: number;
  /** Logs read: live WALs and the MANIFEST. */
  readonly logs: number;
  /** Log records read. */
  readonly records: number;
  /** Bytes read. */
  readonly bytes: number;
  /** The files read that were sound. */
  readonly files: readonly VerifiedFile[];
  readonly problems: readonly VerifyProblem[];
}

export function verifyChecksums(host: OpsHost, options?: VerifyChecksumsOptions): VerifyReport {
  if (options !== undefined) {
    if (typeof options !== "object" || options === null)
      throw new TypeError("verifyChecksums options must be an object");
    for (const key of Object.keys(options))
      if (key !== "collect")
        throw ShaleError.invalidArgument(`verifyChecksums: unknown option ${key}`);
    if (options.collect !== undefined && typeof options.collect !== "boolean")
      throw new TypeError("verifyChecksums option collect must be a boolean");
  }
  const collect = options?.collect === true;
  const live = liveFiles(host);
  const { fs, dir } = host;
  const files: VerifiedFile[] = [];
  const problems: VerifyProblem[] = [];
  let tables = 0;
  let blocks = 0;
  let logs = 0;
  let records = 0;
  let bytes = 0;
  const attempt = (name: string, check: () => void) => {
    try {
      check();
    } catch (e) {
      if (!ShaleError.isInstance(e) || (e.code !== "Corruption" && e.code !== "IOError")) throw e;
      if (!collect) throw e;
      problems.push({ file: e.file ?? name, offset: e.offset, message: e.message, error: e });
    }
  };
  for (const t of live.tables) {
    const comparator = host.versions.families.get(t.columnFamily)?.icmp.user ?? host.icmp.user;
    tables++;
    attempt(t.name, () => {
      const path = tableFileName(dir, t.number);
      const size = fs.fileSize(path);
      if (size !== t.size)
        throw ShaleError.corruption(
          `table is ${size} bytes, the MANIFEST says ${t.size}`,
          t.name,
          Math.min(size, t.size),
        );
      const reader = TableReader.open(fs.openRandomAccess(path), {
        fileSize: t.size,
        fileName: t.name,
        fileNumber: t.number,
        comparator,
        verifyChecksums: true,
      });
      try {
        const r = reader.verifyChecksums();
        blocks += r.blocks;
        bytes += r.bytes;
        files.push({ name: t.name, kind: "table", bytes: r.bytes, units: r.blocks });
      } finally {
        reader.close();
      }
    });
  }
  const readLog = (path: string, name: string, kind: "wal" | "manifest", number: number) => {
    logs++;
    attempt(name, () => {
      const file = fs.openSequential(path);
      let n = 0;
      let size = 0;
      try {
        const reader = new LogReader(file, {
          mode: WalRecoveryMode.AbsoluteConsistency,
          fileName: name,
          logNumber: number,
          decompressor: WAL_DECOMPRESSOR,
        });
        for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) n++;
        size = fs.fileSize(path);
      } finally {
        file.close();
      }
      records += n;
      bytes += size;
      files.push({ name, kind, bytes: size, units: n });
    });
  };
  for (const w of live.wals) readLog(logFileName(dir, w.number), w.name, "wal", w.number);
  const manifestNumber = host.versions.manifestNumber;
  readLog(joinPath(dir, live.manifest.name), live.manifest.name, "manifest", manifestNumber);
  return { ok: problems.length === 0, tables, blocks, logs, records, bytes, files, problems };
}
