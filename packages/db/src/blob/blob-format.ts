/**
 * RocksDB's blob files (integrated BlobDB, `db/blob/blob_log_format.{h,cc}`,
 * `db/blob/blob_index.h`): with `enable_blob_files`, RocksDB's flush and compaction write
 * values of at least `min_blob_size` bytes into `NNNNNN.blob` files and leave in the table a
 * BlobIndex entry (kind 0x11) that points at the value. All integers little-endian; CRCs are
 * masked crc32c (as in the WAL and tables). docs/formats/blob.md has the long form.
 *
 * ```
 * file   := header record* footer
 * header (30 B):  magic fixed32 = 0x00248f37 ‖ version fixed32 = 1 ‖ cf id fixed32
 *                 ‖ flags u8 (bit 0 has_ttl) ‖ compression u8 ‖ expiration range 2 x fixed64
 * record (32 B + key + value):
 *                 key length fixed64 ‖ value length fixed64 ‖ expiration fixed64
 *                 ‖ header CRC fixed32 = masked crc32c(the 24 bytes before it)
 *                 ‖ blob CRC fixed32   = masked crc32c(key ‖ value)
 *                 ‖ key ‖ value (compressed with the header's type, if any)
 * footer (32 B):  magic fixed32 ‖ blob count fixed64 ‖ expiration range 2 x fixed64
 *                 ‖ footer CRC fixed32 = masked crc32c(the 28 bytes before it)
 *
 * blob index (the table entry's value):
 *   type u8 = 1 (blob) ‖ file number varint64 ‖ offset varint64 ‖ size varint64
 *   ‖ compression u8
 *   (type 0 = inlined value with TTL, 2 = blob with TTL: the stacked BlobDB's, NotSupported)
 * ```
 * The index's offset points at the VALUE, not at the record: the record starts
 * `32 + key length` bytes before it. Compressed values use RocksDB's compression format 2
 * (the table blocks' encoding: Snappy raw, others with a varint32 size prefix).
 *
 * Worked example (RocksDB 10.5.1, uncompressed, key "a", value "hello", file 10, cf 0):
 * header `37 8f 24 00 01 00 00 00 00 00 00 00 00 00` + 16 zero bytes; record at 30:
 * `01 00.. (key 1) 05 00.. (value 5) 00.. (expiration)`, header CRC `51 00 6d c1`, blob CRC
 * `ab c4 9c d1`, then `61` and `68 65 6c 6c 6f` (the value at offset 63); footer at 68:
 * `37 8f 24 00`, count `01 00..`, 16 zero bytes, CRC `fb 71 4a e8`. 100 bytes in all; the
 * table holds `01 0a 3f 05 00` (blob, file 10, offset 63, size 5, no compression).
 *
 * Magic numbers and sizes are part of the file format; do not change them.
 */
import {
  ByteWriter,
  Decoder,
  getFixed32,
  getFixed64,
  maskedCrc32c,
  putFixed32,
  putFixed64,
  ShaleError,
} from "@shale/base";

export const BLOB_MAGIC = 0x00248f37;
export const BLOB_VERSION = 1;
export const BLOB_HEADER_SIZE = 30;
export const BLOB_FOOTER_SIZE = 32;
export const BLOB_RECORD_HEADER_SIZE = 32;

/** BlobIndex types (RocksDB's BlobIndex::Type). */
export const BlobIndexType = Object.freeze({
  InlinedTTL: 0,
  Blob: 1,
  BlobTTL: 2,
} as const);

export interface BlobHeader {
  columnFamilyId: number;
  hasTtl: boolean;
  compression: number;
  expirationStart: number;
  expirationEnd: number;
}

export interface BlobFooter {
  blobCount: number;
  expirationStart: number;
  expirationEnd: number;
}

/** A decoded blob index of type Blob: where a value lives. */
export interface BlobRef {
  fileNumber: number;
  offset: number;
  size: number;
  compression: number;
}

const corrupt = (message: string, file: string | undefined, offset: number): ShaleError =>
  ShaleError.corruption(`blob file: ${message}`, file, offset);

export function encodeBlobHeader(h: BlobHeader): Uint8Array {
  const b = new Uint8Array(BLOB_HEADER_SIZE);
  putFixed32(b, 0, BLOB_MAGIC);
  putFixed32(b, 4, BLOB_VERSION);
  putFixed32(b, 8, h.columnFamilyId);
  b[12] = h.hasTtl ? 1 : 0;
  b[13] = h.compression;
  putFixed64(b, 14, h.expirationStart);
  putFixed64(b, 22, h.expirationEnd);
  return b;
}

/** Decodes the 30-byte header at offset 0 of `file`. Corruption for a bad magic or version. */
export function decodeBlobHeader(b: Uint8Array, file?: string): BlobHeader {
  if (b.length !== BLOB_HEADER_SIZE) throw corrupt("short header", file, 0);
  if (getFixed32(b, 0) !== BLOB_MAGIC) throw corrupt("header magic number mismatch", file, 0);
  if (getFixed32(b, 4) !== BLOB_VERSION)
    throw corrupt(`unknown header version ${getFixed32(b, 4)}`, file, 4);
  return {
    columnFamilyId: getFixed32(b, 8),
    hasTtl: (b[12]! & 1) === 1,
    compression: b[13]!,
    expirationStart: getFixed64(b, 14),
    expirationEnd: getFixed64(b, 22),
  };
}

