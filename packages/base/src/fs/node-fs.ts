/**
 * `NodeFileSystem`: the FileSystem contract on `node:fs`, with synchronous calls only
 * (see file-system.ts for why).
 *
 * - Writable files buffer appends in user space (Default: 64 KiB, `bufferSize`; 0 writes
 *   straight through) and hand them to the OS with `writeSync` on `flush` or when the buffer
 *   is full. An append at least as large as the buffer is written directly, without a copy.
 *   `sync` = flush + `fdatasync` (libuv maps it to the strongest flush the platform offers).
 * - Random-access reads are `pread`s (`readSync` with a position), looped until `length` or
 *   end of file. Sequential files keep their own position and read forward the same way.
 * - `syncDir` opens the directory and fsyncs it (a no-op on Windows, which cannot).
 * - `lock` uses a LOCK file holding the owner's pid; see `lock` below for how and its limits.
 *
 * Every failure is a `ShaleError` IOError whose `cause` is Node's errno error (so
 * `cause.code` is "ENOENT", "EISDIR", ...); lock contention is `Busy`. Ranges that do not fit
 * the given array are `InvalidArgument`.
 *
 * Thread-safety: a handle belongs to one thread. Locks are tracked per JS realm (see `lock`).
 */

import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { resolve } from "node:path";
import { ShaleError } from "../errors.js";
import type {
  FileLock,
  FileSystem,
  OpenWritableOptions,
  RandomAccessFile,
  SequentialFile,
  WritableFile,
} from "./file-system.js";
import { checkCount, checkRange, errnoError } from "./memory-fs.js";

/** Default user-space write buffer of a WritableFile: 64 KiB. */
export const DEFAULT_WRITE_BUFFER_SIZE = 64 * 1024;

/** An unparsable LOCK file younger than this may be a contender mid-creation: Busy. */
const LOCK_CREATION_GRACE_MS = 2000;

function ioError(syscall: string, path: string, err: unknown): ShaleError {
  if (ShaleError.isInstance(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return ShaleError.ioError(`${syscall} failed: ${message}`, path, err);
}

function errnoOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}

function closeFd(fd: number, path: string): void {
  try {
    closeSync(fd);
  } catch (err) {
    throw ioError("close", path, err);
  }
}

/** `pread` loop: reads until `length` bytes or end of file; returns the count. */
function readFully(
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
function writeFully(fd: number, data: Uint8Array, start: number, length: number): void {
  let done = 0;
  while (done < length) done += writeSync(fd, data, start + done, length - done);
}

class NodeWritableFile implements WritableFile {
  private readonly buffer: Uint8Array;
  private pending = 0;
  private written: number;

  constructor(
    private readonly path: string,
    private fd: number,
    bufferSize: number,
    initialSize: number,
  ) {
    this.buffer = new Uint8Array(bufferSize);
    this.written = initialSize;
  }

  get size(): number {
    return this.written;
  }

  append(data: Uint8Array, start = 0, end = data.length): void {
    checkRange("append", start, end, data.length);
    const n = end - start;
    const capacity = this.buffer.length;
    if (this.pending + n <= capacity) {
      this.checkOpen();
      this.buffer.set(data.subarray(start, end), this.pending);
      this.pending += n;
    } else {
      this.flush();
      if (n >= capacity) {
        try {
          writeFully(this.fd, data, start, n);
        } catch (err) {
          throw ioError("write", this.path, err);
        }
      } else {
        this.buffer.set(data.subarray(start, end), 0);
        this.pending = n;
      }
    }
    this.written += n;
  }

  flush(): void {
    this.checkOpen();
    if (this.pending === 0) return;
    try {
      writeFully(this.fd, this.buffer, 0, this.pending);
    } catch (err) {
      throw ioError("write", this.path, err);
    }
    this.pending = 0;
  }

  sync(): void {
    this.flush();
    try {
      fdatasyncSync(this.fd);
    } catch (err) {
      throw ioError("fdatasync", this.path, err);
    }
  }

  close(): void {
    if (this.fd < 0) return;
    try {
      this.flush();
    } finally {
      const fd = this.fd;
      this.fd = -1;
      closeFd(fd, this.path);
    }
  }

  private checkOpen(): void {
    if (this.fd < 0) throw errnoError("EBADF", "write", this.path);
  }
}

class NodeRandomAccessFile implements RandomAccessFile {
  constructor(
    private readonly path: string,
    private fd: number,
    readonly size: number,
  ) {}

  read(offset: number, length: number, dst: Uint8Array, dstOffset = 0): number {
    checkCount("read offset", offset);
    checkRange("read", dstOffset, dstOffset + length, dst.length);
    if (this.fd < 0) throw errnoError("EBADF", "read", this.path);
    try {
      return readFully(this.fd, dst, dstOffset, length, offset);
    } catch (err) {
      throw ioError("read", this.path, err);
    }
  }

  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    closeFd(fd, this.path);
  }
}

class NodeSequentialFile implements SequentialFile {
  private position = 0;

  constructor(
    private readonly path: string,
    private fd: number,
  ) {}

  read(dst: Uint8Array, dstOffset = 0, length = dst.length - dstOffset): number {
    checkRange("read", dstOffset, dstOffset + length, dst.length);
    if (this.fd < 0) throw errnoError("EBADF", "read", this.path);
    try {
      const n = readFully(this.fd, dst, dstOffset, length, this.position);
      this.position += n;
      return n;
    } catch (err) {
      throw ioError("read", this.path, err);
    }
  }

  skip(n: number): void {
    checkCount("skip", n);
    if (this.fd < 0) throw errnoError("EBADF", "lseek", this.path);
    this.position += n;
  }

  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    closeFd(fd, this.path);
  }
}

