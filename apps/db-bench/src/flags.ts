/**
 * db_bench's command-line language: `--name=value` (or `--name value`, `--flag` for true,
 * `--noflag` / `--flag=false` for false). Unknown flags are an error, so a typo never runs
 * a different benchmark than the one asked for.
 */

export interface Flags {
  benchmarks: string[];
  num: number;
  reads: number;
  valueSize: number;
  keySize: number;
  db: string | undefined;
  useExistingDb: boolean;
  sync: boolean;
  disableWal: boolean;
  compressionRatio: number;
  writeBufferSize: number;
  statistics: boolean;
  seed: number;
  histogram: boolean;
  json: boolean;
  batchSize: number;
}

export const DEFAULT_BENCHMARKS = [
  "fillseq",
  "fillrandom",
  "overwrite",
  "readrandom",
  "readmissing",
  "deleterandom",
];

interface FlagSpec {
  key: keyof Flags;
  kind: "int" | "float" | "bool" | "string" | "list";
  help: string;
}

export const FLAG_SPECS: Record<string, FlagSpec> = {
  benchmarks: {
    key: "benchmarks",
    kind: "list",
    help: `comma-separated workloads (Default: ${DEFAULT_BENCHMARKS.join(",")})`,
  },
  num: { key: "num", kind: "int", help: "number of keys (Default: 200000)" },
  reads: { key: "reads", kind: "int", help: "reads per read benchmark; -1 = num (Default: -1)" },
  value_size: { key: "valueSize", kind: "int", help: "bytes per value (Default: 100)" },
  key_size: { key: "keySize", kind: "int", help: "bytes per key, >= 8 (Default: 16)" },
  db: {
    key: "db",
    kind: "string",
    help: "database directory (Default: a new temporary directory, removed at exit)",
  },
  use_existing_db: {
    key: "useExistingDb",
    kind: "bool",
    help: "open --db as is; fill benchmarks are refused (Default: false)",
  },
  sync: { key: "sync", kind: "bool", help: "fsync every write (Default: false)" },
  disable_wal: { key: "disableWal", kind: "bool", help: "write without the WAL (Default: false)" },
  compression_ratio: {
    key: "compressionRatio",
    kind: "float",
    help: "how compressible values are (Default: 0.5)",
  },
  write_buffer_size: {
    key: "writeBufferSize",
    kind: "int",
    help: "memtable bytes (Default: 64 MiB)",
  },
  statistics: {
    key: "statistics",
    kind: "bool",
    help: "collect and print statistics (Default: false)",
  },
  seed: { key: "seed", kind: "int", help: "random seed (Default: 301)" },
  histogram: {
    key: "histogram",
    kind: "bool",
    help: "print latency percentiles per benchmark (Default: false)",
  },
  json: {
    key: "json",
    kind: "bool",
    help: "print one JSON object per benchmark instead of text (Default: false)",
  },
  batch_size: {
    key: "batchSize",
    kind: "int",
    help: "writes per batch in fill benchmarks (Default: 1)",
  },
};

export function defaultFlags(): Flags {
  return {
    benchmarks: DEFAULT_BENCHMARKS,
    num: 200_000,
    reads: -1,
    valueSize: 100,
    keySize: 16,
    db: undefined,
    useExistingDb: false,
    sync: false,
    disableWal: false,
    compressionRatio: 0.5,
    writeBufferSize: 64 * 1024 * 1024,
    statistics: false,
    seed: 301,
    histogram: false,
    json: false,
    batchSize: 1,
  };
}

export class FlagError extends Error {}

export function parseFlags(argv: readonly string[]): Flags {
  const flags = defaultFlags() as unknown as Record<string, unknown>;
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
  }
  const f = flags as unknown as Flags;
  if (f.keySize < 8) throw new FlagError("--key_size must be at least 8");
  if (f.num < 1) throw new FlagError("--num must be positive");
  if (f.batchSize < 1) throw new FlagError("--batch_size must be positive");
  return f;
}

function convert(name: string, spec: FlagSpec, value: string): unknown {
  switch (spec.kind) {
    case "int": {
      const n = Number(value);
      if (!Number.isInteger(n)) throw new FlagError(`--${name} must be an integer, not "${value}"`);
      return n;
    }
    case "float": {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new FlagError(`--${name} must be a number, not "${value}"`);
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

export function helpText(): string {
  const lines = ["db-bench: RocksDB's db_bench for shale", "", "Flags:"];
  for (const [name, spec] of Object.entries(FLAG_SPECS))
    lines.push(`  --${name.padEnd(20)} ${spec.help}`);
  return lines.join("\n");
}
