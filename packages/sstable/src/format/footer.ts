/**
 * The footer: the last 53 bytes of a block-based table (RocksDB's `Footer` and
 * `FooterBuilder`, table/format.cc). It says how to find the metaindex (and, before format
 * version 6, the index) and how every block is checksummed.
 *
 * Format versions 1-5 (`formatVersion` and magic as in 6-7 below):
 * ```
 * offset  size
 *   0       1   u8 checksumType (0 none, 1 CRC32c, 2 xxHash, 3 xxHash64, 4 XXH3)
 *   1      40   metaindex handle ‖ index handle (varint64 pairs), zero-padded to 40 bytes
 *  41       4   fixed32 LE formatVersion
 *  45       8   fixed64 LE magic 0x88e241b785f4cff7: bytes f7 cf f4 85 b7 41 e2 88
 * ```
 * No checksum of its own: the reader checks the magic, the version, the checksum type, the
 * handles and that the padding is zero; every block a handle points at is checksummed.
 *
 * Format versions 6 and 7 (the same 53 bytes; the extended part replaces the handles):
 * ```
 * offset  size
 *   0       1   u8 checksumType
 *   1       4   extended magic 3e 00 7a 00 (read as handles by an older reader: size 0)
 *   5       4   fixed32 LE footer checksum: the checksum (by checksumType, as
 *               `blockChecksum`) of all 53 footer bytes with these 4 set to zero, plus
 *               modifier(baseContextChecksum, footer offset), mod 2^32
 *   9       4   fixed32 LE baseContextChecksum: random, non-zero (format.ts)
 *  13       4   fixed32 LE metaindex size; the metaindex ends right before the footer:
 *               offset = footer offset - 5 - size
 *  17      16   zero (reserved, not checked: covered by the footer checksum)
 *  33       8   zero (reserved for an incompatible future feature: NotSupported if not)
 *  41       4   fixed32 LE formatVersion (6 or 7)
 *  45       8   fixed64 LE magic 0x88e241b785f4cff7
 * ```
 * The index handle is the metaindex entry `rocksdb.index` (`resolveIndexHandle`).
 *
 * Worked examples, from tables RocksDB wrote (footer.test.ts checks them):
 * - format 5 (RocksDB 7.8.3, CRC32C, testdata/rocksdb-fv5-crc32c-3keys.sst): metaindex at
 *   1173 size 80, index at 269 size 22:
 *   `01 | 95 09 50 | 8d 02 16 | 00 x 34 | 05 00 00 00 | f7 cf f4 85 b7 41 e2 88`.
 * - format 6 (RocksDB 10.5.1, XXH3, testdata/rocksdb-tables/fv6-xxh3.sst, footer at 4506):
 *   `04 | 3e 00 7a 00 | f0 35 85 94 | 9a 51 3c 74 | 68 00 00 00 | 00 x 24 | 06 00 00 00 |
 *   f7 cf f4 85 b7 41 e2 88`: footer checksum 0x948535f0 = XXH3 of the footer with those four
 *   bytes zeroed + (0x743c519a ^ 4506); base 0x743c519a; metaindex size 104, so the metaindex
 *   is at 4506 - 5 - 104 = 4397. fv7-xxh3.sst differs in its checksum, base and version 7.
 *
 * Format version 0 used LevelDB's 48-byte footer (two padded handles and the legacy magic
 * 0xdb4775248b80fb57): it is recognised and refused as NotSupported, as is version 1 (a
 * RocksDB version shale does not read). Any other version outside 2-7 is no version shale
 * knows, a damaged footer: Corruption, as RocksDB's "Corrupt or unsupported format_version".
 */
import { blockChecksum, getFixed32, putFixed32, ShaleError } from "@shale/base";
import {
  type BlockHandle,
  type ChecksumType,
  contextChecksumModifier,
  decodeBlockHandleInto,
  FormatVersion,
  isChecksumType,
  MetaBlockName,
  notSupportedAt,
  putBlockHandle,
  TableFormat,
  usesContextChecksum,
} from "./format.js";

/** Offsets inside a format-6+ footer. Part of the file format; do not change. */
export const ExtendedFooter = {
  /** The 4-byte extended magic 3e 00 7a 00, as a fixed32 LE. */
  EXTENDED_MAGIC: 0x007a003e,
  MAGIC_OFFSET: 1,
  CHECKSUM_OFFSET: 5,
  BASE_CONTEXT_OFFSET: 9,
  METAINDEX_SIZE_OFFSET: 13,
  /** The 8 reserved bytes that must be zero. */
  CHECKED_RESERVED_OFFSET: 33,
} as const;

/** The decoded footer. */
export interface Footer {
  checksumType: ChecksumType;
  metaindexHandle: BlockHandle;
  /**
   * The index block. Format version >= 6: from the metaindex (`resolveIndexHandle`, at
   * open); until then { offset: 0, size: 0 }.
   */
  indexHandle: BlockHandle;
  formatVersion: number;
  /** The base of the context checksums (format version >= 6; 0 before). */
  baseContextChecksum: number;
}

