/**
 * VersionEdit: one MANIFEST record — the change from one version of the database's file
 * set to the next — in RocksDB's encoding (db/version_edit.{h,cc}, as RocksDB 7.8.3 writes
 * it), so `ldb manifest_dump` decodes shale's MANIFESTs and shale reads RocksDB's. The
 * MANIFEST is a log (the `@shale/wal` format, one edit per record); docs/formats/manifest.md
 * has the long form with worked bytes.
 *
 * ```
 * edit  := field*                       (fields in the order below when written)
 * field := varint32 tag ‖ payload
 *   8193 DbId                varstring (ignorable; written by RocksDB with write_dbid_to_manifest)
 *      1 Comparator          varstring user comparator name
 *      2 LogNumber           varint64  WALs below it hold nothing of this column family
 *      9 PrevLogNumber       varint64  (always 0 today)
 *      3 NextFileNumber      varint64
 *    203 MaxColumnFamily     varint32
 *     10 MinLogNumberToKeep  varint64  WALs below it may be deleted (whole database)
 *      4 LastSequence        varint64
 *      5 CompactCursor       varint32 level ‖ varstring internal key  (LevelDB's CompactPointer)
 *      6 DeletedFile         varint32 level ‖ varint64 file number
 *    103 NewFile4            varint32 level ‖ varint64 number ‖ varint64 size
 *                            ‖ varstring smallest ‖ varstring largest   (internal keys)
 *                            ‖ varint64 smallestSeq ‖ varint64 largestSeq
 *                            ‖ { varint32 customTag ‖ varstring value }* ‖ varint32 1
 *    200 ColumnFamily        varint32 id   (omitted for the default family, id 0)
 *    201 ColumnFamilyAdd     varstring name
 *    202 ColumnFamilyDrop    (no payload)
 *    300 InAtomicGroup       varint32 edits remaining in the group after this one
 *    400 BlobFileAddition    a blob file (blob/blob-file-meta.ts has the fields)
 *    401 BlobFileGarbage     garbage found in a blob file (blob/blob-file-meta.ts)
 * read only:
 *      7 NewFile  (LevelDB)  level ‖ number ‖ size ‖ smallest ‖ largest
 *    100 NewFile2            ... ‖ smallestSeq ‖ largestSeq
 *    102 NewFile3            level ‖ number ‖ varint32 pathId ‖ size ‖ ... ‖ seqs
 *   8194/8195 blob records  BlobFileAddition / BlobFileGarbage under their old numbers
 * tag & 8192 (safe to ignore) varstring payload, skipped when unknown; other unknown tags
 *                            are Corruption
 * ```
 * NewFile4 custom fields (tag, value): 1 terminate; 2 need-compaction (1 byte); 3 min log
 * number to keep (fixed64, RocksDB's "hack"); 4 oldest blob file (varint64); 5 oldest
 * ancestor time (varint64 seconds); 6 file creation time (varint64 seconds); 7 file checksum
 * (bytes); 8 checksum function name ("Unknown" when none); 9 temperature (1 byte); 10/11
 * min/max timestamp; 12 unique id (2 x fixed64); tags with bit 64 set (65 = path id) must be
 * understood: an unknown one is Corruption, others are skipped.
 *
 * Example (the start of every MANIFEST, shale's and RocksDB's alike): `01 1a` + the 26 bytes
 * "leveldb.BytewiseComparator" (Comparator), then `02 00 04 00` (LogNumber 0, LastSequence 0),
 * then `09 00 03 06 04 00` (PrevLogNumber 0, NextFileNumber 6, LastSequence 0).
 *
 * Tag numbers are RocksDB's and part of the file format; do not change them. What shale has
 * that RocksDB does not (the merge operator's name) lives in the OPTIONS file, not here.
 */
import { ByteWriter, Decoder, MAX_SEQ, ShaleError } from "@shale/base";
import {
  type BlobFileAddition,
  type BlobFileGarbage,
  decodeBlobFileAddition,
  decodeBlobFileGarbage,
  encodeBlobFileAddition,
  encodeBlobFileGarbage,
} from "../blob/blob-file-meta.js";

