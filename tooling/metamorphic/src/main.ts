#!/usr/bin/env node
/**
 * `pnpm metamorphic`: runs metamorphic tests (metamorphic.ts) from the command line.
 *
 *   pnpm metamorphic [--seed N] [--seeds N | --minutes M] [--ops N] [--sets N] [--out DIR]
 *                    [--keep-going 1]
 *
 * Each seed generates `--ops` operations (default 1000) and runs them on `--sets` option
 * sets (default 6: the reference set and 5 drawn from the seed). Seeds: `--seed` (default
 * random), then the next ones, `--seeds` of them (default 1) or as many as fit in
 * `--minutes`. A line per seed; on a mismatch the seed, the operation, both option sets and
 * results, then a minimised reproduction written to `--out` (default: the package's
 * testdata directory, which the test suite replays), and exit code 1 (with `--keep-going 1`
 * after the remaining seeds).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Random } from "@shale/base/testing/random";
import { generateOps } from "./generate.js";
import { describeFailure, formatReproduction, runAll, shrink } from "./metamorphic.js";
import { optionSets } from "./option-space.js";

interface Args {
  seed: number;
  seeds: number;
  minutes: number | undefined;
  ops: number;
  sets: number;
  out: string;
  keepGoing: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    seed: Math.floor(Math.random() * 2 ** 31),
    seeds: 1,
    minutes: undefined,
    ops: 1000,
    sets: 6,
    out: join(import.meta.dirname, "..", "testdata"),
    keepGoing: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    const value = argv[++i];
    if (value === undefined) throw new TypeError(`${name} needs a value`);
    if (name === "--out") {
      args.out = value;
      continue;
    }
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new TypeError(`${name} ${value}: not a number >= 0`);
    if (name === "--seed") args.seed = Math.floor(n);
    else if (name === "--seeds") args.seeds = Math.floor(n);
    else if (name === "--minutes") args.minutes = n;
    else if (name === "--ops") args.ops = Math.floor(n);
    else if (name === "--sets") args.sets = Math.max(1, Math.floor(n));
    else if (name === "--keep-going") args.keepGoing = n !== 0;
    else throw new TypeError(`unknown argument ${name}`);
  }
  return args;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const until = args.minutes === undefined ? undefined : Date.now() + args.minutes * 60_000;
  let totalOps = 0;
  let runs = 0;
  let failures = 0;
  let seedsRun = 0;
  const fsRuns = new Map<string, number>();
  for (let n = 0; until !== undefined ? Date.now() < until : n < args.seeds; n++) {
    const seed = args.seed + n;
    const started = Date.now();
    const ops = generateOps({ seed, ops: args.ops });
    const sets = optionSets(new Random(seed ^ 0x5eed), args.sets);
    const failure = await runAll(ops, sets);
    totalOps += ops.length;
    runs += sets.length;
    seedsRun++;
    for (const s of sets) fsRuns.set(s.fs, (fsRuns.get(s.fs) ?? 0) + 1);
    if (failure === undefined) {
      console.log(
        `seed ${seed}: ${ops.length} ops x ${sets.length} option sets ok (${Date.now() - started} ms; fs ${sets.map((s) => s.fs).join(",")})`,
      );
      continue;
    }
    console.log(describeFailure(seed, failure, sets[0]!));
    const small = await shrink(ops, failure.set);
    const file = join(args.out, `seed-${seed}-op-${failure.mismatch.index}.txt`);
    writeFileSync(
      file,
      formatReproduction(
        [
          `metamorphic reproduction: seed ${seed}, op ${failure.mismatch.index} of ${ops.length}, shrunk to ${small.length}`,
          `got:  ${failure.mismatch.got.slice(0, 300)}`,
          `want: ${failure.mismatch.want.slice(0, 300)}`,
        ],
        [failure.set, sets[0]!],
        small,
      ),
    );
    console.log(`minimised to ${small.length} ops: ${file}`);
    failures++;
    if (!args.keepGoing) return 1;
  }
  const byFs = [...fsRuns].map(([fs, n]) => `${fs} ${n}`).join(", ");
  console.log(
    `metamorphic: ${seedsRun} seeds, ${totalOps} ops, ${runs} runs (${byFs}), ${failures} mismatches`,
  );
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main();
