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
 * The global seqno a reader applies (RocksDB's GetGlobalSequenceNumber, `globalSeqnoOf`):
 * the property when it is not 0; else, when the database knows the file's largest sequence
 * number (the MANIFEST's, `FileMetaData.largestSeq`), that number. RocksDB's ingestion with
 * `write_global_seqno` (`ldb ingest_extern_sst`'s default) rewrites the property in place and
 * leaves the properties block's checksum as it was, computed over 0: the checksum is then
 * checked with those 8 bytes zeroed (table/table-open.ts `readPropertiesBlock`). Without
 * `write_global_seqno` (RocksDB's IngestExternalFileOptions default, and shale's) the
 * property stays 0 and the MANIFEST's largest sequence number is the global seqno. A table
 * with a global seqno presents every entry and range deletion at it
 * (table/global-seqno-iterator.ts). Worked example: a file ingested over newer data at
 * sequence 8 holds `k1#0,SET`; its MANIFEST entry says largest seqno 8; a reader shows
 * `k1#8,SET`, hidden from a snapshot at 7.
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

/**
 * The global sequence number of a table (RocksDB's GetGlobalSequenceNumber): 0 when it has
 * none (not an external file, a version 1 file, or an external file kept at 0), else the
 * number that stands for each entry's. `largestSeqno`: the file's largest sequence number
 * as the database's MANIFEST records it; undefined when unknown (a table opened alone), and
 * then only the property counts. Corruption (naming `fileName`) for a global seqno property
 * on a table that is not an external file or is version 1, a version 0, and a property that
 * disagrees with a known largest sequence number.
 */
export function globalSeqnoOf(
  properties: Pick<TableProperties, "user" | "externalFile">,
  largestSeqno: number | undefined,
  fileName: string | undefined,
): number {
  const hasSeqno = properties.user[ExternalSstFilePropertyName.GLOBAL_SEQNO] !== undefined;
  const external = properties.externalFile;
  if (external === undefined) {
    if (hasSeqno) {
      throw ShaleError.corruption(
        "a table that is not an external file has a global seqno property",
        fileName,
      );
    }
    return 0;
  }
  if (external.version < 2) {
    if (hasSeqno || external.version !== 1) {
      throw ShaleError.corruption(
        `an external file of version ${external.version} has a global seqno property`,
        fileName,
      );
    }
    return 0;
  }
  let seqno = external.globalSeqno;
  if (largestSeqno !== undefined) {
    if (seqno === 0) seqno = largestSeqno;
    if (seqno !== largestSeqno) {
      throw ShaleError.corruption(
        `an external file has global seqno ${external.globalSeqno}, while its largest ` +
          `sequence number is ${largestSeqno}`,
        fileName,
      );
    }
  }
  return seqno;
}
