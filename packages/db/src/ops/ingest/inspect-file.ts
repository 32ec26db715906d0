/**
 * Reading an external SST file before it is ingested (RocksDB's
 * ExternalSstFileIngestionJob::GetIngestedFileInfo and the checks of its Prepare): the file
 * must be a table, written with the family's comparator, an external file (version 2, or 1
 * when no global seqno can be needed) for this family or for none, with entries or range
 * deletions, its first and last keys at sequence number 0. Its key range is the smallest and
 * largest internal keys of its points and range deletions (a range deletion's end is an
 * exclusive bound: RocksDB's sentinel, the end key at the largest sequence number).
 *
 * Every error names the file: InvalidArgument for a missing file, a file of another
 * comparator or family, an empty one or an unsupported version; Corruption for a file that
 * is not a table or not an external file, or whose keys are damaged or out of order.
 */
import {
  type FileSystem,
  type InternalKeyComparator,
  isShaleError,
  MAX_SEQ,
  makeInternalKey,
  parseInternalKey,
  ShaleError,
  ValueKind,
} from "@shale/base";
import { ExternalSstFilePropertyName, TableReader, UNKNOWN_COLUMN_FAMILY } from "@shale/sstable";
import type { KeyRange } from "../../version/key-range.js";
import { rangeOfKeys } from "../../version/key-range.js";
import type { ResolvedIngestOptions } from "./ingest-options.js";

/** What ingestion needs of an external file (RocksDB's IngestedFileInfo). */
export interface ExternalFile {
  /** The path as the caller gave it. */
  readonly path: string;
  readonly size: number;
  /** Smallest and largest internal keys (sequence 0, or the sentinel of a range end). */
  readonly smallest: Uint8Array;
  readonly largest: Uint8Array;
  /** The user-key range (`rangeOfKeys(smallest, largest)`). */
  readonly range: KeyRange;
  /** The global seqno property's value as found (0 for a file never ingested). */
  readonly originalSeqno: number;
  /** File offset of the global seqno property's value; -1 without one (version 1). */
  readonly globalSeqnoOffset: number;
}

const POINT_KINDS = new Set<number>([
  ValueKind.Value,
  ValueKind.Merge,
  ValueKind.Deletion,
  ValueKind.SingleDeletion,
]);

function fail(code: "InvalidArgument" | "Corruption", path: string, what: string): never {
  const message = `external file ${path}: ${what}`;
  throw code === "Corruption"
    ? ShaleError.corruption(message, path)
    : ShaleError.invalidArgument(message);
}

/** A copy of internal key `key` at sequence 0 (as stored in the file). */
function atZero(key: Uint8Array): Uint8Array {
  const p = parseInternalKey(key);
  return makeInternalKey(p.userKey, 0, p.kind);
}

/** Checks one point key read from the file (`what`: which one, for the message). */
function checkPoint(path: string, key: Uint8Array, seq: number, what: string): void {
  const p = parseInternalKey(key);
  if (!POINT_KINDS.has(p.kind)) fail("Corruption", path, `${what} has value kind ${p.kind}`);
  if (p.seq !== seq) fail("Corruption", path, `${what} has sequence number ${p.seq}, not ${seq}`);
}

/**
 * Opens and checks the external file at `path` for the family `family` (its id and
 * comparator). See the file comment for what is checked.
 */
