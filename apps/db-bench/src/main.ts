#!/usr/bin/env node
/**
 * db-bench: RocksDB's db_bench for shale.
 *
 *   node apps/db-bench/dist/main.js --benchmarks=fillrandom,readrandom --num=1000000
 *
 * Without --db it works in a new temporary directory and removes it at exit. Fill
 * workloads start from a fresh database (as in db_bench); the others use what is there.
 * `--help` lists every flag.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRESH_DB, WORKLOADS } from "./benchmarks.js";
import type { Engine } from "./engines/engine.js";
import { ShaleEngine } from "./engines/shale.js";
import { FlagError, type Flags, helpText, parseFlags } from "./flags.js";
import { type BenchResult, header, json, line, Progress, percentiles } from "./report.js";

export async function run(
  argv: readonly string[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
): Promise<BenchResult[]> {
  const flags = parseFlags(argv);
  for (const b of flags.benchmarks) {
    if (!(b in WORKLOADS))
      throw new FlagError(`unknown benchmark "${b}" (known: ${Object.keys(WORKLOADS).join(", ")})`);
    if (flags.useExistingDb && FRESH_DB.has(b))
      throw new FlagError(`${b} needs a fresh database; drop --use_existing_db`);
  }
  if (flags.useExistingDb && flags.db === undefined)
    throw new FlagError("--use_existing_db needs --db");
  const temp = flags.db === undefined ? mkdtempSync(join(tmpdir(), "shale-bench-")) : undefined;
  const dir = flags.db ?? join(temp!, "db");
  const engine: Engine = new ShaleEngine();
  const progress = new Progress();
  const results: BenchResult[] = [];
  if (!flags.json) out(header(flags));
  try {
    await openEngine(engine, dir, flags, !flags.useExistingDb);
    for (const name of flags.benchmarks) {
      if (FRESH_DB.has(name)) {
        await engine.close();
        rmSync(dir, { recursive: true, force: true });
        await openEngine(engine, dir, flags, true);
      }
      const r = WORKLOADS[name]!({ flags, engine, progress });
      results.push(r);
      if (flags.json) out(json(r));
      else {
        out(line(r));
        if (flags.histogram) out(percentiles(r));
      }
    }
    if (flags.statistics && !flags.json) out(engine.stats() ?? "");
  } finally {
    await engine.close();
    if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  }
  return results;
}

async function openEngine(
  engine: Engine,
  dir: string,
  flags: Flags,
  _fresh: boolean,
): Promise<void> {
  await engine.open(dir, {
    sync: flags.sync,
    disableWal: flags.disableWal,
    writeBufferSize: flags.writeBufferSize,
    statistics: flags.statistics,
  });
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  const argv = process.argv.slice(2);
  if (argv.includes("--help")) {
    console.log(helpText());
  } else {
    run(argv).catch((e: unknown) => {
      console.error(e instanceof FlagError ? `db-bench: ${e.message}` : e);
      process.exit(1);
    });
  }
}
