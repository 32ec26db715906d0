/**
 * @shale/bloom — a cache-local Bloom filter in RocksDB's format_version=5 "FastLocalBloom"
 * layout: a builder that keeps key hashes in chunked memory (seed 004) and a zero-copy
 * reader with single and batched queries.
 */
export {
  BloomFilterBuilder,
  type BloomFilterBuilderOptions,
  CHUNK_HASHES,
  type HashStorage,
} from "./builder.js";
export {
  chooseNumProbes,
  FilterFormat,
  fastRange32,
  filterBytesFor,
  millibitsPerKey,
  numLinesFor,
} from "./format.js";
export { cacheLocalFpRate, estimatedFpRate, standardFpRate } from "./fp-rate.js";
export { hashKey64 } from "./hash.js";
export { BloomFilterReader, type FilterSource } from "./reader.js";