export const EditTag = Object.freeze({
  Comparator: 1,
  LogNumber: 2,
  NextFileNumber: 3,
  LastSequence: 4,
  CompactCursor: 5,
  DeletedFile: 6,
  NewFile: 7,
  PrevLogNumber: 9,
  MinLogNumberToKeep: 10,
  NewFile2: 100,
  NewFile3: 102,
  NewFile4: 103,
  ColumnFamily: 200,
  ColumnFamilyAdd: 201,
  ColumnFamilyDrop: 202,
  MaxColumnFamily: 203,
  InAtomicGroup: 300,
  BlobFileAddition: 400,
  BlobFileGarbage: 401,
  DbId: 8193,
  BlobFileAdditionDeprecated: 8194,
  BlobFileGarbageDeprecated: 8195,
} as const);

/** An unknown tag with this bit set can be skipped (its payload is a varstring). */
export const TAG_SAFE_IGNORE_MASK = 1 << 13;

/** NewFile4's custom field tags (RocksDB's NewFileCustomTag). */
export const FileTag = Object.freeze({
  Terminate: 1,
  NeedCompaction: 2,
  MinLogNumberToKeepHack: 3,
  OldestBlobFileNumber: 4,
  OldestAncesterTime: 5,
  FileCreationTime: 6,
  FileChecksum: 7,
  FileChecksumFuncName: 8,
  Temperature: 9,
  MinTimestamp: 10,
  MaxTimestamp: 11,
  UniqueId: 12,
  /** Fields with this bit set must be understood by a reader. */
  NonSafeIgnoreMask: 1 << 6,
  PathId: 65,
} as const);

/** RocksDB's name for "no file checksum function". */
export const UNKNOWN_CHECKSUM_FUNC = "Unknown";

export const NUM_LEVELS = 7;
/** The most levels a RocksDB MANIFEST may name (a file beyond shale's levels is NotSupported). */
const MAX_ROCKSDB_LEVELS = 64;

/** A table file as the version set knows it. */
export interface FileMetaData {
  readonly number: number;
  readonly size: number;
  /** Smallest / largest internal key (range tombstone bounds included). */
  readonly smallest: Uint8Array;
  readonly largest: Uint8Array;
  readonly smallestSeq: number;
  readonly largestSeq: number;
  // NewFile4 custom fields RocksDB keeps; carried through rewrites of the MANIFEST.
  /** Seconds since the epoch of the oldest data's flush (0 = unknown). Default: 0. */
  readonly oldestAncesterTime?: number;
  /** Seconds since the epoch the file was made (0 = unknown). Default: 0. */
  readonly fileCreationTime?: number;
  readonly fileChecksum?: Uint8Array;
  /** Default: "Unknown" (no checksum). */
  readonly fileChecksumFuncName?: string;
  /** RocksDB's 128-bit unique id (16 bytes), checked by RocksDB against the table's props. */
  readonly uniqueId?: Uint8Array;
  readonly markedForCompaction?: boolean;
  readonly temperature?: number;
  readonly oldestBlobFileNumber?: number;
  readonly minTimestamp?: Uint8Array;
  readonly maxTimestamp?: Uint8Array;
}

export class VersionEdit {
  dbId: string | undefined;
  comparator: string | undefined;
  logNumber: number | undefined;
  prevLogNumber: number | undefined;
  nextFileNumber: number | undefined;
  maxColumnFamily: number | undefined;
  minLogNumberToKeep: number | undefined;
  lastSequence: number | undefined;
  readonly compactCursors: { level: number; key: Uint8Array }[] = [];
  readonly deletedFiles: { level: number; number: number }[] = [];
  readonly newFiles: { level: number; file: FileMetaData }[] = [];
  /** Blob files the edit adds (RocksDB's integrated BlobDB). */
  readonly blobFileAdditions: BlobFileAddition[] = [];
  /** Garbage the edit reports in blob files. */
  readonly blobFileGarbages: BlobFileGarbage[] = [];
  /** The column family the edit is about. Default: 0 (`default`). */
  columnFamily = 0;
  /** Set when the edit creates column family `columnFamily` with this name. */
  columnFamilyAdd: string | undefined;
  columnFamilyDrop = false;
  /** Set for an edit of an atomic group: how many edits of the group follow it. */
  atomicGroupRemaining: number | undefined;

