/**
 * Support for interop tests against RocksDB builds that Node users run, installed from npm
 * as devDependencies of this package (both ship prebuilt binaries):
 * - `rocksdb-native` (Holepunch's binding, RocksDB 10.5.1: table format 6, XXH3, column
 *   families, Ribbon filters, blob files; its build has no Snappy);
 * - `@nxtedition/rocksdb` (RocksDB 9.7: format 6, ZSTD tables with dictionaries, ZSTD WAL).
 *
 * Each runs in a child process (`producers/*.cjs`) that executes a JSON plan of steps and
 * exits without waiting for `close()`, which may never settle. A binding that cannot load on
 * this machine makes `producerUnavailableReason` say why, and the tests skip with that
 * reason printed. Test-only (excluded from the build).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export type Producer = "rocksdb-native" | "nxtedition-rocksdb";

const SCRIPTS: Record<Producer, string> = {
  "rocksdb-native": fileURLToPath(new URL("./producers/rocksdb-native.cjs", import.meta.url)),
  "nxtedition-rocksdb": fileURLToPath(
    new URL("./producers/nxtedition-rocksdb.cjs", import.meta.url),
  ),
};

/** A step of a producer's plan; keys and values are hex. See the scripts' headers. */
export type ProducerStep =
  | { op: "put"; cf?: string; key: string; value: string }
  | { op: "delete"; cf?: string; key: string }
  | { op: "deleteRange"; cf?: string; start: string; end: string }
  | { op: "flush"; cf?: string }
  | { op: "compact"; cf?: string }
  | { op: "scan"; cf?: string; reverse?: boolean }
  | { op: "get"; cf?: string; keys: string[] }
  /** nxtedition-rocksdb only: `count` puts of `fillEntry(prefix, i, valueSize)`. */
  | { op: "fill"; cf?: string; prefix: string; count: number; valueSize: number }
  /** nxtedition-rocksdb only: waits until no flush or compaction is pending or running. */
  | { op: "settle" }
  | { op: "close" };

/** Entry i of a "fill" step (hex key and value), as the producer writes it. */
export function fillEntry(prefix: string, i: number, valueSize: number): [string, string] {
  const key = prefix + Buffer.from(String(i).padStart(8, "0")).toString("hex");
  const value = `value-${i}-`.repeat(Math.ceil(valueSize / 8)).slice(0, valueSize);
  return [key, Buffer.from(value).toString("hex")];
}

export interface ProducerPlan {
  dir: string;
  /** The binding's own database options. */
  options?: Record<string, unknown>;
  /**
   * rocksdb-native: column families and their options (`ribbonBitsPerKey` with
   * `ribbonBloomBeforeLevel` (Default: 0), `bloomBitsPerKey` made into policies).
   */
  columnFamilies?: Record<string, Record<string, unknown>>;
  steps: ProducerStep[];
}

/** One entry per scan step ([hexKey, hexValue] rows) or get step (hex values or null). */
export type ProducerResults = (Array<[string, string]> | Array<string | null>)[];

const unavailable = new Map<Producer, string | undefined>();

/** Why `producer` cannot run here (not installed, or its binary does not load), or undefined. */
export function producerUnavailableReason(producer: Producer): string | undefined {
  if (!unavailable.has(producer)) {
    const module = producer === "rocksdb-native" ? "rocksdb-native" : "@nxtedition/rocksdb";
    const r = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(module)})`], {
      cwd: fileURLToPath(new URL(".", import.meta.url)),
      encoding: "utf8",
      timeout: 60_000,
    });
    unavailable.set(
      producer,
      r.status === 0
        ? undefined
        : `${module} does not load here: ${(r.stderr || String(r.error)).split("\n").slice(0, 3).join(" ")}`,
    );
  }
  return unavailable.get(producer);
}

/** Runs `plan` with `producer` in a child process; throws with its output if it fails. */
export function runProducer(producer: Producer, plan: ProducerPlan): ProducerResults {
  const r = spawnSync(process.execPath, [SCRIPTS[producer], JSON.stringify(plan)], {
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  const line = r.stdout?.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || line === undefined) {
    throw new Error(
      `${producer} failed (status ${r.status}${r.error ? `, ${r.error.message}` : ""}):\n${r.stderr}\n${r.stdout}`,
    );
  }
  return (JSON.parse(line.slice("RESULT ".length)) as { results: ProducerResults }).results;
}
