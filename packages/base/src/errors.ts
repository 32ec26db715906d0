/**
 * The one error class of shale.
 *
 * Every failure the engine reports is a `ShaleError` with a stable `code`. Codes never change
 * meaning between major versions; messages may. Misuse of the API with wrong argument types
 * is a plain `TypeError` instead.
 *
 * `ShaleError.isInstance(e)` works across two installed copies of `@shale/base` (it checks a
 * `Symbol.for` marker, not the prototype chain).
 */

/** The closed set of error codes. Part of the public contract: do not rename. */
export const ErrorCode = Object.freeze({
  /** Stored data failed a checksum, a bounds check or a format check. */
  Corruption: "Corruption",
  /** An argument has the right type but an unacceptable value. */
  InvalidArgument: "InvalidArgument",
  /** The operating system or the FileSystem reported a failure. */
  IOError: "IOError",
  /** The operation or format is not supported by this build or configuration. */
  NotSupported: "NotSupported",
  /** A resource is held by someone else (e.g. the database LOCK file). */
  Busy: "Busy",
  /**
   * What was asked for is not there (and a missing key is not this: `get` returns
   * undefined): e.g. a change feed from a sequence number the WALs no longer hold.
   */
  NotFound: "NotFound",
  /**
   * A transaction could not tell whether it conflicts: the history it needs is gone (an
   * optimistic commit whose tracked keys' writes left the memtables). Retrying may succeed.
   */
  TryAgain: "TryAgain",
  /** A wait ran out of time (a transaction's lock wait longer than its lock timeout). */
  TimedOut: "TimedOut",
  /** The object was closed and cannot be used any more. */
  Closed: "Closed",
  /** The operation could not complete now (e.g. a cache at strict capacity). */
  Incomplete: "Incomplete",
  /**
   * An internal invariant of the engine does not hold: a bug in shale (or in code that
   * assembles its parts), not damage to stored data (that is `Corruption`). Thrown by
   * `assertInvariant`, mostly by checks that run in invariants mode.
   */
  AssertionFailed: "AssertionFailed",
} as const);

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const MARKER = Symbol.for("shale.error");

export interface ShaleErrorOptions {
  /** For `Corruption` and `IOError`: the file the problem was found in. */
  file?: string;
  /** For `Corruption`: the byte offset in `file` where the damage was detected. */
  offset?: number;
  /** The underlying error, if any (e.g. a Node `ErrnoException`). */
  cause?: unknown;
}

export class ShaleError extends Error {
  readonly code: ErrorCode;
  readonly file: string | undefined;
  readonly offset: number | undefined;
  /** @internal marker checked by `isInstance`. */
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options: ShaleErrorOptions = {}) {
    const where =
      options.file !== undefined
        ? ` (${options.file}${options.offset !== undefined ? ` @ ${options.offset}` : ""})`
        : options.offset !== undefined
          ? ` (@ ${options.offset})`
          : "";
    super(
      `${code}: ${message}${where}`,
      options.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.name = "ShaleError";
    this.code = code;
    this.file = options.file;
    this.offset = options.offset;
  }

  /** True if `value` is a ShaleError from any copy of `@shale/base`. */
  static isInstance(value: unknown): value is ShaleError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[MARKER] === true
    );
  }

  static corruption(message: string, file?: string, offset?: number): ShaleError {
    const options: ShaleErrorOptions = {};
    if (file !== undefined) options.file = file;
    if (offset !== undefined) options.offset = offset;
    return new ShaleError(ErrorCode.Corruption, message, options);
  }

  static invalidArgument(message: string): ShaleError {
    return new ShaleError(ErrorCode.InvalidArgument, message);
  }

  static ioError(message: string, file?: string, cause?: unknown): ShaleError {
    const options: ShaleErrorOptions = {};
    if (file !== undefined) options.file = file;
    if (cause !== undefined) options.cause = cause;
    return new ShaleError(ErrorCode.IOError, message, options);
  }

  static notSupported(message: string): ShaleError {
    return new ShaleError(ErrorCode.NotSupported, message);
  }

  static notFound(message: string): ShaleError {
    return new ShaleError(ErrorCode.NotFound, message);
  }

  static busy(message: string, file?: string): ShaleError {
    return new ShaleError(ErrorCode.Busy, message, file !== undefined ? { file } : {});
  }

  static tryAgain(message: string): ShaleError {
    return new ShaleError(ErrorCode.TryAgain, message);
  }

  static timedOut(message: string): ShaleError {
    return new ShaleError(ErrorCode.TimedOut, message);
  }

  static closed(message: string): ShaleError {
    return new ShaleError(ErrorCode.Closed, message);
  }

  static incomplete(message: string): ShaleError {
    return new ShaleError(ErrorCode.Incomplete, message);
  }

  static assertionFailed(message: string): ShaleError {
    return new ShaleError(ErrorCode.AssertionFailed, message);
  }
}

/** True if `value` is a ShaleError with the given code. */
export function isShaleError(value: unknown, code?: ErrorCode): value is ShaleError {
  return ShaleError.isInstance(value) && (code === undefined || value.code === code);
}

export const isCorruption = (value: unknown): value is ShaleError =>
  isShaleError(value, ErrorCode.Corruption);

export const isAssertionFailed = (value: unknown): value is ShaleError =>
  isShaleError(value, ErrorCode.AssertionFailed);
