/**
 * Starts the worker of `publishChanges(db, { worker: true })` (publisher-worker.ts) and
 * drives it from the database's thread: `kick` and `close` go to it; what it stores and
 * why it stopped come back to the publisher's `LoopListener`. A worker that dies (its
 * 'error' or an exit before it said it closed) stops the publisher with that error.
 *
 * Finding the worker file: `publisher-worker.js` beside this module (dist/); run from the
 * sources (the tests), the built one in dist/.
 *
 * Threading: the database's thread.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ShaleError, workerExecArgv } from "@shale/base";
import type { LoopListener } from "./publish-loop.js";
import {
  type FromWorker,
  fromWire,
  type PublisherWorkerData,
  type ToWorker,
} from "./publisher-worker-messages.js";

/** The worker script: beside this module, or built in dist/ when this runs from src/. */
function workerUrl(): URL {
  const name = "publisher-worker.js";
  const here = new URL(`./${name}`, import.meta.url);
  if (here.protocol !== "file:" || existsSync(fileURLToPath(here))) return here;
  const built = new URL(`../dist/${name}`, import.meta.url);
  if (/\/src\/[^/]*$/.test(here.pathname) && existsSync(fileURLToPath(built))) return built;
  throw ShaleError.notSupported(
    `the publisher's worker ${fileURLToPath(here)} is missing (a bundle needs it beside it; an install needs its dist/)`,
  );
}

/**
 * A worker thread with the parent's Node options (a test runner's `--conditions` left out),
 * or none where a worker refuses them.
 */
function spawn(data: PublisherWorkerData): Worker {
  const url = workerUrl();
  try {
    return new Worker(url, { workerData: data, execArgv: workerExecArgv() });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw e;
    return new Worker(url, { workerData: data, execArgv: [] });
  }
}

/**
 * Starts the worker; resolves once it is connected and reading the WALs (rejects with
 * its error otherwise). `listener` hears of what is stored and of a stop on an error.
 */
export async function startPublisherWorker(
  data: PublisherWorkerData,
  listener: LoopListener,
): Promise<{ kick(): void; close(): Promise<void> }> {
  const worker = spawn(data);
  const send = (m: ToWorker) => worker.postMessage(m);
  let closed = false;
  let failed = false;
  const fail = (e: Error) => {
    if (failed) return;
    failed = true;
    listener.failed(e);
  };
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    worker.on("message", (m: FromWorker) => {
      if (m.type === "stored") listener.stored(m.sequence);
      else if (m.type === "closed") closed = true;
      else if (m.type === "ready") {
        ready = true;
        resolve();
      } else {
        const e = fromWire(m.error);
        if (ready) fail(e);
        else reject(e);
      }
    });
    worker.on("error", (e) => (ready ? fail(e) : reject(e)));
    worker.once("exit", (code) => {
      const e = ShaleError.closed(`the publisher's worker ended (exit code ${code})`);
      if (!ready) reject(e);
      else if (!closed) fail(e);
    });
  }).catch(async (e: unknown) => {
    await worker.terminate();
    throw e;
  });
  return {
    kick: () => {
      if (!closed && !failed) send({ type: "kick" });
    },
    close: async () => {
      if (!closed) send({ type: "close" });
      await exited;
    },
  };
}
