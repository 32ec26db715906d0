/**
 * db_bench's command-line language: `--name=value` (or `--name value`, `--flag` for true,
 * `--noflag` / `--flag=false` for false). Unknown flags and bad values are an error, so a
 * typo never runs a different benchmark than the one asked for.
 *
 * With no flags at all, db-bench runs the default comparison (`DEFAULT_COMPARISON`).
 */

export interface Flags {
  benchmarks: string[];
  engines: string[];
  num: number;
  reads: number;
  valueSize: number;
  keySize: number;
  db: string | undefined;
  useExistingDb: boolean;
  isolate: boolean;
  threads: number;
  /** --worker_readers: --threads readers in worker threads even when --threads=1. */
  workerReaders: boolean;
  cacheSize: number;
  bloomBits: number;
  /** --num_column_families: keys spread over this many column families (shale). */
  numColumnFamilies: number;
  blockSize: number;
  /** --data_block_index_type: 0 binary search, 1 binary search and hash (RocksDB's numbers). */
  dataBlockIndexType: number;
  /** --data_block_hash_table_util_ratio: keys per bucket of the data block hash index. */
  dataBlockHashTableUtilRatio: number;
  writeBufferSize: number;
  /** --db_write_buffer_size: memtable bytes of all column families together (0: no budget). */
  dbWriteBufferSize: number;
  compressionType: string;
  compressionRatio: number;
  sync: boolean;
  disableWal: boolean;
  disableAutoCompactions: boolean;
  cacheIndexAndFilterBlocks: boolean;
  /** --shared_block_cache: shale's sharedBlockCache. */
  sharedBlockCache: boolean;
  /** --avoid_flush_during_recovery: shale's avoidFlushDuringRecovery. */
  avoidFlushDuringRecovery: boolean;
  compactionCpuPriority: string;
  /** --compaction_style: 0 leveled, 1 universal, 2 FIFO (db_bench's numbers; shale only). */
  compactionStyle: number;
  /** --fifo_compaction_max_table_files_size_mb: FIFO's maxTableFilesSize in MiB; 0 = shale's default (1 GiB). */
  fifoMaxTableFilesSizeMb: number;
  /** --rate_limiter_bytes_per_sec: shale's rateLimiter (0: none). */
  rateLimiterBytesPerSec: number;
  prepopulateBlockCache: string;
  statistics: boolean;
  mergeOperator: string;
  mergeKeys: number;
  mergeReadPercent: number;
  multireadBatchSize: number;
  seekNexts: number;
  /** --prefix_size: shale's prefixExtractor fixedPrefix(n) (0: none); with keys_per_prefix, key layout. */
  prefixSize: number;
  /** --keys_per_prefix: keys share prefixes of prefix_size bytes, this many each (0: no prefix in keys). */
  keysPerPrefix: number;
  /** --prefix_same_as_start / --total_order_seek: the seeks' read options (db_bench's). */
  prefixSameAsStart: boolean;
  totalOrderSeek: boolean;
  /** --memtable_bloom_size_ratio / --memtable_whole_key_filtering: shale's memtable Bloom filter. */
  memtableBloomSizeRatio: number;
  memtableWholeKeyFiltering: boolean;
  benchmarkWriteRateLimit: number;
  seed: number;
  histogram: boolean;
  maxPause: boolean;
  /** --tree_shape: print the engine's files per level after each benchmark. */
  treeShape: boolean;
  json: boolean;
  /** --report: write an HTML page of time series to this file (report/). */
  report: string | undefined;
  /** --report_samples: print the time series as JSON lines (what --isolate's children send). */
  reportSamples: boolean;
  batchSize: number;
  writesBeforeDeleteRange: number;
  writesPerRangeTombstone: number;
  rangeTombstoneWidth: number;
  maxNumRangeTombstones: number;
  expandRangeTombstones: boolean;
  /** randomtransaction: keys read for update and written per transaction (db_bench's). */
  transactionSets: number;
  /** Open shale as a TransactionDB (pessimistic transactions). */
  transactionDb: boolean;
  /** Optimistic transactions (shale's default; the flag is db_bench's). */
  optimisticTransactionDb: boolean;
}

