/**
 * The `shale` command line: ldb and sst_dump for shale, on commander.
 *
 * `run(argv, out)` parses the arguments, runs one command and resolves with its exit code
 * (see exit-codes.ts); it never calls `process.exit`, so tests and embedders can run it in
 * process. Each command lives in its own file under commands/ and registers itself here.
 * Unknown commands and options get commander's "Did you mean ...?" suggestion and exit 2.
 */
import { createRequire } from "node:module";
import { isShaleError } from "@shale/base";
import { Command, CommanderError } from "commander";
import { registerBackup } from "./commands/backup.js";
import { registerColumnFamilies } from "./commands/cf.js";
import { registerCheckpoint } from "./commands/checkpoint.js";
import { registerCompact } from "./commands/compact.js";
import { registerDelete } from "./commands/delete.js";
import { registerDump } from "./commands/dump.js";
import { registerGet } from "./commands/get.js";
import { registerLevels } from "./commands/levels.js";
import { registerLoad } from "./commands/load.js";
import { registerManifest } from "./commands/manifest.js";
import { registerPut } from "./commands/put.js";
import { registerRepair } from "./commands/repair.js";
import { registerRestore } from "./commands/restore.js";
import { registerScan } from "./commands/scan.js";
import { registerSst } from "./commands/sst.js";
import { registerStats } from "./commands/stats.js";
import { registerVerify } from "./commands/verify.js";
import { registerWal } from "./commands/wal.js";
import { type Act, type GlobalOptions, makeContext, type Output } from "./context.js";
import { ExitCode, exitCodeOf } from "./exit-codes.js";

/**
 * Wraps a command's body as a commander action: builds the context from the global
 * options, passes the positional arguments and the command's own options, and records the
 * exit code the body returns (0 when it returns nothing).
 */
const EXIT_CODES_HELP = `
Exit codes: 0 ok, 1 not found or a check failed, 2 usage, 3 corruption, 4 busy (another
process holds the database), 5 I/O error, 6 not supported, 10 internal error.`;

function version(): string {
  const require = createRequire(import.meta.url);
  return (require("../package.json") as { version: string }).version;
}

/** Builds the program; `setExit` receives the exit code of the command that ran. */
export function createProgram(out: Output, setExit: (code: number) => void): Command {
  const program = new Command("shale");
  program
    .description("Inspect and operate a shale database (and RocksDB's files).")
    .version(version(), "-V, --version")
    .option("--json", "print JSON for machines instead of text for people")
    .option("--hex", "keys and values are hex, in arguments and output")
    .option("--key-hex", "keys are hex, in arguments and output")
    .option("--value-hex", "values are hex, in arguments and output")
    .option(
      "--merge-operator <name>",
      "the database's merge operator: max, uint64add, stringappend",
    )
    .option(
      "--column-family <name>",
      "the column family get, put, delete, scan, dump, load, stats, levels and compact use (default: default)",
    )
    .configureOutput({ writeOut: (s) => out.write(s), writeErr: (s) => out.error(s) })
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText("after", EXIT_CODES_HELP);

  const act: Act = (body) => {
    return async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const options = args[args.length - 2];
      const ctx = makeContext(out, command.optsWithGlobals() as GlobalOptions);
      const positional = args.slice(0, -2).flat() as string[];
      setExit((await body(ctx, positional, options as never)) ?? ExitCode.Ok);
    };
  };

  registerGet(program, act);
  registerPut(program, act);
  registerDelete(program, act);
  registerScan(program, act);
  registerDump(program, act);
  registerLoad(program, act);
  registerStats(program, act);
  registerLevels(program, act);
  registerCompact(program, act);
  registerColumnFamilies(program, act);
  registerCheckpoint(program, act);
  registerBackup(program, act);
  registerRestore(program, act);
  registerVerify(program, act);
  registerRepair(program, act);
  registerSst(program, act);
  registerManifest(program, act);
  registerWal(program, act);
  return program;
}

/** Runs the command line `argv` (without `node` and the script); resolves with the exit code. */
export async function run(argv: readonly string[], out: Output): Promise<number> {
  let code: number = ExitCode.Ok;
  const program = createProgram(out, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version")
        return ExitCode.Ok;
      return ExitCode.Usage;
    }
    const exit = exitCodeOf(e);
    reportError(out, e, exit, program.opts<GlobalOptions>().json === true);
    return exit;
  }
  return code;
}

function reportError(out: Output, error: unknown, exit: number, json: boolean): void {
  const message = error instanceof Error ? error.message : String(error);
  if (json) {
    const detail: Record<string, unknown> = { exitCode: exit, message };
    if (isShaleError(error)) {
      detail.code = error.code;
      if (error.file !== undefined) detail.file = error.file;
      if (error.offset !== undefined) detail.offset = error.offset;
    }
    out.error(`${JSON.stringify({ error: detail })}\n`);
    return;
  }
  let where = "";
  if (isShaleError(error) && error.file !== undefined && !message.includes(error.file)) {
    where = ` (${error.file}${error.offset !== undefined ? ` at offset ${error.offset}` : ""})`;
  } else if (isShaleError(error) && error.offset !== undefined && !message.includes("offset")) {
    where = ` (at offset ${error.offset})`;
  }
  // A ShaleError's message already starts with its code; other errors get none.
  const prefix =
    isShaleError(error) && !message.startsWith(`${error.code}: `) ? `${error.code}: ` : "";
  out.error(`shale: ${prefix}${message}${where}\n`);
  if (exit === ExitCode.Internal && error instanceof Error && error.stack !== undefined) {
    out.error(`${error.stack}\n`);
  }
}
