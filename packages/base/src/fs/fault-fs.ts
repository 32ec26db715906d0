/**
 * `FaultInjectionFileSystem`: wraps another FileSystem, passes everything through, and lets
 * tests simulate what storage does to a database, after RocksDB's FaultInjectionTestEnv.
 *
 * What is modelled:
 * - Power cut (`dropUnsyncedData`). For every file written through this wrapper it knows
 *   the size at the last sync (`WritableFile.sync`, or `writeFile` with `sync`) and whether
 *   the file was created since the last `syncDir` of its directory. A power cut truncates
 *   each such file to its synced size and deletes the files whose creation was never made
 *   durable. Writable handles opened before it are dead afterwards: every call but `close`
 *   throws IOError (EIO), and bytes they still buffered are discarded.
 * - Truncation by `openWritable` (without `append`) or `writeFile` is taken as durable at
 *   once: the synced size restarts at 0.
 * - Rename carries the file's state to the new name, including "created since the last
 *   `syncDir`" (moved to the target directory); the rename itself is treated as durable. So
 *   write-temp-then-rename without a `syncDir` loses the file in a power cut, and a durable
 *   file renamed without a `syncDir` keeps its new name. Rename is atomic: a file renamed
 *   over a durable one, both without a `syncDir` since, gives the old one back in a power
 *   cut (write-temp-then-rename of CURRENT leaves the old CURRENT, never none).
 * - Failing operations (`failAfter`): the n-th following "write" (append, a flush that hands
 *   over buffered bytes, `writeFile`) or "sync" (`sync`, `syncDir`, `writeFile` with `sync`)
 *   and every later one throws IOError with `cause.code` EIO or ENOSPC, with no effect.
 * - Short writes (`shortWrites`, `shortWriteAt`): an OS write (one `write(2)` of a handle's
 *   buffered bytes; see buffered-writer.ts) accepts fewer bytes than it was handed, as a
 *   real `write(2)` may; the handle must send the rest. Random (a probability, seeded) or
 *   at a chosen OS write, with a chosen or random accepted count.
 * - A full disk (`failWritesAfterBytes`): the next `n` bytes written (over every file) land;
 *   the OS write that crosses the limit accepts only what fits (a short write), and every
 *   later one fails with ENOSPC (or EIO) having written nothing — so a failed flush leaves
 *   a prefix of its bytes in the file, exactly as `write(2)` on a nearly full disk does.
 *   `writeFile` past the limit leaves the prefix that fit and throws.
 * - An inactive file system (`setFilesystemActive(false)`): every write, sync and metadata
 *   change (open for writing, rename, remove, truncate, mkdir) fails; reads still work.
 * - Corruption (`corrupt`): bytes flipped in place.
 *
 * What is not: removals and `mkdir` are durable at once (a removed file never comes back);
 * a rename never reverts to the old name, and renaming a directory does not carry the state
 * of the files in it; no torn (partly persisted) unsynced tail — a file keeps exactly its
 * synced prefix; files that existed before the wrapper saw them count as fully durable;
 * readers are not invalidated by a power cut; the loss of unflushed bytes in a process
 * crash is not simulated separately.
 *
 * Writable files opened here buffer in this wrapper (`bufferSize`, Default: 64 KiB) and
 * write to the inner file system unbuffered, so a dead handle cannot leak bytes into it.
 */

import { ShaleError } from "../errors.js";
import { Random } from "../testing/random.js";
import { BufferedWriter, type ByteSink } from "./buffered-writer.js";
import { errnoError } from "./errno.js";
import { checkCount, checkRange } from "./file-checks.js";
import {
  dirName,
  type FileLock,
  type FileSystem,
  type OpenWritableOptions,
  type RandomAccessFile,
  type SequentialFile,
  type WritableFile,
} from "./file-system.js";
import { normalizePath } from "./normalize-path.js";

/** Which operations `failAfter` fails. */
export type FaultOperation = "write" | "sync" | "any";
/** The OS error an injected fault reports in `cause.code`. */
export type FaultErrno = "EIO" | "ENOSPC";

