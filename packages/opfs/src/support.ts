/**
 * Whether `OpfsFileSystem` can run in a global scope, and if not, a message naming what is
 * missing and what to use instead. `OpfsFileSystem.open` throws it as NotSupported.
 *
 * Needs: OPFS (`navigator.storage.getDirectory`); a dedicated worker (sync access handles
 * and `Atomics.wait` exist nowhere else: not on a page's main thread, not in a service or
 * shared worker); `FileSystemSyncAccessHandle` (Chrome 102, Safari 15.2, Firefox 111);
 * cross-origin isolation for `SharedArrayBuffer`; Web Locks; nested workers.
 */

const INSTEAD =
  "use MemoryFileSystem from shale (not durable), or run the database in a dedicated worker " +
  "(openInWorker from shale/opfs)";

/** The globals the check looks at (a browser's `globalThis`, or a stand-in in tests). */
export interface SupportScope {
  navigator?: { storage?: { getDirectory?: unknown }; locks?: unknown };
  WorkerGlobalScope?: unknown;
  DedicatedWorkerGlobalScope?: unknown;
  FileSystemSyncAccessHandle?: unknown;
  SharedArrayBuffer?: unknown;
  crossOriginIsolated?: boolean;
  Worker?: unknown;
}

/** `undefined` when the scope can run `OpfsFileSystem`, else why not and what to do. */
export function opfsSupportProblem(scope: SupportScope): string | undefined {
  if (typeof scope.navigator?.storage?.getDirectory !== "function") {
    return `the origin private file system (navigator.storage.getDirectory) is missing here: ${INSTEAD}`;
  }
  if (scope.WorkerGlobalScope === undefined) {
    return (
      "OPFS sync access handles and Atomics.wait exist only in a dedicated worker, and this is a " +
      "page's main thread: run the database in a dedicated worker (openInWorker from shale/opfs), " +
      "or use MemoryFileSystem from shale (not durable)"
    );
  }
  if (scope.DedicatedWorkerGlobalScope === undefined) {
    return `OPFS sync access handles exist only in a dedicated worker, not in a service or shared worker: ${INSTEAD}`;
  }
  if (scope.FileSystemSyncAccessHandle === undefined) {
    return (
      "FileSystemSyncAccessHandle is missing (Chrome < 102, Safari < 15.2, Firefox < 111): " +
      `update the browser, or ${INSTEAD}`
    );
  }
  if (typeof scope.SharedArrayBuffer !== "function" || scope.crossOriginIsolated !== true) {
    return (
      "SharedArrayBuffer needs cross-origin isolation: serve the page and its workers with " +
      "Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, " +
      `or ${INSTEAD}`
    );
  }
  if (typeof scope.navigator.locks !== "object" || scope.navigator.locks === null) {
    return `Web Locks (navigator.locks) are missing, so one writer per database cannot be enforced: ${INSTEAD}`;
  }
  if (typeof scope.Worker !== "function") {
    return `this worker cannot start a nested worker (the OPFS I/O worker): ${INSTEAD}`;
  }
  return undefined;
}