  addFile(level: number, file: FileMetaData): this {
    this.newFiles.push({ level, file });
    return this;
  }

  deleteFile(level: number, number: number): this {
    this.deletedFiles.push({ level, number });
    return this;
  }

  /** True for an edit that adds or drops a column family. */
  get isColumnFamilyManipulation(): boolean {
    return this.columnFamilyAdd !== undefined || this.columnFamilyDrop;
  }

  /** The edit in RocksDB's encoding, fields in the order RocksDB's EncodeTo writes them. */
  encode(): Uint8Array {
    const w = new ByteWriter(64);
    const enc = new TextEncoder();
    if (this.dbId !== undefined) w.varint32(EditTag.DbId).lengthPrefixed(enc.encode(this.dbId));
    if (this.comparator !== undefined)
      w.varint32(EditTag.Comparator).lengthPrefixed(enc.encode(this.comparator));
    if (this.logNumber !== undefined) w.varint32(EditTag.LogNumber).varint64(this.logNumber);
    if (this.prevLogNumber !== undefined)
      w.varint32(EditTag.PrevLogNumber).varint64(this.prevLogNumber);
    if (this.nextFileNumber !== undefined)
      w.varint32(EditTag.NextFileNumber).varint64(this.nextFileNumber);
    if (this.maxColumnFamily !== undefined)
      w.varint32(EditTag.MaxColumnFamily).varint32(this.maxColumnFamily);
    if (this.minLogNumberToKeep !== undefined)
      w.varint32(EditTag.MinLogNumberToKeep).varint64(this.minLogNumberToKeep);
    if (this.lastSequence !== undefined)
      w.varint32(EditTag.LastSequence).varint64(this.lastSequence);
    for (const c of this.compactCursors)
      w.varint32(EditTag.CompactCursor).varint32(c.level).lengthPrefixed(c.key);
    for (const d of this.deletedFiles)
      w.varint32(EditTag.DeletedFile).varint32(d.level).varint64(d.number);
    let minLogWritten = false;
    for (const { level, file } of this.newFiles) {
      w.varint32(EditTag.NewFile4).varint32(level).varint64(file.number).varint64(file.size);
      w.lengthPrefixed(file.smallest).lengthPrefixed(file.largest);
      w.varint64(file.smallestSeq).varint64(file.largestSeq);
      // Custom fields in the order RocksDB 7.8.3's EncodeTo writes them.
      customVarint(w, FileTag.OldestAncesterTime, file.oldestAncesterTime ?? 0);
      customVarint(w, FileTag.FileCreationTime, file.fileCreationTime ?? 0);
      w.varint32(FileTag.FileChecksum).lengthPrefixed(file.fileChecksum ?? EMPTY);
      w.varint32(FileTag.FileChecksumFuncName).lengthPrefixed(
        enc.encode(file.fileChecksumFuncName ?? UNKNOWN_CHECKSUM_FUNC),
      );
      if (file.temperature !== undefined && file.temperature !== 0)
        w.varint32(FileTag.Temperature).varint32(1).byte(file.temperature);
      if (file.markedForCompaction === true) w.varint32(FileTag.NeedCompaction).varint32(1).byte(1);
      if (this.minLogNumberToKeep !== undefined && !minLogWritten) {
        w.varint32(FileTag.MinLogNumberToKeepHack).varint32(8).fixed64(this.minLogNumberToKeep);
        minLogWritten = true;
      }
      if (file.oldestBlobFileNumber !== undefined)
        customVarint(w, FileTag.OldestBlobFileNumber, file.oldestBlobFileNumber);
      if (file.minTimestamp !== undefined)
        w.varint32(FileTag.MinTimestamp).lengthPrefixed(file.minTimestamp);
      if (file.maxTimestamp !== undefined)
        w.varint32(FileTag.MaxTimestamp).lengthPrefixed(file.maxTimestamp);
      if (file.uniqueId !== undefined) w.varint32(FileTag.UniqueId).lengthPrefixed(file.uniqueId);
      w.varint32(FileTag.Terminate);
    }
    for (const a of this.blobFileAdditions) {
      w.varint32(EditTag.BlobFileAddition);
      encodeBlobFileAddition(w, a);
    }
    for (const g of this.blobFileGarbages) {
      w.varint32(EditTag.BlobFileGarbage);
      encodeBlobFileGarbage(w, g);
    }
    if (this.columnFamily !== 0) w.varint32(EditTag.ColumnFamily).varint32(this.columnFamily);
    if (this.columnFamilyAdd !== undefined)
      w.varint32(EditTag.ColumnFamilyAdd).lengthPrefixed(enc.encode(this.columnFamilyAdd));
    if (this.columnFamilyDrop) w.varint32(EditTag.ColumnFamilyDrop);
    if (this.atomicGroupRemaining !== undefined)
      w.varint32(EditTag.InAtomicGroup).varint32(this.atomicGroupRemaining);
    return w.finish().slice();
  }

