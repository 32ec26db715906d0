/**
 * `FakeOpfs`: the origin private file system's handle API, faithfully enough for tests,
 * over a real directory of the local disk (so a "browser restart" — a new fake over the same
 * directory — finds the files, and two workers share them).
 *
 * What it reproduces, because `OpfsFileSystem` depends on it:
 * - directory and file handles (`getFileHandle`, `getDirectoryHandle`, `removeEntry`,
 *   `keys` in no particular order) with the browser's DOMException names: NotFoundError,
 *   TypeMismatchError, InvalidModificationError (a non-empty directory), TypeError (a bad
 *   name), NoModificationAllowedError (a second sync access handle on a file, or removing
 *   or moving a file that has one);
 * - sync access handles: `read`/`write` at an offset, `truncate`, `getSize`, `flush`
 *   (fsync), `close`, InvalidStateError after close; a per-page limit on open handles
 *   (`maxHandles`, Safari's ~250) that throws past it;
 * - `move()`: "atomic" (replaces an existing target), "no-overwrite" (InvalidModificationError
 *   onto an existing file) or "none" (no `move` method, as in older browsers);
 * - a storage quota: a write or truncate that would take the directory past `quota` bytes
 *   throws QuotaExceededError; `estimate()` reports usage and quota;
 * - Web Locks (`request` with `ifAvailable`), exclusive across threads of this process
 *   (a lock is a directory created with mkdir beside the fake's root).
 *
 * Test-only; never used by the browser build.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type {
  DirectoryHandleLike,
  FileHandleLike,
  LockLike,
  LockManagerLike,
  OpfsEnvironment,
  StorageEstimateLike,
  SyncAccessHandleLike,
} from "../opfs-api.js";

export interface FakeOpfsOptions {
  /** The local directory holding the fake's files (its subdirectory `root` is the OPFS root). */
  dir: string;
  /** How `move()` behaves. Default: "atomic". */
  move?: "atomic" | "no-overwrite" | "none";
  /** Bytes the origin may store. Default: unlimited. */
  quota?: number;
  /** Sync access handles open at once before `createSyncAccessHandle` throws. Default: 250. */
  maxHandles?: number;
}

const domError = (name: string, message: string): Error => new DOMException(message, name);

function checkEntryName(name: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\\")) {
    throw new TypeError(`Name is not allowed: ${JSON.stringify(name)}`);
  }
}

function kindAt(path: string): "file" | "directory" | undefined {
  try {
    return statSync(path).isDirectory() ? "directory" : "file";
  } catch {
    return undefined;
  }
}

function treeBytes(path: string): number {
  let total = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    total += e.isDirectory() ? treeBytes(p) : statSync(p).size;
  }
  return total;
}

export class FakeOpfs {
  readonly rootPath: string;
  private readonly lockPath: string;
  /** Paths with an open sync access handle. */
  readonly openFiles = new Set<string>();
  private readonly moveMode: "atomic" | "no-overwrite" | "none";
  private readonly maxHandles: number;
  /** The most sync access handles open at once. */
  peakHandles = 0;
  quota: number;
  private readonly paths = new WeakMap<DirectoryHandleLike, string>();

  constructor(options: FakeOpfsOptions) {
    this.rootPath = join(options.dir, "root");
    this.lockPath = join(options.dir, "locks");
    mkdirSync(this.rootPath, { recursive: true });
    mkdirSync(this.lockPath, { recursive: true });
    this.moveMode = options.move ?? "atomic";
    this.quota = options.quota ?? Number.POSITIVE_INFINITY;
    this.maxHandles = options.maxHandles ?? 250;
  }

  /** `navigator.storage` and `navigator.locks` as the I/O server uses them. */
  environment(): OpfsEnvironment {
    return {
      getDirectory: async () => this.directory(this.rootPath, ""),
      locks: this.lockManager(),
      estimate: async (): Promise<StorageEstimateLike> => ({
        usage: this.usage(),
        ...(Number.isFinite(this.quota) ? { quota: this.quota } : {}),
      }),
    };
  }

  /** Bytes stored under the root. */
  usage(): number {
    return treeBytes(this.rootPath);
  }