export const DEFAULT_BENCHMARKS = [
  "fillseq",
  "fillrandom",
  "overwrite",
  "readrandom",
  "readseq",
  "readreverse",
  "seekrandom",
  "readwhilewriting",
  "deleterandom",
];

/** What a run with no flags at all does (the root `bench` script). */
export const DEFAULT_COMPARISON = ["--engines=shale,classic-level,lmdb", "--num=100000"];

export const ENGINE_NAMES = [
  "shale",
  "classic-level",
  "lmdb",
  "rocksdb",
  "memory-level",
  "shale-level",
  "better-sqlite3",
  "rocksdb-native",
];

export const MERGE_OPERATORS = ["max", "uint64add", "stringappend"];

interface FlagSpec {
  key: keyof Flags;
  kind: "int" | "float" | "bool" | "string" | "list";
  help: string;
}

const MiB = 1024 * 1024;

export const FLAG_SPECS: Record<string, FlagSpec> = {
  benchmarks: {
    key: "benchmarks",
    kind: "list",
    help: `comma-separated workloads (Default: ${DEFAULT_BENCHMARKS.join(",")})`,
  },
  engines: {
    key: "engines",
    kind: "list",
    help: `comma-separated engines: ${ENGINE_NAMES.join(",")} (Default: shale)`,
  },
  num: { key: "num", kind: "int", help: "number of keys (Default: 1000000)" },
  reads: { key: "reads", kind: "int", help: "ops per read benchmark; -1 = num (Default: -1)" },
  value_size: { key: "valueSize", kind: "int", help: "bytes per value (Default: 100)" },
  key_size: { key: "keySize", kind: "int", help: "bytes per key, >= 8 (Default: 16)" },
  db: {
    key: "db",
    kind: "string",
    help: "database directory; with several engines each uses <db>/<engine> (Default: a new temporary directory, removed at exit)",
  },
  use_existing_db: {
    key: "useExistingDb",
    kind: "bool",
    help: "open --db as is; fill benchmarks are refused (Default: false)",
  },
  isolate: {
    key: "isolate",
    kind: "bool",
    help: "run each engine in its own child process, for per-engine peak RSS (Default: false)",
  },
  threads: {
    key: "threads",
    kind: "int",
    help: "reader threads of readrandom, readseq and seekrandom, each doing the whole workload (shale, lmdb); other workloads run on one thread (Default: 1)",
  },
  worker_readers: {
    key: "workerReaders",
    kind: "bool",
    help: "run --threads readers in worker threads even when --threads=1 (shale: one worker reader, not the writer's database), to compare one worker with the main thread (Default: false)",
  },
  cache_size: {
    key: "cacheSize",
    kind: "int",
    help: "block cache bytes (shale blockCacheSize, classic-level/rocksdb cacheSize, better-sqlite3 cache_size); -1 = each engine's own default (shale's is sized to the machine) (Default: 33554432)",
  },
  bloom_bits: {
    key: "bloomBits",
    kind: "float",
    help: "Bloom filter bits per key, fractions allowed as in RocksDB's db_bench (shale bloomBitsPerKey, rocksdb filterPolicy); -1 = the engine's default, 10 for all three (Default: -1)",
  },
  num_column_families: {
    key: "numColumnFamilies",
    kind: "int",
    help: "column families the keys are spread over (db_bench's flag; shale only: key i goes to family i mod n, scans read the default family) (Default: 1)",
  },
  block_size: { key: "blockSize", kind: "int", help: "data block bytes (Default: 4096)" },
  data_block_index_type: {
    key: "dataBlockIndexType",
    kind: "int",
    help: "0: data blocks binary-searched; 1: with RocksDB's data block hash index for point lookups (shale dataBlockIndexType binaryAndHash) (Default: 0)",
  },
  data_block_hash_table_util_ratio: {
    key: "dataBlockHashTableUtilRatio",
    kind: "float",
    help: "keys per bucket of the data block hash index (Default: 0.75)",
  },
  write_buffer_size: {
    key: "writeBufferSize",
    kind: "int",
    help: "memtable bytes (Default: 67108864)",
  },
  db_write_buffer_size: {
    key: "dbWriteBufferSize",
    kind: "int",
    help: "memtable bytes of all column families together; once reached, the family with the oldest memtable flushes (db_bench's flag: RocksDB's db_write_buffer_size; shale's dbWriteBufferSize); 0 for no budget (Default: 0)",
  },
  compression_type: {
    key: "compressionType",
    kind: "string",
    help: "none or snappy (rocksdb: on = its zstd) (Default: snappy)",
  },
  compression_ratio: {
    key: "compressionRatio",
    kind: "float",
    help: "how compressible values are, in (0, 1] (Default: 0.5)",
  },
  sync: { key: "sync", kind: "bool", help: "fsync every write (Default: false)" },
  disable_wal: { key: "disableWal", kind: "bool", help: "write without the WAL (Default: false)" },
  disable_auto_compactions: {
    key: "disableAutoCompactions",
    kind: "bool",
    help: "no automatic compactions (shale only) (Default: false)",
  },
  cache_index_and_filter_blocks: {
    key: "cacheIndexAndFilterBlocks",
    kind: "bool",
    help: "keep index and filter blocks in the block cache, charged to --cache_size (shale's cacheIndexAndFilterBlocks; db_bench's flag of that name, false there too); false holds them outside the cache (shale only) (Default: false)",
  },
  avoid_flush_during_recovery: {
    key: "avoidFlushDuringRecovery",
    kind: "bool",
    help: "an open keeps the memtables its WAL replay filled instead of flushing them to L0 tables (shale's avoidFlushDuringRecovery; RocksDB's db_bench defaults to false, flushing during the open) (Default: true)",
  },
  shared_block_cache: {
    key: "sharedBlockCache",
    kind: "bool",
    help: "shale's sharedBlockCache: point lookups' data blocks in one cache of --cache_size bytes shared by the database and its --threads worker readers, in SharedArrayBuffer slabs (shale only) (Default: false)",
  },
  prepopulate_block_cache: {
    key: "prepopulateBlockCache",
    kind: "string",
    help: "disable, flush_only or flush_and_compaction: shale's prepopulateBlockCache (RocksDB's prepopulate_block_cache; 1 in db_bench is flush_only), the blocks of new tables put into the block cache when installed (shale only) (Default: flush_and_compaction, shale's default; RocksDB's db_bench: 0, disable)",
  },
  compaction_style: {
    key: "compactionStyle",
    kind: "int",
    help: "0 leveled, 1 universal, 2 FIFO: shale's compactionStyle (db_bench's compaction_style; shale only) (Default: 0)",
  },
  fifo_compaction_max_table_files_size_mb: {
    key: "fifoMaxTableFilesSizeMb",
    kind: "int",
    help: "with --compaction_style=2: FIFO's maxTableFilesSize in MiB; 0 = shale's default, 1 GiB (db_bench's 0 would delete every table) (shale only) (Default: 0)",
  },
  compaction_cpu_priority: {
    key: "compactionCpuPriority",
    kind: "string",
    help: "normal, low (nice 10) or idle (nice 19): CPU priority of shale's compaction worker threads on Linux (shale only) (Default: normal)",
  },
  rate_limiter_bytes_per_sec: {
    key: "rateLimiterBytesPerSec",
    kind: "int",
    help: "bytes per second flushes and compactions may write (db_bench's flag: RocksDB's rate_limiter; shale's rateLimiter option); 0 for none (Default: 0)",
  },
  statistics: {
    key: "statistics",
    kind: "bool",
    help: "collect statistics and print each engine's stats at the end (Default: false)",
  },
  merge_operator: {
    key: "mergeOperator",
    kind: "string",
    help: `${MERGE_OPERATORS.join(", ")}; needed by the merge workloads (Default: none)`,
  },
  merge_keys: {
    key: "mergeKeys",
    kind: "int",
    help: "distinct keys the merge workloads touch; -1 = num (Default: -1)",
  },
  mergereadpercent: {
    key: "mergeReadPercent",
    kind: "int",
    help: "readrandommergerandom: percent of ops that are merges, as in db_bench (Default: 70)",
  },
  multiread_batch_size: {
    key: "multireadBatchSize",
    kind: "int",
    help: "keys per getMany in multireadrandom; --batch_size sets it too when this flag is not given (db_bench's entries_per_batch) (Default: 100)",
  },
  prefix_size: {
    key: "prefixSize",
    kind: "int",
    help: "a fixed prefix extractor of this many bytes (shale's prefixExtractor: fixedPrefix(n), with prefix Bloom entries in the tables); seeks then use the prefix filters as db_bench's do; 0 = none (Default: 0)",
  },
  keys_per_prefix: {
    key: "keysPerPrefix",
    kind: "int",
    help: "keys share a prefix of prefix_size bytes, this many keys per prefix, as db_bench's keys (prefix = n mod (num / keys_per_prefix)); 0 = plain keys (Default: 0)",
  },
  memtable_bloom_size_ratio: {
    key: "memtableBloomSizeRatio",
    kind: "float",
    help: "a Bloom filter in each memtable of write_buffer_size * this bytes over the prefix_size prefixes (and whole keys with --memtable_whole_key_filtering); gets and prefix seeks ask it first (shale's memtablePrefixBloomSizeRatio) (Default: 0, none)",
  },
  memtable_whole_key_filtering: {
    key: "memtableWholeKeyFiltering",
    kind: "bool",
    help: "the memtable Bloom filter holds whole keys (shale's memtableWholeKeyFiltering; with --memtable_bloom_size_ratio) (Default: false)",
  },
  prefix_same_as_start: {
    key: "prefixSameAsStart",
    kind: "bool",
    help: "seeks stay within the seek key's prefix (ReadOptions.prefix_same_as_start; with --prefix_size) (Default: false)",
  },
  total_order_seek: {
    key: "totalOrderSeek",
    kind: "bool",
    help: "seeks ignore the prefix filters (ReadOptions.total_order_seek) (Default: false)",
  },
  seek_nexts: {
    key: "seekNexts",
    kind: "int",
    help: "next() calls after each seek; RocksDB's default is 0 (Default: 10)",
  },
  benchmark_write_rate_limit: {
    key: "benchmarkWriteRateLimit",
    kind: "int",
    help: "bytes/s of the writes interleaved in readwhilewriting/readwhilemerging; 0 = one write per 10 reads (Default: 0)",
  },
  seed: { key: "seed", kind: "int", help: "random seed (Default: 301)" },
  histogram: {
    key: "histogram",
    kind: "bool",
    help: "print latency percentiles per benchmark (Default: false)",
  },
  max_pause: {
    key: "maxPause",
    kind: "bool",
    help: "report each benchmark's longest main-thread pause: the longest gap between two finished ops, or the event-loop delay while compact/waitforcompaction await (Default: false)",
  },
  tree_shape: {
    key: "treeShape",
    kind: "bool",
    help: "after each benchmark print the engine's table files per level, e.g. (tree L0=4 L1=4 L2=0): read amplification of an LSM engine; engines without levels print nothing (Default: false)",
  },
  json: {
    key: "json",
    kind: "bool",
    help: "print one JSON object per benchmark instead of text (Default: false)",
  },
  report: {
    key: "report",
    kind: "string",
    help: "write one self-contained HTML page with plots over time (ops/sec, p99 latency, L0 files, memtables, compaction bytes, stalls) for every engine to this file (Default: none)",
  },
  report_samples: {
    key: "reportSamples",
    kind: "bool",
    help: "print the time series --report plots as JSON lines (what --isolate's children send the parent) (Default: false)",
  },
  batch_size: {
    key: "batchSize",
    kind: "int",
    help: "writes per batch in the fill workloads; keys per getMany in multireadrandom unless --multiread_batch_size is given (Default: 1)",
  },
  writes_before_delete_range: {
    key: "writesBeforeDeleteRange",
    kind: "int",
    help: "fill/overwrite: writes before the first range deletion is due (Default: 0)",
  },
  writes_per_range_tombstone: {
    key: "writesPerRangeTombstone",
    kind: "int",
    help: "fill/overwrite: a range deletion after every N writes (past --writes_before_delete_range); 0 = none (Default: 0)",
  },
  range_tombstone_width: {
    key: "rangeTombstoneWidth",
    kind: "int",
    help: "keys covered by each range deletion (Default: 100)",
  },
  max_num_range_tombstones: {
    key: "maxNumRangeTombstones",
    kind: "int",
    help: "most range deletions per workload; as in db_bench, 0 writes none (Default: 0)",
  },
  expand_range_tombstones: {
    key: "expandRangeTombstones",
    kind: "bool",
    help: "write each range deletion as point deletes of every key in it (Default: false)",
  },
  transaction_sets: {
    key: "transactionSets",
    kind: "int",
    help: "randomtransaction: keys each transaction reads for update and writes back (Default: 2)",
  },
  transaction_db: {
    key: "transactionDb",
    kind: "bool",
    help: "transactions are pessimistic (shale opened with transactionDB; RocksDB's TransactionDB) (Default: false)",
  },
  optimistic_transaction_db: {
    key: "optimisticTransactionDb",
    kind: "bool",
    help: "transactions are optimistic, checked at commit (shale's default without --transaction_db) (Default: false)",
  },
};

