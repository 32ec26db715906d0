/**
 * `MemoryFileSystem`: the FileSystem contract held entirely in memory, for tests and
 * ephemeral databases.
 *
 * Model: a map of normalised path -> inode, plus a set of directories. Handles point at the
 * inode, not the path, so (as on a POSIX file system) a handle keeps working on a file that
 * was renamed or removed after it was opened. Paths are normalised ("a//b/./c/" -> "a/b/c");
 * "/" and "" (the current directory of relative paths) always exist.
 *
 * Differences from `NodeFileSystem`, by design:
 * - Writes are not buffered: `append` is visible to readers at once, `flush` and `sync` do
 *   nothing (use `FaultInjectionFileSystem` to model lost unsynced data). `bufferSize` is
 *   accepted and ignored.
 * - `lock` is per `MemoryFileSystem` instance.
 *
 * Errors mirror Node's: a `ShaleError` IOError whose `cause` is an `Error` with the errno
 * `code` ("ENOENT", "EISDIR", "ENOTDIR", "EEXIST", "ENOTEMPTY", "EBADF", "EINVAL").
 *
 * Thread-safety: none needed; an instance lives in one thread.
 */

import { ShaleError } from "../errors.js";
import { errnoError } from "./errno.js";
import { checkCount, checkRange } from "./file-checks.js";
import {
  baseName,
  dirName,
  type FileLock,
  type FileSystem,
  type OpenWritableOptions,
  type RandomAccessFile,
  type SequentialFile,
  type WritableFile,
} from "./file-system.js";
import { normalizePath } from "./normalize-path.js";

const MIN_CAPACITY = 256;

/** An in-memory file: a doubling byte store, so appends are amortised O(1). */
class Inode {
  bytes: Uint8Array;
  length: number;

  constructor(initial?: Uint8Array) {
    this.bytes = initial !== undefined ? initial.slice() : new Uint8Array(0);
    this.length = this.bytes.length;
  }

  append(data: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.reserve(this.length + n);
    this.bytes.set(data.subarray(start, end), this.length);
    this.length += n;
  }

  /** Shrinks or zero-extends to `size`. */
  resize(size: number): void {
    if (size > this.length) {
      this.reserve(size);
      this.bytes.fill(0, this.length, size);
    }
    this.length = size;
  }

  /** Copies up to `length` bytes at `offset` into `dst[dstOffset...]`; returns the count. */
  readInto(offset: number, length: number, dst: Uint8Array, dstOffset: number): number {
    if (offset >= this.length) return 0;
    const n = Math.min(length, this.length - offset);
    dst.set(this.bytes.subarray(offset, offset + n), dstOffset);
    return n;
  }

  private reserve(capacity: number): void {
    if (capacity <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(capacity, this.bytes.length * 2, MIN_CAPACITY));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

class MemoryWritableFile implements WritableFile {
  private closed = false;
  private written: number;

  constructor(
    private readonly path: string,
    private readonly inode: Inode,
  ) {
    this.written = inode.length;
  }

  get size(): number {
    return this.written;
  }

  append(data: Uint8Array, start = 0, end = data.length): void {
    checkRange("append", start, end, data.length);
    this.checkOpen("write");
    this.inode.append(data, start, end);
    this.written += end - start;
  }

  flush(): void {
    this.checkOpen("write");
  }

  sync(): void {
    this.checkOpen("fsync");
  }

  close(): void {
    this.closed = true;
  }

  private checkOpen(syscall: string): void {
    if (this.closed) throw errnoError("EBADF", syscall, this.path);
  }
}

class MemoryRandomAccessFile implements RandomAccessFile {
  readonly size: number;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly inode: Inode,
  ) {
    this.size = inode.length;
  }

  read(offset: number, length: number, dst: Uint8Array, dstOffset = 0): number {
    checkCount("read offset", offset);
    checkRange("read", dstOffset, dstOffset + length, dst.length);
    if (this.closed) throw errnoError("EBADF", "read", this.path);
    return this.inode.readInto(offset, length, dst, dstOffset);
  }

  close(): void {
    this.closed = true;
  }
}

class MemorySequentialFile implements SequentialFile {
  private position = 0;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly inode: Inode,
  ) {}

