/**
 * `NodeFileSystem`: the FileSystem contract on `node:fs`, with synchronous calls only
 * (see file-system.ts for why).
 *
 * - Writable files buffer appends in user space (Default: 64 KiB, `bufferSize`; 0 writes
 *   straight through) and hand them to the OS with `writeSync` on `flush` or when the buffer
 *   is full. An append at least as large as the buffer is written directly, without a copy.
 *   A partial write is completed from where the OS stopped; after a failed write the handle
 *   is failed and the file ends with exactly the bytes the OS accepted (buffered-writer.ts).
 *   `sync` = flush + `fdatasync` (libuv maps it to the strongest flush the platform offers).
 * - Random-access reads are `pread`s (`readSync` with a position), looped until `length` or
 *   end of file. Sequential files keep their own position and read forward the same way.
 * - `syncDir` opens the directory and fsyncs it (a no-op on Windows, which cannot).
 * - `lock` uses a LOCK file holding the owner's pid and honours RocksDB's fcntl lock on it
 *   through /proc/locks (node-lock.ts); see `lock` below for its limits.
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
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { BufferedWriter, type ByteSink, DEFAULT_WRITE_BUFFER_SIZE } from "./buffered-writer.js";
import { errnoError } from "./errno.js";
import { checkCount, checkRange } from "./file-checks.js";
import type {
  FileLock,
  FileSystem,
  OpenWritableOptions,
  RandomAccessFile,
  SequentialFile,
  WritableFile,
} from "./file-system.js";
import { closeFd, ioError, readFully } from "./node-io.js";
import { lockFile } from "./node-lock.js";

export { DEFAULT_WRITE_BUFFER_SIZE };

class NodeWritableFile implements WritableFile {
  private readonly writer: BufferedWriter;

  constructor(
    private readonly path: string,
    private fd: number,
    bufferSize: number,
    initialSize: number,
  ) {
    const sink: ByteSink = {
      write: (data, start, length) => writeSync(this.fd, data, start, length),
    };
    this.writer = new BufferedWriter(sink, bufferSize, initialSize, (err) =>
      ioError("write", path, err),
    );
  }

  get size(): number {
    return this.writer.size;
  }

  append(data: Uint8Array, start = 0, end = data.length): void {
    checkRange("append", start, end, data.length);
    this.checkOpen();
    this.writer.append(data, start, end);
  }

  flush(): void {
    this.checkOpen();
    this.writer.flush();
  }

  sync(): void {
    this.flush();
    try {
      fdatasyncSync(this.fd);
    } catch (err) {
      throw ioError("fdatasync", this.path, err);
    }
  }

  /** Flushes (unless an earlier write failed: then nothing is written) and closes. */
  close(): void {
    if (this.fd < 0) return;
    try {
      if (this.writer.error === undefined) this.writer.flush();
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

  modifiedTime(path: string): number {
    try {
      return statSync(path).mtimeMs;
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
   * Takes the LOCK file at `path` (node-lock.ts): the lock of `path`'s DIRECTORY, by its
   * device and inode, so every path to it (symlinks, `.`, relative) is one lock. The file is
   * created if missing and NEVER removed (RocksDB's LOCK stays in place too); while held it
   * holds our pid and stays open. `Busy` if this JS realm holds it; if `/proc/locks` lists a
   * POSIX record lock, OFD lock or flock on it (RocksDB's `fcntl` lock: the message names
   * the holder's pid when the kernel reports one); if it names a live process other than
   * us; if it names us and another descriptor of this process has it open (another thread's
   * lock; Linux); or for the microseconds another contender holds the claim file
   * `LOCK.claim` beside it. An empty file (released, or RocksDB's), a dead pid (a crashed
   * owner) or any other text is free: taken over in place. `release()` empties the file if
   * it still names us, then closes it; idempotent.
   *
   * Limits: without `/proc/locks` (macOS, Windows, no procfs) RocksDB's fcntl lock is
   * invisible: an empty LOCK held by a running RocksDB is taken as free. RocksDB, for its
   * part, never sees this lock (Node cannot take an fcntl lock), so a RocksDB opening a
   * directory shale holds succeeds: never open one directory with both. Pid reuse (a dead
   * owner's pid now used by an unrelated live process) reads as `Busy` until the file is
   * emptied by hand; our own pid in a file no other descriptor of ours holds is taken as
   * stale (a container restarted after kill -9 often gets the same pid). Pids mean nothing
   * across hosts, so network file systems are not protected. Off Linux, a worker thread can
   * take over a lock held by another thread of this process: lock in one thread only there.
   */
  lock(path: string): FileLock {
    return lockFile(path);
  }

  link(existing: string, newPath: string): void {
    try {
      linkSync(existing, newPath);
    } catch (err) {
      throw ioError("link", existing, err);
    }
  }

  removeDir(path: string): void {
    try {
      rmdirSync(path);
    } catch (err) {
      throw ioError("rmdir", path, err);
    }
  }

  private openForReading(path: string): number {
    try {
      return openSync(path, "r");
    } catch (err) {
      throw ioError("open", path, err);
    }
  }
}
