/**
 * VersionEdit: one MANIFEST record — the change from one version of the database's file
 * set to the next. The MANIFEST is a log (the `@shale/wal` format, one edit per record) that
 * starts with a full snapshot edit; replaying it rebuilds the levels.
 *
 * ```
 * edit  := field*
 * field := varint32 tag ‖ payload
 *   1  Comparator        varstring name
 *   2  LogNumber         varint64   (WALs below this number are obsolete)
 *   3  NextFileNumber    varint64
 *   4  LastSequence      varint64
 *   6  DeletedFile       varint32 level ‖ varint64 file number
 *  20  MergeOperator     varstring name ("" = none)
 * 100  NewFile           varint32 level ‖ varint64 number ‖ varint64 size
 *                        ‖ varstring smallest ‖ varstring largest   (internal keys)
 *                        ‖ varint64 smallestSeq ‖ varint64 largestSeq
 * >= 8192 (ignorable)    varstring payload, skipped by readers that do not know the tag
 * ```
 * Tag numbers are part of the file format; do not change them. RocksDB's tags 1-6 keep
 * their meaning; 20 and 100 are shale's own.
 */
import { ByteWriter, Decoder, ShaleError } from "@shale/base";

export const EditTag = Object.freeze({
  Comparator: 1,
  LogNumber: 2,
  NextFileNumber: 3,
  LastSequence: 4,
  DeletedFile: 6,
  MergeOperator: 20,
  NewFile: 100,
} as const);

/** Tags at or above this are safe to ignore when unknown. */
export const IGNORABLE_TAG_MIN = 8192;

export const NUM_LEVELS = 7;

/** A table file as the version set knows it. */
export interface FileMetaData {
  readonly number: number;
  readonly size: number;
  /** Smallest / largest internal key (range tombstone bounds included). */
  readonly smallest: Uint8Array;
  readonly largest: Uint8Array;
  readonly smallestSeq: number;
  readonly largestSeq: number;
}

export class VersionEdit {
  comparator: string | undefined;
  mergeOperator: string | undefined;
  logNumber: number | undefined;
  nextFileNumber: number | undefined;
  lastSequence: number | undefined;
  readonly deletedFiles: { level: number; number: number }[] = [];
  readonly newFiles: { level: number; file: FileMetaData }[] = [];

  addFile(level: number, file: FileMetaData): this {
    this.newFiles.push({ level, file });
    return this;
  }

  deleteFile(level: number, number: number): this {
    this.deletedFiles.push({ level, number });
    return this;
  }

  encode(): Uint8Array {
    const w = new ByteWriter(64);
    const enc = new TextEncoder();
    if (this.comparator !== undefined)
      w.varint32(EditTag.Comparator).lengthPrefixed(enc.encode(this.comparator));
    if (this.mergeOperator !== undefined)
      w.varint32(EditTag.MergeOperator).lengthPrefixed(enc.encode(this.mergeOperator));
    if (this.logNumber !== undefined) w.varint32(EditTag.LogNumber).varint64(this.logNumber);
    if (this.nextFileNumber !== undefined)
      w.varint32(EditTag.NextFileNumber).varint64(this.nextFileNumber);
    if (this.lastSequence !== undefined)
      w.varint32(EditTag.LastSequence).varint64(this.lastSequence);
    for (const d of this.deletedFiles)
      w.varint32(EditTag.DeletedFile).varint32(d.level).varint64(d.number);
    for (const { level, file } of this.newFiles) {
      w.varint32(EditTag.NewFile).varint32(level).varint64(file.number).varint64(file.size);
      w.lengthPrefixed(file.smallest).lengthPrefixed(file.largest);
      w.varint64(file.smallestSeq).varint64(file.largestSeq);
    }
    return w.finish().slice();
  }

  static decode(data: Uint8Array, file?: string, fileOffset = 0): VersionEdit {
    const d = new Decoder(data, 0, data.length, fileOffset, file);
    const dec = new TextDecoder();
    const e = new VersionEdit();
    const checkLevel = (level: number): number => {
      if (level >= NUM_LEVELS)
        throw ShaleError.corruption(`version edit names level ${level}`, file, fileOffset + d.pos);
      return level;
    };
    while (!d.done) {
      const tag = d.readVarint32();
      switch (tag) {
        case EditTag.Comparator:
          e.comparator = dec.decode(d.readLengthPrefixed());
          break;
        case EditTag.MergeOperator:
          e.mergeOperator = dec.decode(d.readLengthPrefixed());
          break;
        case EditTag.LogNumber:
          e.logNumber = d.readVarint64();
          break;
        case EditTag.NextFileNumber:
          e.nextFileNumber = d.readVarint64();
          break;
        case EditTag.LastSequence:
          e.lastSequence = d.readVarint64();
          break;
        case EditTag.DeletedFile: {
          const level = checkLevel(d.readVarint32());
          e.deletedFiles.push({ level, number: d.readVarint64() });
          break;
        }
        case EditTag.NewFile: {
          const level = checkLevel(d.readVarint32());
          const number = d.readVarint64();
          const size = d.readVarint64();
          const smallest = d.readLengthPrefixed().slice();
          const largest = d.readLengthPrefixed().slice();
          const smallestSeq = d.readVarint64();
          const largestSeq = d.readVarint64();
          e.newFiles.push({
            level,
            file: { number, size, smallest, largest, smallestSeq, largestSeq },
          });
          break;
        }
        default:
          if (tag >= IGNORABLE_TAG_MIN) {
            d.readLengthPrefixed();
            break;
          }
          throw ShaleError.corruption(`unknown version edit tag ${tag}`, file, fileOffset + d.pos);
      }
    }
    return e;
  }
}
