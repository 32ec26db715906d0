/**
 * @shale/base — the spec package: bytes and coding, comparators, internal keys and value
 * kinds, checksums, errors, the FileSystem contract and implementations, statistics, and the
 * iterator contract. Every other shale package builds on these.
 */
export * from "./bytes.js";
export * from "./checksum.js";
export * from "./coding.js";
export * from "./comparator.js";
export * from "./errors.js";
export * from "./fast-decode.js";
export * from "./fs/index.js";
export * from "./internal-key.js";
export * from "./invariants.js";
export * from "./iterator.js";
export * from "./lookup.js";
export * from "./merge-operator.js";
export * from "./open-resources.js";
export * from "./statistics.js";
export * from "./worker-exec-argv.js";
