/**
 * Reads values out of one RocksDB blob file (RocksDB's BlobFileReader). The layout, drawn in
 * full in blob-format.ts and docs/formats/blob.md:
 *
 * ```
 * +-------------+---------------------------------------------+-------------+
 * | header 30 B | record: 32 B header ‖ key ‖ value  ...       | footer 32 B |
 * +-------------+---------------------------------------------+-------------+
 *   magic, version 1, cf id,     key len, value len, expiration,   magic, count,
 *   flags, compression,          header CRC, blob CRC               expiration, CRC
 *   expiration range
 * ```
 *
 * Opening checks the header (magic, version, no TTL, the expected column family) and the
 * footer (magic, CRC; a file without a whole footer was never finished and is Corruption, as
 * in RocksDB). `getBlob` reads the whole record of a blob index — header and key too — and
 * checks both CRCs, the sizes and the key before it decompresses the value with the table
 * codecs (`@shale/sstable`'s decompressBlock: compression format 2). Every damage is
 * Corruption naming the blob file and the offset.
 *
 * Thread safety: none needed (synchronous reads of an immutable file).
 */
import { baseName, type FileSystem, type RandomAccessFile, ShaleError } from "@shale/base";
import { decompressBlock } from "@shale/sstable";
import {
  BLOB_FOOTER_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_RECORD_HEADER_SIZE,
  type BlobRef,
  decodeBlobFooter,
  decodeBlobHeader,
  isValidBlobOffset,
  verifyBlobRecord,
} from "./blob-format.js";

export class BlobFileReader {
  readonly fileNumber: number;
  /** The file's name (`NNNNNN.blob`), as errors report it. */
  readonly name: string;
  readonly fileSize: number;
  /** The compression type of every value in the file (the header's). */
  readonly compression: number;
  readonly blobCount: number;
  private readonly file: RandomAccessFile;

  private constructor(
    file: RandomAccessFile,
    fileNumber: number,
    name: string,
    fileSize: number,
    compression: number,
    blobCount: number,
  ) {
    this.file = file;
    this.fileNumber = fileNumber;
    this.name = name;
    this.fileSize = fileSize;
    this.compression = compression;
    this.blobCount = blobCount;
  }

  /**
   * Opens blob file `path` (number `fileNumber`) of column family `columnFamilyId`. A missing
   * file is Corruption naming it (the MANIFEST says it is live); a damaged header or footer is
   * Corruption with its offset.
   */
  static open(
    fs: FileSystem,
    path: string,
    fileNumber: number,
    columnFamilyId: number,
  ): BlobFileReader {
    const name = baseName(path);
    if (!fs.exists(path))
      throw ShaleError.corruption(`blob file ${name} is missing (the MANIFEST lists it)`, name, 0);
    const file = fs.openRandomAccess(path);
    try {
      const size = fs.fileSize(path);
      if (size < BLOB_HEADER_SIZE + BLOB_FOOTER_SIZE)
        throw ShaleError.corruption(`malformed blob file (${size} bytes)`, name, 0);
      const header = decodeBlobHeader(readExactly(file, 0, BLOB_HEADER_SIZE, name), name);
      if (header.hasTtl || header.expirationStart !== 0 || header.expirationEnd !== 0)
        throw ShaleError.corruption("unexpected TTL blob file", name, 12);
      if (header.columnFamilyId !== columnFamilyId)
        throw ShaleError.corruption(
          `blob file of column family ${header.columnFamilyId}, expected ${columnFamilyId}`,
          name,
          8,
        );
      const at = size - BLOB_FOOTER_SIZE;
      const footer = decodeBlobFooter(readExactly(file, at, BLOB_FOOTER_SIZE, name), name, at);
      if (footer.expirationStart !== 0 || footer.expirationEnd !== 0)
        throw ShaleError.corruption("unexpected TTL blob file", name, at + 12);
      return new BlobFileReader(file, fileNumber, name, size, header.compression, footer.blobCount);
    } catch (e) {
      file.close();
      throw e;
    }
  }

  /**
   * The value `ref` points at, for `userKey` (the key the blob was written under). A fresh
   * array the caller owns. Corruption (file, offset) for an offset outside the file, a
   * compression type other than the file's, a damaged record or an undecodable value.
   */
  getBlob(userKey: Uint8Array, ref: BlobRef): Uint8Array {
    const name = this.name;
    if (!isValidBlobOffset(ref.offset, userKey.length, ref.size, this.fileSize))
      throw ShaleError.corruption(
        `invalid blob offset ${ref.offset} (size ${ref.size}) in a ${this.fileSize}-byte blob file`,
        name,
        ref.offset,
      );
    if (ref.compression !== this.compression)
      throw ShaleError.corruption(
        `compression type mismatch when reading blob (index ${ref.compression}, file ${this.compression})`,
        name,
        ref.offset,
      );
    const adjustment = BLOB_RECORD_HEADER_SIZE + userKey.length;
    const recordOffset = ref.offset - adjustment;
    const record = readExactly(this.file, recordOffset, adjustment + ref.size, name);
    verifyBlobRecord(record, userKey, ref.size, name, recordOffset);
    const value = record.subarray(adjustment);
    if (this.compression === 0) return value;
    return decompressBlock(value, this.compression, name, ref.offset);
  }

  close(): void {
    this.file.close();
  }
}

function readExactly(
  file: RandomAccessFile,
  offset: number,
  length: number,
  name: string,
): Uint8Array {
  const buf = new Uint8Array(length);
  const n = file.read(offset, length, buf, 0);
  if (n !== length)
    throw ShaleError.corruption(`failed to read ${length} bytes from blob file`, name, offset);
  return buf;
}
