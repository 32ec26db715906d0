/**
 * Failures on both ends of the wire: the I/O worker turns an OPFS `DOMException` into a
 * `WireError` (errno-style, as `node:fs` would report it), and the client turns a
 * `WireError` back into the `ShaleError` the FileSystem contract promises.
 */
import { ShaleError } from "@shale/base";
import type { WireError } from "./protocol.js";

/** A `WireError` thrown inside the I/O worker. */
export class WireFailure extends Error {
  constructor(readonly wire: WireError) {
    super(wire.message);
  }
}

/** An errno failure of `syscall` on `path`. */
export function errnoFailure(
  errno: string,
  syscall: string,
  path: string,
  detail?: string,
): WireFailure {
  return new WireFailure({
    code: "IOError",
    errno,
    syscall,
    path,
    message: `${errno}: ${detail ?? errno.toLowerCase()}, ${syscall} '${path}'`,
  });
}

/** The errno an OPFS `DOMException` name stands for. */
export function errnoOfDomError(
  name: string,
  notFound = "ENOENT",
  typeMismatch = "EISDIR",
): string {
  switch (name) {
    case "NotFoundError":
      return notFound;
    case "TypeMismatchError":
      return typeMismatch;
    case "InvalidModificationError":
      return "ENOTEMPTY";
    case "NoModificationAllowedError":
      return "EBUSY";
    case "QuotaExceededError":
      return "ENOSPC";
    case "TypeError":
      return "EINVAL";
    default:
      return "EIO";
  }
}

/**
 * `err` (a DOMException, a WireFailure or anything else) as a WireFailure of `syscall` on
 * `path`; `typeMismatch`: the errno of a TypeMismatchError there (EISDIR looking up a file,
 * ENOTDIR looking up a directory).
 */
export function toFailure(
  err: unknown,
  syscall: string,
  path: string,
  typeMismatch = "EISDIR",
): WireFailure {
  if (err instanceof WireFailure) return err;
  const name = (err as { name?: unknown } | null)?.name;
  const message = (err as { message?: unknown } | null)?.message;
  const errno = errnoOfDomError(typeof name === "string" ? name : "", "ENOENT", typeMismatch);
  return errnoFailure(errno, syscall, path, `${String(name)}: ${String(message)}`);
}

/** The ShaleError a client throws for a `WireError`. */
export function fromWire(wire: WireError): ShaleError {
  switch (wire.code) {
    case "Busy":
      return ShaleError.busy(wire.message, wire.path);
    case "NotSupported":
      return ShaleError.notSupported(wire.message);
    case "InvalidArgument":
      return ShaleError.invalidArgument(wire.message);
    default: {
      const cause = new Error(wire.message) as Error & {
        code?: string;
        syscall?: string;
        path?: string;
      };
      if (wire.errno !== undefined) cause.code = wire.errno;
      if (wire.syscall !== undefined) cause.syscall = wire.syscall;
      if (wire.path !== undefined) cause.path = wire.path;
      return ShaleError.ioError(
        `${wire.syscall ?? "opfs"} failed: ${wire.message}`,
        wire.path,
        cause,
      );
    }
  }
}

/** An IOError with an errno `cause`, thrown by the client without a round trip. */
export function clientErrno(
  errno: string,
  syscall: string,
  path: string,
  detail?: string,
): ShaleError {
  return fromWire(errnoFailure(errno, syscall, path, detail).wire);
}