export function defaultFlags(): Flags {
  return {
    benchmarks: DEFAULT_BENCHMARKS,
    engines: ["shale"],
    num: 1_000_000,
    reads: -1,
    valueSize: 100,
    keySize: 16,
    db: undefined,
    useExistingDb: false,
    isolate: false,
    threads: 1,
    workerReaders: false,
    cacheSize: 32 * MiB,
    bloomBits: -1,
    numColumnFamilies: 1,
    blockSize: 4096,
    dataBlockIndexType: 0,
    dataBlockHashTableUtilRatio: 0.75,
    writeBufferSize: 64 * MiB,
    dbWriteBufferSize: 0,
    compressionType: "snappy",
    compressionRatio: 0.5,
    sync: false,
    disableWal: false,
    disableAutoCompactions: false,
    cacheIndexAndFilterBlocks: false,
    sharedBlockCache: false,
    avoidFlushDuringRecovery: true,
    compactionCpuPriority: "normal",
    compactionStyle: 0,
    fifoMaxTableFilesSizeMb: 0,
    rateLimiterBytesPerSec: 0,
    prepopulateBlockCache: "flush_and_compaction",
    statistics: false,
    mergeOperator: "",
    mergeKeys: -1,
    mergeReadPercent: 70,
    multireadBatchSize: 100,
    seekNexts: 10,
    prefixSize: 0,
    keysPerPrefix: 0,
    prefixSameAsStart: false,
    memtableBloomSizeRatio: 0,
    memtableWholeKeyFiltering: false,
    totalOrderSeek: false,
    benchmarkWriteRateLimit: 0,
    seed: 301,
    histogram: false,
    maxPause: false,
    treeShape: false,
    json: false,
    report: undefined,
    reportSamples: false,
    batchSize: 1,
    writesBeforeDeleteRange: 0,
    writesPerRangeTombstone: 0,
    rangeTombstoneWidth: 100,
    maxNumRangeTombstones: 0,
    expandRangeTombstones: false,
    transactionSets: 2,
    transactionDb: false,
    optimisticTransactionDb: false,
  };
}

