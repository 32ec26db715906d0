/**
 * Background worker entry. It loads the worker body with a dynamic import so that a failure
 * to load (a missing build, a broken install) is reported on the job port as a message —
 * which a writer stalled in a synchronous wait can receive — instead of only as an
 * asynchronous 'error' event.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";

const port = (workerData as { port?: MessagePort } | undefined)?.port ?? parentPort;
import("./worker-main.js").catch((e: unknown) => {
  port?.postMessage({
    id: -1,
    fatal: true,
    message: e instanceof Error ? (e.stack ?? e.message) : String(e),
  });
});
