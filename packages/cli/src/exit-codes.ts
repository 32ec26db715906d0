/**
 * The `shale` command's exit codes — part of its interface: scripts test them, so the
 * numbers do not change.
 *
 * | code | name          | when                                                              |
 * |------|---------------|-------------------------------------------------------------------|
 * | 0    | Ok            | the command did what it was asked                                 |
 * | 1    | NotFound      | `get` of a missing key, a directory with no database, a file or   |
 * |      |               | backup that does not exist, or a check that found a problem       |
 * | 2    | Usage         | unknown command or option, a bad or missing argument              |
 * | 3    | Corruption    | damaged data (a checksum, a bound or a format check failed)       |
 * | 4    | Busy          | another process holds the database (its LOCK file)                |
 * | 5    | IOError       | the operating system refused a read or a write                    |
 * | 6    | NotSupported  | the data uses a feature shale does not have                       |
 * | 10   | Internal      | anything else (a bug: please report it)                           |
 */
import { ErrorCode, isShaleError } from "@shale/base";

export const ExitCode = Object.freeze({
  Ok: 0,
  NotFound: 1,
  Usage: 2,
  Corruption: 3,
  Busy: 4,
  IOError: 5,
  NotSupported: 6,
  Internal: 10,
} as const);

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the command reports itself, with the exit code it chose. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** The exit code for an error a command threw. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof TypeError) return ExitCode.Usage;
  if (isShaleError(error)) {
    switch (error.code) {
      case ErrorCode.Corruption:
        return ExitCode.Corruption;
      case ErrorCode.InvalidArgument:
        return ExitCode.Usage;
      case ErrorCode.Busy:
        return ExitCode.Busy;
      case ErrorCode.IOError:
        return (error as { cause?: { code?: string } }).cause?.code === "ENOENT"
          ? ExitCode.NotFound
          : ExitCode.IOError;
      case ErrorCode.NotSupported:
        return ExitCode.NotSupported;
      default:
        return ExitCode.Internal;
    }
  }
  const sys = (error as { code?: unknown } | null)?.code;
  if (sys === "ENOENT") return ExitCode.NotFound;
  if (typeof sys === "string" && sys.startsWith("E")) return ExitCode.IOError;
  return ExitCode.Internal;
}
