/**
 * Seed 001 (RocksDB PR 4493, range tombstones fragmented once per table): databases of
 * `num` random puts (fillrandom) where, after the first 90% of the puts, a deletion of
 * `width` keys follows every `0.1 num / count` puts — none, "expanded" (a point delete of
 * each key) or "unexpanded" (one range tombstone) — for each tombstone count; then
 * `readrandom` and `readwhilewriting` on each database. Prints micros/op (medians of
 * `rounds` runs) and each one's ratio to the database without tombstones.
 *
 * The PR used 5,000,000 keys and 500, 1k, 5k, 10k, 25k and 50k tombstones. With a smaller
 * `--num` the counts shrink in proportion (count x num / 5M, at least 1; rows keep the PR's
 * label, the "written" column says how many), so that the share of keys deleted stays the PR's, and so does `--write_buffer_size` (64 MiB x num / 5M, at
 * least 64 KiB), so that the tree has about the same shape; `--counts` gives counts as is.
 *
 * With `--compact` each database is compacted whole (`compact`) after its fill, so the
 * variants are read on trees of the same shape (the bottom level), not on the shapes their
 * fills happened to end in.
 *
 *   node apps/db-bench/dist/seeds/seed-001-range-del.js [--num=5000000] [--rounds=3]
 *        [--counts=500,1000,...] [--width=100] [--reads=N] [--compact] [--db=DIR]
 *        [-- extra db-bench flags]
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchResult, formatMB, microsPerOp } from "../report.js";
import {
  load,
  markdownTable,
  medianMicros,
  named,
  parseSeedArgs,
  repeated,
  runDbBench,
  runMain,
  type SeedOptions,
  SeedUsageError,
} from "./driver.js";

/** The PR's database size and tombstone counts. */
export const PR_NUM = 5_000_000;
export const PR_COUNTS = [500, 1000, 5000, 10_000, 25_000, 50_000];
const PR_WRITE_BUFFER = 64 * 1024 * 1024;

export const SEED_001_DEFAULTS = {
  num: PR_NUM,
  counts: [] as number[],
  width: 100,
  reads: 0,
  rounds: 3,
  writeBufferSize: 0,
  db: "",
  keep: false,
  compact: false,
} satisfies SeedOptions;

export const SEED_001_HELP = `seed-001-range-del: readrandom and readwhilewriting with none / expanded / unexpanded range deletions
  --num=N                keys put by fillrandom (Default: 5000000, the PR's)
  --counts=A,B,...       tombstone counts (Default: the PR's 500,1000,5000,10000,25000,50000, scaled by num / 5000000)
  --width=W              keys per deletion, --range_tombstone_width (Default: 100)
  --reads=N              ops per read run (Default: min(num, 1000000))
  --rounds=N             runs of each read workload per database; medians are printed (Default: 3)
  --write_buffer_size=B  (Default: 64 MiB x num / 5000000, at least 64 KiB)
  --compact              compact each database whole after its fill: every variant read on the same tree shape (Default: false)
  --db=DIR               where to build the databases (Default: a temporary directory, removed)
  --keep                 keep each database after its reads (Default: removed, to save disk)
  -- FLAGS               extra db-bench flags for every run`;

/** A database variant: no tombstones, or `count` of them, expanded or not. */
export interface Variant {
  label: string;
  /** The PR's count this row stands for (undefined: none). */
  prCount: number | undefined;
  count: number;
  expand: boolean;
}

export interface VariantFigures extends Variant {
  /** Tombstones the fill wrote. */
  written: number;
  fillMicros: number;
  diskBytes: number | undefined;
  readrandom: number;
  readwhilewriting: number;
  /** readrandom's "found" (the same for every round). */
  found: string;
}

/** The counts to run: given, or the PR's scaled to `num`. */
export function tombstoneCounts(num: number, given: readonly number[]): number[] {
  if (given.length > 0) return [...given];
  return PR_COUNTS.map((c) => Math.max(1, Math.round((c * num) / PR_NUM)));
}

/** The fill's db-bench flags for `v`: deletions after 90% of the puts, evenly spread. */
export function fillFlags(num: number, width: number, v: Variant): string[] {
  if (v.count === 0) return [];
  const before = Math.floor(num * 0.9);
  const every = Math.floor((num - before) / v.count);
  if (every < 1)
    throw new SeedUsageError(
      `${v.count} tombstones do not fit in the last ${num - before} puts of --num=${num}`,
    );
  return [
    `--writes_before_delete_range=${before}`,
    `--writes_per_range_tombstone=${every}`,
    `--max_num_range_tombstones=${v.count}`,
    `--range_tombstone_width=${width}`,
    ...(v.expand ? ["--expand_range_tombstones"] : []),
  ];
}

