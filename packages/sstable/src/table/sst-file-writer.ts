/**
 * SstFileWriter: writes a table outside any database, for bulk loading (RocksDB's
 * SstFileWriter; the file RocksDB's IngestExternalFile and `ldb ingest_extern_sst` take).
 *
 * An external file is an ordinary block-based table (table-builder.ts draws its layout) with
 * three differences, all RocksDB's:
 * - every entry has sequence number 0 (the ingesting database assigns one: either 0 kept, or
 *   a "global sequence number" that stands for every entry's);
 * - its properties carry RocksDB's two external-file properties, version 2 and global seqno 0
 *   (drawn in format/external-file.ts);
 * - the column family is unknown (id 0x7fffffff, no name) unless one is named, so RocksDB
 *   ingests the file into any column family.
 *
 * Like RocksDB's writer it records `rocksdb.creating.db.identity` "SST Writer", a session id
 * of its own (one per writer, as RocksDB's `GenerateDbSessionId`), file numbers 1, 2, ... for
 * the files it opens (`rocksdb.original.file.number`; session id and file number make
 * RocksDB's cache keys unique) and creation time 0.
 *
 * Rules (RocksDB's): point operations (`put`, `merge`, `delete`) in strictly increasing user
 * key order by the comparator; range deletions in any order relative to them and to each
 * other (they go to the range-deletion block, sorted at `finish`); an empty range
 * (start == end) is accepted and ignored; a file with no entries cannot be finished. A range
 * deletion covers keys with a smaller sequence number, and every entry of the file has the
 * same one, so it deletes what the database held before the file came in, never the file's
 * own keys (the interop test shows RocksDB doing so).
 *
 * Worked example: `open("a.sst")`, `put("k1", "v1")`, `put("k2", "v2")`, `finish()` writes
 * the entries `k1#0,SET` and `k2#0,SET` and returns `{ smallestKey: "k1", largestKey: "k2",
 * entries: 2, rangeDelEntries: 0, ... }`; `sst_dump --command=scan` prints
 * `'k1' seq:0, type:1 => v1`.
 *
 * Thread safety: none; one writer writes one file at a time. Synchronous, as TableBuilder.
 */
import {
  type Comparator,
  type FileSystem,
  makeInternalKey,
  NodeFileSystem,
  ShaleError,
  toBytes,
  toHex,
  ValueKind,
  type WritableFile,
} from "@shale/base";
import { EXTERNAL_SST_FILE_VERSION, ExternalSstFilePropertyName } from "../format/external-file.js";
import { UNKNOWN_COLUMN_FAMILY } from "../format/properties.js";
import {
  resolveBuilderOptions,
  type TableBuilderOptions,
  type TablePropertiesCollector,
} from "./builder-options.js";
import { TableBuilder } from "./table-builder.js";

/** The table options an SstFileWriter takes (each as in `TableBuilderOptions`). */
export type SstFileWriterTableOptions = Pick<
  TableBuilderOptions,
  | "comparator"
  | "blockSize"
  | "blockRestartInterval"
  | "dataBlockIndexType"
  | "dataBlockHashTableUtilRatio"
  | "bitsPerKey"
  | "filterPolicy"
  | "compression"
  | "zstdLevel"
  | "formatVersion"
  | "checksumType"
  | "indexType"
  | "partitionFilters"
  | "metadataBlockSize"
  | "collectors"
  | "mergeOperatorName"
  | "creationTime"
>;

export interface SstFileWriterOptions extends SstFileWriterTableOptions {
  /** Where the file is written. Default: a `NodeFileSystem`. */
  fs?: FileSystem;
  /**
   * Column family id recorded in the properties (`rocksdb.column.family.id`), RocksDB's
   * `column_family` handle. Default: unknown (0x7fffffff), which any column family ingests.
   */
  columnFamilyId?: number;
  /** Column family name recorded in the properties. Default: "" (not recorded). */
  columnFamilyName?: string;
}

/** What `finish` returns (RocksDB's ExternalSstFileInfo). Keys are copies owned by the caller. */
export interface ExternalSstFileInfo {
  path: string;
  /** Smallest user key of a point entry; absent when the file holds only range deletions. */
  smallestKey?: Uint8Array;
  /** Largest user key of a point entry; absent as `smallestKey`. */
  largestKey?: Uint8Array;
  /** Smallest start key of a range deletion; absent without range deletions. */
  smallestRangeDelKey?: Uint8Array;
  /** Largest (exclusive) end key of a range deletion; absent without range deletions. */
  largestRangeDelKey?: Uint8Array;
  /** Point entries (puts, merges and deletes). */
  entries: number;
  /** Range deletions (empty ranges, which are ignored, not counted). */
  rangeDelEntries: number;
  /** Bytes of the finished file. */
  fileSize: number;
  /** The external-file version written (2). */
  version: number;
  /** Sequence number of every entry (0). */
  sequenceNumber: number;
}