/** Absolute paths of the LOCK files held by this JS realm (main thread or one worker). */
const heldLocks = new Set<string>();

/** True if a process with this pid exists (EPERM: it exists but belongs to someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoOf(err) === "EPERM";
  }
}

/**
 * Who holds the LOCK file: "free" (gone meanwhile), "live" (a live process other than us,
 * or an unparsable file young enough to be mid-creation) or "stale".
 */
function lockOwnerState(abs: string): "free" | "live" | "stale" {
  let text: string;
  try {
    text = readFileSync(abs, "utf8").trim();
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("open", abs, err);
  }
  if (/^[1-9][0-9]{0,9}$/.test(text)) {
    const pid = Number(text);
    const valid = pid <= 0x7fffffff && pid !== process.pid;
    return valid && processAlive(pid) ? "live" : "stale";
  }
  try {
    return Date.now() - statSync(abs).mtimeMs < LOCK_CREATION_GRACE_MS ? "live" : "stale";
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("stat", abs, err);
  }
}

/** Creates the LOCK file with O_EXCL and our pid; false if it already exists. */
function tryCreateLockFile(abs: string): boolean {
  let fd: number;
  try {
    fd = openSync(abs, "wx");
  } catch (err) {
    if (errnoOf(err) === "EEXIST") return false;
    throw ioError("open", abs, err);
  }
  const pid = new TextEncoder().encode(`${process.pid}\n`);
  try {
    writeFully(fd, pid, 0, pid.length);
  } catch (err) {
    closeFd(fd, abs);
    removeIfPresent(abs);
    throw ioError("write", abs, err);
  }
  closeFd(fd, abs);
  return true;
}

export class NodeFileSystem implements FileSystem {
  /** REQUIRES: the parent directory exists. `bufferSize` Default: 64 KiB; 0 = unbuffered. */
  openWritable(path: string, options: OpenWritableOptions = {}): WritableFile {
    const bufferSize = options.bufferSize ?? DEFAULT_WRITE_BUFFER_SIZE;
    checkCount("bufferSize", bufferSize);
    let fd: number;
    try {
      fd = openSync(path, options.append === true ? "a" : "w");
    } catch (err) {
      throw ioError("open", path, err);
    }
    try {
      const size = options.append === true ? fstatSync(fd).size : 0;
      return new NodeWritableFile(path, fd, bufferSize, size);
    } catch (err) {
      closeSync(fd);
      throw ioError("fstat", path, err);
    }
  }

  openRandomAccess(path: string): RandomAccessFile {
    const fd = this.openForReading(path);
    try {
      return new NodeRandomAccessFile(path, fd, fstatSync(fd).size);
    } catch (err) {
      closeSync(fd);
      throw ioError("fstat", path, err);
    }
  }

  openSequential(path: string): SequentialFile {
    return new NodeSequentialFile(path, this.openForReading(path));
  }

  /** Returns new bytes owned by the caller (a plain Uint8Array, not a Buffer). */
  readFile(path: string): Uint8Array {
    try {
      const buffer = readFileSync(path);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
    } catch (err) {
      throw ioError("read", path, err);
    }
  }