/** Operations seen by the wrapper, including those that failed. */
export interface FaultCounters {
  writes: number;
  syncs: number;
  /** OS-level writes: one per `write(2)` a handle made (short ones included). */
  osWrites: number;
}

/** Random short writes (see `shortWrites`). */
export interface ShortWriteOptions {
  /** Chance (0..1) that an OS write of 2 or more bytes is cut short. */
  probability: number;
  /** Seed of the random choices. Default: 1. */
  seed?: number;
}

const DEFAULT_BUFFER_SIZE = 64 * 1024;

/** What a power cut needs to know about one file. */
interface FileState {
  /** Bytes that survive a power cut. */
  syncedSize: number;
  /** Created since the last `syncDir` of its directory: a power cut deletes it. */
  createdSinceDirSync: boolean;
  /**
   * The durable bytes of the file it was renamed over (with `createdSinceDirSync`): a power
   * cut puts them back instead of deleting the name.
   */
  replaced?: Uint8Array | undefined;
}

/** The fault switches, shared by the file system and its handles. */
class FaultController {
  readonly counters: FaultCounters = { writes: 0, syncs: 0, osWrites: 0 };
  armed: { op: FaultOperation; countdown: number; errno: FaultErrno } | undefined;
  inactiveErrno: FaultErrno | undefined;
  /** Random short writes: probability and generator. */
  shortProbability = 0;
  shortRandom = new Random(1);
  /** One chosen short write: the OS write number (`counters.osWrites`) and bytes accepted. */
  shortAt: { call: number; accept: number | undefined } | undefined;
  /** A full disk: bytes that still fit, and the errno once they are used up. */
  bytesLeft: number | undefined;
  fullErrno: FaultErrno = "ENOSPC";
  /** Bumped by every power cut; handles of an older epoch are dead. */
  epoch = 0;

  /** Counts an operation, then throws if it is to fail. */
  check(kind: "write" | "sync", syscall: string, path: string): void {
    if (kind === "write") this.counters.writes++;
    else this.counters.syncs++;
    this.checkActive(syscall, path);
    const fault = this.armed;
    if (fault === undefined || (fault.op !== "any" && fault.op !== kind)) return;
    if (fault.countdown > 1) fault.countdown--;
    else throw errnoError(fault.errno, syscall, path, "injected fault");
  }

  checkActive(syscall: string, path: string): void {
    if (this.inactiveErrno !== undefined) {
      throw errnoError(this.inactiveErrno, syscall, path, "file system inactive");
    }
  }

  /**
   * How many of `length` bytes the OS write being made accepts (>= 1), or throws if the disk
   * is full. Counts the OS write.
   */
  accept(length: number, path: string): number {
    const call = ++this.counters.osWrites;
    this.checkActive("write", path);
    let k = length;
    const at = this.shortAt;
    if (at !== undefined && at.call === call) {
      this.shortAt = undefined;
      if (length > 1)
        k = Math.min(at.accept ?? 1 + this.shortRandom.uniform(length - 1), length - 1);
    } else if (length > 1 && this.shortProbability > 0) {
      if (this.shortRandom.nextUint32() / 4294967296 < this.shortProbability) {
        k = 1 + this.shortRandom.uniform(length - 1);
      }
    }
    const left = this.bytesLeft;
    if (left !== undefined) {
      if (left === 0) throw errnoError(this.fullErrno, "write", path, "injected: disk full");
      if (k > left) k = left;
      this.bytesLeft = left - k;
    }
    return k;
  }

  /** For `writeFile`: bytes of `length` that fit on the "disk" (all of them unless full). */
  fit(length: number): number {
    const left = this.bytesLeft;
    if (left === undefined || length <= left) {
      if (left !== undefined) this.bytesLeft = left - length;
      return length;
    }
    this.bytesLeft = 0;
    return left;
  }
}

/** One handle's OS writes: appended to the inner (unbuffered) file, cut short as told. */
class FaultSink implements ByteSink {
  constructor(
    private readonly faults: FaultController,
    private readonly path: string,
    private readonly inner: WritableFile,
  ) {}

