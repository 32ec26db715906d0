/**
 * Table properties: statistics about a table, written by the builder into the properties
 * block (metaindex name "rocksdb.properties") and read back when a table is opened.
 *
 * Block format (RocksDB's PropertyBlockBuilder): a key/value block (block-builder.ts) with
 * one restart point only (restart interval 2^31 - 1), entries sorted bytewise by name.
 * Values: counts as varint64, names and options as raw strings, and a few fixed forms:
 * ```
 * rocksdb.block.based.table.index.type         fixed32 (IndexType; 0 binary search)
 * rocksdb.block.based.table.prefix.filtering   "1" with a prefix extractor, else "0"
 * rocksdb.block.based.table.whole.key.filtering "1" (whole keys are filtered; "0": the
 *                                              filter holds prefixes only)
 * rocksdb.column.family.id                     varint64 (0x7fffffff: unknown)
 * rocksdb.column.family.name                   string (absent when unknown)
 * rocksdb.comparator                           string, e.g. "leveldb.BytewiseComparator"
 * rocksdb.compression                          string: "NoCompression", "Snappy", ...;
 *                                              format version 7: "BuiltinV2;01;" and the
 *                                              like (compression-name.ts)
 * rocksdb.compression_options                  string
 * rocksdb.creating.db.identity / .host.identity / .session.identity   strings (if known)
 * rocksdb.creation.time                        varint64 seconds since the epoch
 * rocksdb.data.size                            varint64: data blocks with their trailers
 * rocksdb.deleted.keys                         varint64: Deletion + SingleDeletion + range
 *                                              tombstones
 * rocksdb.file.creation.time                   varint64 seconds (absent when 0)
 * rocksdb.filter.policy                        string "bloomfilter" (absent without filter)
 * rocksdb.filter.size                          varint64: filter block, trailer excluded
 *                                              (partitioned: partitions + filter index)
 * rocksdb.fixed.key.length                     varint64 (0)
 * rocksdb.format.version                       varint64: 0 up to format version 5 (as
 *                                              RocksDB 7.8.3), the version from 6 (as
 *                                              RocksDB 9.8+); the footer's is the one read
 * rocksdb.index.key.is.user.key                varint64 0/1
 * rocksdb.index.partitions                     varint64: partitions of a two-level index
 *                                              (only for one; with the next)
 * rocksdb.top-level.index.size                 varint64: its top-level block, no trailer
 * rocksdb.index.size                           varint64: index block with its trailer (a
 *                                              two-level index: every partition and the
 *                                              top level, one trailer)
 * rocksdb.index.value.is.delta.encoded         varint64 0/1
 * rocksdb.merge.operands                       varint64
 * rocksdb.merge.operator                       string ("nullptr" when none)
 * rocksdb.num.data.blocks / num.entries (range tombstones included) / num.filter_entries
 *   / num.range-deletions                      varint64
 * rocksdb.oldest.key.time                      varint64 (0: unknown)
 * rocksdb.original.file.number                 varint64 (absent when unknown)
 * rocksdb.prefix.extractor.name                string: the extractor's name ("nullptr": none)
 * rocksdb.property.collectors                  string ("[]" or "[name,...]")
 * rocksdb.raw.key.size / raw.value.size        varint64: internal keys / values, range
 *                                              tombstones' keys and end keys included
 * shale.largest.key / shale.smallest.key       internal keys (range tombstones included)
 * shale.largest.seqno / shale.smallest.seqno   varint64 (with the keys; absent for an
 *                                              empty table)
 * <collector names>                            UTF-8 strings from TablePropertiesCollectors
 * rocksdb.external_sst_file.version / .global_seqno   fixed32 2 / fixed64 0, external
 *                                              files only (external-file.ts)
 * ```
 * The `shale.*` entries and the collectors' are RocksDB "user-collected" properties: RocksDB
 * shows them and otherwise ignores them. Names this reader does not know are kept as user
 * properties. The block has the usual 5-byte trailer.
 *
 * Worked example (first entries of a RocksDB 7.8.3 table's block; see properties.test.ts):
 * ```
 * 00 24 04 "rocksdb.block.based.table.index.type" 00 00 00 00
 * 1a 10 01 "prefix.filtering" 30                    shares "rocksdb.block.based.table." (26)
 * 1a 13 01 "whole.key.filtering" 31
 * 08 10 05 "column.family.id" ff ff ff ff 07        shares "rocksdb." (8); 0x7fffffff
 * ```
 */