/**
 * A session id as RocksDB makes them: 20 characters of base 36 (digits, upper-case letters).
 * (`@shale/db` draws its sessions' ids the same way.)
 */
function newSessionId(): string {
  const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let id = "";
  for (let i = 0; i < 20; i++) id += digits[Math.floor(Math.random() * 36)];
  return id;
}

/** A key for messages: quoted when it is UTF-8, in hex otherwise. */
function describeKey(key: Uint8Array): string {
  try {
    return JSON.stringify(new TextDecoder("utf-8", { fatal: true }).decode(key));
  } catch {
    return `0x${toHex(key)}`;
  }
}

/** Adds RocksDB's external-file properties (SstFileWriterPropertiesCollector). */
function externalFileCollector(): TablePropertiesCollector {
  // Both values are below 0x80 byte by byte, so as strings they encode to these bytes.
  const version = String.fromCharCode(EXTERNAL_SST_FILE_VERSION, 0, 0, 0);
  const globalSeqno = String.fromCharCode(0, 0, 0, 0, 0, 0, 0, 0);
  return {
    add() {},
    finish: () => ({
      [ExternalSstFilePropertyName.VERSION]: version,
      [ExternalSstFilePropertyName.GLOBAL_SEQNO]: globalSeqno,
    }),
  };
}

interface OpenFile {
  path: string;
  file: WritableFile;
  builder: TableBuilder;
  entries: number;
  rangeDelEntries: number;
  smallestKey: Uint8Array | undefined;
  largestKey: Uint8Array | undefined;
  smallestRangeDelKey: Uint8Array | undefined;
  largestRangeDelKey: Uint8Array | undefined;
}

const EMPTY = new Uint8Array(0);

/**
 * Writes external SST files: `open(path)`, then `put`/`merge`/`delete`/`deleteRange`, then
 * `finish()` (or `abandon()`); after `finish` the writer may `open` another file. Keys and
 * values are bytes or strings (UTF-8).
 */
export class SstFileWriter {
  private readonly fs: FileSystem;
  private readonly comparator: Comparator;
  private readonly builderOptions: TableBuilderOptions;
  private current: OpenFile | undefined;
  /** `rocksdb.original.file.number` of the next file opened. */
  private nextFileNumber = 1;