  read(dst: Uint8Array, dstOffset = 0, length = dst.length - dstOffset): number {
    checkRange("read", dstOffset, dstOffset + length, dst.length);
    if (this.closed) throw errnoError("EBADF", "read", this.path);
    const n = this.inode.readInto(this.position, length, dst, dstOffset);
    this.position += n;
    return n;
  }

  skip(n: number): void {
    checkCount("skip", n);
    if (this.closed) throw errnoError("EBADF", "lseek", this.path);
    this.position += n;
  }

  close(): void {
    this.closed = true;
  }
}

export class MemoryFileSystem implements FileSystem {
  private readonly files = new Map<string, Inode>();
  private readonly dirs = new Set<string>(["/", ""]);
  private readonly locks = new Set<string>();

  /** `bufferSize` is validated and ignored: memory writes are never buffered. */
  openWritable(path: string, options: OpenWritableOptions = {}): WritableFile {
    if (options.bufferSize !== undefined) checkCount("bufferSize", options.bufferSize);
    const p = normalizePath(path);
    let inode = this.files.get(p);
    if (inode === undefined) {
      this.checkCreatable(p, "open");
      inode = new Inode();
      this.files.set(p, inode);
    } else if (options.append !== true) {
      inode.resize(0);
    }
    return new MemoryWritableFile(path, inode);
  }

  openRandomAccess(path: string): RandomAccessFile {
    return new MemoryRandomAccessFile(path, this.inode(path, "open"));
  }

  openSequential(path: string): SequentialFile {
    return new MemorySequentialFile(path, this.inode(path, "open"));
  }

  /** Returns a copy owned by the caller. */
  readFile(path: string): Uint8Array {
    const inode = this.inode(path, "open");
    return inode.bytes.slice(0, inode.length);
  }

  /** Copies `data`; the caller keeps ownership of it. */
  writeFile(path: string, data: Uint8Array, _options?: { sync?: boolean }): void {
    const p = normalizePath(path);
    if (!this.files.has(p)) this.checkCreatable(p, "open");
    // Same inode if the file exists: like O_TRUNC, open handles see the new contents.
    const inode = this.files.get(p) ?? new Inode();
    inode.resize(0);
    inode.append(data, 0, data.length);
    this.files.set(p, inode);
  }

  exists(path: string): boolean {
    const p = normalizePath(path);
    return this.files.has(p) || this.dirs.has(p);
  }

  /** The size of a file; 0 for a directory. */
  fileSize(path: string): number {
    const p = normalizePath(path);
    if (this.dirs.has(p)) return 0;
    return this.inode(path, "stat").length;
  }

  rename(from: string, to: string): void {
    const src = normalizePath(from);
    const dst = normalizePath(to);
    const inode = this.files.get(src);
    if (inode === undefined && !this.dirs.has(src)) throw errnoError("ENOENT", "rename", from);
    if (!this.dirs.has(dirName(dst))) {
      throw errnoError(this.files.has(dirName(dst)) ? "ENOTDIR" : "ENOENT", "rename", to);
    }
    if (src === dst) return;
    if (inode !== undefined) {
      if (this.dirs.has(dst)) throw errnoError("EISDIR", "rename", to);
      this.files.delete(src);
      this.files.set(dst, inode);
      return;
    }
    this.renameDir(src, dst, to);
  }

  remove(path: string): void {
    const p = normalizePath(path);
    if (this.dirs.has(p)) throw errnoError("EISDIR", "unlink", path);
    if (!this.files.delete(p)) throw errnoError("ENOENT", "unlink", path);
  }

  truncate(path: string, size: number): void {
    checkCount("truncate size", size);
    this.inode(path, "truncate").resize(size);
  }

