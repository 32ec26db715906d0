#!/usr/bin/env node
/**
 * db-bench: RocksDB's db_bench for shale, side by side with peer engines.
 *
 *   node apps/db-bench/dist/main.js --benchmarks=fillrandom,readrandom --num=1000000
 *   node apps/db-bench/dist/main.js --engines=shale,classic-level,lmdb,rocksdb,memory-level
 *
 * Without --db it works in a new temporary directory and removes it at exit. With no flags
 * at all it runs the default comparison (flags.ts DEFAULT_COMPARISON). `--help` lists every
 * flag.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WORKLOADS } from "./benchmarks.js";
import { peakRssBytes } from "./disk.js";
import { DEFAULT_COMPARISON, FlagError, type Flags, helpText, parseFlags } from "./flags.js";
import { runIsolated } from "./isolate.js";
import { renderReport } from "./report/html.js";
import { Sampler } from "./report/sampler.js";
import { type BenchResult, formatMB, header, json, line, percentiles } from "./report.js";
import { type RunEvents, runEngines } from "./runner.js";
import { comparisonTable, type EngineSummary } from "./table.js";

export interface RunSummary {
  flags: Flags;
  engines: EngineSummary[];
  /** Peak RSS of this process. */
  peakRssBytes: number;
}

/** Checks the workload list against the flags (unknown names, needs). */
function checkBenchmarks(flags: Flags): void {
  for (const b of flags.benchmarks) {
    const w = WORKLOADS[b];
    if (w === undefined)
      throw new FlagError(`unknown benchmark "${b}" (known: ${Object.keys(WORKLOADS).join(", ")})`);
    if (flags.useExistingDb && w.fresh === true)
      throw new FlagError(`${b} needs a fresh database; drop --use_existing_db`);
    if (w.sync === true && flags.disableWal)
      throw new FlagError(`${b} syncs every write; drop --disable_wal`);
    if (w.merges === true && flags.mergeOperator === "")
      throw new FlagError(`${b} needs --merge_operator (max, uint64add or stringappend)`);
  }
}

export async function run(
  argv: readonly string[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
): Promise<RunSummary> {
  const preset = argv.length === 0;
  const flags = parseFlags(preset ? DEFAULT_COMPARISON : argv);
  checkBenchmarks(flags);
  const engines: EngineSummary[] = flags.engines.map((engine) => ({ engine, results: [] }));
  const summaryOf = (engine: string) => engines.find((e) => e.engine === engine)!;
  if (!flags.json) {
    if (preset)
      out(`db-bench: no flags, so the default comparison: ${DEFAULT_COMPARISON.join(" ")}`);
    out(header(flags));
  }
  const several = flags.engines.length > 1;
  const sampler = flags.report !== undefined || flags.reportSamples ? new Sampler() : undefined;
  const events: RunEvents = {
    samples: (series) => sampler?.adopt(series),
    engineStart(engine, notes) {
      if (flags.json) out(JSON.stringify({ engine, notes }));
      else {
        if (several) out(`--- ${engine} ---`);
        for (const n of notes) out(`note: ${engine}: ${n}`);
      }
    },
    result(r: BenchResult) {
      summaryOf(r.engine).results.push(r);
      if (flags.json) out(json(r));
      else if (r.text !== undefined) out(`** ${r.engine} ${r.name} **\n${r.text}`);
      else {
        out(line(r));
        if (flags.histogram && r.histogram !== undefined) out(percentiles(r.histogram));
      }
    },
  };
  let failures: string[];
  if (flags.isolate) {
    failures = await runIsolated(flags, events, (engine, bytes) => {
      summaryOf(engine).peakRssBytes = bytes;
      if (flags.json) out(JSON.stringify({ engine, peakRssBytes: bytes }));
    });
  } else {
    const temp = flags.db === undefined ? mkdtempSync(join(tmpdir(), "shale-bench-")) : undefined;
    try {
      failures = await runEngines(flags, flags.db ?? temp!, events, sampler);
    } finally {
      if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
    }
  }
  if (sampler !== undefined && flags.reportSamples) {
    for (const series of sampler.series()) out(JSON.stringify({ reportSeries: series }));
  }
  if (sampler !== undefined && flags.report !== undefined) {
    writeFileSync(
      flags.report,
      renderReport({
        title: `db-bench: ${flags.engines.join(", ")} (${flags.num} keys)`,
        header: header(flags),
        series: sampler.series(),
        results: engines,
      }),
    );
  }
  const peak = peakRssBytes();
  if (flags.json) out(JSON.stringify({ peakRssBytes: peak }));
  else {
    if (several) out(`\n${comparisonTable(engines)}`);
    const what = flags.isolate
      ? "this parent process; each engine's own is in the table"
      : several
        ? "this process, all engines; --isolate measures each engine alone"
        : "this process";
    out(`Peak RSS:   ${formatMB(peak)} MB (${what})`);
    if (flags.report !== undefined) out(`Report:     ${flags.report}`);
  }
  if (failures.length > 0) throw new RunFailure(failures);
  return { flags, engines, peakRssBytes: peak };
}

/** Some workloads failed; everything else was printed first. */
export class RunFailure extends Error {
  constructor(readonly failures: string[]) {
    super(`${failures.length} failure(s):\n  ${failures.join("\n  ")}`);
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  const argv = process.argv.slice(2);
  if (argv.includes("--help")) {
    console.log(helpText());
  } else {
    run(argv).then(
      // Peer engines may leave handles open (thread pools); the run is over.
      () => process.exit(0),
      (e: unknown) => {
        console.error(
          e instanceof FlagError || e instanceof RunFailure ? `db-bench: ${e.message}` : e,
        );
        process.exit(1);
      },
    );
  }
}
