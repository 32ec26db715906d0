/**
 * Command-line flags of filter-bench, spelled as RocksDB's filter_bench spells them
 * (`--name=value`, `-name=value`, `--name value`; booleans also as `--name` / `--noname`).
 */

export type BuilderChoice = "chunked" | "doubling" | "both";
export type Clock = "wall" | "cpu";

export interface BenchFlags {
  /** Average keys per filter; each filter varies uniformly by ±varyKeysPct %. Default: 10000. */
  averageKeysPerFilter: number;
  /** Spread of keys per filter around the average, in percent (0..90). Default: 40. */
  varyKeysPct: number;
  /** Build filters until their total size reaches this many MiB. Default: 200. */
  workingMemSizeMb: number;
  /** Bits per key of every filter. Default: 10. */
  bitsPerKey: number;
  /** Bytes per key (at least 8). Default: 16. */
  keySize: number;
  /**
   * Millions of queries per test mode (divided by 7 with --quick, as RocksDB does).
   * Default: 20, or 5 when averageKeysPerFilter >= 1,000,000 (every query is then a cache
   * miss, and the full run would take over ten minutes).
   */
  mQueries: number;
  /**
   * Keys per batch in the "Batched" query modes (RocksDB's -batch_size): each batch goes
   * to one random filter. Default: 8.
   */
  batchSize: number;
  /**
   * Which filter (RocksDB's -impl): "fastlocalbloom" (format_version 5 Bloom) or "ribbon"
   * (Standard128 Ribbon at Bloom-equivalent bits_per_key). Default: fastlocalbloom.
   */
  impl: FilterImpl;
  /** Which hash storage to build with; "both" runs each in its own child process. Default: both. */
  builder: BuilderChoice;
  /** Fewer modes and queries, no verification pass (RocksDB's -quick). Default: false. */
  quick: boolean;
  /** Seed of the random generator choosing filter sizes and queries. Default: 0. */
  seed: number;
  /** Count hashing in the net ns/op of queries (otherwise the dry run includes it). Default: false. */
  netIncludesHashing: boolean;
  /** Runs per builder (each a child process); the summary shows medians. Default: 1. */
  runs: number;
  /**
   * "wall": elapsed time, as RocksDB measures. "cpu": this process's user+system CPU time,
   * which a busy shared machine disturbs less. Default: wall.
   */
  clock: Clock;
  /** Print usage and exit. */
  help: boolean;
}

export const defaultFlags: BenchFlags = {
  averageKeysPerFilter: 10000,
  varyKeysPct: 40,
  workingMemSizeMb: 200,
  bitsPerKey: 10,
  keySize: 16,
  mQueries: 20,
  batchSize: 8,
  impl: "fastlocalbloom",
  builder: "both",
  quick: false,
  seed: 0,
  netIncludesHashing: false,
  runs: 1,
  clock: "wall",
  help: false,
};

export const usage = `filter-bench: RocksDB's filter_bench for @shale/bloom

USAGE: filter-bench [--quick] [OPTIONS]

  --average_keys_per_filter=N  average keys per filter (default 10000)
  --vary_keys_pct=P            keys per filter vary uniformly by ±P % (default 40;
                               RocksDB's own spread is about ±2*sqrt(average))
  --working_mem_size_mb=MB     total size of all filters to build (default 200)
  --bits_per_key=B             bits per key (default 10)
  --key_size=N                 bytes per key, >= 8 (default 16)
  --m_queries=M                millions of queries per test mode (default 20; 5 when
                               average_keys_per_filter >= 1000000)
  --batch_size=N               keys per batch in the batched query modes (default 8)
  --impl=fastlocalbloom|ribbon  the filter: Bloom, or Ribbon at Bloom-equivalent bits/key
                               (default fastlocalbloom)
  --builder=chunked|doubling|both
                               hash storage of the builder; "both" runs each in its own
                               child process and prints them side by side (default both)
  --runs=N                     runs per builder, summary shows medians (default 1)
  --clock=wall|cpu             time by elapsed time (RocksDB) or process CPU time,
                               steadier on a busy machine (default wall)
  --quick                      fewer modes, m_queries / 7, no verification pass
  --seed=N                     random seed (default 0)
  --net_includes_hashing       count key hashing in query net ns/op
  --help                       this text
`;

/** From this many keys per filter on, the default m_queries is LARGE_FILTER_M_QUERIES. */
const LARGE_FILTER_KEYS = 1_000_000;
const LARGE_FILTER_M_QUERIES = 5;

/** The filter built. */
export type FilterImpl = "fastlocalbloom" | "ribbon";

type Kind = "number" | "boolean" | "builder" | "clock" | "impl";
const specs: Record<string, [keyof BenchFlags, Kind]> = {
  average_keys_per_filter: ["averageKeysPerFilter", "number"],
  vary_keys_pct: ["varyKeysPct", "number"],
  working_mem_size_mb: ["workingMemSizeMb", "number"],
  bits_per_key: ["bitsPerKey", "number"],
  key_size: ["keySize", "number"],
  m_queries: ["mQueries", "number"],
  batch_size: ["batchSize", "number"],
  builder: ["builder", "builder"],
  impl: ["impl", "impl"],
  quick: ["quick", "boolean"],
  seed: ["seed", "number"],
  net_includes_hashing: ["netIncludesHashing", "boolean"],
  runs: ["runs", "number"],
  clock: ["clock", "clock"],
  help: ["help", "boolean"],
};