export function inspectExternalFile(
  fs: FileSystem,
  path: string,
  family: { readonly id: number; readonly icmp: InternalKeyComparator },
  options: ResolvedIngestOptions,
): ExternalFile {
  if (!fs.exists(path)) fail("InvalidArgument", path, "no such file");
  let reader: TableReader;
  try {
    reader = TableReader.open(fs.openRandomAccess(path), {
      fileName: path,
      comparator: family.icmp.user,
      fillCache: false,
    });
  } catch (e) {
    if (isShaleError(e, "Corruption")) fail("Corruption", path, `not a valid table (${e.message})`);
    if (isShaleError(e, "InvalidArgument")) fail("InvalidArgument", path, e.message);
    throw e;
  }
  try {
    const props = reader.properties;
    const external = props.externalFile;
    if (external === undefined) {
      fail("Corruption", path, "not an external SST file (it has no external-file version)");
    }
    if (external.version === 2) {
      if (props.user[ExternalSstFilePropertyName.GLOBAL_SEQNO] === undefined)
        fail("Corruption", path, "an external file of version 2 has no global seqno property");
    } else if (external.version === 1) {
      if (options.allowBlockingFlush || options.allowGlobalSeqNo)
        fail(
          "InvalidArgument",
          path,
          "an external file of version 1 cannot take a global seqno: ingest it with " +
            "allowBlockingFlush and allowGlobalSeqNo false",
        );
    } else {
      fail("InvalidArgument", path, `external file version ${external.version} is not supported`);
    }
    if (props.columnFamilyId !== UNKNOWN_COLUMN_FAMILY && props.columnFamilyId !== family.id) {
      fail(
        "InvalidArgument",
        path,
        `written for column family ${props.columnFamilyId}, not ${family.id}`,
      );
    }
    if (props.numEntries === 0 && props.numRangeDeletions === 0)
      fail("InvalidArgument", path, "holds no entries");
    if (options.verifyChecksumsBeforeIngest) verifyWholeFile(reader, path, family.icmp);
    const icmp = family.icmp;
    // Stored entries are at 0; a file ingested before may say another number (its property).
    const seq = reader.globalSeqno;
    let smallest: Uint8Array | undefined;
    let largest: Uint8Array | undefined;
    if (props.numEntries > 0) {
      const it = reader.newIterator({ fillCache: false });
      try {
        it.seekToFirst();
        if (!it.valid()) fail("Corruption", path, "its properties count entries it does not hold");
        checkPoint(path, it.key(), seq, "the first key");
        smallest = atZero(it.key());
        it.seekToLast();
        checkPoint(path, it.key(), seq, "the last key");
        largest = atZero(it.key());
      } finally {
        it.close();
      }
      if (icmp.compare(smallest, largest) > 0)
        fail("Corruption", path, "its first key sorts after its last key");
    }
    for (const t of reader.rangeTombstones().tombstones()) {
      if (icmp.user.compare(t.start, t.end) >= 0)
        fail("Corruption", path, "a range deletion ends before it starts");
      const start = makeInternalKey(t.start, 0, ValueKind.RangeDeletion);
      const end = makeInternalKey(t.end, MAX_SEQ, ValueKind.RangeDeletion);
      if (smallest === undefined || icmp.compare(start, smallest) < 0) smallest = start;
      if (largest === undefined || icmp.compare(end, largest) > 0) largest = end;
    }
    if (smallest === undefined || largest === undefined)
      fail("InvalidArgument", path, "holds no entries");
    return {
      path,
      size: reader.fileSize,
      smallest,
      largest,
      range: rangeOfKeys(smallest, largest),
      originalSeqno: external.globalSeqno,
      globalSeqnoOffset: reader.globalSeqnoOffset,
    };
  } finally {
    reader.close();
  }
}

/** Every block's checksum, every key's order and sequence number 0. */
function verifyWholeFile(reader: TableReader, path: string, icmp: InternalKeyComparator): void {
  try {
    reader.verifyChecksums();
  } catch (e) {
    if (isShaleError(e, "Corruption")) fail("Corruption", path, e.message);
    throw e;
  }
  const it = reader.newIterator({ fillCache: false, verifyChecksums: true });
  try {
    let previous: Uint8Array | undefined;
    let n = 0;
    for (it.seekToFirst(); it.valid(); it.next()) {
      const key = it.key();
      checkPoint(path, key, reader.globalSeqno, `key ${n}`);
      if (
        previous !== undefined &&
        icmp.user.compare(previous, key.subarray(0, key.length - 8)) >= 0
      )
        fail("Corruption", path, `key ${n} is not after the key before it`);
      previous = key.slice(0, key.length - 8);
      n++;
    }
  } finally {
    it.close();
  }
}
