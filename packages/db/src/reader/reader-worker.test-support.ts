/**
 * Test helper for the worker reader tests: a worker thread running
 * test-fixtures/reader-worker.mjs (a Reader opened with the BUILT @shale/db), driven by
 * commands; `call` resolves with the worker's result or rejects with its error (its
 * `code` and `type` kept).
 */
import { Worker } from "node:worker_threads";
import type { ReaderHandle } from "../column-family/reader-handle.js";
import { fixturePath } from "../test-support/crash-runner.test-support.js";

export interface WorkerError extends Error {
  code?: string;
  type?: string;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  code?: string;
  type?: string;
  message?: string;
}

export class ReaderWorker {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  readonly ready: Promise<void>;

  constructor(handle: ReaderHandle, options?: Record<string, unknown>) {
    this.worker = new Worker(fixturePath("reader-worker.mjs"), {
      workerData: { handle, options },
      // The BUILT package: not the test runner's flags (its `source` condition).
      execArgv: [],
    });
    this.ready = new Promise((resolve, reject) => {
      this.waiting.set(0, (r) => (r.ok ? resolve() : reject(toError(r))));
    });
    this.worker.on("message", (r: Reply) => {
      const w = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      w?.(r);
    });
    this.worker.on("error", (e) => {
      for (const w of this.waiting.values()) w({ id: -1, ok: false, message: String(e) });
      this.waiting.clear();
    });
  }

  call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, (r) => (r.ok ? resolve(r.result as T) : reject(toError(r))));
      this.worker.postMessage({ id, op, ...args });
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

function toError(r: Reply): WorkerError {
  const e: WorkerError = new Error(r.message ?? "worker failed");
  if (r.code !== undefined) e.code = r.code;
  if (r.type !== undefined) e.type = r.type;
  return e;
}
