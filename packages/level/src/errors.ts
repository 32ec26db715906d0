/**
 * shale's errors in Level's vocabulary: every `ShaleError` that leaves a ShaleLevel method
 * becomes a {@link ShaleLevelError} whose `code` is a Level code (abstract-level README,
 * "Errors") and whose `cause` is the original `ShaleError` (its `code`, `file`, `offset`).
 *
 * | shale code        | Level code                  | when                                      |
 * | ----------------- | --------------------------- | ----------------------------------------- |
 * | `Busy`            | `LEVEL_LOCKED`              | another open holds the directory's LOCK    |
 * | `Closed`          | `LEVEL_DATABASE_NOT_OPEN`   | the engine was closed under the call       |
 * | `Corruption`      | `LEVEL_CORRUPTION`          | a checksum, bounds or format check failed  |
 * | `IOError`         | `LEVEL_IO_ERROR`            | the file system failed                     |
 * | `NotSupported`    | `LEVEL_NOT_SUPPORTED`       | a format or feature this build lacks       |
 * | `InvalidArgument` | `LEVEL_INVALID_ARGUMENT`    | an option or argument shale refuses        |
 * | `Incomplete`      | `LEVEL_INCOMPLETE`          | could not complete now (cache at capacity) |
 * | `AssertionFailed` | `LEVEL_ASSERTION_FAILED`    | an engine invariant broke (a shale bug)    |
 * | `TryAgain`        | `LEVEL_TRY_AGAIN`           | a transaction could not decide a conflict  |
 * | `TimedOut`        | `LEVEL_TIMED_OUT`           | a transaction's lock wait timed out        |
 * | `NotFound`        | `LEVEL_NOT_FOUND`           | a change feed's sequence is no longer kept |
 *
 * The last six have no documented Level code; they keep the `LEVEL_` prefix so a Level
 * program's `err.code.startsWith('LEVEL_')` checks still hold. A failed open is reported
 * by abstract-level itself as `LEVEL_DATABASE_NOT_OPEN` whose `cause` is this error (so a
 * held LOCK reads `err.cause.code === 'LEVEL_LOCKED'`, as with classic-level). TypeErrors
 * (misuse of the API) pass through unchanged.
 */
import { type ErrorCode, ShaleError } from "@shale/base";

/** The Level code of each shale error code. */
export const LEVEL_CODES: Readonly<Record<ErrorCode, string>> = Object.freeze({
  Busy: "LEVEL_LOCKED",
  Closed: "LEVEL_DATABASE_NOT_OPEN",
  Corruption: "LEVEL_CORRUPTION",
  IOError: "LEVEL_IO_ERROR",
  NotSupported: "LEVEL_NOT_SUPPORTED",
  InvalidArgument: "LEVEL_INVALID_ARGUMENT",
  Incomplete: "LEVEL_INCOMPLETE",
  AssertionFailed: "LEVEL_ASSERTION_FAILED",
  TryAgain: "LEVEL_TRY_AGAIN",
  TimedOut: "LEVEL_TIMED_OUT",
  NotFound: "LEVEL_NOT_FOUND",
});

/** An error of a ShaleLevel call: a Level `code`, the `ShaleError` as `cause`. */
export class ShaleLevelError extends Error {
  /** The Level code (see LEVEL_CODES). */
  readonly code: string;
  /** The shale code of the cause. */
  readonly shaleCode: ErrorCode;
  /** True for LEVEL_LOCKED: retrying later may succeed (module-error's convention). */
  readonly transient: boolean;

  constructor(cause: ShaleError) {
    super(cause.message, { cause });
    this.name = "ShaleLevelError";
    this.code = LEVEL_CODES[cause.code];
    this.shaleCode = cause.code;
    this.transient = cause.code === "Busy";
  }
}

/** `e` in Level's terms: a ShaleError becomes a ShaleLevelError; anything else is kept. */
export function levelError(e: unknown): unknown {
  return ShaleError.isInstance(e) ? new ShaleLevelError(e) : e;
}
