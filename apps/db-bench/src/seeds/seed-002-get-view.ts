/**
 * Seed 002 (RocksDB PR 1732, "PinnableSlice": point lookups that pin the value where it lies
 * instead of copying it; the seed's gain: 1.8 % at 100-byte values, 11.5 % at 1 KB, 26 % at
 * 10 KB): shale's pair is `db.get` (a copy the caller owns) and `db.getView` (a zero-copy
 * view). For each value size, `num` keys are filled at random and compacted into a block
 * cache that holds them all; then ONE db-bench process runs an untimed warm-up readrandom and
 * alternates readrandom (getView, the fastest-API rule) and readrandomcopy (get) `rounds`
 * times (the order flipped every round). Prints each series, the medians,
 * and the view's gain over the copy as the seed reports it ((copy - view) / copy).
 *
 *   node apps/db-bench/dist/seeds/seed-002-get-view.js [--value_sizes=100,1000,10000]
 *        [--bytes=33554432] [--reads=300000] [--rounds=3] [-- extra db-bench flags]
 *
 * `num` per value size is `bytes / value_size` (the same data volume at every size, 32 MiB
 * by default, so all of it is in the 256 MiB cache and the reads measure the copy, not I/O).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { microsPerOp } from "../report.js";
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

export const SEED_002_DEFAULTS = {
  valueSizes: [100, 1000, 10000],
  bytes: 32 << 20,
  reads: 300_000,
  rounds: 3,
} satisfies SeedOptions;

export const SEED_002_HELP = `seed-002-get-view: readrandom through getView (zero copy) vs readrandomcopy through get (copy)
  --value_sizes=LIST  value sizes to measure (Default: 100,1000,10000)
  --bytes=B           data per value size; num = bytes / value_size (Default: 33554432)
  --reads=N           gets per run (Default: 300000)
  --rounds=N          alternating rounds of the pair (Default: 3)
  -- FLAGS            extra db-bench flags for every run`;

export interface Seed002Row {
  valueSize: number;
  num: number;
  view: number[];
  copy: number[];
}

export async function seed002(
  argv: readonly string[],
  out: (s: string) => void,
): Promise<Seed002Row[]> {
  const { options: o, extra } = parseSeedArgs(argv, SEED_002_DEFAULTS);
  const rows: Seed002Row[] = [];
  out(`seed 002: get (copy) vs getView (zero copy), ${o.rounds} alternating rounds in one process`);
  out(`before: ${load()}`);
  for (const valueSize of o.valueSizes) {
    const num = Math.max(1000, Math.floor(o.bytes / valueSize));
    const db = mkdtempSync(join(tmpdir(), "shale-seed-002-"));
    try {
      // A warm-up readrandom (dropped: JIT and the block cache), then the pair, its order
      // flipped every round so neither side always runs second.
      const pairs = Array.from({ length: o.rounds }, (_, i) =>
        i % 2 === 0 ? "readrandom,readrandomcopy" : "readrandomcopy,readrandom",
      ).join(",");
      const results = runDbBench([
        `--benchmarks=fillrandom,compact,waitforcompaction,readrandom,${pairs}`,
        "--engines=shale",
        `--num=${num}`,
        `--reads=${o.reads}`,
        `--value_size=${valueSize}`,
        `--cache_size=${256 << 20}`,
        `--db=${db}`,
        ...extra,
      ]);
      const view = named(results, "readrandom").slice(1).map(microsPerOp);
      const copy = named(results, "readrandomcopy").map(microsPerOp);
      const series = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(" ");
      out(`${valueSize} B x ${num}: getView ${series(view)} | get ${series(copy)} micros/op`);
      rows.push({ valueSize, num, view, copy });
    } finally {
      rmSync(db, { recursive: true, force: true });
    }
  }
  const table = [
    ["value size", "keys", "get (copy) µs", "getView µs", "copy / view", "view's gain"],
    ...rows.map((r) => {
      const c = median(r.copy);
      const v = median(r.view);
      return [
        `${r.valueSize} B`,
        String(r.num),
        c.toFixed(3),
        v.toFixed(3),
        (c / v).toFixed(3),
        `${(((c - v) / c) * 100).toFixed(1)} %`,
      ];
    }),
  ];
  out(markdownTable(table));
  out(`after: ${load()}`);
  return rows;
}

runMain(import.meta.url, async (argv, out) => {
  if (argv.includes("--help")) out(SEED_002_HELP);
  else await seed002(argv, out);
});
