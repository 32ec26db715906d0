/**
 * `shale/opfs`: shale in the browser on the origin private file system. `OpfsFileSystem`
 * (from `@shale/opfs`) for a database in your own dedicated worker; `openInWorker` for a
 * page, which runs the database in a worker of its own behind a promise API.
 */
export * from "@shale/opfs";
export {
  type BatchOperation,
  type Bytes,
  type ExportedFile,
  type OpenInWorkerOptions,
  openInWorker,
  type WorkerClearOptions,
  type WorkerDatabase,
  type WorkerIterator,
  type WorkerIteratorOptions,
  type WorkerWriteOptions,
} from "./open-in-worker.js";