function label(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

export function variants(counts: readonly number[], scaled: boolean): Variant[] {
  const out: Variant[] = [{ label: "none", prCount: undefined, count: 0, expand: false }];
  counts.forEach((count, i) => {
    const prCount = scaled ? PR_COUNTS[i] : undefined;
    const name = label(prCount ?? count);
    out.push({ label: `${name} expanded`, prCount, count, expand: true });
    out.push({ label: `${name} unexpanded`, prCount, count, expand: false });
  });
  return out;
}

export async function seed001(
  argv: readonly string[],
  out: (s: string) => void,
): Promise<VariantFigures[]> {
  const { options: o, extra } = parseSeedArgs(argv, SEED_001_DEFAULTS);
  const counts = tombstoneCounts(o.num, o.counts);
  const writeBuffer =
    o.writeBufferSize > 0
      ? o.writeBufferSize
      : Math.max(65536, Math.round((PR_WRITE_BUFFER * o.num) / PR_NUM));
  const reads = o.reads > 0 ? o.reads : Math.min(o.num, 1_000_000);
  const temp = o.db === "" ? mkdtempSync(join(tmpdir(), "shale-seed-001-")) : undefined;
  const base = temp ?? o.db;
  const list = variants(counts, o.counts.length === 0);
  for (const v of list) fillFlags(o.num, o.width, v); // refuse impossible counts up front
  const common = [`--num=${o.num}`, `--write_buffer_size=${writeBuffer}`, ...extra];
  out(
    `seed 001: fillrandom of ${o.num} keys, deletions of ${o.width} keys after ${Math.floor(o.num * 0.9)} puts; ` +
      `tombstone counts ${counts.join(", ")}; write buffer ${writeBuffer}; ${reads} reads x ${o.rounds} rounds` +
      `${o.compact ? "; compacted after the fill" : ""}; db ${base}`,
  );
  out(`before: ${load()}`);
  const figures: VariantFigures[] = [];
  try {
    for (const v of list) {
      const db = join(base, v.label.replace(/[^a-z0-9]+/gi, "-"));
      mkdirSync(db, { recursive: true });
      const fill = runDbBench([
        `--benchmarks=fillrandom,waitforcompaction${o.compact ? ",compact" : ""}`,
        `--db=${db}`,
        ...fillFlags(o.num, o.width, v),
        ...common,
      ]);
      const filled = named(fill, "fillrandom")[0]!;
      if (o.compact && named(fill, "compact").length !== 1)
        throw new Error(`${v.label}: the fill did not report its compaction`);
      const run = runDbBench([
        `--benchmarks=${repeated("readrandom", o.rounds)},${repeated("readwhilewriting", o.rounds)}`,
        "--use_existing_db",
        `--db=${db}`,
        `--reads=${reads}`,
        ...common,
      ]);
      if (!o.keep) rmSync(db, { recursive: true, force: true });
      const rr = named(run, "readrandom");
      const rw = named(run, "readwhilewriting");
      const f: VariantFigures = {
        ...v,
        written: tombstonesWritten(filled),
        fillMicros: microsPerOp(filled),
        diskBytes: filled.diskBytes,
        readrandom: medianMicros(rr),
        readwhilewriting: medianMicros(rw),
        found: /\((\d+) of \d+ found\)/.exec(rr[0]!.message)?.[1] ?? "?",
      };
      figures.push(f);
      out(
        `${v.label}: ${f.written} tombstones; fill ${f.fillMicros.toFixed(3)} micros/op; ` +
          `readrandom ${f.readrandom.toFixed(3)} (${f.found} found); readwhilewriting ${f.readwhilewriting.toFixed(3)} micros/op`,
      );
    }
  } finally {
    if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  }
  out(`after: ${load()}`);
  out("");
  out(resultTable(figures));
  for (const line of mismatches(figures)) out(line);
  return figures;
}

function tombstonesWritten(r: BenchResult): number {
  const m = /\((\d+) range tombstones/.exec(r.message);
  return m === null ? 0 : Number(m[1]);
}

/** The table: micros/op (medians) and the ratio of each to the database without tombstones. */
export function resultTable(figures: readonly VariantFigures[]): string {
  const none = figures.find((f) => f.count === 0)!;
  const rows = [
    [
      "tombstones",
      "written",
      "readrandom µs/op",
      "÷ none",
      "readwhilewriting µs/op",
      "÷ none",
      "found",
      "fill µs/op",
      "disk MB",
    ],
  ];
  for (const f of figures) {
    rows.push([
      f.label,
      String(f.written),
      f.readrandom.toFixed(3),
      (f.readrandom / none.readrandom).toFixed(3),
      f.readwhilewriting.toFixed(3),
      (f.readwhilewriting / none.readwhilewriting).toFixed(3),
      f.found,
      f.fillMicros.toFixed(3),
      f.diskBytes !== undefined ? formatMB(f.diskBytes) : "-",
    ]);
  }
  return markdownTable(rows);
}

/**
 * Expanded and unexpanded deletions of the same count delete the same keys, so their
 * readrandom must find the same number: a line for each pair that does not.
 */
export function mismatches(figures: readonly VariantFigures[]): string[] {
  const lines: string[] = [];
  for (const e of figures.filter((f) => f.expand)) {
    const u = figures.find((f) => !f.expand && f.count === e.count && f.count > 0);
    if (u !== undefined && u.found !== e.found)
      lines.push(
        `MISMATCH: ${e.count} tombstones: expanded found ${e.found}, unexpanded found ${u.found}`,
      );
  }
  return lines;
}

runMain(import.meta.url, async (argv, out) => {
  if (argv.includes("--help")) out(SEED_001_HELP);
  else await seed001(argv, out);
});
