/**
 * Node-style errno errors for the file systems that are not Node's (in-memory, fault
 * injecting): a `ShaleError` IOError whose `cause` is an `Error` with the errno `code`,
 * `syscall` and `path`, as `node:fs` would throw it. Internal to the package.
 */
import { ShaleError } from "../errors.js";

const MESSAGES: Readonly<Record<string, string>> = {
  EBADF: "bad file descriptor",
  EEXIST: "file already exists",
  EINVAL: "invalid argument",
  EIO: "i/o error",
  EISDIR: "illegal operation on a directory",
  ENOENT: "no such file or directory",
  ENOSPC: "no space left on device",
  ENOTDIR: "not a directory",
  ENOTEMPTY: "directory not empty",
};

/** A Node-style errno error (`code`, `syscall`, `path`), as `node:fs` would throw it. */
export interface ErrnoError extends Error {
  code: string;
  syscall: string;
  path: string;
}

/**
 * @internal Builds the ShaleError IOError for `errno` with a Node-like `cause` (`detail`
 * Default: the usual text for that errno).
 * Shared by the in-memory and fault-injecting file systems; not exported from the package.
 */
export function errnoError(
  errno: string,
  syscall: string,
  path: string,
  detail?: string,
): ShaleError {
  detail ??= MESSAGES[errno] ?? "error";
  const cause = new Error(`${errno}: ${detail}, ${syscall} '${path}'`) as ErrnoError;
  cause.code = errno;
  cause.syscall = syscall;
  cause.path = path;
  return ShaleError.ioError(`${syscall} failed: ${cause.message}`, path, cause);
}
