/**
 * Background worker entry. It loads the worker body with a dynamic import so that a failure
 * to load (a missing build, a broken install) is reported on the job port as a message —
 * which a writer stalled in a synchronous wait can receive — instead of only as an
 * asynchronous 'error' event.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";

const data = workerData as
  | { port?: MessagePort; finished?: SharedArrayBuffer; started?: SharedArrayBuffer }
  | undefined;
const port = data?.port ?? parentPort;
// The start cell (worker-executor.ts): claimed before any job is taken. Found given up (2),
// the executor runs this worker's jobs itself: take none (the port stays silent).
const claimed =
  data?.started === undefined ||
  Atomics.compareExchange(new Int32Array(data.started), 0, 0, 1) === 0;
if (claimed) start();

function start(): void {
  import("./worker-main.js").catch(fatal);
}

function fatal(e: unknown): void {
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
}
