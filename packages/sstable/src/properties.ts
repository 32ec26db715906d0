/**
 * Table properties: statistics about a table, written by the builder into the properties
 * block (named "shale.properties" in the metaindex) and read back when a table is opened.
 *
 * Block contents: one MessagePack map (msgpackr, standard maps, no record extension) from
 * property name to value — numbers, strings, binary for keys, a nested string map for
 * user-collected properties. Keys never change meaning; new properties may be added, and
 * readers ignore names they do not know. The block has the usual 5-byte trailer (checksum).
 *
 * Worked example (a table with one entry "a"#1,SET -> "x"): the map holds numEntries 1,
 * rawKeySize 9, rawValueSize 1, numDataBlocks 1, smallestKey = largestKey = `61 01 01 00 00
 * 00 00 00 00`, smallestSeq = largestSeq = 1, comparatorName "leveldb.BytewiseComparator",
 * filterPolicy "bloom:10", compression "none", formatVersion 1, ...
 */
import { ShaleError } from "@shale/base";
import { Packr } from "msgpackr";

/** Statistics of one table. Sizes are in bytes and include block trailers. */
export interface TableProperties {
  /** Format version of the table file. */
  formatVersion: number;
  /** Point entries (every kind) in the data blocks. */
  numEntries: number;
  /** Point deletions (Deletion and SingleDeletion); range deletions are counted apart. */
  numDeletions: number;
  /** Merge operands. */
  numMergeOperands: number;
  /** Range tombstones in the range-deletion block. */
  numRangeDeletions: number;
  /** Sum of the internal-key lengths of the point entries. */
  rawKeySize: number;
  /** Sum of the value lengths of the point entries. */
  rawValueSize: number;
  /** Bytes of all data blocks on disk. */
  dataSize: number;
  /** Bytes of the index block on disk. */
  indexSize: number;
  /** Bytes of the filter block on disk (0 without a filter). */
  filterSize: number;
  /** Number of data blocks. */
  numDataBlocks: number;
  /**
   * Smallest internal key of the table, range tombstones included (a tombstone counts as
   * `start#seq,RANGEDEL`). Absent for an empty table. A copy owned by the properties.
   */
  smallestKey?: Uint8Array;
  /**
   * Largest internal key, range tombstones included (a tombstone's exclusive end counts as
   * `end#MAX_SEQ,RANGEDEL`, RocksDB's sentinel). Absent for an empty table.
   */
  largestKey?: Uint8Array;
  /** Smallest seq of any entry or tombstone (0 for an empty table). */
  smallestSeq: number;
  /** Largest seq of any entry or tombstone (0 for an empty table). */
  largestSeq: number;
  /** Name of the user comparator that ordered the keys. */
  comparatorName: string;
  /** "bloom:<bitsPerKey>" or "none". */
  filterPolicy: string;
  /** The compression option the table was written with ("none" or "snappy"). */
  compression: string;
  /** Seconds since the Unix epoch when the table was finished. */
  creationTime: number;
  /** Properties from user collectors (name -> value). */
  user: Record<string, string>;
}

const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

const NUMBER_FIELDS = [
  "formatVersion",
  "numEntries",
  "numDeletions",
  "numMergeOperands",
  "numRangeDeletions",
  "rawKeySize",
  "rawValueSize",
  "dataSize",
  "indexSize",
  "filterSize",
  "numDataBlocks",
  "smallestSeq",
  "largestSeq",
  "creationTime",
] as const;

const STRING_FIELDS = ["comparatorName", "filterPolicy", "compression"] as const;

/** Encodes properties as the properties block contents. */
export function encodeProperties(props: TableProperties): Uint8Array {
  const out: Record<string, unknown> = {};
  for (const f of NUMBER_FIELDS) out[f] = props[f];
  for (const f of STRING_FIELDS) out[f] = props[f];
  if (props.smallestKey !== undefined) out["smallestKey"] = props.smallestKey;
  if (props.largestKey !== undefined) out["largestKey"] = props.largestKey;
  out["user"] = props.user;
  return packr.pack(out);
}

/**
 * Decodes and validates the properties block. Throws Corruption naming `file` and
 * `blockOffset` if it is not a map or a required field is missing or of the wrong type.
 */
export function decodeProperties(
  data: Uint8Array,
  file: string | undefined,
  blockOffset: number,
): TableProperties {
  const fail = (what: string): never => {
    throw ShaleError.corruption(`bad properties block: ${what}`, file, blockOffset);
  };
  let raw: unknown;
  try {
    raw = packr.unpack(data);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return fail("not a map");
  const map = raw as Record<string, unknown>;
  const props = { user: {} } as TableProperties;
  for (const f of NUMBER_FIELDS) {
    const v = map[f];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
      fail(`field ${f} is not a count`);
    props[f] = v as number;
  }
  for (const f of STRING_FIELDS) {
    const v = map[f];
    if (typeof v !== "string") fail(`field ${f} is not a string`);
    props[f] = v as string;
  }
  for (const f of ["smallestKey", "largestKey"] as const) {
    const v = map[f];
    if (v === undefined) continue;
    if (!(v instanceof Uint8Array)) fail(`field ${f} is not binary`);
    props[f] = new Uint8Array(v as Uint8Array);
  }
  const user = map["user"];
  if (user !== undefined) {
    if (typeof user !== "object" || user === null || Array.isArray(user))
      fail("field user is not a map");
    for (const [k, v] of Object.entries(user as Record<string, unknown>)) {
      if (typeof v !== "string") fail(`user property ${k} is not a string`);
      props.user[k] = v as string;
    }
  }
  return props;
}