export function encodeBlobFooter(f: BlobFooter): Uint8Array {
  const b = new Uint8Array(BLOB_FOOTER_SIZE);
  putFixed32(b, 0, BLOB_MAGIC);
  putFixed64(b, 4, f.blobCount);
  putFixed64(b, 12, f.expirationStart);
  putFixed64(b, 20, f.expirationEnd);
  putFixed32(b, 28, maskedCrc32c(b, 0, 28));
  return b;
}

/** Decodes the 32-byte footer found at `offset` of `file`: magic and CRC checked. */
export function decodeBlobFooter(
  b: Uint8Array,
  file: string | undefined,
  offset: number,
): BlobFooter {
  if (b.length !== BLOB_FOOTER_SIZE) throw corrupt("short footer", file, offset);
  if (getFixed32(b, 0) !== BLOB_MAGIC) throw corrupt("footer magic number mismatch", file, offset);
  if (maskedCrc32c(b, 0, 28) !== getFixed32(b, 28))
    throw corrupt("footer CRC mismatch", file, offset + 28);
  return {
    blobCount: getFixed64(b, 4),
    expirationStart: getFixed64(b, 12),
    expirationEnd: getFixed64(b, 20),
  };
}

/** One whole record (header, key, value) as RocksDB's BlobLogWriter appends it. */
export function encodeBlobRecord(key: Uint8Array, value: Uint8Array, expiration = 0): Uint8Array {
  const b = new Uint8Array(BLOB_RECORD_HEADER_SIZE + key.length + value.length);
  putFixed64(b, 0, key.length);
  putFixed64(b, 8, value.length);
  putFixed64(b, 16, expiration);
  putFixed32(b, 24, maskedCrc32c(b, 0, 24));
  b.set(key, BLOB_RECORD_HEADER_SIZE);
  b.set(value, BLOB_RECORD_HEADER_SIZE + key.length);
  putFixed32(b, 28, maskedCrc32c(b, BLOB_RECORD_HEADER_SIZE, b.length));
  return b;
}

/**
 * Checks a whole record read at `recordOffset` of `file` against the key and value size the
 * blob index expects (RocksDB's VerifyBlob): header CRC, key and value lengths, the key
 * itself, blob CRC. Corruption naming the file and the offset of what is wrong.
 */
export function verifyBlobRecord(
  record: Uint8Array,
  userKey: Uint8Array,
  valueSize: number,
  file: string | undefined,
  recordOffset: number,
): void {
  if (maskedCrc32c(record, 0, 24) !== getFixed32(record, 24))
    throw corrupt("blob record header CRC mismatch", file, recordOffset);
  if (getFixed64(record, 0) !== userKey.length)
    throw corrupt("key size mismatch when reading blob", file, recordOffset);
  if (getFixed64(record, 8) !== valueSize)
    throw corrupt("value size mismatch when reading blob", file, recordOffset + 8);
  for (let i = 0; i < userKey.length; i++) {
    if (record[BLOB_RECORD_HEADER_SIZE + i] !== userKey[i])
      throw corrupt("key mismatch when reading blob", file, recordOffset + BLOB_RECORD_HEADER_SIZE);
  }
  if (maskedCrc32c(record, BLOB_RECORD_HEADER_SIZE, record.length) !== getFixed32(record, 28))
    throw corrupt("blob CRC mismatch", file, recordOffset);
}

/** The blob index of a value stored in blob file `ref.fileNumber` (type Blob, no TTL). */
export function encodeBlobIndex(ref: BlobRef): Uint8Array {
  return new ByteWriter(32)
    .byte(BlobIndexType.Blob)
    .varint64(ref.fileNumber)
    .varint64(ref.offset)
    .varint64(ref.size)
    .byte(ref.compression)
    .finish()
    .slice();
}

/**
 * Decodes a blob index (the value of a BlobIndex entry). Corruption for a malformed one,
 * NotSupported for the TTL types (RocksDB's stacked BlobDB, which integrated BlobDB never
 * writes). `file`/`offset` name where the entry was read, when known.
 */
export function decodeBlobIndex(value: Uint8Array, file?: string, offset = 0): BlobRef {
  if (value.length === 0) throw ShaleError.corruption("empty blob index", file, offset);
  const type = value[0]!;
  if (type === BlobIndexType.InlinedTTL || type === BlobIndexType.BlobTTL)
    throw ShaleError.notSupported(
      `blob index with TTL (type ${type}, RocksDB's stacked BlobDB)${file === undefined ? "" : ` in ${file}`}`,
    );
  if (type !== BlobIndexType.Blob)
    throw ShaleError.corruption(`unknown blob index type ${type}`, file, offset);
  const d = new Decoder(value, 1, value.length, offset, file);
  try {
    const fileNumber = d.readVarint64();
    const blobOffset = d.readVarint64();
    const size = d.readVarint64();
    if (d.limit - d.pos !== 1) throw new Error("trailing bytes");
    const compression = value[d.pos]!;
    return { fileNumber, offset: blobOffset, size, compression };
  } catch {
    throw ShaleError.corruption("corrupted blob index", file, offset);
  }
}

/** RocksDB's IsValidBlobOffset: the value lies between the first record header and the footer. */
export function isValidBlobOffset(
  valueOffset: number,
  keySize: number,
  valueSize: number,
  fileSize: number,
): boolean {
  const minPrefix = BLOB_HEADER_SIZE + BLOB_RECORD_HEADER_SIZE;
  if (valueOffset < minPrefix || valueOffset - minPrefix < keySize) return false;
  if (fileSize < BLOB_FOOTER_SIZE) return false;
  const maxValueEnd = fileSize - BLOB_FOOTER_SIZE;
  return valueSize <= maxValueEnd && valueOffset <= maxValueEnd - valueSize;
}
