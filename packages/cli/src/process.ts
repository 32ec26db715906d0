/**
 * The `shale` command bound to this process: standard output and error, the exit code, and a
 * reader that stops reading (`shale scan db | head`), which is not an error of ours. The bin
 * (main.ts, and the `shale` package's) calls `main()`.
 */
import { run } from "./program.js";

/** Runs `shale` with this process's arguments; sets `process.exitCode`. */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  return run(argv, {
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
}
