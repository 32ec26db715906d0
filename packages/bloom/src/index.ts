/**
 * @shale/bloom — RocksDB's full Bloom filter, bit for bit: the format_version=5
 * "FastLocalBloom" filter with RocksDB's own key hash (XXPH3 preview), a builder that keeps
 * key hashes in chunked memory (seed 004), and a zero-copy reader with single and batched
 * queries that also reads RocksDB's legacy Bloom filter (format_version < 5); and RocksDB's
 * Standard128 Ribbon filter, read and written bit for bit (`RibbonFilterPolicy`).
 */
export {
  BloomFilterBuilder,
  type BloomFilterBuilderOptions,
  CHUNK_HASHES,
  type HashStorage,
} from "./builder.js";
export {
  checkBitsPerKey,
  chooseNumProbes,
  FilterFormat,
  fastRange32,
  filterBytesFor,
  MAX_BITS_PER_KEY,
  MIN_BITS_PER_KEY,
  millibitsPerKey,
  numLinesFor,
} from "./format.js";
export { cacheLocalFpRate, estimatedFpRate, standardFpRate } from "./fp-rate.js";
export { hashKey64 } from "./hash.js";
export { LEGACY_BLOOM_SEED, legacyBloomHash, rocksdbHash32 } from "./legacy-hash.js";
export { BloomFilterPolicy, bloomFilterPolicy } from "./policy.js";
export { BloomFilterReader, type FilterKind, type FilterSource } from "./reader.js";
export {
  RibbonFilterBuilder,
  type RibbonFilterBuilderOptions,
  type RibbonFinishKind,
  RibbonFormat,
} from "./ribbon-builder.js";
export {
  ribbonBytesForOneInFpRate,
  ribbonExpectedFpRate,
  ribbonOneInFpRate,
  ribbonSlotsForKeys,
} from "./ribbon-config.js";
export {
  ALWAYS_BLOOM,
  bitsSuffix,
  type FilterBuildingContext,
  RibbonFilterPolicy,
  ribbonFilterPolicy,
} from "./ribbon-policy.js";
export { RibbonFilterReader } from "./ribbon-reader.js";