  /**
   * Decodes one edit. Throws Corruption (with `file` and the offset of the bad field, from
   * `fileOffset`, the record's offset in its file) for damaged or unknown content, and
   * NotSupported for RocksDB features shale does not have (other db paths).
   */
  static decode(data: Uint8Array, file?: string, fileOffset = 0): VersionEdit {
    return decodeEdit(data, file, fileOffset);
  }
}

const EMPTY = new Uint8Array(0);

function customVarint(w: ByteWriter, tag: number, value: number): void {
  const inner = new ByteWriter(10).varint64(value).finish();
  w.varint32(tag).lengthPrefixed(inner);
}

function decodeEdit(data: Uint8Array, file: string | undefined, fileOffset: number): VersionEdit {
  const d = new Decoder(data, 0, data.length, fileOffset, file);
  const text = new TextDecoder("utf-8", { fatal: false });
  const e = new VersionEdit();
  const corrupt = (message: string, at: number): never => {
    throw ShaleError.corruption(`version edit: ${message}`, file, fileOffset + at);
  };
  const level = (): number => {
    const at = d.pos;
    const l = d.readVarint32();
    if (l >= MAX_ROCKSDB_LEVELS) corrupt(`level ${l} out of range`, at);
    if (l >= NUM_LEVELS)
      throw ShaleError.notSupported(
        `${file ?? "MANIFEST"} has a file at level ${l}; shale has ${NUM_LEVELS} levels`,
      );
    return l;
  };
  const internalKey = (): Uint8Array => {
    const at = d.pos;
    const k = d.readLengthPrefixed();
    if (k.length < 8) corrupt("internal key shorter than 8 bytes", at);
    return k.slice();
  };
  while (!d.done) {
    const tagAt = d.pos;
    const tag = d.readVarint32();
    switch (tag) {
      case EditTag.Comparator:
        e.comparator = text.decode(d.readLengthPrefixed());
        break;
      case EditTag.LogNumber:
        e.logNumber = d.readVarint64();
        break;
      case EditTag.PrevLogNumber:
        e.prevLogNumber = d.readVarint64();
        break;
      case EditTag.NextFileNumber:
        e.nextFileNumber = d.readVarint64();
        break;
      case EditTag.LastSequence:
        e.lastSequence = d.readVarint64();
        break;
      case EditTag.MinLogNumberToKeep:
        e.minLogNumberToKeep = d.readVarint64();
        break;
      case EditTag.MaxColumnFamily:
        e.maxColumnFamily = d.readVarint32();
        break;
      case EditTag.CompactCursor: {
        const l = level();
        e.compactCursors.push({ level: l, key: internalKey() });
        break;
      }
      case EditTag.DeletedFile: {
        const l = level();
        e.deletedFiles.push({ level: l, number: d.readVarint64() });
        break;
      }
      case EditTag.NewFile:
      case EditTag.NewFile2:
      case EditTag.NewFile3:
      case EditTag.NewFile4: {
        const l = level();
        const number = d.readVarint64();
        if (tag === EditTag.NewFile3) pathId(d.readVarint32(), file);
        const size = d.readVarint64();
        const smallest = internalKey();
        const largest = internalKey();
        // LevelDB's NewFile has no sequence numbers: assume the widest range, so no read
        // path skips the file on a sequence bound (and L0 orders such files by number).
        const smallestSeq = tag === EditTag.NewFile ? 0 : d.readVarint64();
        const largestSeq = tag === EditTag.NewFile ? MAX_SEQ : d.readVarint64();
        if (smallestSeq > largestSeq) corrupt(`file ${number} has smallestSeq > largestSeq`, tagAt);
        const meta: Mutable<FileMetaData> = {
          number,
          size,
          smallest,
          largest,
          smallestSeq,
          largestSeq,
        };
        if (tag === EditTag.NewFile4) readCustomFields(d, meta, e, file, corrupt, text);
        e.newFiles.push({ level: l, file: meta });
        break;
      }
      case EditTag.ColumnFamily:
        e.columnFamily = d.readVarint32();
        break;
      case EditTag.ColumnFamilyAdd:
        e.columnFamilyAdd = text.decode(d.readLengthPrefixed());
        break;
      case EditTag.ColumnFamilyDrop:
        e.columnFamilyDrop = true;
        break;
      case EditTag.InAtomicGroup:
        e.atomicGroupRemaining = d.readVarint32();
        break;
      case EditTag.BlobFileAddition:
      case EditTag.BlobFileAdditionDeprecated:
        e.blobFileAdditions.push(decodeBlobFileAddition(d));
        break;
      case EditTag.BlobFileGarbage:
      case EditTag.BlobFileGarbageDeprecated:
        e.blobFileGarbages.push(decodeBlobFileGarbage(d));
        break;
      case EditTag.DbId:
        e.dbId = text.decode(d.readLengthPrefixed());
        break;
      default:
        if ((tag & TAG_SAFE_IGNORE_MASK) !== 0) {
          d.readLengthPrefixed();
          break;
        }
        corrupt(`unknown tag ${tag}`, tagAt);
    }
  }
  return e;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function pathId(id: number, file: string | undefined): void {
  if (id !== 0)
    throw ShaleError.notSupported(
      `${file ?? "MANIFEST"} has a table in db path ${id}; shale uses one directory`,
    );
}

function readCustomFields(
  d: Decoder,
  meta: Mutable<FileMetaData>,
  edit: VersionEdit,
  file: string | undefined,
  corrupt: (message: string, at: number) => never,
  text: { decode(bytes: Uint8Array): string },
): void {
  for (;;) {
    const at = d.pos;
    const tag = d.readVarint32();
    if (tag === FileTag.Terminate) return;
    const field = d.readLengthPrefixed();
    const value = new Decoder(field, 0, field.length, d.fileOffset + d.pos - field.length, file);
    switch (tag) {
      case FileTag.NeedCompaction:
        if (field.length !== 1) corrupt("need-compaction field is not one byte", at);
        meta.markedForCompaction = field[0] === 1;
        break;
      case FileTag.MinLogNumberToKeepHack:
        edit.minLogNumberToKeep = value.readFixed64();
        break;
      case FileTag.OldestBlobFileNumber:
        meta.oldestBlobFileNumber = value.readVarint64();
        break;
      case FileTag.OldestAncesterTime:
        meta.oldestAncesterTime = value.readVarint64();
        break;
      case FileTag.FileCreationTime:
        meta.fileCreationTime = value.readVarint64();
        break;
      case FileTag.FileChecksum:
        meta.fileChecksum = field.slice();
        break;
      case FileTag.FileChecksumFuncName:
        meta.fileChecksumFuncName = text.decode(field);
        break;
      case FileTag.Temperature:
        if (field.length !== 1) corrupt("temperature field is not one byte", at);
        meta.temperature = field[0]!;
        break;
      case FileTag.MinTimestamp:
        meta.minTimestamp = field.slice();
        break;
      case FileTag.MaxTimestamp:
        meta.maxTimestamp = field.slice();
        break;
      case FileTag.UniqueId:
        if (field.length !== 16) corrupt(`unique id of ${field.length} bytes, not 16`, at);
        meta.uniqueId = field.slice();
        break;
      case FileTag.PathId:
        if (field.length !== 1) corrupt("path id field is not one byte", at);
        pathId(field[0]!, file);
        break;
      default:
        if ((tag & FileTag.NonSafeIgnoreMask) !== 0)
          corrupt(`new-file4 custom field ${tag} not supported`, at);
    }
  }
}