  writeFile(path: string, data: Uint8Array, options: { sync?: boolean } = {}): void {
    if (options.sync !== true) {
      try {
        writeFileSync(path, data);
        return;
      } catch (err) {
        throw ioError("write", path, err);
      }
    }
    const file = this.openWritable(path, { bufferSize: 0 });
    try {
      file.append(data);
      file.sync();
    } finally {
      file.close();
    }
  }

  /** True for files and directories. */
  exists(path: string): boolean {
    try {
      statSync(path);
      return true;
    } catch {
      return false;
    }
  }

  fileSize(path: string): number {
    try {
      return statSync(path).size;
    } catch (err) {
      throw ioError("stat", path, err);
    }
  }

  rename(from: string, to: string): void {
    try {
      renameSync(from, to);
    } catch (err) {
      throw ioError("rename", from, err);
    }
  }

  remove(path: string): void {
    try {
      unlinkSync(path);
    } catch (err) {
      throw ioError("unlink", path, err);
    }
  }

  truncate(path: string, size: number): void {
    checkCount("truncate size", size);
    try {
      truncateSync(path, size);
    } catch (err) {
      throw ioError("truncate", path, err);
    }
  }

  list(dir: string): string[] {
    try {
      return readdirSync(dir).sort();
    } catch (err) {
      throw ioError("scandir", dir, err);
    }
  }

  mkdir(path: string): void {
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      throw ioError("mkdir", path, err);
    }
  }

  syncDir(path: string): void {
    if (process.platform === "win32") {
      // Windows cannot open a directory for fsync; its directory updates are journaled.
      if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
        throw errnoError("ENOENT", "open", path);
      }
      return;
    }
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (err) {
      throw ioError("open", path, err);
    }
    try {
      fsyncSync(fd);
    } catch (err) {
      throw ioError("fsync", path, err);
    } finally {
      closeFd(fd, path);
    }
  }

  /**
   * Takes the LOCK file at `path`. Node has no `flock`, so:
   *
   * 1. In this JS realm, a set of held absolute paths: a second `lock` is `Busy`.
   * 2. Across processes, the file is created with O_EXCL ("wx") and holds the owner's pid.
   *    If it exists, its pid is read: a live process other than us (`kill(pid, 0)` succeeds
   *    or fails with EPERM) means `Busy`. Otherwise the lock is stale (its owner died without
   *    `release`, e.g. SIGKILL): the file is removed and creation retried once with O_EXCL,
   *    so of two contenders only one wins the new file.
   * 3. An unparsable (e.g. still empty) file younger than 2 s is taken as a contender
   *    between create and write: `Busy`; older, it is stale.
   *
   * Limits: pid reuse (a dead owner's pid now used by an unrelated live process) reads as
   * `Busy` until the file is removed by hand; our own pid in the file is taken as stale (a
   * container restarted after kill -9 often gets the same pid). Two processes that find the
   * same stale file at the same instant can both end up holding it (remove-then-create is not
   * atomic). Pids mean nothing across hosts, so network file systems are not protected.
   * Worker threads have their own realm and share our pid, so a worker can take over a lock
   * held by another thread of this process: lock in one thread only.
   */
  lock(path: string): FileLock {
    const abs = resolve(path);
    if (heldLocks.has(abs)) throw ShaleError.busy("lock is held by this process", path);
    let acquired = false;
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((acquired = tryCreateLockFile(abs))) break;
      const owner = lockOwnerState(abs);
      if (owner === "live") throw ShaleError.busy("lock is held by another process", path);
      if (owner === "stale") removeIfPresent(abs);
    }
    if (!acquired) throw ShaleError.busy("lock is contended", path);
    heldLocks.add(abs);
    let held = true;
    return {
      path,
      release: () => {
        if (!held) return;
        held = false;
        heldLocks.delete(abs);
        releaseLockFile(abs);
      },
    };
  }

  private openForReading(path: string): number {
    try {
      return openSync(path, "r");
    } catch (err) {
      throw ioError("open", path, err);
    }
  }
}

function removeIfPresent(abs: string): void {
  try {
    unlinkSync(abs);
  } catch (err) {
    if (errnoOf(err) !== "ENOENT") throw ioError("unlink", abs, err);
  }
}

/** Removes the LOCK file if it still names us (someone may have removed and retaken it). */
function releaseLockFile(abs: string): void {
  let text: string;
  try {
    text = readFileSync(abs, "utf8").trim();
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return;
    throw ioError("open", abs, err);
  }
  if (text === String(process.pid)) removeIfPresent(abs);
}