  write(data: Uint8Array, start: number, length: number): number {
    const k = this.faults.accept(length, this.path);
    const before = this.inner.size;
    try {
      this.inner.append(data, start, start + k);
    } catch (err) {
      // The inner file system may itself have taken a prefix (a real full disk).
      const landed = this.inner.size - before;
      if (landed > 0 && landed < k) return landed;
      throw err;
    }
    return k;
  }
}

class FaultWritableFile implements WritableFile {
  private readonly writer: BufferedWriter;
  private closed = false;
  private readonly epoch: number;

  constructor(
    private readonly faults: FaultController,
    private readonly path: string,
    private readonly inner: WritableFile,
    private readonly state: FileState,
    bufferSize: number,
  ) {
    this.writer = new BufferedWriter(
      new FaultSink(faults, path, inner),
      bufferSize,
      inner.size,
      (err) =>
        ShaleError.isInstance(err) ? err : ShaleError.ioError(`write failed: ${err}`, path, err),
    );
    this.epoch = faults.epoch;
  }

  get size(): number {
    return this.writer.size;
  }

  append(data: Uint8Array, start = 0, end = data.length): void {
    checkRange("append", start, end, data.length);
    this.checkUsable("write");
    this.faults.check("write", "write", this.path);
    this.writer.append(data, start, end);
  }

  flush(): void {
    this.checkUsable("write");
    if (this.writer.buffered === 0 && this.writer.error === undefined) return;
    if (this.writer.error === undefined) this.faults.check("write", "write", this.path);
    this.writer.flush();
  }

  sync(): void {
    this.flush();
    this.faults.check("sync", "fsync", this.path);
    this.inner.sync();
    this.state.syncedSize = this.writer.size;
  }

  /** Writes out the buffer (unless the handle is dead or failed), then closes. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (
        this.epoch === this.faults.epoch &&
        this.writer.error === undefined &&
        this.writer.buffered > 0
      ) {
        this.faults.check("write", "write", this.path);
        this.writer.flush();
      }
    } finally {
      this.writer.discard();
      this.inner.close();
    }
  }

  private checkUsable(syscall: string): void {
    if (this.closed) throw errnoError("EBADF", syscall, this.path);
    if (this.epoch !== this.faults.epoch) {
      throw errnoError("EIO", syscall, this.path, "handle invalidated by a simulated power cut");
    }
  }
}

export class FaultInjectionFileSystem implements FileSystem {
  private readonly faults = new FaultController();
  /** Files written through this wrapper, by normalised path. */
  private readonly files = new Map<string, FileState>();

  constructor(readonly inner: FileSystem) {}

  /** Operations seen so far, including failed ones (a snapshot). */
  get counters(): Readonly<FaultCounters> {
    return { ...this.faults.counters };
  }

  /**
   * From now on, the `n`-th matching operation (1-based) and every later one throws
   * IOError with `cause.code` = `errno`, until `clearFaults`. Replaces any earlier fault.
   */
  failAfter(op: FaultOperation, n: number, errno: FaultErrno): void {
    if (!Number.isInteger(n) || n < 1) throw ShaleError.invalidArgument(`failAfter: bad n ${n}`);
    this.faults.armed = { op, countdown: n, errno };
  }

  /**
   * From now on each OS write of 2 or more bytes accepts a random shorter prefix
   * (1..length-1 bytes) with `probability`; the handle completes the rest with more OS
   * writes. Deterministic for a `seed`. Until `clearFaults` (or `probability` 0).
   */
  shortWrites(options: ShortWriteOptions): void {
    const p = options.probability;
    if (typeof p !== "number" || !(p >= 0 && p <= 1)) {
      throw ShaleError.invalidArgument(`shortWrites: probability ${p} outside [0, 1]`);
    }
    this.faults.shortProbability = p;
    this.faults.shortRandom = new Random(options.seed ?? 1);
  }