export class FlagError extends Error {}

/** Parses and validates argv (without node and the script). */
export function parseFlags(argv: readonly string[]): Flags {
  const flags = defaultFlags() as unknown as Record<string, unknown>;
  const given = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new FlagError(`unexpected argument "${arg}"`);
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let spec = FLAG_SPECS[name];
    if (
      spec === undefined &&
      name.startsWith("no") &&
      FLAG_SPECS[name.slice(2)]?.kind === "bool" &&
      value === undefined
    ) {
      spec = FLAG_SPECS[name.slice(2)];
      value = "false";
    }
    if (spec === undefined) throw new FlagError(`unknown flag --${name} (see --help)`);
    if (value === undefined) {
      if (spec.kind === "bool") value = "true";
      else {
        value = argv[++i];
        if (value === undefined) throw new FlagError(`--${name} needs a value`);
      }
    }
    flags[spec.key] = convert(name, spec, value);
    given.add(spec.key);
  }
  const f = flags as unknown as Flags;
  // db_bench's multireadrandom reads --batch_size keys per MultiGet (entries_per_batch).
  if (given.has("batchSize") && !given.has("multireadBatchSize"))
    f.multireadBatchSize = f.batchSize;
  validate(f);
  return f;
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new FlagError(message);
}

function validate(f: Flags): void {
  check(f.keySize >= 8 && f.keySize <= 1024, "--key_size must be in [8, 1024]");
  check(f.num >= 1, "--num must be positive");
  check(f.valueSize >= 0, "--value_size must not be negative");
  check(f.batchSize >= 1, "--batch_size must be positive");
  check(f.compressionRatio > 0 && f.compressionRatio <= 1, "--compression_ratio must be in (0, 1]");
  check(f.cacheSize >= -1, "--cache_size must be -1 (engine default) or >= 0");
  check(f.blockSize >= 256, "--block_size must be at least 256");
  check(f.writeBufferSize >= 65536, "--write_buffer_size must be at least 65536");
  check(f.dbWriteBufferSize >= 0, "--db_write_buffer_size must be >= 0");
  check(f.bloomBits >= -1, "--bloom_bits must be -1 (engine default) or >= 0");
  check(
    f.dataBlockIndexType === 0 || f.dataBlockIndexType === 1,
    "--data_block_index_type must be 0 or 1",
  );
  check(
    f.dataBlockHashTableUtilRatio > 0 && Number.isFinite(f.dataBlockHashTableUtilRatio),
    "--data_block_hash_table_util_ratio must be a number > 0",
  );
  check(
    f.numColumnFamilies >= 1 && f.numColumnFamilies <= 1000,
    "--num_column_families must be in [1, 1000]",
  );
  check(
    ["disable", "flush_only", "flush_and_compaction"].includes(f.prepopulateBlockCache),
    `--prepopulate_block_cache must be disable, flush_only or flush_and_compaction, not "${f.prepopulateBlockCache}"`,
  );
  check(f.rateLimiterBytesPerSec >= 0, "--rate_limiter_bytes_per_sec must be >= 0");
  check(
    [0, 1, 2].includes(f.compactionStyle),
    `--compaction_style must be 0 (leveled), 1 (universal) or 2 (FIFO), not ${f.compactionStyle}`,
  );
  check(
    f.fifoMaxTableFilesSizeMb >= 0,
    `--fifo_compaction_max_table_files_size_mb must be >= 0, not ${f.fifoMaxTableFilesSizeMb}`,
  );
  check(
    ["normal", "low", "idle"].includes(f.compactionCpuPriority),
    `--compaction_cpu_priority must be normal, low or idle, not "${f.compactionCpuPriority}"`,
  );
  check(
    f.compressionType === "none" || f.compressionType === "snappy",
    `--compression_type must be none or snappy, not "${f.compressionType}"`,
  );
  check(
    f.mergeOperator === "" || MERGE_OPERATORS.includes(f.mergeOperator),
    `--merge_operator must be one of ${MERGE_OPERATORS.join(", ")}, not "${f.mergeOperator}"`,
  );
  check(f.mergeKeys === -1 || f.mergeKeys >= 1, "--merge_keys must be -1 (= num) or positive");
  check(
    f.mergeReadPercent >= 0 && f.mergeReadPercent <= 100,
    "--mergereadpercent must be in [0, 100]",
  );
  check(f.multireadBatchSize >= 1, "--multiread_batch_size must be positive");
  check(f.seekNexts >= 0, "--seek_nexts must not be negative");
  check(f.prefixSize >= 0 && f.prefixSize <= f.keySize, "--prefix_size must be in [0, key_size]");
  check(
    f.memtableBloomSizeRatio >= 0 && f.memtableBloomSizeRatio <= 1,
    "--memtable_bloom_size_ratio must be in [0, 1]",
  );
  check(f.keysPerPrefix >= 0, "--keys_per_prefix must not be negative");
  check(
    f.keysPerPrefix === 0 || (f.prefixSize > 0 && f.keySize >= f.prefixSize + 1),
    "--keys_per_prefix needs --prefix_size > 0 and key_size > prefix_size",
  );
  check(f.benchmarkWriteRateLimit >= 0, "--benchmark_write_rate_limit must not be negative");
  check(f.rangeTombstoneWidth >= 1, "--range_tombstone_width must be positive");
  check(f.writesBeforeDeleteRange >= 0, "--writes_before_delete_range must not be negative");
  check(f.writesPerRangeTombstone >= 0, "--writes_per_range_tombstone must not be negative");
  check(f.maxNumRangeTombstones >= 0, "--max_num_range_tombstones must not be negative");
  check(
    f.writesPerRangeTombstone === 0 || f.maxNumRangeTombstones > 0,
    "--writes_per_range_tombstone needs --max_num_range_tombstones > 0 (as in db_bench, 0 writes no range tombstones)",
  );
  check(!(f.sync && f.disableWal), "--sync and --disable_wal cannot be combined");
  check(f.transactionSets >= 1, "--transaction_sets must be positive");
  check(
    !(f.transactionDb && f.optimisticTransactionDb),
    "--transaction_db and --optimistic_transaction_db cannot be combined",
  );
  check(
    Number.isInteger(f.threads) && f.threads >= 1 && f.threads <= 64,
    "--threads must be an integer in [1, 64] (see README, 'Threads')",
  );
  check(f.engines.length > 0, "--engines needs at least one engine");
  for (const e of f.engines) {
    check(ENGINE_NAMES.includes(e), `unknown engine "${e}" (known: ${ENGINE_NAMES.join(", ")})`);
  }
  check(new Set(f.engines).size === f.engines.length, "--engines lists an engine twice");
  check(f.benchmarks.length > 0, "--benchmarks needs at least one workload");
  check(!f.useExistingDb || f.db !== undefined, "--use_existing_db needs --db");
}

