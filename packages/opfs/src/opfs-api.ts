/**
 * The part of the browser's origin private file system (OPFS), Web Locks and Storage APIs
 * that `@shale/opfs` uses, typed structurally so the package builds without the DOM
 * library and so a fake (`@shale/opfs/testing`) can stand in for it in Node.
 *
 * Everything on a directory or file handle is asynchronous; only the methods of a
 * `FileSystemSyncAccessHandle` are synchronous, and only a dedicated worker can create one.
 */

/** `FileSystemSyncAccessHandle`: exclusive, synchronous access to one file's bytes. */
export interface SyncAccessHandleLike {
  read(buffer: Uint8Array, options?: { at?: number }): number;
  write(buffer: Uint8Array, options?: { at?: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

/** `FileSystemFileHandle`. `move` is missing in older browsers. */
export interface FileHandleLike {
  readonly kind: "file";
  readonly name: string;
  createSyncAccessHandle(): Promise<SyncAccessHandleLike>;
  move?(destination: DirectoryHandleLike, newName: string): Promise<void>;
}

/** `FileSystemDirectoryHandle`. */
export interface DirectoryHandleLike {
  readonly kind: "directory";
  readonly name: string;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandleLike>;
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirectoryHandleLike>;
  removeEntry(name: string, options?: { recursive?: boolean }): Promise<void>;
  keys(): AsyncIterableIterator<string>;
  move?(destination: DirectoryHandleLike, newName: string): Promise<void>;
}

/** The lock a `LockManager.request` callback receives (null: not available). */
export interface LockLike {
  readonly name: string;
}

/** `navigator.locks` (Web Locks). */
export interface LockManagerLike {
  request<T>(
    name: string,
    options: { ifAvailable?: boolean; mode?: "exclusive" | "shared" },
    callback: (lock: LockLike | null) => T | Promise<T>,
  ): Promise<T>;
}

/** `navigator.storage.estimate()`'s answer. */
export interface StorageEstimateLike {
  usage?: number;
  quota?: number;
}

/** What the I/O worker needs from its global scope (`navigator` in a browser). */
export interface OpfsEnvironment {
  /** `navigator.storage.getDirectory()`: the origin's OPFS root. */
  getDirectory(): Promise<DirectoryHandleLike>;
  /** `navigator.locks`. */
  locks: LockManagerLike;
  /** `navigator.storage.estimate()`. */
  estimate(): Promise<StorageEstimateLike>;
}
