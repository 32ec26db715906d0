/**
 * The body of a nested background worker (a browser's module worker, started by the
 * database's worker; nested-worker-executor.ts): the Web Worker transport of the background
 * jobs (job-runner.ts). The script that calls `serveBackgroundJobs` is the file system's
 * (`shale/opfs/background-worker` for OPFS): it says how to reach the database's files from
 * here (`connect`, e.g. `OpfsFileSystem.connect`).
 *
 * Messages in (structured clones, in order):
 * ```
 * { type: "init", fs, finished, mailbox, started, rateLimiter?, rateAccount? }  first, once
 * a JobMessage (protocol.ts)                                                     then any
 * { type: "close" }                                                              last
 * ```
 * Out: `{ type: "loaded" }` once the script runs; each result through the mailbox (result-mailbox.ts), then the executor's `finished`
 * cell set and notified and `{ type: "wake" }` posted (for a database whose event loop
 * turns); `{ type: "closed" }` after `close`. A failed `init` (the file system cannot be
 * reached) is a `FatalMessage` in the mailbox: the database then runs the jobs itself.
 *
 * The `started` cell (Int32Array(1)) is claimed 0 -> 1 on `init`; found 2, the executor gave
 * up on this worker (it took too long to start) and it takes no job. Each job carries a
 * `claim` cell of its own (`ClaimedJob`), claimed 0 -> 1 before the job runs; found 2, the
 * database ran that job itself (a writer waited while this worker had not started) and it is
 * skipped.
 */
import type { FileSystem } from "@shale/base";
import { JobRunner, serveJobs } from "./job-runner.js";
import type { JobMessage, ResultMessage, WorkerMessage } from "./protocol.js";
import { MailboxWriter } from "./result-mailbox.js";

/** What the worker's global scope (or a stand-in in Node tests) offers. */
export interface BackgroundJobsScope {
  postMessage(message: unknown): void;
  addEventListener?(type: "message", listener: (event: { data: unknown }) => void): void;
  on?(type: "message", listener: (data: unknown) => void): unknown;
  /** Ends the worker (a browser worker's `close()`). */
  close?(): void;
}

/** The first message (see the header). */
export interface BackgroundInitMessage {
  type: "init";
  /** The file system's client handle, for `connect`. */
  fs: unknown;
  finished: SharedArrayBuffer;
  mailbox: SharedArrayBuffer;
  started: SharedArrayBuffer;
  rateLimiter?: SharedArrayBuffer | undefined;
  rateAccount?: SharedArrayBuffer | undefined;
}

export type BackgroundControlMessage = BackgroundInitMessage | { type: "close" };

/** A job as the executor posts it: with its claim cell (Int32Array(1); see the header). */
export type ClaimedJob = JobMessage & { claim?: SharedArrayBuffer };

/** Claims `job` for this worker: false when the database already ran it itself. */
function claim(job: ClaimedJob): boolean {
  return (
    job.claim === undefined || Atomics.compareExchange(new Int32Array(job.claim), 0, 0, 1) === 0
  );
}

function listen(scope: BackgroundJobsScope, listener: (data: unknown) => void): void {
  if (typeof scope.addEventListener === "function")
    scope.addEventListener("message", (event) => listener(event.data));
  else if (typeof scope.on === "function") scope.on("message", listener);
  else throw new TypeError("serveBackgroundJobs: the scope has neither addEventListener nor on");
}

/**
 * Serves the database's background jobs in this worker, over the file system `connect`
 * makes of the handle the database sent. Call it once, from the worker's script.
 */
export function serveBackgroundJobs(
  scope: BackgroundJobsScope,
  connect: (handle: unknown) => FileSystem | Promise<FileSystem>,
): void {
  let fs: FileSystem | undefined;
  let take: ((job: JobMessage) => void) | undefined;
  let writer: MailboxWriter | undefined;
  let finished: Int32Array | undefined;
  let queue: Promise<void> = Promise.resolve();

  const post = (message: WorkerMessage): void => {
    writer!.post(message, () => {
      Atomics.store(finished!, 0, 1);
      Atomics.notify(finished!, 0);
      scope.postMessage({ type: "wake" });
    });
  };

  const init = async (m: BackgroundInitMessage): Promise<void> => {
    writer = new MailboxWriter(m.mailbox);
    finished = new Int32Array(m.finished);
    if (Atomics.compareExchange(new Int32Array(m.started), 0, 0, 1) !== 0) return;
    try {
      fs = await connect(m.fs);
      const runner = new JobRunner(fs, m);
      take = serveJobs(runner, (reply: ResultMessage) => post(reply));
    } catch (e) {
      post({
        id: -1,
        fatal: true,
        message: e instanceof Error ? (e.stack ?? e.message) : String(e),
      });
    }
  };

  const close = async (): Promise<void> => {
    take = undefined;
    try {
      await (fs as { close?: () => unknown } | undefined)?.close?.();
    } finally {
      scope.postMessage({ type: "closed" });
      scope.close?.();
    }
  };

  // The script has loaded: a starter may wait for this before it blocks (a browser may not
  // start a nested worker while its parent's thread is blocked).
  scope.postMessage({ type: "loaded" });
  listen(scope, (data) => {
    const m = data as BackgroundControlMessage | ClaimedJob;
    // In order: a job waits for `init` (its connect may be asynchronous).
    queue = queue.then(() => {
      if (m.type === "init") return init(m);
      if (m.type === "close") return close();
      if ((m.type === "flush" || m.type === "compact" || m.type === "remove") && take !== undefined)
        if (claim(m)) take(m);
    });
  });
}