  directory(path: string, name: string): DirectoryHandleLike {
    const fake = this;
    const existing = (): void => {
      if (kindAt(path) !== "directory")
        throw domError("NotFoundError", `directory ${name} was removed`);
    };
    const handle: DirectoryHandleLike = {
      kind: "directory",
      name,
      async getFileHandle(child, options) {
        checkEntryName(child);
        existing();
        const p = join(path, child);
        const kind = kindAt(p);
        if (kind === "directory") throw domError("TypeMismatchError", `${child} is a directory`);
        if (kind === undefined) {
          if (options?.create !== true) throw domError("NotFoundError", `${child} not found`);
          closeSync(openSync(p, "a"));
        }
        return fake.file(p, child);
      },
      async getDirectoryHandle(child, options) {
        checkEntryName(child);
        existing();
        const p = join(path, child);
        const kind = kindAt(p);
        if (kind === "file") throw domError("TypeMismatchError", `${child} is a file`);
        if (kind === undefined) {
          if (options?.create !== true) throw domError("NotFoundError", `${child} not found`);
          mkdirSync(p);
        }
        return fake.directory(p, child);
      },
      async removeEntry(child, options) {
        checkEntryName(child);
        existing();
        const p = join(path, child);
        const kind = kindAt(p);
        if (kind === undefined) throw domError("NotFoundError", `${child} not found`);
        if (kind === "directory") {
          if (readdirSync(p).length > 0 && options?.recursive !== true) {
            throw domError("InvalidModificationError", `${child} is not empty`);
          }
          rmSync(p, { recursive: true });
          return;
        }
        if (fake.openFiles.has(p))
          throw domError("NoModificationAllowedError", `${child} has an open access handle`);
        unlinkSync(p);
      },
      async *keys() {
        existing();
        // The browser promises no order: hand names back reversed so callers must sort.
        for (const n of readdirSync(path).sort().reverse()) yield n;
      },
    };
    if (this.moveMode !== "none") {
      handle.move = async (destination, newName) =>
        fake.moveEntry(path, destination, newName, "directory");
    }
    this.paths.set(handle, path);
    return handle;
  }

  file(path: string, name: string): FileHandleLike {
    const fake = this;
    const handle: FileHandleLike = {
      kind: "file",
      name,
      async createSyncAccessHandle() {
        if (kindAt(path) !== "file") throw domError("NotFoundError", `${name} was removed`);
        if (fake.openFiles.has(path)) {
          throw domError("NoModificationAllowedError", `${name} already has an open access handle`);
        }
        if (fake.openFiles.size >= fake.maxHandles) {
          throw domError("InvalidStateError", `too many open access handles (${fake.maxHandles})`);
        }
        fake.openFiles.add(path);
        fake.peakHandles = Math.max(fake.peakHandles, fake.openFiles.size);
        return fake.syncHandle(path);
      },
    };
    if (this.moveMode !== "none") {
      handle.move = async (destination, newName) =>
        fake.moveEntry(path, destination, newName, "file");
    }
    return handle;
  }

  private syncHandle(path: string): SyncAccessHandleLike {
    const fd = openSync(path, "r+");
    let open = true;
    const fake = this;
    const check = (): void => {
      if (!open) throw domError("InvalidStateError", "the access handle is closed");
    };
    const grow = (newSize: number): void => {
      const current = fstatSync(fd).size;
      if (newSize > current && fake.usage() + (newSize - current) > fake.quota) {
        throw domError("QuotaExceededError", "the origin's quota is exceeded");
      }
    };
    return {
      read(buffer, options) {
        check();
        return readSync(fd, buffer, 0, buffer.length, options?.at ?? 0);
      },
      write(buffer, options) {
        check();
        const at = options?.at ?? 0;
        grow(at + buffer.length);
        return writeSync(fd, buffer, 0, buffer.length, at);
      },
      truncate(size) {
        check();
        grow(size);
        ftruncateSync(fd, size);
      },
      getSize() {
        check();
        return fstatSync(fd).size;
      },
      flush() {
        check();
        fsyncSync(fd);
      },
      close() {
        if (!open) return;
        open = false;
        closeSync(fd);
        fake.openFiles.delete(path);
      },
    };
  }

  private async moveEntry(
    path: string,
    destination: DirectoryHandleLike,
    newName: string,
    kind: "file" | "directory",
  ): Promise<void> {
    checkEntryName(newName);
    const target = join(this.pathOf(destination), newName);
    if (kindAt(path) !== kind) throw domError("NotFoundError", `${path} was removed`);
    if (kind === "file" && this.openFiles.has(path)) {
      throw domError("NoModificationAllowedError", "the file has an open access handle");
    }
    const existing = kindAt(target);
    if (existing !== undefined && (this.moveMode === "no-overwrite" || existing !== kind)) {
      throw domError("InvalidModificationError", `${newName} exists`);
    }
    if (existing === "file" && this.openFiles.has(target)) {
      throw domError("NoModificationAllowedError", "the target has an open access handle");
    }
    renameSync(path, target);
  }

  private pathOf(dir: DirectoryHandleLike): string {
    const p = this.paths.get(dir);
    if (p === undefined) throw new TypeError("not a directory handle of this fake");
    return p;
  }

  private lockManager(): LockManagerLike {
    const dir = this.lockPath;
    return {
      async request(name, options, callback) {
        if (options.ifAvailable !== true)
          throw new TypeError("the fake implements ifAvailable requests only");
        const p = join(dir, encodeURIComponent(name));
        try {
          mkdirSync(p);
        } catch {
          return callback(null);
        }
        try {
          const lock: LockLike = { name };
          return await callback(lock);
        } finally {
          rmdirSync(p);
        }
      },
    };
  }
}