/** Parses `argv` (without node and script). Throws Error with a readable message. */
export function parseFlags(argv: readonly string[]): BenchFlags {
  const flags: BenchFlags = { ...defaultFlags };
  const values = flags as unknown as Record<string, unknown>;
  let mQueriesGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--?([a-z_0-9]+)(?:=(.*))?$/.exec(arg);
    if (m === null) throw new Error(`unexpected argument ${arg}`);
    let name = m[1]!;
    let raw = m[2];
    let spec = specs[name];
    if (spec === undefined && name.startsWith("no") && specs[name.slice(2)]?.[1] === "boolean") {
      name = name.slice(2);
      spec = specs[name];
      if (raw !== undefined) throw new Error(`--no${name} takes no value`);
      raw = "false";
    }
    if (spec === undefined) throw new Error(`unknown flag --${name}\n\n${usage}`);
    const [field, kind] = spec;
    if (kind === "boolean") {
      if (raw === undefined) raw = "true";
      if (raw !== "true" && raw !== "false") throw new Error(`--${name} must be true or false`);
      values[field] = raw === "true";
      continue;
    }
    if (raw === undefined) {
      raw = argv[++i];
      if (raw === undefined) throw new Error(`--${name} needs a value`);
    }
    if (kind === "clock") {
      if (raw !== "wall" && raw !== "cpu")
        throw new Error(`--clock must be wall or cpu, got ${raw}`);
      values[field] = raw;
      continue;
    }
    if (kind === "impl") {
      if (raw !== "fastlocalbloom" && raw !== "ribbon") {
        throw new Error(`--impl must be fastlocalbloom or ribbon, got ${raw}`);
      }
      values[field] = raw;
      continue;
    }
    if (kind === "builder") {
      if (raw !== "chunked" && raw !== "doubling" && raw !== "both") {
        throw new Error(`--builder must be chunked, doubling or both, got ${raw}`);
      }
      values[field] = raw;
      continue;
    }
    if (field === "mQueries") mQueriesGiven = true;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n))
      throw new Error(`--${name} must be a number, got ${raw}`);
    values[field] = n;
  }
  if (!mQueriesGiven && flags.averageKeysPerFilter >= LARGE_FILTER_KEYS) {
    flags.mQueries = LARGE_FILTER_M_QUERIES;
  }
  validate(flags);
  return flags;
}

function validate(f: BenchFlags): void {
  const check = (ok: boolean, message: string) => {
    if (!ok) throw new Error(message);
  };
  check(
    Number.isInteger(f.averageKeysPerFilter) && f.averageKeysPerFilter >= 1,
    "--average_keys_per_filter must be an integer >= 1",
  );
  check(f.averageKeysPerFilter <= 2 ** 30, "--average_keys_per_filter must be <= 2^30");
  check(f.varyKeysPct >= 0 && f.varyKeysPct <= 90, "--vary_keys_pct must be in [0, 90]");
  check(f.workingMemSizeMb > 0, "--working_mem_size_mb must be > 0");
  check(f.bitsPerKey >= 1 && f.bitsPerKey <= 100, "--bits_per_key must be in [1, 100]");
  check(
    Number.isInteger(f.keySize) && f.keySize >= 8 && f.keySize <= 4096,
    "--key_size must be an integer in [8, 4096]",
  );
  check(f.mQueries > 0, "--m_queries must be > 0");
  check(
    Number.isInteger(f.batchSize) && f.batchSize >= 1 && f.batchSize <= 1024,
    "--batch_size must be an integer in [1, 1024]",
  );
  check(
    Number.isInteger(f.seed) && f.seed >= 0 && f.seed <= 0xffffffff,
    "--seed must be a 32-bit unsigned integer",
  );
  check(
    Number.isInteger(f.runs) && f.runs >= 1 && f.runs <= 99,
    "--runs must be an integer in [1, 99]",
  );
}

/** The flags as command-line arguments (for a child process). */
export function toArgs(f: BenchFlags): string[] {
  return [
    `--average_keys_per_filter=${f.averageKeysPerFilter}`,
    `--vary_keys_pct=${f.varyKeysPct}`,
    `--working_mem_size_mb=${f.workingMemSizeMb}`,
    `--bits_per_key=${f.bitsPerKey}`,
    `--key_size=${f.keySize}`,
    `--m_queries=${f.mQueries}`,
    `--batch_size=${f.batchSize}`,
    `--builder=${f.builder}`,
    `--impl=${f.impl}`,
    `--quick=${f.quick}`,
    `--seed=${f.seed}`,
    `--net_includes_hashing=${f.netIncludesHashing}`,
    `--runs=${f.runs}`,
    `--clock=${f.clock}`,
  ];
}