  list(dir: string): string[] {
    const d = normalizePath(dir);
    if (!this.dirs.has(d)) {
      throw errnoError(this.files.has(d) ? "ENOTDIR" : "ENOENT", "scandir", dir);
    }
    const names: string[] = [];
    for (const p of this.files.keys()) if (dirName(p) === d) names.push(baseName(p));
    for (const p of this.dirs) if (p !== d && p !== "" && dirName(p) === d) names.push(baseName(p));
    return names.sort();
  }

  mkdir(path: string): void {
    const p = normalizePath(path);
    const parts = p.split("/");
    let prefix = "";
    for (let i = 0; i < parts.length; i++) {
      prefix = i === 0 ? parts[0]! : `${prefix}/${parts[i]}`;
      const current = prefix === "" && p.startsWith("/") ? "/" : prefix;
      if (this.files.has(current)) {
        throw errnoError(i === parts.length - 1 ? "EEXIST" : "ENOTDIR", "mkdir", path);
      }
      this.dirs.add(current);
    }
  }

  /** Checks that `path` is a directory; entries are always "durable" here. */
  syncDir(path: string): void {
    const p = normalizePath(path);
    if (!this.dirs.has(p)) {
      throw errnoError(this.files.has(p) ? "ENOTDIR" : "ENOENT", "open", path);
    }
  }

  /** Creates `path` (its directory must exist) and holds it until `release`. */
  lock(path: string): FileLock {
    const p = normalizePath(path);
    if (this.locks.has(p)) throw ShaleError.busy("lock is held", path);
    if (!this.files.has(p)) this.writeFile(p, new Uint8Array(0));
    this.locks.add(p);
    let held = true;
    return {
      path,
      release: () => {
        if (!held) return;
        held = false;
        this.locks.delete(p);
        this.files.delete(p);
      },
    };
  }

  /** A second name for the same inode: writes through either name show in both. */
  link(existing: string, newPath: string): void {
    const inode = this.inode(existing, "link");
    const dst = normalizePath(newPath);
    if (this.files.has(dst) || this.dirs.has(dst)) throw errnoError("EEXIST", "link", newPath);
    this.checkCreatable(dst, "link");
    this.files.set(dst, inode);
  }

  removeDir(path: string): void {
    const p = normalizePath(path);
    if (this.files.has(p)) throw errnoError("ENOTDIR", "rmdir", path);
    if (!this.dirs.has(p) || p === "" || p === "/") throw errnoError("ENOENT", "rmdir", path);
    if (this.list(p).length > 0) throw errnoError("ENOTEMPTY", "rmdir", path);
    this.dirs.delete(p);
  }

  private inode(path: string, syscall: string): Inode {
    const p = normalizePath(path);
    const inode = this.files.get(p);
    if (inode !== undefined) return inode;
    throw errnoError(this.dirs.has(p) ? "EISDIR" : "ENOENT", syscall, path);
  }

  /** Throws unless a file may be created at normalised path `p`. */
  private checkCreatable(p: string, syscall: string): void {
    if (this.dirs.has(p)) throw errnoError("EISDIR", syscall, p);
    const parent = dirName(p);
    if (!this.dirs.has(parent)) {
      throw errnoError(this.files.has(parent) ? "ENOTDIR" : "ENOENT", syscall, p);
    }
  }

  private renameDir(src: string, dst: string, to: string): void {
    if (this.files.has(dst)) throw errnoError("ENOTDIR", "rename", to);
    if (dst.startsWith(`${src}/`)) throw errnoError("EINVAL", "rename", to);
    if (this.dirs.has(dst)) {
      if (this.list(dst).length > 0) throw errnoError("ENOTEMPTY", "rename", to);
      this.dirs.delete(dst);
    }
    const moved = (p: string): string | undefined =>
      p === src ? dst : p.startsWith(`${src}/`) ? dst + p.slice(src.length) : undefined;
    for (const [p, inode] of [...this.files]) {
      const q = moved(p);
      if (q !== undefined) {
        this.files.delete(p);
        this.files.set(q, inode);
      }
    }
    for (const p of [...this.dirs]) {
      const q = moved(p);
      if (q !== undefined) {
        this.dirs.delete(p);
        this.dirs.add(q);
      }
    }
  }
}
