/**
 * Small helpers shared by `NodeFileSystem` (node-fs.ts) and its LOCK files (node-lock.ts):
 * errno errors as `ShaleError` IOError, and the read/write loops over a file descriptor.
 */
import { closeSync, readSync, writeSync } from "node:fs";
import { ShaleError } from "../errors.js";

/** A `ShaleError` IOError for a failed syscall on `path`, with Node's error as `cause`. */
export function ioError(syscall: string, path: string, err: unknown): ShaleError {
  if (ShaleError.isInstance(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return ShaleError.ioError(`${syscall} failed: ${message}`, path, err);
}

/** The errno code ("ENOENT", ...) of a Node error, if it has one. */
export function errnoOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}

/** Closes `fd`; IOError on failure. */
export function closeFd(fd: number, path: string): void {
  try {
    closeSync(fd);
  } catch (err) {
    throw ioError("close", path, err);
  }
}

/** `pread` loop: reads until `length` bytes or end of file; returns the count. */
export function readFully(
  fd: number,
  dst: Uint8Array,
  dstOffset: number,
  length: number,
  position: number,
): number {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, dst, dstOffset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** `write` loop: hands all of `data[start, start + length)` to the OS. */
export function writeFully(fd: number, data: Uint8Array, start: number, length: number): void {
  let done = 0;
  while (done < length) done += writeSync(fd, data, start + done, length - done);
}