/**
 * Encodes the footer (a fresh `FOOTER_SIZE`-byte array) that will be written at
 * `footerOffset`. Format versions 6+ need a non-zero `baseContextChecksum` and a metaindex
 * that ends right before the footer, and ignore `indexHandle` (it goes in the metaindex).
 */
export function encodeFooter(footer: Footer, footerOffset: number): Uint8Array {
  const out = new Uint8Array(TableFormat.FOOTER_SIZE);
  out[0] = footer.checksumType;
  putFixed32(out, TableFormat.FOOTER_VERSION_OFFSET, footer.formatVersion);
  putFixed32(out, TableFormat.FOOTER_MAGIC_OFFSET, TableFormat.MAGIC_LO);
  putFixed32(out, TableFormat.FOOTER_MAGIC_OFFSET + 4, TableFormat.MAGIC_HI);
  if (!usesContextChecksum(footer.formatVersion)) {
    const pos = putBlockHandle(out, 1, footer.metaindexHandle);
    putBlockHandle(out, pos, footer.indexHandle);
    return out;
  }
  const base = footer.baseContextChecksum;
  const meta = footer.metaindexHandle;
  if (base === 0 || base !== base >>> 0) {
    throw ShaleError.invalidArgument(`bad base context checksum ${base} (non-zero uint32)`);
  }
  if (meta.offset + meta.size + TableFormat.BLOCK_TRAILER_SIZE !== footerOffset) {
    throw ShaleError.invalidArgument("the metaindex must end right before the footer");
  }
  putFixed32(out, ExtendedFooter.MAGIC_OFFSET, ExtendedFooter.EXTENDED_MAGIC);
  putFixed32(out, ExtendedFooter.BASE_CONTEXT_OFFSET, base);
  putFixed32(out, ExtendedFooter.METAINDEX_SIZE_OFFSET, meta.size);
  const checksum = blockChecksum(footer.checksumType, out, 0, TableFormat.FOOTER_SIZE);
  putFixed32(
    out,
    ExtendedFooter.CHECKSUM_OFFSET,
    (checksum + contextChecksumModifier(base, footerOffset)) >>> 0,
  );
  return out;
}

/**
 * Decodes and checks the last `FOOTER_SIZE` bytes of a table, read from `fileOffset`.
 * Corruption naming the file and the footer offset for a bad magic number, a malformed
 * footer (bad handles, non-zero padding, handles whose last block does not end at the
 * footer; from version 6 a bad extended magic, a zero base context checksum, a footer
 * checksum mismatch or a metaindex reaching before the file; a format version that is none
 * of RocksDB's 0-7); NotSupported (naming them too) for format version 0 (the legacy magic)
 * or 1, an unknown checksum type or non-zero reserved bytes of a version-6 footer (a future
 * feature).
 */
export function decodeFooter(
  src: Uint8Array,
  file: string | undefined,
  fileOffset: number,
): Footer {
  const fail = (what: string): never => {
    throw ShaleError.corruption(`bad table footer: ${what}`, file, fileOffset);
  };
  const unsupported = (what: string): never => {
    throw notSupportedAt(what, file, fileOffset);
  };
  if (src.length !== TableFormat.FOOTER_SIZE)
    fail(`expected ${TableFormat.FOOTER_SIZE} bytes, got ${src.length}`);
  const m = TableFormat.FOOTER_MAGIC_OFFSET;
  const lo = getFixed32(src, m);
  const hi = getFixed32(src, m + 4);
  if (lo === TableFormat.LEGACY_MAGIC_LO && hi === TableFormat.LEGACY_MAGIC_HI) {
    unsupported("table format_version 0 (legacy block-based footer) is not supported");
  }
  if (lo !== TableFormat.MAGIC_LO || hi !== TableFormat.MAGIC_HI) {
    const magic = hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
    fail(`bad magic number 0x${magic} (not a block-based table)`);
  }
  const formatVersion = getFixed32(src, TableFormat.FOOTER_VERSION_OFFSET);
  if (formatVersion > FormatVersion.LATEST || formatVersion === 0) {
    fail(`corrupt or unknown format_version ${formatVersion}`);
  }
  if (formatVersion < FormatVersion.MIN_READ) {
    unsupported(
      `table format_version ${formatVersion} is not supported (read: ` +
        `${FormatVersion.MIN_READ}-${FormatVersion.LATEST})`,
    );
  }
  const checksumType = src[0]!;
  if (!isChecksumType(checksumType)) unsupported(`unknown table checksum type ${checksumType}`);
  if (usesContextChecksum(formatVersion)) {
    const type = checksumType as ChecksumType;
    return decodeExtendedFooter(src, type, formatVersion, fail, unsupported, fileOffset);
  }
  const cursor = new Int32Array(1);
  const handlesEnd = 1 + TableFormat.FOOTER_HANDLES_SIZE;
  const metaindexHandle: BlockHandle = { offset: 0, size: 0 };
  const indexHandle: BlockHandle = { offset: 0, size: 0 };
  let pos = decodeBlockHandleInto(src, 1, handlesEnd, metaindexHandle, cursor, file, fileOffset);
  pos = decodeBlockHandleInto(src, pos, handlesEnd, indexHandle, cursor, file, fileOffset);
  for (; pos < handlesEnd; pos++) if (src[pos] !== 0) fail("non-zero padding");
  // The metaindex or the index (RocksDB writes the index first, LevelDB the metaindex) is
  // the last block before the footer; neither reaches past it.
  const trailer = TableFormat.BLOCK_TRAILER_SIZE;
  const metaEnd = metaindexHandle.offset + metaindexHandle.size + trailer;
  const indexEnd = indexHandle.offset + indexHandle.size + trailer;
  if (metaEnd > fileOffset || indexEnd > fileOffset || Math.max(metaEnd, indexEnd) !== fileOffset) {
    fail(
      `metaindex [${metaindexHandle.offset}, ${metaEnd}) and index [${indexHandle.offset}, ` +
        `${indexEnd}) do not end at the footer`,
    );
  }
  return {
    checksumType: checksumType as ChecksumType,
    metaindexHandle,
    indexHandle,
    formatVersion,
    baseContextChecksum: 0,
  };
}

