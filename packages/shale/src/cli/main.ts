#!/usr/bin/env node
/**
 * The `shale` bin. Everything is in program.ts; this file only binds it to the process.
 * `shale --help` lists the commands; `shale <command> --help` explains one.
 */
import { run } from "./program.js";

// A reader that stopped reading (`shale scan db | head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

run(process.argv.slice(2), {
  write: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`shale: internal error: ${String(error)}\n`);
    process.exitCode = 10;
  },
);
