/**
 * External SST files' properties (RocksDB's `ExternalSstFilePropertyNames`, written by its
 * SstFileWriterPropertiesCollector and by shale's SstFileWriter, table/sst-file-writer.ts):
 * two user-collected properties in the properties block (properties.ts). Part of the file
 * format; do not change.
 * ```
 * rocksdb.external_sst_file.version       fixed32 little-endian: 2      02 00 00 00
 * rocksdb.external_sst_file.global_seqno  fixed64 little-endian: 0      00 x 8
 * ```
 * Version 1 files (RocksDB before 5.x) had no global_seqno. A table with the version property
 * is an external file; its entries all carry sequence number 0, and the global seqno, when
 * not 0, stands for each one's.
 *
 * Not read yet: RocksDB's ingestion with `write_global_seqno` (7.8.3's default) rewrites the
 * global_seqno value in place and leaves the properties block's checksum as it was (computed
 * over a global seqno of 0), so opening such a file in a RocksDB database is Corruption
 * ("block checksum mismatch" at the properties block) here. Reading it needs that checksum
 * checked with the value zeroed, as RocksDB does, and the global seqno applied to every entry.
 */
import { getFixed32, getFixed64, ShaleError } from "@shale/base";
import { PropertyName, type TableProperties } from "./properties.js";

/** RocksDB's external-file property names. Part of the file format; do not change. */
export const ExternalSstFilePropertyName = {
  /** fixed32: the external file version (2). */
  VERSION: PropertyName.EXTERNAL_SST_FILE_VERSION,
  /** fixed64: the global sequence number (0 as written). */
  GLOBAL_SEQNO: PropertyName.EXTERNAL_SST_FILE_GLOBAL_SEQNO,
} as const;

/** The external-file version SstFileWriter records (RocksDB's writes 2). */
export const EXTERNAL_SST_FILE_VERSION = 2;

function propertyBytes(value: string, name: string): Uint8Array {
  // Property values are kept as UTF-8 strings (properties.ts): bytes that are UTF-8 come back
  // exactly; bytes that are not were replaced by U+FFFD when the table was opened and are lost.
  if (value.includes("\uFFFD")) {
    throw ShaleError.notSupported(
      `property ${name} holds bytes that are not UTF-8, which table properties do not keep`,
    );
  }
  return new TextEncoder().encode(value);
}

/**
 * The external-file properties of a table: `undefined` for a table that is not an external
 * file, else its version and global sequence number (0 for version 1 files, which had none).
 * From `properties.externalFile` when the table was opened (`TableReader`'s `properties`,
 * read from the bytes); otherwise (properties a builder returned, or made by hand) from the
 * `user` strings, where a value of the wrong width is Corruption and bytes that are not UTF-8
 * (lost when kept as a string) are NotSupported.
 */
export function externalFileInfo(
  properties: Pick<TableProperties, "user" | "externalFile">,
): { version: number; globalSeqno: number } | undefined {
  if (properties.externalFile !== undefined) return { ...properties.externalFile };
  const user = properties.user;
  const version = user[ExternalSstFilePropertyName.VERSION];
  if (version === undefined) return undefined;
  const versionBytes = propertyBytes(version, ExternalSstFilePropertyName.VERSION);
  if (versionBytes.length !== 4) {
    throw ShaleError.corruption(
      `${ExternalSstFilePropertyName.VERSION} is ${versionBytes.length} bytes, not 4`,
    );
  }
  const seqno = user[ExternalSstFilePropertyName.GLOBAL_SEQNO];
  let globalSeqno = 0;
  if (seqno !== undefined) {
    const seqnoBytes = propertyBytes(seqno, ExternalSstFilePropertyName.GLOBAL_SEQNO);
    if (seqnoBytes.length !== 8) {
      throw ShaleError.corruption(
        `${ExternalSstFilePropertyName.GLOBAL_SEQNO} is ${seqnoBytes.length} bytes, not 8`,
      );
    }
    globalSeqno = getFixed64(seqnoBytes, 0);
  }
  return { version: getFixed32(versionBytes, 0), globalSeqno };
}
