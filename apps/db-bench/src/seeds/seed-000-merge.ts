/**
 * Seed 000 (RocksDB f5177c761f, "don't read the clock in FullMerge when statistics are
 * off"): a database of `num` merge operands of the `max` operator, one per key, compacted;
 * then `readseq` nine times on it with `--use_existing_db --disable_auto_compactions`, once
 * without and once with `--statistics`. Prints both series, their medians and the on/off
 * ratio.
 *
 *   node apps/db-bench/dist/seeds/seed-000-merge.js [--num=100000] [--runs=9] [--nocompact]
 *        [--cache_size=1073741824] [--db=DIR] [-- extra db-bench flags]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatMB, microsPerOp } from "../report.js";
import {
  load,
  median,
  named,
  parseSeedArgs,
  repeated,
  runDbBench,
  runMain,
  type SeedOptions,
} from "./driver.js";

export const SEED_000_DEFAULTS = {
  num: 100_000,
  runs: 9,
  cacheSize: 1 << 30,
  compact: true,
  db: "",
} satisfies SeedOptions;

export const SEED_000_HELP = `seed-000-merge: readseq over max-merge operands (one per key), statistics off vs on
  --num=N          keys, one merge operand each (Default: 100000)
  --runs=N         readseq runs per series (Default: 9)
  --cache_size=B   block cache bytes, as the seed's 1 GB (Default: 1073741824)
  --nocompact      leave the operands uncompacted (Default: compacted, as in the seed)
  --db=DIR         where to build the database, kept afterwards (Default: a temporary directory, removed)
  -- FLAGS         extra db-bench flags for every run`;

export interface Seed000Figures {
  off: number[];
  on: number[];
  /** Entries each readseq saw (every run of both series). */
  entries: number[];
  /** Merges the runs with statistics counted (shale's MergeOperations), if reported. */
  merges: number | undefined;
}

export async function seed000(
  argv: readonly string[],
  out: (s: string) => void,
): Promise<Seed000Figures> {
  const { options: o, extra } = parseSeedArgs(argv, SEED_000_DEFAULTS);
  const temp = o.db === "" ? mkdtempSync(join(tmpdir(), "shale-seed-000-")) : undefined;
  const db = temp ?? o.db;
  const common = [
    "--merge_operator=max",
    `--merge_keys=${o.num}`,
    `--num=${o.num}`,
    `--db=${db}`,
    `--cache_size=${o.cacheSize}`,
    ...extra,
  ];
  try {
    out(
      `seed 000: readseq over ${o.num} max-merge operands, one per key${o.compact ? ", compacted" : " (not compacted)"}; db ${db}`,
    );
    out(`before: ${load()}`);
    const build = runDbBench([
      `--benchmarks=mergeseq${o.compact ? ",compact" : ""}`,
      "--max_pause",
      ...common,
    ]);
    for (const r of build)
      out(
        `build: ${r.name} ${microsPerOp(r).toFixed(3)} micros/op ${r.seconds.toFixed(2)} s` +
          `${r.diskBytes !== undefined ? `; disk ${formatMB(r.diskBytes)} MB` : ""}` +
          `${r.maxPauseMs !== undefined ? `; max pause ${r.maxPauseMs.toFixed(1)} ms` : ""}`,
      );
    const reads = [
      `--benchmarks=${repeated("readseq", o.runs)}`,
      "--use_existing_db",
      "--disable_auto_compactions",
      ...common,
    ];
    const offRuns = named(runDbBench(reads), "readseq");
    const onResults = runDbBench([...reads, "--statistics"]);
    const onRuns = named(onResults, "readseq");
    const off = offRuns.map(microsPerOp);
    const on = onRuns.map(microsPerOp);
    const stats = onResults.find((r) => r.name === "stats")?.text ?? "";
    const m = /MergeOperations COUNT : (\d+)/.exec(stats);
    const merges = m === null ? undefined : Number(m[1]);
    const series = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(" ");
    out(`statistics off: readseq micros/op: ${series(off)}`);
    out(`statistics on:  readseq micros/op: ${series(on)}`);
    const mOff = median(off);
    const mOn = median(on);
    out(
      `median micros/op: off ${mOff.toFixed(3)}, on ${mOn.toFixed(3)}; on/off ${(mOn / mOff).toFixed(3)}`,
    );
    const entries = [...offRuns, ...onRuns].map((r) => r.ops);
    out(
      `entries per readseq: ${[...new Set(entries)].join(", ")}; merges counted with statistics on: ${merges ?? "n/a"}`,
    );
    out(`after: ${load()}`);
    return { off, on, entries, merges };
  } finally {
    if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  }
}

runMain(import.meta.url, async (argv, out) => {
  if (argv.includes("--help")) out(SEED_000_HELP);
  else await seed000(argv, out);
});