  /**
   * The `n`-th following OS write (1-based; see `counters.osWrites`) accepts only `accept`
   * bytes (at most its length - 1; Default: a random count), once.
   */
  shortWriteAt(n: number, accept?: number): void {
    if (!Number.isInteger(n) || n < 1) throw ShaleError.invalidArgument(`shortWriteAt: bad n ${n}`);
    if (accept !== undefined && (!Number.isInteger(accept) || accept < 1)) {
      throw ShaleError.invalidArgument(`shortWriteAt: bad accept ${accept}`);
    }
    this.faults.shortAt = { call: this.faults.counters.osWrites + n, accept };
  }

  /**
   * A disk that fills up: the next `n` bytes written (over every file, `n` >= 0) land, the
   * OS write that crosses the limit lands what fits, and every later one throws IOError
   * with `cause.code` = `errno` (Default: ENOSPC), until `clearFaults`.
   */
  failWritesAfterBytes(n: number, errno: FaultErrno = "ENOSPC"): void {
    if (!Number.isInteger(n) || n < 0) {
      throw ShaleError.invalidArgument(`failWritesAfterBytes: bad n ${n}`);
    }
    this.faults.bytesLeft = n;
    this.faults.fullErrno = errno;
  }

  /** Disarms `failAfter`, short writes and the full disk, and makes the file system active again. */
  clearFaults(): void {
    this.faults.armed = undefined;
    this.faults.inactiveErrno = undefined;
    this.faults.shortProbability = 0;
    this.faults.shortAt = undefined;
    this.faults.bytesLeft = undefined;
  }

  /** While inactive, every write, sync and metadata change fails with `errno` (Default: EIO). */
  setFilesystemActive(active: boolean, errno: FaultErrno = "EIO"): void {
    this.faults.inactiveErrno = active ? undefined : errno;
  }

  /**
   * Simulates a power cut (see the file comment): truncates files to their synced size,
   * deletes files whose creation was never dir-synced, and kills open writable handles.
   * Works on the inner file system directly, so it succeeds even while faults are armed.
   */
  dropUnsyncedData(): void {
    this.faults.epoch++;
    for (const [path, state] of this.files) {
      if (state.createdSinceDirSync) {
        if (this.inner.exists(path)) this.inner.remove(path);
        this.files.delete(path);
        if (state.replaced !== undefined) this.inner.writeFile(path, state.replaced);
      } else if (this.inner.exists(path) && this.inner.fileSize(path) > state.syncedSize) {
        this.inner.truncate(path, state.syncedSize);
      }
    }
  }

  /**
   * XORs the byte at `offset` of `path` with `xorMask` (Default: 0xff), in place. Not a
   * counted operation, not affected by faults, and does not change what is synced.
   */
  corrupt(path: string, offset: number, xorMask = 0xff): void {
    const data = this.inner.readFile(path);
    if (!Number.isInteger(offset) || offset < 0 || offset >= data.length) {
      throw ShaleError.invalidArgument(`corrupt: offset ${offset} outside [0, ${data.length})`);
    }
    data[offset] = (data[offset]! ^ xorMask) & 0xff;
    this.inner.writeFile(path, data);
  }

  /** `bufferSize` Default: 64 KiB; 0 = unbuffered. */
  openWritable(path: string, options: OpenWritableOptions = {}): WritableFile {
    const bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    checkCount("bufferSize", bufferSize);
    this.faults.checkActive("open", path);
    const append = options.append === true;
    const existed = this.inner.exists(path);
    const inner = this.inner.openWritable(path, { append, bufferSize: 0 });
    const state = this.track(path, existed, !append, inner.size);
    return new FaultWritableFile(this.faults, path, inner, state, bufferSize);
  }

  openRandomAccess(path: string): RandomAccessFile {
    return this.inner.openRandomAccess(path);
  }

  openSequential(path: string): SequentialFile {
    return this.inner.openSequential(path);
  }

  readFile(path: string): Uint8Array {
    return this.inner.readFile(path);
  }

