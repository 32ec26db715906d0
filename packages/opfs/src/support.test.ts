import { describe, expect, it } from "vitest";
import { opfsSupportProblem, type SupportScope } from "./support.js";

/** A dedicated worker of a cross-origin isolated page in a current browser. */
const worker = (): SupportScope => ({
  navigator: { storage: { getDirectory: () => undefined }, locks: {} },
  WorkerGlobalScope: function WorkerGlobalScope() {},
  DedicatedWorkerGlobalScope: function DedicatedWorkerGlobalScope() {},
  FileSystemSyncAccessHandle: function FileSystemSyncAccessHandle() {},
  SharedArrayBuffer,
  crossOriginIsolated: true,
  Worker: function Worker() {},
});

describe("opfsSupportProblem", () => {
  it("accepts a dedicated worker of a cross-origin isolated page", () => {
    expect(opfsSupportProblem(worker())).toBeUndefined();
  });

  it.each<[string, (s: SupportScope) => void, RegExp]>([
    [
      "no OPFS at all",
      (s) => delete s.navigator!.storage,
      /navigator\.storage\.getDirectory.*MemoryFileSystem/,
    ],
    [
      "a page's main thread",
      (s) => {
        delete s.WorkerGlobalScope;
        delete s.DedicatedWorkerGlobalScope;
      },
      /main thread.*dedicated worker \(openInWorker.*MemoryFileSystem/,
    ],
    [
      "a service worker",
      (s) => delete s.DedicatedWorkerGlobalScope,
      /not in a service or shared worker.*MemoryFileSystem/,
    ],
    [
      "old Safari (no sync handles)",
      (s) => delete s.FileSystemSyncAccessHandle,
      /FileSystemSyncAccessHandle is missing.*Safari < 15\.2/,
    ],
    [
      "no cross-origin isolation",
      (s) => (s.crossOriginIsolated = false),
      /Cross-Origin-Opener-Policy: same-origin/,
    ],
    [
      "no SharedArrayBuffer",
      (s) => delete s.SharedArrayBuffer,
      /SharedArrayBuffer needs cross-origin isolation/,
    ],
    ["no Web Locks", (s) => delete s.navigator!.locks, /Web Locks \(navigator\.locks\)/],
    ["no nested workers", (s) => delete s.Worker, /nested worker/],
  ])("names what is missing and what to use instead: %s", (_, change, message) => {
    const scope = worker();
    change(scope);
    expect(opfsSupportProblem(scope)).toMatch(message);
  });
});
