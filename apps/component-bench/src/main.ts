#!/usr/bin/env node
/**
 * component-bench: shale's block cache, memtable and Bloom filter, each beside the npm
 * packages users pick instead, in one process per component (contenders alternated round
 * by round, medians and spreads, versions printed). See README.md.
 *
 *   node --expose-gc dist/main.js cache|memtable|bloom [flags]   one component, here
 *   node dist/main.js [--quick] [--rounds=N]                     all three, each in a child
 *                                                                process run with --expose-gc
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Args } from "./args.js";
import { runBloomBench } from "./bloom-bench.js";
import { runCacheBench } from "./cache-bench.js";
import type { Write } from "./measure.js";
import { runMemtableBench } from "./memtable-bench.js";

const BENCHES: Record<string, (argv: readonly string[], write: Write) => Promise<void>> = {
  cache: runCacheBench,
  memtable: runMemtableBench,
  bloom: runBloomBench,
};

export const COMPONENTS = Object.keys(BENCHES);

const USAGE = `usage: component-bench [cache|memtable|bloom] [flags]
  without a component: every component in a child process (flags: --quick, --rounds=N)
  cache     --keys --requests --share --zipf --rounds --only --quick
  memtable  --sizes --huge --keys=random,sequential --rounds --only --create=0 --quick
  bloom     --sizes --huge --bits --key-bytes --rounds --queries --slow-max --fp-keys --only --quick`;

const scriptPath = fileURLToPath(import.meta.url);

/** Runs `node --expose-gc <this script> ...args`, passing its output through `write`. */
function runChild(args: readonly string[], write: Write): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", scriptPath, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) write(line);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (pending !== "") write(pending);
      if (code === 0) resolve();
      else reject(new Error(`component-bench ${args.join(" ")} exited with code ${code}`));
    });
  });
}

export interface MainIo {
  /** Writes one line of output. Default: process.stdout. */
  write?: Write;
  /** Writes one line of error output. Default: process.stderr. */
  writeError?: Write;
}

/** Runs component-bench with `argv` (no node/script). Resolves with the exit code. */
export async function main(argv: readonly string[], io: MainIo = {}): Promise<number> {
  const write = io.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const writeError = io.writeError ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (argv.includes("--help") || argv.includes("-h")) {
    write(USAGE);
    return 0;
  }
  const component = argv[0] !== undefined && !argv[0].startsWith("--") ? argv[0] : undefined;
  try {
    if (component !== undefined) {
      const bench = BENCHES[component];
      if (bench === undefined) throw new Error(`unknown component ${component}\n${USAGE}`);
      await bench(argv.slice(1), write);
      return 0;
    }
    const args = new Args(argv, ["quick", "rounds"]);
    args.flag("quick");
    args.number("rounds", 1);
    for (const name of COMPONENTS) {
      await runChild([name, ...argv], write);
      write("");
    }
    return 0;
  } catch (e) {
    writeError((e as Error).message);
    return 2;
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(scriptPath);
  } catch {
    return false;
  }
}

if (isMain()) process.exitCode = await main(process.argv.slice(2));