/** The extended part of a format-6+ footer (RocksDB's checks, in its order). */
function decodeExtendedFooter(
  src: Uint8Array,
  checksumType: ChecksumType,
  formatVersion: number,
  fail: (what: string) => never,
  unsupported: (what: string) => never,
  fileOffset: number,
): Footer {
  const magic = getFixed32(src, ExtendedFooter.MAGIC_OFFSET);
  if (magic !== ExtendedFooter.EXTENDED_MAGIC) {
    fail(`bad extended magic number 0x${magic.toString(16).padStart(8, "0")}`);
  }
  const stored = getFixed32(src, ExtendedFooter.CHECKSUM_OFFSET);
  const base = getFixed32(src, ExtendedFooter.BASE_CONTEXT_OFFSET);
  if (base === 0) fail("invalid base context checksum 0");
  const copy = src.slice();
  putFixed32(copy, ExtendedFooter.CHECKSUM_OFFSET, 0);
  const computed =
    (blockChecksum(checksumType, copy, 0, TableFormat.FOOTER_SIZE) +
      contextChecksumModifier(base, fileOffset)) >>>
    0;
  if (computed !== stored) {
    fail(
      `footer checksum mismatch: stored 0x${stored.toString(16)}, computed ` +
        `0x${computed.toString(16)} (checksum type ${checksumType})`,
    );
  }
  const metaindexSize = getFixed32(src, ExtendedFooter.METAINDEX_SIZE_OFFSET);
  const metaindexOffset = fileOffset - TableFormat.BLOCK_TRAILER_SIZE - metaindexSize;
  if (metaindexOffset < 0) fail(`metaindex size ${metaindexSize} reaches before the file`);
  for (let i = 0; i < 8; i++) {
    if (src[ExtendedFooter.CHECKED_RESERVED_OFFSET + i] !== 0) {
      unsupported("table footer uses a future feature (non-zero reserved bytes)");
    }
  }
  return {
    checksumType,
    metaindexHandle: { offset: metaindexOffset, size: metaindexSize },
    indexHandle: { offset: 0, size: 0 },
    formatVersion,
    baseContextChecksum: base,
  };
}

/**
 * Sets `footer.indexHandle` from the metaindex (`meta`, name -> handle) for format version
 * 6+ (its entry `rocksdb.index`); earlier versions keep the footer's. Corruption (at the
 * metaindex offset) when the entry is missing or the index reaches past the metaindex.
 */
export function resolveIndexHandle(
  footer: Footer,
  meta: ReadonlyMap<string, BlockHandle>,
  file: string | undefined,
): void {
  if (!usesContextChecksum(footer.formatVersion)) return;
  const at = footer.metaindexHandle.offset;
  const handle = meta.get(MetaBlockName.INDEX);
  if (handle === undefined) {
    throw ShaleError.corruption(
      `format_version ${footer.formatVersion} table has no ${MetaBlockName.INDEX} entry`,
      file,
      at,
    );
  }
  if (handle.offset + handle.size + TableFormat.BLOCK_TRAILER_SIZE > at) {
    throw ShaleError.corruption(
      `index [${handle.offset}, +${handle.size}) reaches past the metaindex at ${at}`,
      file,
      at,
    );
  }
  footer.indexHandle = { offset: handle.offset, size: handle.size };
}
