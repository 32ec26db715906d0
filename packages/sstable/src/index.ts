/**
 * @shale/sstable — block-based sorted string tables (RocksDB's BlockBasedTable): a streaming
 * builder, a reader with Bloom-filtered zero-copy point lookups and two-level iterators, a
 * block cache integration, range-deletion blocks fragmented once per table, and a cache of
 * open tables. Format: docs/formats/sstable.md.
 */
export { Block } from "./block.js";
export { type BlockCache, type BlockCacheOptions, newBlockCache } from "./block-cache.js";
export {
  DEFAULT_CHECKSUM_TYPE,
  type IndexTypeName,
  type TableBuilderOptions,
  type TablePropertiesCollector,
} from "./builder-options.js";
export {
  type CompressionName,
  compressBlock,
  DEFAULT_COMPRESSION,
  DEFAULT_ZSTD_LEVEL,
  decompressBlock,
  WRITTEN_COMPRESSIONS,
} from "./compression.js";
export {
  FilterBlockNames,
  FilterBlockWriter,
  filterMayMatch,
  hashFilterKey,
  openFilterBlock,
} from "./filter-block.js";
export {
  DEFAULT_FILTER_POLICY,
  type FilterBitsBuilder,
  type FilterBitsReader,
  type FilterBuildingContext,
  type FilterPolicy,
} from "./filter-policy.js";
export { type FlushOptions, type FlushSource, flushMemTable } from "./flush.js";
export {
  type BlockHandle,
  ChecksumType,
  CompressionType,
  FormatVersion,
  IndexType,
  MetaBlockName,
  TableFormat,
} from "./format.js";
export {
  builtinPrefixExtractor,
  cappedPrefix,
  checkPrefixExtractor,
  fixedPrefix,
  isBuiltinPrefixExtractor,
  type PrefixExtractor,
  samePrefix,
} from "./prefix-extractor.js";
export { PropertyName, type TableProperties, UNKNOWN_COLUMN_FAMILY } from "./properties.js";
export { TableBuilder } from "./table-builder.js";
export { TableCache, type TableCacheOptions } from "./table-cache.js";
export {
  type IndexEntry,
  type TableLayout,
  tableIndexEntries,
  tableLayout,
} from "./table-layout.js";
export { TableReader, type TableReaderOptions, type TableReadOptions } from "./table-reader.js";
export type { TableVerifyResult } from "./table-verify.js";
export { loadZstd, type ZstdCodec, ZstdError, zstdCodec } from "./zstd.js";
