/**
 * Background worker entry. It loads the worker body with a dynamic import so that a failure
 * to load (a missing build, a broken install) is reported on the job port as a message —
 * which a writer stalled in a synchronous wait can receive — instead of only as an
 * asynchronous 'error' event.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";

const data = workerData as { port?: MessagePort; finished?: SharedArrayBuffer } | undefined;
const port = data?.port ?? parentPort;
import("./worker-main.js").catch((e: unknown) => {
  port?.postMessage({
    id: -1,
    fatal: true,
    message: e instanceof Error ? (e.stack ?? e.message) : String(e),
  });
  if (data?.finished !== undefined) {
    const finished = new Int32Array(data.finished);
    Atomics.store(finished, 0, 1);
    Atomics.notify(finished, 0);
  }
});
