/**
 * @shale/sstable — block-based sorted string tables (RocksDB's BlockBasedTable): a streaming
 * builder, a reader with Bloom-filtered zero-copy point lookups and two-level iterators, a
 * block cache integration, range-deletion blocks fragmented once per table, and a cache of
 * open tables. Format: docs/formats/sstable.md.
 */
export { Block } from "./block/block.js";
export { type BlockCache, type BlockCacheOptions, newBlockCache } from "./block/block-cache.js";
export type { DataBlockIndexTypeName } from "./block/data-block-hash-index.js";
export {
  type CompressionName,
  compressBlock,
  DEFAULT_COMPRESSION,
  DEFAULT_ZSTD_LEVEL,
  decompressBlock,
  WRITTEN_COMPRESSIONS,
} from "./compression/compression.js";
export { loadZstd, type ZstdCodec, ZstdError, zstdCodec } from "./compression/zstd.js";
export {
  FilterBlockNames,
  FilterBlockWriter,
  filterMayMatch,
  hashFilterKey,
  openFilterBlock,
} from "./filter/filter-block.js";
export {
  DEFAULT_FILTER_POLICY,
  type FilterBitsBuilder,
  type FilterBitsReader,
  type FilterBuildingContext,
  type FilterPolicy,
} from "./filter/filter-policy.js";
export {
  EXTERNAL_SST_FILE_VERSION,
  ExternalSstFilePropertyName,
  externalFileInfo,
  globalSeqnoOf,
} from "./format/external-file.js";
export {
  type BlockHandle,
  ChecksumType,
  CompressionType,
  FormatVersion,
  IndexType,
  MetaBlockName,
  TableFormat,
} from "./format/format.js";
export { PropertyName, type TableProperties, UNKNOWN_COLUMN_FAMILY } from "./format/properties.js";
export {
  DEFAULT_CHECKSUM_TYPE,
  type IndexTypeName,
  type TableBuilderOptions,
  type TablePropertiesCollector,
} from "./table/builder-options.js";
export {
  type CapturedDataBlocks,
  capturedBytes,
  capturedTransferList,
} from "./table/captured-blocks.js";
export {
  copyMemTable,
  type FlushEntries,
  type FlushOptions,
  type FlushRules,
  type FlushSource,
  type FlushTarget,
  flushMemTable,
} from "./table/flush.js";
export {
  builtinPrefixExtractor,
  cappedPrefix,
  checkPrefixExtractor,
  fixedPrefix,
  isBuiltinPrefixExtractor,
  type PrefixExtractor,
  samePrefix,
} from "./table/prefix-extractor.js";
export {
  type ExternalSstFileInfo,
  SstFileWriter,
  type SstFileWriterOptions,
  type SstFileWriterTableOptions,
} from "./table/sst-file-writer.js";
export { TableBuilder } from "./table/table-builder.js";
export { TableCache, type TableCacheOptions } from "./table/table-cache.js";
export {
  type IndexEntry,
  type TableLayout,
  tableIndexEntries,
  tableLayout,
} from "./table/table-layout.js";
export {
  type MultiGetSink,
  TableReader,
  type TableReaderOptions,
  type TableReadOptions,
} from "./table/table-reader.js";
export type { TableVerifyResult } from "./table/table-verify.js";
export type { TableWarmResult } from "./table/table-warm.js";
