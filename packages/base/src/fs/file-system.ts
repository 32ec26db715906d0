/**
 * The FileSystem contract: everything the engine needs from storage, and nothing more.
 *
 * All calls are synchronous. shale's write path (`put` appends to the WAL) and read path
 * (`get` reads table blocks) are synchronous by design, because an async hop through the
 * libuv thread pool costs ~80 µs on the machines we measure on. Background work (flush,
 * compaction) runs in worker threads, where blocking calls are what we want.
 *
 * Paths are plain strings joined with "/". Implementations:
 * - `NodeFileSystem`   — the real file system (`node:fs`), the default.
 * - `MemoryFileSystem` — in-memory, for tests and ephemeral databases.
 * - `FaultInjectionFileSystem` — wraps another one; simulates power cuts (drops unsynced
 *   data), fails the Nth write/sync with EIO or ENOSPC, corrupts bytes at an offset.
 *
 * Errors: every failure is a `ShaleError` with code `IOError` (the OS error code, such as
 * "ENOENT", is kept in `cause.code`), except `lock` on a held lock, which is `Busy`.
 */

/**
 * A file open for appending. Data reaches the OS on `flush`, and the disk on `sync`.
 *
 * Partial writes: an OS write that takes only part of the bytes is continued from where it
 * stopped, never re-sent whole. After a write fails (ENOSPC, EIO) the handle is failed:
 * the file ends with exactly the bytes the OS accepted (`size` says how many), the bytes
 * not accepted are dropped, every later `append`/`flush`/`sync` throws IOError (its `cause`
 * the first failure's errno error), and `close()` releases the handle without writing or
 * throwing that error again. (buffered-writer.ts; `MemoryFileSystem` never fails a write.)
 */
export interface WritableFile {
  /** Appends `data[start, end)`. May buffer in user space until `flush`. */
  append(data: Uint8Array, start?: number, end?: number): void;
  /** Hands every appended byte to the operating system (survives a process crash). */
  flush(): void;
  /** `flush`, then makes the data durable (fsync): survives a power cut. */
  sync(): void;
  /** Flushes and closes. Idempotent. Does not sync. */
  close(): void;
  /** Bytes appended so far (including any not yet flushed). */
  readonly size: number;
}

/** A file open for positional reads (`pread`). */
export interface RandomAccessFile {
  /**
   * Reads up to `length` bytes at `offset` into `dst[dstOffset...]` and returns how many
   * were read (fewer only at end of file).
   */
  read(offset: number, length: number, dst: Uint8Array, dstOffset?: number): number;
  /** The file's size when it was opened. */
  readonly size: number;
  close(): void;
}

/** A file read front to back. */
export interface SequentialFile {
  /** Reads up to `length` bytes into `dst[dstOffset...]`; returns 0 at end of file. */
  read(dst: Uint8Array, dstOffset?: number, length?: number): number;
  /** Skips `n` bytes forward. */
  skip(n: number): void;
  close(): void;
}

/** A held lock; `release` frees it. */
export interface FileLock {
  readonly path: string;
  release(): void;
}

export interface OpenWritableOptions {
  /** Keep the existing contents and append after them. Default: false (truncate). */
  append?: boolean;
  /** Bytes buffered in user space before an automatic flush. Default: 64 KiB. */
  bufferSize?: number;
}

export interface FileSystem {
  /** Creates (or truncates, or with `append` continues) a file for writing. */
  openWritable(path: string, options?: OpenWritableOptions): WritableFile;
  openRandomAccess(path: string): RandomAccessFile;
  openSequential(path: string): SequentialFile;
  /** Reads a whole file. */
  readFile(path: string): Uint8Array;
  /** Writes a whole file (create or replace); with `sync`, fsyncs it before returning. */
  writeFile(path: string, data: Uint8Array, options?: { sync?: boolean }): void;
  exists(path: string): boolean;
  fileSize(path: string): number;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): void;
  /** Removes a file. Removing a missing file is an IOError (ENOENT). */
  remove(path: string): void;
  /** Shrinks (or zero-extends) a file to `size` bytes. */
  truncate(path: string, size: number): void;
  /** File names (not paths) in a directory, sorted. */
  list(dir: string): string[];
  /** Creates a directory and any missing parents; existing directories are fine. */
  mkdir(path: string): void;
  /** Makes directory entries (creations, renames, removals) durable. */
  syncDir(path: string): void;
  /**
   * Takes an exclusive lock on `path` (creating the file). Held locks, in this process or
   * another, make this throw `ShaleError(Busy)`.
   */
  lock(path: string): FileLock;
  /**
   * Makes `newPath` a second name (a hard link) of the existing file `existing`; both then
   * name the same bytes. `newPath` must not exist (EEXIST). Where the storage cannot
   * (another device: EXDEV; no hard links: EPERM, ENOTSUP) this throws IOError with that
   * errno in `cause.code`, and callers fall back to copying (checkpoints do).
   */
  link(existing: string, newPath: string): void;
  /** Removes an empty directory (ENOTEMPTY if it holds anything, ENOENT if missing). */
  removeDir(path: string): void;
  /**
   * Optional: when the file's contents last changed, in milliseconds since the epoch (its
   * mtime; a rename keeps it). Archived WALs are aged by it (`walTtlSeconds`); without it
   * they are aged from when the database first saw them in its archive.
   */
  modifiedTime?(path: string): number;
}

/** Joins path segments with "/", collapsing duplicate separators. */
export function joinPath(...parts: string[]): string {
  return parts
    .filter((p) => p.length > 0)
    .join("/")
    .replace(/\/{2,}/g, "/");
}

/** The directory part of a path ("" for a bare name). */
export function dirName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : i === 0 ? "/" : path.slice(0, i);
}

/** The last segment of a path. */
export function baseName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? path : path.slice(i + 1);
}