  /**
   * Checks the options (TypeError for a wrong type, InvalidArgument for a bad value, as
   * TableBuilder does). Opens nothing.
   */
  constructor(options: SstFileWriterOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("options must be an object");
    }
    const { fs, columnFamilyId, columnFamilyName, collectors, ...table } = options;
    if (fs !== undefined && (typeof fs !== "object" || fs === null)) {
      throw new TypeError("fs must be a FileSystem");
    }
    if (columnFamilyId !== undefined && typeof columnFamilyId !== "number") {
      throw new TypeError("columnFamilyId must be a number");
    }
    if (columnFamilyName !== undefined && typeof columnFamilyName !== "string") {
      throw new TypeError("columnFamilyName must be a string");
    }
    if (collectors !== undefined && !Array.isArray(collectors)) {
      throw new TypeError("collectors must be an array");
    }
    this.builderOptions = {
      dbId: "SST Writer",
      dbSessionId: newSessionId(),
      creationTime: 0,
      ...table,
      columnFamily: {
        id: columnFamilyId ?? UNKNOWN_COLUMN_FAMILY,
        name: columnFamilyName ?? "",
      },
      collectors: [...(collectors ?? [])],
    };
    this.comparator = resolveBuilderOptions(this.builderOptions).comparator;
    this.fs = fs ?? new NodeFileSystem();
  }

  /**
   * Creates (or truncates) the file at `path` and starts a table in it. InvalidArgument if a
   * file is already open (finish or abandon it first).
   */
  open(path: string): void {
    if (typeof path !== "string") throw new TypeError("path must be a string");
    if (this.current !== undefined) {
      throw ShaleError.invalidArgument(
        `a file is already open (${this.current.path}); finish or abandon it first`,
      );
    }
    const file = this.fs.openWritable(path);
    let builder: TableBuilder;
    try {
      builder = new TableBuilder(file, {
        ...this.builderOptions,
        fileNumber: this.nextFileNumber,
        collectors: [...(this.builderOptions.collectors ?? []), externalFileCollector()],
      });
    } catch (e) {
      file.close();
      throw e;
    }
    this.nextFileNumber++;
    this.current = {
      path,
      file,
      builder,
      entries: 0,
      rangeDelEntries: 0,
      smallestKey: undefined,
      largestKey: undefined,
      smallestRangeDelKey: undefined,
      largestRangeDelKey: undefined,
    };
  }

  /** Bytes written to the open file so far (RocksDB's FileSize); 0 when none is open. */
  get fileSize(): number {
    return this.current?.file.size ?? 0;
  }

  /** Adds `key` -> `value`. REQUIRES: `key` after every point key added (comparator order). */
  put(key: Uint8Array | string, value: Uint8Array | string): void {
    this.add(toBytes(key), toBytes(value, "value"), ValueKind.Value);
  }

  /** Adds a merge operand for `key`. REQUIRES: as `put`. */
  merge(key: Uint8Array | string, operand: Uint8Array | string): void {
    this.add(toBytes(key), toBytes(operand, "operand"), ValueKind.Merge);
  }

  /** Adds a deletion of `key`. REQUIRES: as `put`. */
  delete(key: Uint8Array | string): void {
    this.add(toBytes(key), EMPTY, ValueKind.Deletion);
  }

  /**
   * Deletes [start, end) (exclusive end), in any order relative to other operations.
   * start == end is accepted and ignored; start after end is InvalidArgument.
   */
  deleteRange(start: Uint8Array | string, end: Uint8Array | string): void {
    const s = toBytes(start, "start");
    const e = toBytes(end, "end");
    const f = this.openFile();
    const c = this.comparator.compare(s, e);
    if (c > 0) {
      throw ShaleError.invalidArgument(
        `range deletion end ${describeKey(e)} comes before its start ${describeKey(s)}`,
      );
    }
    if (c === 0) return;
    f.builder.addRangeTombstone(s, e, 0);
    if (
      f.smallestRangeDelKey === undefined ||
      this.comparator.compare(s, f.smallestRangeDelKey) < 0
    ) {
      f.smallestRangeDelKey = s.slice();
    }
    if (
      f.largestRangeDelKey === undefined ||
      this.comparator.compare(e, f.largestRangeDelKey) > 0
    ) {
      f.largestRangeDelKey = e.slice();
    }
    f.rangeDelEntries++;
  }

  private openFile(): OpenFile {
    const f = this.current;
    if (f === undefined) {
      throw ShaleError.invalidArgument("no file is open (call open(path) first)");
    }
    return f;
  }

  private add(key: Uint8Array, value: Uint8Array, kind: ValueKind): void {
    const f = this.openFile();
    if (f.largestKey !== undefined && this.comparator.compare(key, f.largestKey) <= 0) {
      throw ShaleError.invalidArgument(
        `keys must be added in strictly increasing order: ${describeKey(key)} after ${describeKey(f.largestKey)}`,
      );
    }
    f.builder.add(makeInternalKey(key, 0, kind), value);
    const copy = key.slice();
    if (f.smallestKey === undefined) f.smallestKey = copy;
    f.largestKey = copy;
    f.entries++;
  }

  /**
   * Writes the rest of the table, fsyncs and closes the file, and returns what it holds.
   * InvalidArgument when no file is open or nothing was added (the file stays open then, as
   * in RocksDB). On an I/O error the file is removed.
   */
  finish(): ExternalSstFileInfo {
    const f = this.openFile();
    if (f.entries === 0 && f.rangeDelEntries === 0) {
      throw ShaleError.invalidArgument("cannot create an sst file with no entries");
    }
    this.current = undefined;
    try {
      f.builder.finish();
      f.file.sync();
      f.file.close();
    } catch (e) {
      this.discard(f);
      throw e;
    }
    const info: ExternalSstFileInfo = {
      path: f.path,
      entries: f.entries,
      rangeDelEntries: f.rangeDelEntries,
      fileSize: f.file.size,
      version: EXTERNAL_SST_FILE_VERSION,
      sequenceNumber: 0,
    };
    if (f.smallestKey !== undefined) info.smallestKey = f.smallestKey;
    if (f.largestKey !== undefined) info.largestKey = f.largestKey;
    if (f.smallestRangeDelKey !== undefined) info.smallestRangeDelKey = f.smallestRangeDelKey;
    if (f.largestRangeDelKey !== undefined) info.largestRangeDelKey = f.largestRangeDelKey;
    return info;
  }

  /** Gives up on the open file: it is closed and removed. InvalidArgument when none is open. */
  abandon(): void {
    const f = this.openFile();
    this.current = undefined;
    try {
      f.builder.abandon();
    } catch {
      // a builder that failed has stopped writing already
    }
    this.discard(f);
  }

  private discard(f: OpenFile): void {
    try {
      f.file.close();
    } catch {
      // the file is going away; its close error adds nothing
    }
    try {
      if (this.fs.exists(f.path)) this.fs.remove(f.path);
    } catch {
      // best effort: the caller already has the error that matters
    }
  }
}
