// A Node worker thread standing in for the browser's nested background worker
// (opfs-background.test.ts): serveBackgroundJobs over an OPFS client, as
// shale/opfs/background-worker does in a browser, reached through parentPort.
import { parentPort } from "node:worker_threads";
import { serveBackgroundJobs } from "@shale/db/internal";
import { OpfsFileSystem } from "@shale/opfs";

serveBackgroundJobs(
  {
    postMessage: (m) => parentPort.postMessage(m),
    on: (type, listener) => parentPort.on(type, listener),
    close: () => parentPort.close(),
  },
  (handle) => OpfsFileSystem.connect(handle),
);
