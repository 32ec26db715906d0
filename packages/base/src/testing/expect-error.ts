/**
 * Error assertions shared by every package's tests (one copy, here). No vitest: each throws a
 * plain Error with a message saying what was expected and what came, which fails a vitest
 * test like any assertion.
 */
import { type ErrorCode, isShaleError, type ShaleError } from "../errors.js";

/** What `fn` threw; throws "expected the call to throw" when it returned. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to throw");
}

/** The ShaleError code `fn` throws (or the thrown value itself when it is not a ShaleError). */
export function errorCode(fn: () => unknown): unknown {
  const error = thrown(fn);
  return isShaleError(error) ? error.code : error;
}

/** What an expected ShaleError must also carry. */
export interface ExpectedShaleError {
  /** A substring or a pattern of the message. */
  message?: string | RegExp;
  file?: string;
  offset?: number;
}

/** Asserts `error` is a ShaleError with `code` (and the given message/file/offset); returns it. */
export function assertShaleError(
  error: unknown,
  code: ErrorCode,
  expected: ExpectedShaleError = {},
): ShaleError {
  if (!isShaleError(error, code)) {
    throw new Error(
      `expected ShaleError(${code}), got ${error === undefined ? "no error" : String(error)}`,
    );
  }
  const { message, file, offset } = expected;
  if (message !== undefined) {
    const ok =
      typeof message === "string" ? error.message.includes(message) : message.test(error.message);
    if (!ok)
      throw new Error(`expected ${code} message matching ${String(message)}, got ${error.message}`);
  }
  if (file !== undefined && error.file !== file) {
    throw new Error(
      `expected ${code} in file ${file}, got ${String(error.file)} (${error.message})`,
    );
  }
  if (offset !== undefined && error.offset !== offset) {
    throw new Error(
      `expected ${code} at offset ${offset}, got ${String(error.offset)} (${error.message})`,
    );
  }
  return error;
}

/** Runs `fn` and asserts it throws a ShaleError with `code` (see `assertShaleError`). */
export function expectShaleError(
  fn: () => unknown,
  code: ErrorCode,
  expected: ExpectedShaleError = {},
): ShaleError {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  return assertShaleError(error, code, expected);
}

/** Runs `fn` and asserts it throws IOError caused by the errno `errno` (e.g. "ENOENT"). */
export function expectIoError(fn: () => unknown, errno: string): ShaleError {
  const error = expectShaleError(fn, "IOError");
  const cause = error.cause as { code?: unknown } | undefined;
  if (cause?.code !== errno) {
    throw new Error(
      `expected IOError caused by ${errno}, got cause ${String(cause?.code)} (${error.message})`,
    );
  }
  return error;
}