  /** Past a `failWritesAfterBytes` limit, the prefix that fits is written, then ENOSPC. */
  writeFile(path: string, data: Uint8Array, options: { sync?: boolean } = {}): void {
    this.faults.check("write", "write", path);
    const existed = this.inner.exists(path);
    const fits = this.faults.fit(data.length);
    const full = (): ShaleError =>
      errnoError(this.faults.fullErrno, "write", path, "injected: disk full");
    if (options.sync !== true) {
      this.inner.writeFile(path, fits < data.length ? data.subarray(0, fits) : data);
      this.track(path, existed, true, 0);
      if (fits < data.length) throw full();
      return;
    }
    const file = this.inner.openWritable(path, { bufferSize: 0 });
    const state = this.track(path, existed, true, 0);
    try {
      file.append(data, 0, fits);
      if (fits < data.length) throw full();
      this.faults.check("sync", "fsync", path);
      file.sync();
      state.syncedSize = data.length;
    } finally {
      file.close();
    }
  }

  exists(path: string): boolean {
    return this.inner.exists(path);
  }

  fileSize(path: string): number {
    return this.inner.fileSize(path);
  }

  rename(from: string, to: string): void {
    this.faults.checkActive("rename", from);
    const src = normalizePath(from);
    const dst = normalizePath(to);
    const state = this.files.get(src);
    let replaced: Uint8Array | undefined;
    if (src !== dst && state?.createdSinceDirSync === true && this.inner.exists(to)) {
      const old = this.files.get(dst);
      if (old === undefined) replaced = this.inner.readFile(to);
      else if (!old.createdSinceDirSync)
        replaced = this.inner.readFile(to).slice(0, old.syncedSize);
      else replaced = old.replaced;
    }
    this.inner.rename(from, to);
    if (src === dst) return;
    this.files.delete(src);
    this.files.delete(dst);
    if (state !== undefined) {
      state.replaced = replaced;
      this.files.set(dst, state);
    }
  }

  remove(path: string): void {
    this.faults.checkActive("unlink", path);
    this.inner.remove(path);
    this.files.delete(normalizePath(path));
  }

  truncate(path: string, size: number): void {
    this.faults.checkActive("truncate", path);
    this.inner.truncate(path, size);
    const state = this.files.get(normalizePath(path));
    if (state !== undefined) state.syncedSize = Math.min(state.syncedSize, size);
  }

  list(dir: string): string[] {
    return this.inner.list(dir);
  }

  mkdir(path: string): void {
    this.faults.checkActive("mkdir", path);
    this.inner.mkdir(path);
  }

  /** Also makes the creation of the files in `path` durable. */
  syncDir(path: string): void {
    this.faults.check("sync", "fsync", path);
    this.inner.syncDir(path);
    const dir = normalizePath(path);
    for (const [file, state] of this.files) {
      if (dirName(file) === dir) {
        state.createdSinceDirSync = false;
        state.replaced = undefined;
      }
    }
  }

  lock(path: string): FileLock {
    return this.inner.lock(path);
  }

  /**
   * The new name is new since the last `syncDir` of its directory (a power cut removes it);
   * the bytes are those of `existing`, durable as far as they are.
   */
  link(existing: string, newPath: string): void {
    this.faults.checkActive("link", newPath);
    this.inner.link(existing, newPath);
    const src = this.files.get(normalizePath(existing));
    const synced = src !== undefined ? src.syncedSize : this.inner.fileSize(newPath);
    this.files.set(normalizePath(newPath), { syncedSize: synced, createdSinceDirSync: true });
  }

  removeDir(path: string): void {
    this.faults.checkActive("rmdir", path);
    this.inner.removeDir(path);
  }

  /**
   * Records a file just opened for writing. A file new to the wrapper (or that did not
   * exist) starts with `syncedSize` surviving a power cut; `truncated` restarts it at 0.
   */
  private track(path: string, existed: boolean, truncated: boolean, syncedSize: number): FileState {
    const key = normalizePath(path);
    let state = this.files.get(key);
    if (state === undefined || !existed) {
      state = { syncedSize: truncated ? 0 : syncedSize, createdSinceDirSync: !existed };
      this.files.set(key, state);
    } else if (truncated) {
      state.syncedSize = 0;
    }
    return state;
  }
}
