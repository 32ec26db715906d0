// A Node worker thread standing in for a browser's nested background worker
// (background/nested-worker-executor.test.ts): nested-worker-main.ts's serveBackgroundJobs
// over the node file system, reached through parentPort.
import { parentPort } from "node:worker_threads";
import { NodeFileSystem } from "@shale/base";
import { serveBackgroundJobs } from "@shale/db/internal";

serveBackgroundJobs(
  {
    postMessage: (m) => parentPort.postMessage(m),
    on: (type, listener) => parentPort.on(type, listener),
    close: () => parentPort.close(),
  },
  () => new NodeFileSystem(),
);
