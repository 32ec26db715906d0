#!/usr/bin/env node
/**
 * filter-bench: RocksDB's util/filter_bench for @shale/bloom. See README.md for the flags
 * and a recorded run.
 *
 *   node apps/filter-bench/dist/main.js --quick --average_keys_per_filter=6000000 \
 *     --working_mem_size_mb=1000
 *
 * With --builder=both (the default) or --runs > 1, this process only starts child
 * processes (one per builder and run) and prints their output plus a side-by-side table;
 * otherwise it runs the bench itself.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { HashStorage } from "@shale/bloom";
import { runBench } from "./bench.js";
import { compareBuilders, type RunChild } from "./compare.js";
import { parseFlags, usage } from "./flags.js";

export interface MainIo {
  /** Writes one line of output. Default: process.stdout. */
  write?: (line: string) => void;
  /** Writes one line of error output. Default: process.stderr. */
  writeError?: (line: string) => void;
  /** Runs the bench in a child with these args; resolves with its stdout. Default: spawns node. */
  runChild?: RunChild;
}

const scriptPath = fileURLToPath(import.meta.url);

/** Spawns `node <this script> ...args`, resolving with its stdout (stderr passes through). */
export const spawnChild: RunChild = (args) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, scriptPath, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`filter-bench child exited with code ${code}:\n${out}`));
    });
  });

/** Runs filter-bench with `argv` (no node/script). Resolves with the exit code. */
export async function main(argv: readonly string[], io: MainIo = {}): Promise<number> {
  const write = io.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(argv);
  } catch (e) {
    const writeError = io.writeError ?? ((line: string) => void process.stderr.write(`${line}\n`));
    writeError((e as Error).message);
    return 2;
  }
  if (flags.help) {
    write(usage);
    return 0;
  }
  const builders: HashStorage[] =
    flags.builder === "both" ? ["chunked", "doubling"] : [flags.builder];
  if (builders.length === 1 && flags.runs === 1) {
    runBench(flags, builders[0]!, write);
    return 0;
  }
  await compareBuilders(flags, builders, io.runChild ?? spawnChild, write);
  return 0;
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(scriptPath);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
