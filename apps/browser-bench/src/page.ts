/**
 * The bench page's script (bundled for the browser by main.ts): `window.bench(request)` runs
 * one engine's workloads in a fresh dedicated worker and resolves to its results.
 */
import type { BenchRequest, WorkloadResult } from "./workloads.js";

interface PageWorker {
  postMessage(m: unknown): void;
  terminate(): void;
  addEventListener(
    t: "message",
    l: (e: { data: { results?: WorkloadResult[]; error?: string } }) => void,
  ): void;
}

const WorkerClass = (globalThis as unknown as { Worker: new (u: string, o: object) => PageWorker })
  .Worker;

(globalThis as unknown as { bench: (r: BenchRequest) => Promise<WorkloadResult[]> }).bench = (
  request,
) =>
  new Promise((resolve, reject) => {
    const worker = new WorkerClass("./bench-worker.js", { type: "module" });
    worker.addEventListener("message", (e) => {
      worker.terminate();
      if (e.data.error !== undefined) reject(new Error(e.data.error));
      else resolve(e.data.results ?? []);
    });
    worker.postMessage(request);
  });