function convert(name: string, spec: FlagSpec, value: string): unknown {
  switch (spec.kind) {
    case "int": {
      const n = Number(value);
      if (value.trim() === "" || !Number.isSafeInteger(n))
        throw new FlagError(`--${name} must be an integer, not "${value}"`);
      return n;
    }
    case "float": {
      const n = Number(value);
      if (value.trim() === "" || !Number.isFinite(n))
        throw new FlagError(`--${name} must be a number, not "${value}"`);
      return n;
    }
    case "bool":
      if (value === "true" || value === "1") return true;
      if (value === "false" || value === "0") return false;
      throw new FlagError(`--${name} must be true or false, not "${value}"`);
    case "list":
      return value.split(",").filter((s) => s.length > 0);
    default:
      return value;
  }
}

/** `reads` with -1 resolved to `num`. */
export function readCount(f: Flags): number {
  return f.reads < 0 ? f.num : f.reads;
}

/** `merge_keys` with -1 resolved to `num`. */
export function mergeKeyCount(f: Flags): number {
  return f.mergeKeys < 0 ? f.num : f.mergeKeys;
}

export function helpText(): string {
  const lines = [
    "db-bench: RocksDB's db_bench for shale, side by side with peer engines",
    "",
    `With no flags it runs the default comparison: ${DEFAULT_COMPARISON.join(" ")}`,
    "",
    "Flags:",
  ];
  for (const [name, spec] of Object.entries(FLAG_SPECS))
    lines.push(`  --${name.padEnd(28)} ${spec.help}`);
  return lines.join("\n");
}
