/**
 * mergerandom then readrandommergerandom at a given `--num`, `rounds` times with
 * statistics off and on (alternating, each run a fresh process and database), printing
 * every run, the medians and the on/off ratios — the merge path's cost of statistics
 * (seed 000's question) under writes and point reads rather than a scan.
 *
 *   node apps/db-bench/dist/seeds/merge-bench.js [--num=1000000] [--merge_operator=max]
 *        [--merge_keys=N] [--rounds=3] [-- extra db-bench flags]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchResult, microsPerOp } from "../report.js";
import {
  load,
  markdownTable,
  median,
  named,
  parseSeedArgs,
  runDbBench,
  runMain,
  type SeedOptions,
} from "./driver.js";

export const MERGE_BENCH_DEFAULTS = {
  num: 1_000_000,
  mergeOperator: "max",
  mergeKeys: -1,
  rounds: 3,
} satisfies SeedOptions;

export const MERGE_BENCH_HELP = `merge-bench: mergerandom and readrandommergerandom, statistics off vs on
  --num=N              merges (and ops of readrandommergerandom) (Default: 1000000)
  --merge_operator=OP  max, uint64add or stringappend (Default: max)
  --merge_keys=N       distinct keys; -1 = num (Default: -1)
  --rounds=N           runs with statistics off and as many with it on, alternating (Default: 3)
  -- FLAGS             extra db-bench flags for every run`;

const WORKLOADS = ["mergerandom", "readrandommergerandom"] as const;

export interface MergeBenchFigures {
  /** micros/op per workload per run, statistics off and on. */
  off: Record<(typeof WORKLOADS)[number], number[]>;
  on: Record<(typeof WORKLOADS)[number], number[]>;
  messages: string[];
}

export async function mergeBench(
  argv: readonly string[],
  out: (s: string) => void,
): Promise<MergeBenchFigures> {
  const { options: o, extra } = parseSeedArgs(argv, MERGE_BENCH_DEFAULTS);
  const figures: MergeBenchFigures = {
    off: { mergerandom: [], readrandommergerandom: [] },
    on: { mergerandom: [], readrandommergerandom: [] },
    messages: [],
  };
  out(
    `merge-bench: --num=${o.num} --merge_operator=${o.mergeOperator} --merge_keys=${o.mergeKeys}, ${o.rounds} rounds`,
  );
  out(`before: ${load()}`);
  for (let round = 0; round < o.rounds; round++) {
    for (const statistics of [false, true]) {
      const db = mkdtempSync(join(tmpdir(), "shale-merge-bench-"));
      let results: BenchResult[];
      try {
        results = runDbBench([
          `--benchmarks=${WORKLOADS.join(",")}`,
          `--merge_operator=${o.mergeOperator}`,
          `--merge_keys=${o.mergeKeys}`,
          `--num=${o.num}`,
          `--db=${db}`,
          ...(statistics ? ["--statistics"] : []),
          ...extra,
        ]);
      } finally {
        rmSync(db, { recursive: true, force: true });
      }
      const into = statistics ? figures.on : figures.off;
      const cells: string[] = [];
      for (const w of WORKLOADS) {
        const r = named(results, w)[0]!;
        into[w].push(microsPerOp(r));
        cells.push(`${w} ${microsPerOp(r).toFixed(3)} micros/op ${r.message}`);
        if (round === 0 && !statistics) figures.messages.push(r.message);
      }
      out(`round ${round + 1}, statistics ${statistics ? "on " : "off"}: ${cells.join("; ")}`);
    }
  }
  out(`after: ${load()}`);
  out("");
  const rows = [["median micros/op", "statistics off", "statistics on", "on/off"]];
  for (const w of WORKLOADS) {
    const off = median(figures.off[w]);
    const on = median(figures.on[w]);
    rows.push([w, off.toFixed(3), on.toFixed(3), (on / off).toFixed(3)]);
  }
  out(markdownTable(rows));
  return figures;
}

runMain(import.meta.url, async (argv, out) => {
  if (argv.includes("--help")) out(MERGE_BENCH_HELP);
  else await mergeBench(argv, out);
});