import {
  bytewiseComparator,
  getFixed32,
  getFixed64,
  putFixed32,
  putVarint64,
  ShaleError,
  varint64Before,
  varintEnd,
} from "@shale/base";
import type { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import { BlockIterator } from "../block/block-iterator.js";
import { KeyOrder } from "../block/key-order.js";
import { parseCompressionName } from "../compression/compression-name.js";
import { FormatVersion, IndexType } from "./format.js";

/** RocksDB's kUnknownColumnFamily. */
export const UNKNOWN_COLUMN_FAMILY = 0x7fffffff;

/** Statistics of one table. Sizes are in bytes. */
export interface TableProperties {
  /** Format version of the table file (from the footer). */
  formatVersion: number;
  /**
   * Point entries (every kind) in the data blocks. (`rocksdb.num.entries` counts the range
   * tombstones too: it is this plus `numRangeDeletions`.)
   */
  numEntries: number;
  /**
   * Point deletions (Deletion and SingleDeletion); range deletions are counted apart.
   * (`rocksdb.deleted.keys` is this plus `numRangeDeletions`.)
   */
  numDeletions: number;
  /** Merge operands. */
  numMergeOperands: number;
  /** Range tombstones in the range-deletion block. */
  numRangeDeletions: number;
  /** Sum of the internal-key lengths of the entries, range tombstones' included (RocksDB's). */
  rawKeySize: number;
  /** Sum of the value lengths of the entries, range tombstones' end keys included. */
  rawValueSize: number;
  /** Bytes of all data blocks on disk, trailers included. */
  dataSize: number;
  /** Bytes of the index block on disk, trailer included. */
  indexSize: number;
  /** Bytes of the filter block, trailer excluded (0 without a filter; RocksDB's). */
  filterSize: number;
  /** Number of data blocks. */
  numDataBlocks: number;
  /** Keys added to the filter (0 without a filter). */
  numFilterEntries: number;
  /**
   * Smallest internal key of the table, range tombstones included (a tombstone counts as
   * `start#seq,RANGEDEL`). Absent for an empty table and for tables written by RocksDB
   * (`shale.smallest.key`). A copy owned by the properties.
   */
  smallestKey?: Uint8Array;
  /**
   * Largest internal key, range tombstones included (a tombstone's exclusive end counts as
   * `end#MAX_SEQ,RANGEDEL`, RocksDB's sentinel). Absent as `smallestKey`.
   */
  largestKey?: Uint8Array;
  /** Smallest seq of any entry or tombstone (0 for an empty table or when unknown). */
  smallestSeq: number;
  /** Largest seq of any entry or tombstone (0 for an empty table or when unknown). */
  largestSeq: number;
  /** Name of the user comparator that ordered the keys ("" if not recorded). */
  comparatorName: string;
  /** Merge operator name ("nullptr" when none). */
  mergeOperatorName: string;
  /** Filter policy name: "bloomfilter" with RocksDB's built-in Bloom filter, "" without. */
  filterPolicy: string;
  /**
   * Compression of the data blocks, RocksDB's name ("NoCompression", "Snappy", ...); format
   * version 7: "<manager>;<hex types>;" ("BuiltinV2;01;", ";;": compression-name.ts).
   */
  compression: string;
  /** RocksDB's compression options string. */
  compressionOptions: string;
  /** Prefix extractor name ("nullptr" when none). */
  prefixExtractorName: string;
  /** Property collector names, RocksDB's "[a,b]" form. */
  propertyCollectors: string;
  /** Column family id (UNKNOWN_COLUMN_FAMILY when unknown). */
  columnFamilyId: number;
  /** Column family name ("" when unknown). */
  columnFamilyName: string;
  /**
   * The filter holds whole user keys (`rocksdb.block.based.table.whole.key.filtering`, "1"
   * unless RocksDB wrote a prefix-only filter; true when absent).
   */
  wholeKeyFiltering: boolean;
  /** Index keys are user keys (no sequence numbers). */
  indexKeyIsUserKey: boolean;
  /** Index values are delta-encoded (no value lengths). */
  indexValueIsDeltaEncoded: boolean;
  /** IndexType of the index. */
  indexType: number;
  /**
   * Partitions of a partitioned index (`rocksdb.index.partitions`; 0 for a one-block index,
   * and then not written).
   */
  indexPartitions: number;
  /** Bytes of a partitioned index's top-level block, trailer excluded (`rocksdb.top-level.index.size`). */
  topLevelIndexSize: number;
  /** Seconds since the Unix epoch when the table was finished (0: unknown). */
  creationTime: number;
  /** Seconds since the epoch of the oldest key's write (0: unknown). */
  oldestKeyTime: number;
  /** Seconds since the epoch when the file was created (0: unknown). */
  fileCreationTime: number;
  /** The table's file number when it was written (0: unknown). */
  originalFileNumber: number;
  /** Identity of the database, its session and host that wrote the table ("" if unknown). */
  dbId: string;
  dbSessionId: string;
  dbHostId: string;
  /**
   * User-collected properties not interpreted above (name -> value as UTF-8): those of
   * `TablePropertiesCollector`s, and what RocksDB's collectors add (such as
   * `rocksdb.block.based.table.whole.key.filtering`).
   */
  user: Record<string, string>;
  /**
   * An external file's properties (`rocksdb.external_sst_file.version`, fixed32, and
   * `.global_seqno`, fixed64, 0 when absent as in version 1 files), read from their bytes:
   * RocksDB's SstFileWriter and shale's write them (sst-file-writer.ts). Absent for other
   * tables and in the properties a builder returns.
   */
  externalFile?: { version: number; globalSeqno: number };
}

/** Property names. Part of the file format; do not change. */
export const PropertyName = {
  INDEX_TYPE: "rocksdb.block.based.table.index.type",
  PREFIX_FILTERING: "rocksdb.block.based.table.prefix.filtering",
  WHOLE_KEY_FILTERING: "rocksdb.block.based.table.whole.key.filtering",
  COLUMN_FAMILY_ID: "rocksdb.column.family.id",
  COLUMN_FAMILY_NAME: "rocksdb.column.family.name",
  COMPARATOR: "rocksdb.comparator",
  COMPRESSION: "rocksdb.compression",
  COMPRESSION_OPTIONS: "rocksdb.compression_options",
  DB_ID: "rocksdb.creating.db.identity",
  DB_HOST_ID: "rocksdb.creating.host.identity",
  DB_SESSION_ID: "rocksdb.creating.session.identity",
  CREATION_TIME: "rocksdb.creation.time",
  DATA_SIZE: "rocksdb.data.size",
  DELETED_KEYS: "rocksdb.deleted.keys",
  FILE_CREATION_TIME: "rocksdb.file.creation.time",
  FILTER_POLICY: "rocksdb.filter.policy",
  FILTER_SIZE: "rocksdb.filter.size",
  FIXED_KEY_LENGTH: "rocksdb.fixed.key.length",
  FORMAT_VERSION: "rocksdb.format.version",
  INDEX_KEY_IS_USER_KEY: "rocksdb.index.key.is.user.key",
  INDEX_PARTITIONS: "rocksdb.index.partitions",
  TOP_LEVEL_INDEX_SIZE: "rocksdb.top-level.index.size",
  INDEX_SIZE: "rocksdb.index.size",
  INDEX_VALUE_IS_DELTA_ENCODED: "rocksdb.index.value.is.delta.encoded",
  MERGE_OPERANDS: "rocksdb.merge.operands",
  MERGE_OPERATOR: "rocksdb.merge.operator",
  NUM_DATA_BLOCKS: "rocksdb.num.data.blocks",
  NUM_ENTRIES: "rocksdb.num.entries",
  NUM_FILTER_ENTRIES: "rocksdb.num.filter_entries",
  NUM_RANGE_DELETIONS: "rocksdb.num.range-deletions",
  OLDEST_KEY_TIME: "rocksdb.oldest.key.time",
  ORIGINAL_FILE_NUMBER: "rocksdb.original.file.number",
  PREFIX_EXTRACTOR_NAME: "rocksdb.prefix.extractor.name",
  PROPERTY_COLLECTORS: "rocksdb.property.collectors",
  RAW_KEY_SIZE: "rocksdb.raw.key.size",
  RAW_VALUE_SIZE: "rocksdb.raw.value.size",
  SHALE_LARGEST_KEY: "shale.largest.key",
  SHALE_LARGEST_SEQ: "shale.largest.seqno",
  SHALE_SMALLEST_KEY: "shale.smallest.key",
  SHALE_SMALLEST_SEQ: "shale.smallest.seqno",
  /** User-collected (not reserved): written by SstFileWriter's collector. */
  EXTERNAL_SST_FILE_VERSION: "rocksdb.external_sst_file.version",
  EXTERNAL_SST_FILE_GLOBAL_SEQNO: "rocksdb.external_sst_file.global_seqno",
} as const;

/** Restart interval of the properties block (RocksDB's: one restart point). */
const PROPERTIES_RESTART_INTERVAL = 0x7fffffff;

type NumberField =
  | "numEntries"
  | "numDeletions"
  | "numMergeOperands"
  | "numRangeDeletions"
  | "rawKeySize"
  | "rawValueSize"
  | "dataSize"
  | "indexSize"
  | "filterSize"
  | "numDataBlocks"
  | "numFilterEntries"
  | "smallestSeq"
  | "largestSeq"
  | "columnFamilyId"
  | "creationTime"
  | "oldestKeyTime"
  | "fileCreationTime"
  | "originalFileNumber"
  | "indexPartitions"
  | "topLevelIndexSize";

type StringField =
  | "comparatorName"
  | "mergeOperatorName"
  | "filterPolicy"
  | "compression"
  | "compressionOptions"
  | "prefixExtractorName"
  | "propertyCollectors"
  | "columnFamilyName"
  | "dbId"
  | "dbSessionId"
  | "dbHostId";

/** varint64 properties and their fields. */
const NUMBERS: readonly (readonly [string, NumberField])[] = [
  [PropertyName.NUM_ENTRIES, "numEntries"],
  [PropertyName.DELETED_KEYS, "numDeletions"],
  [PropertyName.MERGE_OPERANDS, "numMergeOperands"],
  [PropertyName.NUM_RANGE_DELETIONS, "numRangeDeletions"],
  [PropertyName.RAW_KEY_SIZE, "rawKeySize"],
  [PropertyName.RAW_VALUE_SIZE, "rawValueSize"],
  [PropertyName.DATA_SIZE, "dataSize"],
  [PropertyName.INDEX_SIZE, "indexSize"],
  [PropertyName.FILTER_SIZE, "filterSize"],
  [PropertyName.NUM_DATA_BLOCKS, "numDataBlocks"],
  [PropertyName.NUM_FILTER_ENTRIES, "numFilterEntries"],
  [PropertyName.SHALE_SMALLEST_SEQ, "smallestSeq"],
  [PropertyName.SHALE_LARGEST_SEQ, "largestSeq"],
  [PropertyName.COLUMN_FAMILY_ID, "columnFamilyId"],
  [PropertyName.CREATION_TIME, "creationTime"],
  [PropertyName.OLDEST_KEY_TIME, "oldestKeyTime"],
  [PropertyName.FILE_CREATION_TIME, "fileCreationTime"],
  [PropertyName.ORIGINAL_FILE_NUMBER, "originalFileNumber"],
  [PropertyName.INDEX_PARTITIONS, "indexPartitions"],
  [PropertyName.TOP_LEVEL_INDEX_SIZE, "topLevelIndexSize"],
];

/** String properties and their fields. */
const STRINGS: readonly (readonly [string, StringField])[] = [
  [PropertyName.COMPARATOR, "comparatorName"],
  [PropertyName.MERGE_OPERATOR, "mergeOperatorName"],
  [PropertyName.FILTER_POLICY, "filterPolicy"],
  [PropertyName.COMPRESSION, "compression"],
  [PropertyName.COMPRESSION_OPTIONS, "compressionOptions"],
  [PropertyName.PREFIX_EXTRACTOR_NAME, "prefixExtractorName"],
  [PropertyName.PROPERTY_COLLECTORS, "propertyCollectors"],
  [PropertyName.COLUMN_FAMILY_NAME, "columnFamilyName"],
  [PropertyName.DB_ID, "dbId"],
  [PropertyName.DB_SESSION_ID, "dbSessionId"],
  [PropertyName.DB_HOST_ID, "dbHostId"],
];

/**
 * Properties read but not kept in a field: RocksDB writes them (some only for partitioned
 * indexes, compression sampling or time tracking, which shale does not use) and their value
 * is fixed here or irrelevant to reading the table.
 */
const IGNORED = new Set<string>([
  "rocksdb.slow.compression.estimated.data.size",
  "rocksdb.fast.compression.estimated.data.size",
  "rocksdb.seqno.time.map",
  "rocksdb.tail.start.offset",
  PropertyName.FIXED_KEY_LENGTH,
  PropertyName.FORMAT_VERSION,
  PropertyName.INDEX_KEY_IS_USER_KEY,
  PropertyName.INDEX_VALUE_IS_DELTA_ENCODED,
  PropertyName.INDEX_TYPE,
  PropertyName.SHALE_SMALLEST_KEY,
  PropertyName.SHALE_LARGEST_KEY,
  PropertyName.PREFIX_FILTERING,
  PropertyName.WHOLE_KEY_FILTERING,
]);

/** Names written only when their value is not the "unknown" one (RocksDB's choices). */
const OMITTED_WHEN_EMPTY = new Set<string>([
  PropertyName.FILTER_POLICY,
  PropertyName.COLUMN_FAMILY_NAME,
  PropertyName.DB_ID,
  PropertyName.DB_SESSION_ID,
  PropertyName.DB_HOST_ID,
]);
const SHALE_SEQ = new Set<string>([
  PropertyName.SHALE_SMALLEST_SEQ,
  PropertyName.SHALE_LARGEST_SEQ,
]);
const PARTITION_SIZES = new Set<string>([
  PropertyName.INDEX_PARTITIONS,
  PropertyName.TOP_LEVEL_INDEX_SIZE,
]);
const OMITTED_WHEN_ZERO = new Set<string>([
  PropertyName.FILE_CREATION_TIME,
  PropertyName.ORIGINAL_FILE_NUMBER,
]);

/** Every name the encoder writes itself (collectors may not use these). */
export const RESERVED_PROPERTY_NAMES: ReadonlySet<string> = new Set<string>([
  ...NUMBERS.map((e) => e[0]),
  ...STRINGS.map((e) => e[0]),
  ...IGNORED,
]);

const encoder = new TextEncoder();

function varintBytes(n: number): Uint8Array {
  const b = new Uint8Array(10);
  return b.slice(0, putVarint64(b, 0, n));
}

/**
 * Encodes properties as the properties block contents (a fresh array). Collector properties
 * (`props.user`) are written under their own names; a collector name that is a reserved
 * property name is InvalidArgument.
 */
export function encodeProperties(props: TableProperties): Uint8Array {
  const entries: [string, Uint8Array][] = [];
  for (const [name, field] of NUMBERS) {
    let v = props[field];
    // On disk (RocksDB's counts) range tombstones are entries and deletions too.
    if (field === "numEntries" || field === "numDeletions") v += props.numRangeDeletions;
    if (OMITTED_WHEN_ZERO.has(name) && v === 0) continue;
    // RocksDB writes both only for a partitioned index.
    if (PARTITION_SIZES.has(name) && props.indexPartitions === 0) continue;
    // The key range and seqnos of a table are written together (none for an empty table).
    if (SHALE_SEQ.has(name) && props.smallestKey === undefined) continue;
    entries.push([name, varintBytes(v)]);
  }
  for (const [name, field] of STRINGS) {
    const v = props[field];
    if (OMITTED_WHEN_EMPTY.has(name) && v === "") continue;
    entries.push([name, encoder.encode(v)]);
  }
  const indexType = new Uint8Array(4);
  putFixed32(indexType, 0, props.indexType);
  entries.push([PropertyName.INDEX_TYPE, indexType]);
  const prefixFiltering =
    props.prefixExtractorName !== "" && props.prefixExtractorName !== "nullptr";
  entries.push([PropertyName.PREFIX_FILTERING, encoder.encode(prefixFiltering ? "1" : "0")]);
  entries.push([
    PropertyName.WHOLE_KEY_FILTERING,
    encoder.encode(props.wholeKeyFiltering ? "1" : "0"),
  ]);
  entries.push([PropertyName.FIXED_KEY_LENGTH, varintBytes(0)]);
  const recordedVersion = props.formatVersion >= FormatVersion.V6 ? props.formatVersion : 0;
  entries.push([PropertyName.FORMAT_VERSION, varintBytes(recordedVersion)]);
  entries.push([PropertyName.INDEX_KEY_IS_USER_KEY, varintBytes(props.indexKeyIsUserKey ? 1 : 0)]);
  entries.push([
    PropertyName.INDEX_VALUE_IS_DELTA_ENCODED,
    varintBytes(props.indexValueIsDeltaEncoded ? 1 : 0),
  ]);
  if (props.smallestKey !== undefined)
    entries.push([PropertyName.SHALE_SMALLEST_KEY, props.smallestKey]);
  if (props.largestKey !== undefined)
    entries.push([PropertyName.SHALE_LARGEST_KEY, props.largestKey]);
  for (const [name, value] of Object.entries(props.user)) {
    if (RESERVED_PROPERTY_NAMES.has(name)) {
      throw ShaleError.invalidArgument(`property collector name "${name}" is reserved`);
    }
    entries.push([name, encoder.encode(value)]);
  }
  const named = entries.map(([name, value]) => [encoder.encode(name), value] as const);
  named.sort((a, b) => bytewiseComparator.compare(a[0], b[0]));
  const block = new BlockBuilder(PROPERTIES_RESTART_INTERVAL);
  for (const [name, value] of named) block.add(name, value);
  return block.finish().slice();
}

/** Decodes a whole-value varint64; -1 if malformed. */
function decodeVarint(v: Uint8Array): number {
  const n = varint64Before(v, 0, v.length);
  return n >= 0 && varintEnd === v.length ? n : -1;
}

/**
 * Decodes the properties block. `formatVersion` is the footer's. Throws Corruption naming
 * `file` and `blockOffset` for a malformed block or a malformed value of a known property.
 * Missing properties read as 0 / "" (older tables lack some).
 */
export function decodeProperties(
  block: Block,
  formatVersion: number,
  file: string | undefined,
  blockOffset: number,
): TableProperties {
  const fail = (what: string): never => {
    throw ShaleError.corruption(`bad properties block: ${what}`, file, blockOffset);
  };
  const raw = new Map<string, Uint8Array>();
  const decoder = new TextDecoder();
  const it = new BlockIterator(new KeyOrder(bytewiseComparator, false));
  it.init(block, file, blockOffset);
  let previous: Uint8Array | undefined;
  for (it.seekToFirst(); it.valid(); it.next()) {
    const key = it.key();
    if (previous !== undefined && bytewiseComparator.compare(previous, key) >= 0)
      fail("names out of order");
    previous = key.slice();
    raw.set(decoder.decode(key), it.value().slice());
  }
  const props: TableProperties = {
    formatVersion,
    numEntries: 0,
    numDeletions: 0,
    numMergeOperands: 0,
    numRangeDeletions: 0,
    rawKeySize: 0,
    rawValueSize: 0,
    dataSize: 0,
    indexSize: 0,
    filterSize: 0,
    numDataBlocks: 0,
    numFilterEntries: 0,
    smallestSeq: 0,
    largestSeq: 0,
    comparatorName: "",
    mergeOperatorName: "",
    filterPolicy: "",
    compression: "",
    compressionOptions: "",
    prefixExtractorName: "",
    propertyCollectors: "",
    columnFamilyId: UNKNOWN_COLUMN_FAMILY,
    columnFamilyName: "",
    wholeKeyFiltering: true,
    indexKeyIsUserKey: false,
    indexValueIsDeltaEncoded: false,
    indexType: IndexType.BinarySearch,
    indexPartitions: 0,
    topLevelIndexSize: 0,
    creationTime: 0,
    oldestKeyTime: 0,
    fileCreationTime: 0,
    originalFileNumber: 0,
    dbId: "",
    dbSessionId: "",
    dbHostId: "",
    user: {},
  };
  const number = (name: string): number | undefined => {
    const v = raw.get(name);
    if (v === undefined) return undefined;
    const n = decodeVarint(v);
    if (n < 0) fail(`property ${name} is not a varint64`);
    return n;
  };
  for (const [name, field] of NUMBERS) {
    const n = number(name);
    if (n !== undefined) props[field] = n;
  }
  for (const [name, field] of STRINGS) {
    const v = raw.get(name);
    if (v !== undefined) props[field] = decoder.decode(v);
  }
  // Format version 7's form (checked at open, as RocksDB's GetDecompressor does).
  if (formatVersion >= FormatVersion.V7) parseCompressionName(props.compression, file, blockOffset);
  // RocksDB counts range tombstones as entries and deletions; these fields count points.
  props.numEntries = Math.max(0, props.numEntries - props.numRangeDeletions);
  props.numDeletions = Math.max(0, props.numDeletions - props.numRangeDeletions);
  props.indexKeyIsUserKey = (number(PropertyName.INDEX_KEY_IS_USER_KEY) ?? 0) !== 0;
  props.indexValueIsDeltaEncoded = (number(PropertyName.INDEX_VALUE_IS_DELTA_ENCODED) ?? 0) !== 0;
  const whole = raw.get(PropertyName.WHOLE_KEY_FILTERING);
  if (whole !== undefined) props.wholeKeyFiltering = !(whole.length === 1 && whole[0] === 0x30);
  const indexType = raw.get(PropertyName.INDEX_TYPE);
  if (indexType !== undefined) {
    if (indexType.length !== 4) fail(`property ${PropertyName.INDEX_TYPE} is not a fixed32`);
    props.indexType = getFixed32(indexType, 0);
  }
  const smallest = raw.get(PropertyName.SHALE_SMALLEST_KEY);
  if (smallest !== undefined) props.smallestKey = smallest;
  const largest = raw.get(PropertyName.SHALE_LARGEST_KEY);
  if (largest !== undefined) props.largestKey = largest;
  const externalVersion = raw.get(PropertyName.EXTERNAL_SST_FILE_VERSION);
  if (externalVersion !== undefined) {
    if (externalVersion.length !== 4)
      fail(`property ${PropertyName.EXTERNAL_SST_FILE_VERSION} is not a fixed32`);
    const seqno = raw.get(PropertyName.EXTERNAL_SST_FILE_GLOBAL_SEQNO);
    if (seqno !== undefined && seqno.length !== 8)
      fail(`property ${PropertyName.EXTERNAL_SST_FILE_GLOBAL_SEQNO} is not a fixed64`);
    if (seqno !== undefined && getFixed32(seqno, 4) > 0x1fffff)
      fail(`property ${PropertyName.EXTERNAL_SST_FILE_GLOBAL_SEQNO} exceeds 2^53 - 1`);
    props.externalFile = {
      version: getFixed32(externalVersion, 0),
      globalSeqno: seqno === undefined ? 0 : getFixed64(seqno, 0),
    };
  }
  const known = new Set<string>([
    ...NUMBERS.map((e) => e[0]),
    ...STRINGS.map((e) => e[0]),
    ...IGNORED,
  ]);
  for (const [name, value] of raw) {
    if (!known.has(name)) props.user[name] = decoder.decode(value);
  }
  return props;
}

/** RocksDB's default compression options string (what 7.8.3 writes). */
export const DEFAULT_COMPRESSION_OPTIONS =
  "window_bits=-14; level=32767; strategy=0; max_dict_bytes=0; zstd_max_train_bytes=0; " +
  "enabled=0; max_dict_buffer_bytes=0; use_zstd_dict_trainer=1; ";
